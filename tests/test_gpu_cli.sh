#!/bin/sh
# The GPU backend's commands as a user runs them (tests/gpu.cmake runs this).
#
#   test_gpu_cli.sh backends BUILT SCALEMETER
#       `backends` lists cpu, cuda, ring, mpi, nccl and nvml, in a table and in JSON; cuda and
#       nccl built (BUILT = yes) or not (no); a usable cuda says which device, an unusable one why
#   test_gpu_cli.sh nccl SCALEMETER [LAUNCHER...]
#       with a CUDA device: `allreduce --impl nccl` sweeps 4 B to 1 MiB, 19 rows of 6 fields,
#       sizes doubling, busbw = algbw * 2(n-1)/n, every sum checked (a wrong one exits non-zero);
#       without one: "no CUDA device: skipped", exit 77
#   test_gpu_cli.sh bench RANKS SCALEMETER [LAUNCHER...]
#       `bench --backend cuda` of a small network on RANKS ranks (LAUNCHER: mpirun ... -np RANKS,
#       or nothing for one rank). Where RANKS GPUs are visible: 2 rows of the 21 columns (times
#       positive, backend cuda, precision fp32, conv_algo measure, the device named, energy a
#       number or empty), the same on stdout, and a second run that measures nothing. Where
#       fewer are: one message ("no CUDA device", or "N ranks on this host share M GPUs"), a
#       non-zero exit, no file
#   test_gpu_cli.sh precisions SCALEMETER
#       with a CUDA device: `bench --backend cuda --precision fp16|bf16` of resnet18 (convolutions,
#       a product) and tiny_resnet, each row ok with its precision named and positive times;
#       without one: "no CUDA device: skipped", exit 77
#   test_gpu_cli.sh calibrate SCALEMETER
#       with a CUDA device: `calibrate --backend cuda` of 3 networks x 2 images x 2 batches
#       writes the CSV (12 rows), the coefficient file naming the GPU and the leave-one-model-out
#       JSON; without one: "no CUDA device: skipped", exit 77
#   test_gpu_cli.sh kernel_crash SCALEMETER HOSTILE_FOLDER
#       with a CUDA device: `bench --backend cuda` of a network whose plugin's GPU module faults
#       in its forward's host code (HOSTILE_FOLDER/kernel_crashes) names the kernel, its type,
#       its plugin and bench before the process dies of it (it died with Open MPI's backtrace
#       alone); without one: "no CUDA device: skipped", exit 77
#   test_gpu_cli.sh fails PATTERN COMMAND...
#       a non-zero exit status and exactly one "scalemeter" line on stderr, matching PATTERN
set -u
mode=$1
shift
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

# Whether `backends` says cuda is usable here; its detail line otherwise.
device_visible() {
    "$1" backends --format json | grep -q '"name": "cuda", "kind": "compute", "built": true, "usable": true'
}

# Exits 77 ("skipped", as ctest's SKIP_RETURN_CODE) where `backends` says cuda is not usable.
skip_without_device() {
    device_visible "$1" || { echo "no CUDA device: skipped"; exit 77; }
}

case $mode in
backends)
    built=$1 bin=$2
    "$bin" backends >"$out" 2>"$err" || { echo "exit status $?"; cat "$err"; exit 1; }
    awk -v built="$built" '
        NR == 1 { if ($1 != "backend" || $2 != "kind" || $3 != "built" || $4 != "usable" ||
                      $5 != "detail") { print "header: " $0; bad = 1 } next }
        { seen[$1] = 1; kind[$1] = $2; b[$1] = $3; u[$1] = $4; n++ }
        END {
            if (n != 6) { print n " rows, expected 6"; bad = 1 }
            split("cpu compute yes ring collective yes mpi collective yes nvml energy yes", want)
            for (i = 1; i <= 12; i += 3)
                if (kind[want[i]] != want[i + 1] || b[want[i]] != want[i + 2]) {
                    print want[i] ": " kind[want[i]] " " b[want[i]]; bad = 1 }
            if (u["cpu"] != "yes" || u["ring"] != "yes" || u["mpi"] != "yes") {
                print "cpu, ring and mpi must be usable"; bad = 1 }
            if (b["cuda"] != built || b["nccl"] != built) { print "cuda/nccl built: " b["cuda"]; bad = 1 }
            if (built == "no" && (u["cuda"] != "no" || u["nccl"] != "no")) { print "usable unbuilt"; bad = 1 }
            if (u["cuda"] != u["nccl"]) { print "cuda and nccl usable differ"; bad = 1 }
            exit bad
        }' "$out" || { cat "$out"; exit 1; }
    if [ "$built" = yes ] && grep -q '^cuda .* no ' "$out"; then
        grep -q '^cuda .* no  *no CUDA device' "$out" || { echo "cuda unusable without a reason"; cat "$out"; exit 1; }
    fi
    if grep -q '^cuda .* yes  *yes ' "$out"; then
        grep -q '^cuda .*1* device.*sm_[0-9]*.*cuDNN [0-9]*\.[0-9]*\.[0-9]*, NCCL' "$out" ||
            { echo "a usable cuda names its device and libraries"; cat "$out"; exit 1; }
    fi
    "$bin" backends --format json >"$out" 2>"$err" || { echo "json: exit status $?"; exit 1; }
    json_built=false
    [ "$built" = yes ] && json_built=true
    for name in cpu ring mpi; do
        grep -q "{\"name\": \"$name\", \"kind\": \"[a-z]*\", \"built\": true, \"usable\": true, \"detail\": \"" "$out" ||
            { echo "json: $name"; cat "$out"; exit 1; }
    done
    for name in cuda nccl; do
        grep -q "{\"name\": \"$name\", \"kind\": \"[a-z]*\", \"built\": $json_built, \"usable\": \(true\|false\), \"detail\": \"" "$out" ||
            { echo "json: $name"; cat "$out"; exit 1; }
    done
    head -1 "$out" | grep -q '^{"warning": null, "backends": \[$' && tail -1 "$out" | grep -q '^\]}$' ||
        { echo "json: not one object"; cat "$out"; exit 1; }
    ;;
