#!/bin/sh
# scalemeter calibrate as an operator runs it: under mpirun with 2 ranks, then with 1 rank into
# the same files, then once more (nothing left to measure).
# usage: test_calibrate_cli.sh SCALEMETER MPIEXEC NP_FLAG [MPIRUN FLAGS...]
set -eu
scalemeter=$1 mpiexec=$2 np=$3
shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# 4 networks x 1 image x 2 batches: 8 rows per layout, enough for the 5 coefficients of a pass
# with --weight-term, also in each leave-one-model-out fit (6 rows)
small="--model resnet18,mobilenet_v2,squeezenet1_0,shufflenet_v2_x1_0 --image 32 --batch 1,2
       --reps 1 --min-time 0.01 --warmup 1 -o $dir/cal"
# rows measured on NODES nodes with PER_NODE ranks each
rows() { awk -F, -v n="$1" -v g="$2" 'NR > 1 && $4 == n && $5 == g' "$dir/cal.csv" | wc -l; }

# 2 ranks on one host: 2 devices per row; one device count cannot separate the communication
# terms, so the fit leaves them out and says so.
"$mpiexec" "$np" 2 "$@" "$scalemeter" calibrate $small >"$dir/out1" 2>&1 ||
    fail "calibrate under mpirun: $(tail -5 "$dir/out1")"
[ "$(rows 1 2)" -eq 8 ] || fail "expected 8 rows of 1 node x 2 ranks: $(cat "$dir/cal.csv")"
grep -q "cannot separate the communication terms of grad" "$dir/out1" || fail "no note: $(cat "$dir/out1")"
grep -q "^comm_unidentified = yes" "$dir/cal.ini" || fail "ini: $(cat "$dir/cal.ini")"
grep -q '"phases"' "$dir/cal-loo.json" || fail "no LOO report"

# 1 rank into the same files: single-device rows join, and grad gains its communication terms
"$scalemeter" calibrate $small >"$dir/out2" 2>&1 || fail "calibrate, 1 rank: $(tail -5 "$dir/out2")"
[ "$(rows 1 1)" -eq 8 ] || fail "expected 8 single-device rows: $(cat "$dir/cal.csv")"
[ "$(rows 1 2)" -eq 8 ] || fail "the 2-rank rows changed: $(cat "$dir/cal.csv")"
grep -q "^multi_device = yes" "$dir/cal.ini" || fail "ini: $(cat "$dir/cal.ini")"
grep -q "^c[0-9]*_\(devices\|intra_bytes\|intra_bytes_shared\) = " "$dir/cal.ini" || fail "no communication term: $(cat "$dir/cal.ini")"
"$scalemeter" predict resnet50 --coeffs "$dir/cal.ini" --batch 2 --gpus-per-node 2 \
    --format json >"$dir/predict" 2>&1 || fail "predict: $(cat "$dir/predict")"
grep -q '"t_grad"' "$dir/predict" || fail "predict: $(cat "$dir/predict")"

# Again: everything is measured already; no row is added
"$scalemeter" calibrate $small >"$dir/out3" 2>&1 || fail "rerun: $(tail -5 "$dir/out3")"
grep -q "0 configurations measured" "$dir/out3" || fail "rerun measured again: $(cat "$dir/out3")"
[ "$(tail -n +2 "$dir/cal.csv" | wc -l)" -eq 16 ] || fail "rows duplicated: $(cat "$dir/cal.csv")"
echo "1 passed, 0 failed"
