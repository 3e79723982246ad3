#!/bin/sh
# Validates the GPU backend on a machine with an NVIDIA GPU, in one call (docs/gpu.md):
#
#   setup   find scalemeter: the tarball of tools/pack-offline.sh (for a node with no MPI and no
#           package registry, e.g. one with only the CUDA driver and PyTorch), else build here
#   test    the GPU tests (every GPU kernel against the CPU's, zoo networks training, NCCL,
#           the energy meter), `scalemeter backends`, one bench row checked
#   bench   scalemeter calibrate --backend cuda over >= 10 zoo CNNs x images x batches (the
#           measurements, the coefficients, the leave-one-model-out report)
#   torch   examples/pytorch/measure.py --device cuda over the same configurations
#   report  tables (a) to (d) of issue 7 (tools/gpu_report.py) and both coefficient files
#   models  (not in the default phases) the networks beyond CNNs on the GPU: vit_b_16, bert_base
#           and gpt2 of the zoo, swin_t and vit_b_32 exported by tools/export_torch.py, an LSTM
#           and a transformer encoder of tests/data/sequence_models.py; PyTorch beside the
#           torchvision ones (measure.py)
#   layers  (not in the default phases) per-op timings of eager PyTorch by torch.profiler, at
#           fp32, tf32 and bf16 (tools/torch_layer_profile.py; issue 38 item 4)
#   memory  (not in the default phases) what PyTorch's allocator holds while 16 zoo networks
#           train and infer, fp32 and bf16, and the largest training batch of two
#           (tools/torch_gpu_memory.py; issue 38 item 6)
#   repeat  (not in the default phases) the shipped H100 set of --repeat-precision (bf16 unless
#           named), its configurations of --models, 3 rounds in shuffled orders, CUDA events
#           (tools/torch_repeat_runs.py; item 5)
#   ranks   (not in the default phases) data-parallel CPU training at 1 to 16 ranks on the
#           machine's cores, with its topology and the ranks' bindings (tools/rank_study.sh:
#           ranks.csv, ranks.csv.lscpu, ranks.csv.bindings)
#
#   tools/gpu-validate.sh [--phase LIST] [--pack TARBALL] [--out DIR] [--quick]
#                         [--precision fp32|tf32] [--models LIST] [--images LIST]
#                         [--batches LIST] [--points LIST] [--time-limit SECONDS]
#                         [--repeat-precision fp32|tf32|bf16]
#
#   --phase LIST   comma-separated phases (default: setup,test,bench,torch,report; models,
#                  layers, memory, repeat and ranks only when named); setup
#                  always runs. Every phase resumes: the CSVs keep what was measured, so a
#                  call cut off by a time limit goes on where it stopped when run again; on a
#                  fresh machine layers, memory and repeat start from the CSVs an earlier
#                  lease committed under configs/calibrations/ (<gpu>-pytorch-*)
#   --pack FILE    the offline tarball (default: the first of $SM_PACK,
#                  build-offline/scalemeter-offline-x86_64.tar.gz, .offline/*.tar.gz)
#   --out DIR      where the results go (default: $OUT if set, else build-validate/out):
#                  report.md, the two CSVs and coefficient files, gpu-tests.log, backends.txt,
#                  validate.log (its lines stamped with the UTC time), clocks.csv (the SM
#                  clock, memory clock, power and temperature every half second) and host.txt
#                  (lscpu: the host's processor): 10 files
#   --quick        6 networks x 2 images x 2 batches, for a first look
#   --points LIST  the layers phase's BATCHxIMAGE points (default 32x224,128x224,256x224,64x128)
#   --repeat-precision P  the repeat phase's set: configs/calibrations/h100-pytorch-P.csv, run
#                  at P into <gpu>-pytorch-P-rounds.csv (default bf16; fp32 reruns the set that
#                  was timed by wall clock with CUDA events)
#   --time-limit S the memory, layers and repeat phases start no new measurement after S
#                  seconds each (default: none); what they measured is kept, and a later call
#                  goes on from there
#
# Work files live in build-validate/ (ignored by git, kept between calls on the same machine).
# The CSVs are named after the GPU: configs/calibrations/h100-scalemeter-fp32.csv and
# h100-pytorch-fp32.csv once copied from DIR into the sources.
set -u