nccl)
    bin=$1
    shift
    skip_without_device "$bin"
    "$@" "$bin" allreduce --impl nccl --min-bytes 4 --max-bytes 1M --iters 5 --warmup 2 \
        --format csv >"$out" 2>"$err"
    rc=$?
    [ $rc -eq 0 ] || { echo "exit status $rc"; cat "$err"; exit 1; }
    awk -F, '
        function off(a, b) { return a > b ? a - b : b - a }
        function bad(why) { print "line " NR ": " why ": " $0; failed = 1 }
        NR == 1 { if ($0 != "bytes,impl,ranks,nodes,time_s,algbw_gb_s,busbw_gb_s") bad("header"); next }
        {
            n++
            if (NF != 7) { bad(NF " fields"); next }
            if ($2 != "nccl") bad("impl")
            if (n > 1 && $1 != 2 * last) bad("size does not double")
            last = $1
            if ($4 != 1) bad("nodes")
            if ($5 <= 0) bad("time_s")
            algbw = $1 / $5 / 1e9
            if (off($6, algbw) > 1e-3 * algbw + 1e-4) bad("algbw is not bytes / time")
            busbw = $6 * 2 * ($3 - 1) / $3
            if (off($7, busbw) > 1e-3 * busbw + 1e-4) bad("busbw is not algbw * 2(n-1)/n")
        }
        END { if (n != 19) { print n " rows, expected 19"; failed = 1 } exit failed }' "$out" ||
        { cat "$out"; exit 1; }
    cat "$out"
    ;;
bench)
    ranks=$1 bin=$2
    shift 2
    devices=$("$bin" backends | sed -n 's/^cuda .* yes  *yes .*; \([0-9]*\) device.*/\1/p')
    devices=${devices:-0}
    dir=$(mktemp -d)
    csv=$dir/runs.csv
    run() {
        "$@" "$bin" bench --backend cuda --model examples/tiny_resnet.ini --image 16,24 \
            --batch 2 --warmup 1 --reps 3 --min-time 0.05 -o "$csv"
    }
    if [ "$devices" -lt "$ranks" ]; then
        run "$@" >"$out" 2>"$err" && { echo "exit status 0 with $devices GPUs"; exit 1; }
        [ "$(grep -c '^scalemeter' "$err")" -eq 1 ] || { echo "not one message:"; cat "$err"; exit 1; }
        if [ "$devices" -eq 0 ]; then want="no CUDA device"; else want="ranks on this host share"; fi
        grep -q "$want" "$err" || { echo "expected '$want':"; cat "$err"; exit 1; }
        [ ! -e "$csv" ] || { echo "the file was created"; exit 1; }
        echo "$devices GPUs for $ranks ranks: refused as expected: $(cat "$err")"
        rm -rf "$dir"
        exit 0
    fi
    run "$@" >"$out" 2>"$err" || { echo "exit status $?"; cat "$err"; rm -rf "$dir"; exit 1; }
    header="model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step,backend,threads,reps,status,precision,conv_algo,device,energy_j,energy_infer_j,energy_window_s,energy_infer_window_s,allreduce,bucket_mib"
    awk -F, -v header="$header" -v ranks="$ranks" '
        function bad(why) { print "line " NR ": " why ": " $0; failed = 1 }
        NR == 1 { if ($0 != header) bad("header"); next }
        {
            n++
            if (NF != 23) { bad(NF " fields"); next }
            if ($4 != 1 || $5 != ranks) bad("layout")
            for (k = 6; k <= 10; k++) if (!($k > 0)) bad("time " k)
            if ($11 != "cuda" || $14 != "ok" || $15 != "fp32" || $16 != "measure") bad("labels")
            if ($17 == "") bad("device")
            if ($18 != "" && !($18 > 0)) bad("energy_j")
            if ($19 != "" && !($19 > 0)) bad("energy_infer_j")
            # energy over at least a second, its window written where its joules are
            if (($18 == "") != ($20 == "") || ($20 != "" && !($20 >= 1))) bad("energy_window_s")
            if (($19 == "") != ($21 == "") || ($21 != "" && !($21 >= 1))) bad("energy_infer_window_s")
            # NCCL's on several ranks, in bench's 25 MiB buckets; nothing on one
            if (ranks > 1 && ($22 != "nccl" || $23 != 25)) bad("all-reduce")
            if (ranks == 1 && ($22 != "" || $23 != "")) bad("all-reduce on one rank")
        }
        END { if (n != 2) { print n " rows, expected 2"; failed = 1 } exit failed }' "$csv" ||
        { cat "$csv" "$err"; rm -rf "$dir"; exit 1; }
    cp "$csv" "$dir/first"
    run "$@" >"$out" 2>"$err" || { echo "second run: exit status $?"; cat "$err"; rm -rf "$dir"; exit 1; }
    cmp -s "$csv" "$dir/first" || { echo "the second run changed the file"; rm -rf "$dir"; exit 1; }
    cat "$csv"
    rm -rf "$dir"
    ;;
