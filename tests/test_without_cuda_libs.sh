#!/bin/sh
# The CUDA build's counting and predicting commands with every CUDA library hidden (issue 34):
# scalemeter links libscalemeter alone, and only lib/scalemeter/backends/cuda.so and the
# plugins' NAME_gpu.so link CUDA, cuDNN, cuBLAS and NCCL.
#   1. NEEDED of bin/scalemeter names none of cudart, cublas, cudnn, nccl, nvidia-ml, mpi,
#      openblas, lapack(e), gfortran; libscalemeter's none of the CUDA libraries or MPI.
#   2. metrics, fit, predict, curve, validate, plugins and --version load no CUDA or MPI
#      library and no backend module (LD_DEBUG=files lists every object the loader opens).
#   3. In a mount namespace (unshare -rm) with the folders of cuda.so's CUDA libraries under
#      an empty tmpfs (ldd then finds no libcudart): the same commands give their numbers,
#      `backends` says why cuda is not usable (the missing library), and `bench --backend cuda`
#      refuses in one line naming the module and the library. Where no namespace can be made,
#      this part says so and the test rests on 1 and 2.
# usage: test_without_cuda_libs.sh BUILD_DIR SOURCE_DIR
set -u
build=$1 src=$2
sm=$build/bin/scalemeter
cuda_so=$build/lib/scalemeter/backends/cuda.so
cuda_libs='libcudart|libcublas|libcudnn|libnccl|libnvidia-ml|libcuda\.'
fail() { echo "FAIL: $*"; exit 1; }
unset SCALEMETER_PLUGIN_PATH
cd "$src" || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sm-nocuda.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Each command with a number or name that shows it worked (the expected values are PyTorch's
# and the README's, not this program's).
commands() {
    out=$("$sm" metrics resnet50 --format json 2>&1) &&
        echo "$out" | grep -q '"weights": 25557032' || fail "metrics: $out"
    out=$("$sm" fit configs/calibrations/cpu-amd-epyc-1thread.csv -o "$tmp/c.ini" 2>&1) &&
        [ -s "$tmp/c.ini" ] || fail "fit: $out"
    out=$("$sm" predict resnet50 --coeffs "$tmp/c.ini" --batch 8 --format json 2>&1) &&
        echo "$out" | grep -q '"t_step"' || fail "predict: $out"
    out=$("$sm" curve resnet50 --device h100 --batch 256 --nodes 1,2 --format csv 2>&1) &&
        [ "$(echo "$out" | grep -c '^resnet50,')" -eq 2 ] || fail "curve: $out"
    out=$("$sm" validate configs/calibrations/h100-pytorch-tf32.csv --device h100 2>&1) &&
        echo "$out" | grep -q resnet50 || fail "validate: $out"
    out=$("$sm" plugins 2>&1) && echo "$out" | grep -q '^conv2d ' || fail "plugins: $out"
    out=$("$sm" --version 2>&1) && echo "$out" | grep -q '^scalemeter [0-9]' ||
        fail "--version: $out"
}

if [ -n "${SM_HIDDEN:-}" ]; then # 3, inside the namespace
    for d in $SM_HIDDEN; do
        mount -t tmpfs none "$d" || fail "cannot hide $d"
    done
    ldd "$cuda_so" | grep -q 'libcudart.*not found' ||
        fail "libcudart is still found: $(ldd "$cuda_so" | grep cudart)"
    commands
    out=$("$sm" backends 2>&1) || fail "backends: $out"
    echo "$out" | grep -Eq "^cuda +compute +yes +no +cuda backend \($cuda_so\): lib(cudart|cublas|cudnn|nccl)[^ ]*: cannot open shared object file" ||
        fail "backends does not say which library cuda lacks: $out"
    echo "$out" | grep -Eq '^cpu +compute +yes +yes ' || fail "backends: cpu unusable: $out"
    "$sm" bench --model resnet18 --backend cuda -o "$tmp/runs.csv" >"$tmp/out" 2>"$tmp/err" &&
        fail "bench --backend cuda ran without CUDA"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        grep -Eq "^scalemeter bench: cuda backend \($cuda_so\): lib(cudart|cublas|cudnn|nccl)[^ ]*: cannot open shared object file.*; install CUDA, cuDNN and NCCL or use --backend cpu$" "$tmp/err" ||
        fail "bench --backend cuda: $(cat "$tmp/err")"
    [ ! -e "$tmp/runs.csv" ] || fail "bench --backend cuda wrote a file"
    exit 0
fi

# 1
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
needed "$cuda_so" | grep -q libcudart || fail "cuda.so does not link libcudart: no CUDA build"
bad=$(needed "$sm" | grep -E "$cuda_libs|libmpi|libopenblas|liblapack|libgfortran")
[ -z "$bad" ] || fail "bin/scalemeter links $(echo $bad)"
bad=$(needed "$build/lib/libscalemeter.so" | grep -E "$cuda_libs|libmpi")
[ -z "$bad" ] || fail "libscalemeter links $(echo $bad)"

# 2
LD_DEBUG=files LD_DEBUG_OUTPUT=$tmp/ld commands
opened=$(cat "$tmp"/ld.* | sed -n 's/.*file=\([^ ]*\).*/\1/p' | sort -u)
echo "$opened" | grep -q 'conv2d.so' || fail "LD_DEBUG did not list the plugins: $opened"
bad=$(echo "$opened" | grep -E "$cuda_libs|libmpi|/backends/|_gpu\.so")
[ -z "$bad" ] || fail "a counting command opened $(echo $bad)"
rm -f "$tmp"/ld.*

# 3: the folders of the CUDA libraries cuda.so finds now
dirs=$(ldd "$cuda_so" | awk -v re="$cuda_libs" '$1 ~ re && $3 ~ /^\// { print $3 }' |
    xargs -n1 dirname | sort -u | tr '\n' ' ')
[ -n "$dirs" ] || fail "ldd finds none of cuda.so's CUDA libraries"
if ! unshare -rm true 2>/dev/null; then
    echo "no mount namespace (unshare -rm): the run with the CUDA libraries hidden is skipped"
else
    SM_HIDDEN=$dirs unshare -rm sh "$0" "$build" "$src" || exit 1
fi
echo "1 passed, 0 failed"
