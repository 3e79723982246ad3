#!/bin/sh
# predict is curve's one-point case: for the same options, predict's CSV (header and row) is
# curve's CSV at that one node count, byte for byte (docs/output.md). The two commands compute
# and write on their own paths (sm_predict and sm_curve_compute), so equality is the contract.
# Beside it, numbers fixed by hand: 256 per device x 4 nodes x 8 = 8192 global, 32 devices,
# efficiency 1 and no turning point for one point.
# usage: test_predict_curve_csv.sh SCALEMETER SOURCE_DIR
set -u
bin=$1
cd "$2" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
same() { # NODES OPTIONS...: predict and curve at NODES give the same CSV
    nodes=$1
    shift
    "$bin" predict "$@" --nodes "$nodes" --format csv >"$tmp/p" 2>/dev/null || {
        echo "FAIL: predict $* --nodes $nodes exits $?"
        fail=1
        return
    }
    model=$1
    shift
    "$bin" curve "$model" "$@" --nodes "$nodes" --format csv >"$tmp/c" 2>/dev/null || {
        echo "FAIL: curve $model $* --nodes $nodes exits $?"
        fail=1
        return
    }
    if ! cmp -s "$tmp/p" "$tmp/c"; then
        echo "FAIL: predict and curve differ for $model $* --nodes $nodes"
        diff "$tmp/p" "$tmp/c" | sed 's/^/  | /'
        fail=1
    fi
}
E=tests/data/fit/energy_coeffs.ini
same 4 resnet50 --batch 256 --coeffs h100-pytorch-tf32 -g 8 --epochs 90
same 1 resnet50 --batch 32 --coeffs default --image 160 --dataset 50000
same 2 tests/data/fit/tiny_a.ini --batch 2 --coeffs $E --dataset 1000 --epochs 3
same 8 resnet50 --batch 64 --device h100 --overlap --bucket-mib 50 --collective nccl \
    --algorithm Ring,Tree --protocol Simple --framework cuda-graphs
same 1 resnet50 --batch 4096 --device h100 -g 1 --precision bf16
same 2 resnet50 --batch 64 --coeffs h100-pytorch-tf32 --device h100 --collective ring
same 4 llama3_8b --batch 1 --device h100 --seq 4096 --shard full --checkpoint full \
    --tokens 15T --optimizer adamw --precision bf16 --epochs 2
same 1 gpt2 --batch 8 --device h100 --optimizer adam --shard optimizer --checkpoint selective

# the columns curve gave predict, with values fixed by hand
"$bin" predict resnet50 --batch 256 --coeffs h100-pytorch-tf32 --nodes 4 -g 8 --format csv \
    2>/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { got = $col["global_batch"] " " $col["devices"] " " $col["efficiency"] " [" \
                $col["turning_point"] "] " $col["precision"] }
        END { if (got != "8192 32 1 [] tf32") { print "FAIL: predict CSV: " got; exit 1 } }' ||
    fail=1
exit $fail