src=$(cd "$(dirname "$0")/.." && pwd)
work=$src/build-validate
phases=setup,test,bench,torch,report
pack=${SM_PACK:-}
out=${OUT:-$work/out}
precision=fp32
models=resnet18,resnet50,resnext50_32x4d,mobilenet_v2,mobilenet_v3_large,efficientnet_b0
models=$models,densenet121,googlenet,squeezenet1_0,shufflenet_v2_x1_0,regnet_y_400mf,mnasnet1_0
models=$models,vgg11
images=64,128,224
batches=8,32,64
points=32x224,128x224,256x224,64x128
time_limit=0
repeat_precision=bf16
while [ $# -gt 0 ]; do
    case $1 in
    --phase) phases=setup,$2; shift 2 ;;
    --pack) pack=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --precision) precision=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --images) images=$2; shift 2 ;;
    --batches) batches=$2; shift 2 ;;
    --points) points=$2; shift 2 ;;
    --time-limit) time_limit=$2; shift 2 ;;
    --repeat-precision) repeat_precision=$2; shift 2 ;;
    --quick)
        models=resnet18,resnet50,mobilenet_v2,efficientnet_b0,densenet121,squeezenet1_0
        images=64,128; batches=8,32; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "gpu-validate.sh: unexpected argument '$1' (--help)" >&2; exit 2 ;;
    esac
done
case $precision in fp32|tf32) ;; *) echo "gpu-validate.sh: --precision fp32 or tf32" >&2; exit 2 ;; esac
case $repeat_precision in fp32|tf32|bf16) ;; *)
    echo "gpu-validate.sh: --repeat-precision fp32, tf32 or bf16" >&2; exit 2 ;; esac
mkdir -p "$work" "$out"
log=$out/validate.log
say() { echo "gpu-validate.sh: $(date -u +%T) $*" | tee -a "$log" >&2; }
has() { case ",$phases," in *",$1,"*) return 0 ;; esac; return 1; }
failures=0

# ---- setup: a scalemeter to run ----------------------------------------------------------------
say "$(date -u +%FT%TZ) phases $phases on $(uname -n)"
if ! nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
    >"$work/gpu.txt" 2>"$work/gpu.err"; then
    say "nvidia-smi failed: $(cat "$work/gpu.err")"
    echo "unknown GPU" >"$work/gpu.txt"
fi
gpu=$(head -1 "$work/gpu.txt" | cut -d, -f1)
slug=$(echo "$gpu" | tr 'A-Z' 'a-z' | grep -o -E 'h100|h200|a100|l40s|l4|a10|v100|b200|gh200' | head -1)
[ -n "$slug" ] || slug=$(echo "$gpu" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9-' | cut -c1-24)
[ -n "$slug" ] || slug=gpu
say "GPU: $(cat "$work/gpu.txt")"
# The SM clock and power all along, so that each phase's clock under load can be read beside
# validate.log's stamped lines: whether a part holds its clock under the same power limit (the
# H200 beside the H100, docs/accuracy-gpus.md) is not in any datasheet.
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu \
    --format=csv,noheader -lms 500 >>"$out/clocks.csv" 2>/dev/null &
sampler=$!
# What a measuring phase has written so far reaches $out even when a time limit stops this
# script (a lease's timeout sends TERM): the child is waited for in the background, so the trap
# runs at once, stops it and copies its rows (gzipped where named *.gz).
child=
pending=
pending_to=
save_pending() {
    [ -n "$pending" ] && [ -s "$pending" ] || return 0
    case $pending_to in
    *.gz) gzip -c "$pending" >"$pending_to" ;;
    *) cp "$pending" "$pending_to" ;;
    esac
}
# runs "$@" as the phase's child, its rows in $1 to be saved to $2 if this script is stopped
measuring() {
    pending=$1 pending_to=$2
    shift 2
    "$@" &
    child=$!
    wait "$child"
    rc=$?
    child=
    return $rc
}
# (the tool is waited for after its TERM: the copy then holds its last row)
trap '[ -n "$child" ] && { kill "$child" 2>/dev/null; wait "$child" 2>/dev/null; }
      save_pending; kill $sampler 2>/dev/null' EXIT