precisions)
    bin=$1
    skip_without_device "$bin"
    dir=$(mktemp -d)
    for p in fp16 bf16; do
        "$bin" bench --backend cuda --precision "$p" --model resnet18,examples/tiny_resnet.ini \
            --image 64 --batch 8 --warmup 1 --reps 3 --min-time 0.05 -o "$dir/$p.csv" \
            >"$out" 2>"$err" || { echo "$p: exit status $?"; cat "$err"; rm -rf "$dir"; exit 1; }
        awk -F, -v p="$p" '
            function bad(why) { print p " line " NR ": " why ": " $0; failed = 1 }
            NR == 1 { next }
            {
                n++
                for (k = 6; k <= 10; k++) if (!($k > 0)) bad("time " k)
                if ($11 != "cuda" || $14 != "ok" || $15 != p) bad("labels")
            }
            END { if (n != 2) { print p ": " n " rows, expected 2"; failed = 1 } exit failed }' \
            "$dir/$p.csv" || { cat "$dir/$p.csv" "$err"; rm -rf "$dir"; exit 1; }
        cat "$dir/$p.csv"
    done
    rm -rf "$dir"
    ;;
calibrate)
    bin=$1
    skip_without_device "$bin"
    dir=$(mktemp -d)
    "$bin" calibrate --backend cuda --model resnet18,mobilenet_v2,squeezenet1_0 --image 32,64 \
        --batch 2,4 --warmup 1 --reps 3 --min-time 0.05 -o "$dir/cal" >"$out" 2>"$err" ||
        { echo "exit status $?"; cat "$err"; rm -rf "$dir"; exit 1; }
    rows=$(tail -n +2 "$dir/cal.csv" | grep -c ',cuda,')
    [ "$rows" -eq 12 ] || { echo "$rows rows, expected 12"; cat "$dir/cal.csv"; rm -rf "$dir"; exit 1; }
    name=$("$bin" backends | sed -n 's/^cuda .*device[s]*: \([^(]*\) (sm_.*/\1/p' | sed 's/ *$//')
    grep -q "$name, cuda fp32" "$dir/cal.ini" ||
        { echo "the coefficient file does not name '$name, cuda fp32'"; head "$dir/cal.ini"; rm -rf "$dir"; exit 1; }
    grep -q '"phases"' "$dir/cal-loo.json" || { echo "no validation"; rm -rf "$dir"; exit 1; }
    cat "$out"
    rm -rf "$dir"
    ;;
kernel_crash)
    bin=$1 hostile=$2
    skip_without_device "$bin"
    dir=$(mktemp -d)
    printf '[network]\nname = kcrash\ninput = 3x8x8\n[layers]\na = relu\nk = test_kernel_crashes\n' \
        >"$dir/kcrash.ini"
    so=$hostile/kernel_crashes/kernel_crashes.so
    SCALEMETER_PLUGIN_PATH=$hostile/kernel_crashes "$bin" bench --backend cuda \
        --model "$dir/kcrash.ini" --batch 1 --reps 1 --warmup 1 --min-time 0.01 \
        -o "$dir/kcrash.csv" >"$out" 2>"$err"
    rc=$?
    rm -rf "$dir"
    want="scalemeter: the GPU forward kernel of layer type 'test_kernel_crashes' (plugin $so) in bench crashed (a fault inside its code)"
    [ $rc -ne 0 ] && grep -qF "$want" "$err" || { echo "exit $rc, expected: $want"; cat "$err"; exit 1; }
    ;;
fails)
    pattern=$1
    shift
    "$@" >"$out" 2>"$err"
    rc=$?
    if [ $rc -eq 0 ]; then
        echo "exit status 0, expected an error"
        cat "$out" "$err"
        exit 1
    fi
    lines=$(grep -c '^scalemeter' "$err")
    if [ "$lines" -ne 1 ] || ! grep -q -- "$pattern" "$err"; then
        echo "expected one line matching '$pattern', got:"
        cat "$err"
        exit 1
    fi
    ;;
*)
    echo "test_gpu_cli.sh: unknown mode $mode"
    exit 2
    ;;
esac