trap 'say "stopped (signal): what was measured is in $out"; exit 143' TERM INT HUP

if [ -z "$pack" ]; then
    for f in "$src"/build-offline/scalemeter-offline-x86_64.tar.gz "$src"/.offline/*.tar.gz; do
        [ -f "$f" ] && { pack=$f; break; }
    done
fi
if [ -n "$pack" ]; then
    if [ ! -x "$work/pack/scalemeter-offline/bin/scalemeter" ] || [ "$pack" -nt "$work/pack" ]; then
        rm -rf "$work/pack" && mkdir -p "$work/pack" && tar -C "$work/pack" -xzf "$pack" ||
            { say "cannot unpack $pack"; exit 1; }
    fi
    # this script runs under sh, which does not tell env.sh where it is: say it
    SCALEMETER_OFFLINE=$work/pack/scalemeter-offline . "$work/pack/scalemeter-offline/env.sh" ||
        { say "env.sh of $pack failed"; exit 1; }
    bin=$work/pack/scalemeter-offline/bin
    say "scalemeter from $pack; CUDA libraries from: $(echo "$LD_LIBRARY_PATH" | tr ':' '\n' | grep -i -E 'nvidia|cuda' | tr '\n' ' ')"
else
    # a machine with the build dependencies (MPI, inih, LAPACKE, OpenBLAS, CUDA, cuDNN, NCCL)
    say "no offline tarball: building in $work/build"
    { cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release &&
      cmake --build "$work/build" -j"$(nproc)"; } >>"$log" 2>&1 ||
        { say "build failed (see $log); on a node without MPI use tools/pack-offline.sh elsewhere"; exit 1; }
    bin=$work/build/bin
fi
sm=$bin/scalemeter
"$sm" backends >"$out/backends.txt" 2>&1
# The host's processor: eager PyTorch's small configurations run at its pace (the same H100
# set measured in two leases differed by 0.2 where the host dispatches; docs/accuracy.md)
{ lscpu 2>/dev/null || cat /proc/cpuinfo; } >"$out/host.txt"
cat "$out/backends.txt" >>"$log"
grep -q '^cuda .* yes  *yes ' "$out/backends.txt" ||
    { say "the cuda backend is not usable here:"; cat "$out/backends.txt" >&2; exit 1; }

sm_csv=$work/$slug-scalemeter-$precision.csv
torch_csv=$work/$slug-pytorch-$precision.csv
# A phase resumes from its CSV in $work; a fresh machine has none, so a CSV that an earlier lease
# brought back into configs/calibrations/ is the starting point: only what it lacks runs.
seed() { # WORK_CSV COMMITTED_CSV (.gz read as such)
    [ -s "$1" ] || [ ! -s "$2" ] && return 0
    case $2 in *.gz) gzip -dc "$2" >"$1" ;; *) cp "$2" "$1" ;; esac &&
        say "resuming from $2 ($(($(wc -l <"$1") - 1)) rows)"
}
conv_algo=measure # cudnnFind*Ex, as torch.backends.cudnn.benchmark = True below

# ---- test --------------------------------------------------------------------------------------
run_test() { # NAME COMMAND...: appends to gpu-tests.log; 77 is a skip, other non-zero a failure
    name=$1
    shift
    echo "==== $name: $*" >>"$out/gpu-tests.log"
    "$@" >>"$out/gpu-tests.log" 2>&1
    rc=$?
    case $rc in
    0) say "test $name: passed" ;;
    77) say "test $name: SKIPPED (exit 77)"; failures=$((failures + 1)) ;;
    *) say "test $name: FAILED (exit $rc)"; failures=$((failures + 1)) ;;
    esac
}
if has test; then
    cd "$src" # test_gpu_executor reads examples/tiny_resnet.ini
    : >"$out/gpu-tests.log"
    run_test gpu_host "$bin/test_gpu_host"
    run_test gpu_executor "$bin/test_gpu_executor"
    # every type's cases of plugins/*/cases.ini on the GPU against the CPU (reads the sources)
    run_test conformance_gpu "$bin/test_conformance_gpu"
    fake=$(dirname "$bin")/lib/libfake_nvml.so
    [ -f "$fake" ] || fake=$work/build/lib/libfake_nvml.so
    run_test nvml_energy "$bin/test_nvml_energy" "$fake"
    run_test allreduce_nccl "$sm" allreduce --impl nccl --min-bytes 4 --max-bytes 64M --iters 20
    run_test cli_allreduce_nccl sh "$src/tests/test_gpu_cli.sh" nccl "$sm"
    run_test cli_backends sh "$src/tests/test_gpu_cli.sh" backends yes "$sm"
    run_test cli_bench sh "$src/tests/test_gpu_cli.sh" bench 1 "$sm"
    run_test cli_calibrate sh "$src/tests/test_gpu_cli.sh" calibrate "$sm"
    run_test cli_bench_precisions sh "$src/tests/test_gpu_cli.sh" precisions "$sm"
    # a plugin's GPU module faulting on the host under bench is named (the test modules are
    # in a build of the sources, not in the offline pack)
    [ -d "$work/build/tests/hostile/kernel_crashes" ] &&
        run_test cli_bench_kernel_crash sh "$src/tests/test_gpu_cli.sh" kernel_crash "$sm" \
            "$work/build/tests/hostile"
    smoke=$work/smoke.csv
    rm -f "$smoke"
    run_test bench_one_row "$sm" bench --backend cuda --precision "$precision" --model resnet18 \
        --image 64 --batch 16 -o "$smoke"
    # a row of the cuda backend's columns (21), status ok, times positive; awk exits 1 when no
    # such line is there (a missing or empty CSV included), so that this check can fail
    run_test bench_row_complete sh -c "test -s '$smoke' && tail -n 1 '$smoke' |
        awk -F, 'NF >= 21 && \$6 > 0 && \$10 > 0 && \$14 == \"ok\" { ok = 1 } END { exit !ok }'"
    cat "$smoke" >>"$out/gpu-tests.log" 2>/dev/null
fi

# ---- bench: scalemeter's runs, calibrated ----------------------------------------------------
if has bench; then
    say "bench: calibrate $models x images $images x batches $batches -> $sm_csv"
    "$sm" calibrate --backend cuda --precision "$precision" --conv-algo "$conv_algo" \
        --model "$models" --image "$images" --batch "$batches" -o "${sm_csv%.csv}" \
        >>"$log" 2>&1 ||
        { say "calibrate failed or was cut off (exit $?): run the phase again to resume"; failures=$((failures + 1)); }
    cp "$sm_csv" "$out/" 2>/dev/null
fi

# ---- torch: PyTorch's runs of the same configurations -----------------------------------------
# examples/pytorch/measure.py ARGS... with cuDNN's benchmark mode on. The comparison needs the
# same arithmetic and algorithm search as scalemeter's run: measure.py --precision sets TF32
# (on for tf32 only), this wrapper cuDNN's benchmark mode.
measure_py() {
    python3 - "$src/examples/pytorch/measure.py" "$@" >>"$log" 2>&1 <<'PY'
import runpy, sys, torch
torch.backends.cudnn.benchmark = True
script = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(script, run_name="__main__")
PY
}

if has torch; then
    say "torch: measure.py --device cuda --precision $precision, cudnn.benchmark -> $torch_csv"
    measure_py --models "$models" --images "$images" --batches "$batches" --device cuda \
        --precision "$precision" -o "$torch_csv" || {
        say "measure.py failed or was cut off (exit $?): run the phase again to resume"
        failures=$((failures + 1))
    }
    cp "$torch_csv" "$out/" 2>/dev/null
fi

# ---- models: transformers, Swin, recurrent networks --------------------------------------------
if has models; then
    nets=$work/nets
    mkdir -p "$nets"
    for spec in "swin_t" "vit_b_32" \
        "--module $src/tests/data/sequence_models.py:LSTMClassifier --input 16 --input-dtype long" \
        "--module $src/tests/data/sequence_models.py:TinyEncoder --input 20 --input-dtype long"; do
        name=$(echo "$spec" | sed 's/.*://; s/ .*//' | tr 'A-Z' 'a-z')
        [ -s "$nets/$name.ini" ] || python3 "$src/tools/export_torch.py" $spec \
            -o "$nets/$name.ini" >>"$log" 2>&1 || say "models: export of $name failed (see $log)"
    done
    models_csv=$out/$slug-scalemeter-models-$precision.csv
    say "models: bench --backend cuda -> $models_csv"
    for spec in "vit_b_16 --image 224 --batch 8,32" "$nets/vit_b_32.ini --image 224 --batch 8,32" \
        "$nets/swin_t.ini --image 224 --batch 8,32" "bert_base --image 128 --batch 8,32" \
        "gpt2 --image 256 --batch 4,8" "$nets/lstmclassifier.ini --batch 64,256" \
        "$nets/tinyencoder.ini --batch 64,256"; do
        "$sm" bench --backend cuda --precision "$precision" --conv-algo "$conv_algo" -q \
            --model $spec -o "$models_csv" >>"$log" 2>&1 ||
            { say "models: bench $spec failed (see $log)"; failures=$((failures + 1)); }
    done
    measure_py --models vit_b_16,vit_b_32,swin_t --images 224 --batches 8,32 --device cuda \
        --precision "$precision" -o "$out/$slug-pytorch-models-$precision.csv" || {
        say "models: measure.py failed (see $log)"
        failures=$((failures + 1))
    }
fi

# ---- layers: per-op timings of eager PyTorch (issue 38 item 4) ------------------------------------
# tools/torch_layer_profile.py at fp32 (TF32 off), tf32 and bf16 over the networks above and
# convnext_tiny (LayerNorm, GELU, linear), at --points; each CSV gzipped into $out (committed as
# configs/calibrations/<gpu>-pytorch-layers/<precision>.csv.gz, which a fresh machine resumes
# from).
# seconds left of --time-limit since $1 (a large number where there is none)
left_of() {
    [ "$time_limit" = 0 ] && { echo 1000000; return; }
    echo $((time_limit - ($(date +%s) - $1)))
}
if has layers; then
    t0=$(date +%s)
    for p in bf16 tf32 fp32; do # the precisions the time model lacks most first
        left=$(left_of "$t0")
        [ "$left" -gt 0 ] || { say "layers: no time left for $p"; failures=$((failures + 1)); continue; }
        layers_csv=$work/$slug-pytorch-layers-$p.csv
        seed "$layers_csv" "$src/configs/calibrations/$slug-pytorch-layers/$p.csv.gz"
        say "layers: torch_layer_profile.py --precision $p -> $layers_csv"
        layer_models=$models
        case ",$models," in *,convnext_tiny,*) ;; *) layer_models=$models,convnext_tiny ;; esac
        measuring "$layers_csv" "$out/$slug-pytorch-layers-$p.csv.gz" \
            python3 "$src/tools/torch_layer_profile.py" --models "$layer_models" \
            --points "$points" --precision "$p" --steps 3 --warmup 3 --time-limit "$left" \
            --out "$layers_csv" >>"$log" 2>&1 || {
            say "layers: $p failed or was cut off (exit $?): run the phase again to resume"
            failures=$((failures + 1))
        }
        [ -s "$layers_csv" ] && gzip -c "$layers_csv" >"$out/$slug-pytorch-layers-$p.csv.gz"
    done
fi

# ---- memory: the allocator's ground truth (issue 38 item 6) -----------------------------------
if has memory; then
    mem_csv=$work/$slug-pytorch-memory.csv
    seed "$mem_csv" "$src/configs/calibrations/$slug-pytorch-memory.csv"
    say "memory: torch_gpu_memory.py -> $mem_csv"
    measuring "$mem_csv" "$out/$(basename "$mem_csv")" \
        python3 "$src/tools/torch_gpu_memory.py" --batches 32,128 --precisions fp32,bf16 \
        --models resnet18,resnet50,resnet101,vgg16,densenet121,inception_v3,googlenet,mobilenet_v2,mobilenet_v3_large,efficientnet_b0,convnext_tiny,regnet_y_400mf,resnext50_32x4d,squeezenet1_0,shufflenet_v2_x1_0,vit_b_16 \
        --max-batch resnet50,vit_b_16 --time-limit "$time_limit" --out "$mem_csv" >>"$log" 2>&1 ||
        { say "memory: failed (see $log)"; failures=$((failures + 1)); }
    cp "$mem_csv" "$out/" 2>/dev/null
fi

# ---- repeat: the spread of end-to-end runs (issue 38 item 5) ----------------------------------
if has repeat; then
    rp=$repeat_precision
    rep_csv=$work/$slug-pytorch-$rp-rounds.csv
    seed "$rep_csv" "$src/configs/calibrations/$slug-pytorch-$rp-rounds.csv"
    say "repeat: torch_repeat_runs.py --precision $rp --models $models -> $rep_csv"
    measuring "$rep_csv" "$out/$(basename "$rep_csv")" \
        python3 "$src/tools/torch_repeat_runs.py" --configs "$src/configs/calibrations/h100-pytorch-$rp.csv" \
        --precision "$rp" --models "$models" --rounds 3 --time-limit "$time_limit" \
        --out "$rep_csv" >>"$log" 2>&1 ||
        { say "repeat: failed (see $log)"; failures=$((failures + 1)); }
    cp "$rep_csv" "$out/" 2>/dev/null
fi

# ---- ranks --------------------------------------------------------------------------------------
if has ranks; then
    ranks=1,2,4,8,16
    [ "$(nproc)" -ge 16 ] || ranks=1,2,4
    say "ranks: tools/rank_study.sh --ranks $ranks -> $out/ranks.csv"
    sh "$src/tools/rank_study.sh" --ranks "$ranks" --bin "$sm" -o "$out/ranks.csv" >>"$log" 2>&1 ||
        { say "ranks: rank_study.sh failed or was cut off (see $log): run again to resume"
          failures=$((failures + 1)); }
fi

# ---- report ------------------------------------------------------------------------------------
if has report; then
    if [ -s "$sm_csv" ] && [ -s "$torch_csv" ]; then
        python3 "$src/tools/gpu_report.py" --scalemeter "$sm" --sm "$sm_csv" --torch "$torch_csv" \
            --gpu "$gpu" --precision "$precision" --out "$out/report.md" --coeffs-dir "$out" \
            >>"$log" 2>&1 || { say "report failed (see $log)"; failures=$((failures + 1)); }
        cp "$sm_csv" "$torch_csv" "$out/" 2>/dev/null
        [ -f "$out/report.md" ] && say "report: $out/report.md"
    else
        say "report: needs both $sm_csv and $torch_csv (phases bench and torch)"
        failures=$((failures + 1))
    fi
fi
say "done: $failures failure(s) or skip(s); results in $out"
[ "$failures" -eq 0 ]
