#!/bin/sh
# metrics, fit, predict and curve with the GPU companion modules (NAME_gpu.so) absent, as on a
# laptop with no CUDA libraries: an install-shaped copy of the build tree (bin/, lib/,
# lib/scalemeter/plugins/ without *_gpu.so, share/scalemeter) must run every counting command.
# usage: test_without_gpu_modules.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1 src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$dir/bin" "$dir/lib/scalemeter/plugins" "$dir/share"
cp "$build/bin/scalemeter" "$dir/bin/"
cp -P "$build"/lib/libscalemeter.so* "$dir/lib/"
for f in "$build"/lib/scalemeter/plugins/*.so; do
    case $f in *_gpu.so) ;; *) cp "$f" "$dir/lib/scalemeter/plugins/" ;; esac
done
ln -s "$build/share/scalemeter" "$dir/share/scalemeter"
ls "$dir"/lib/scalemeter/plugins/*_gpu.so >/dev/null 2>&1 && fail "a GPU module was copied"
unset SCALEMETER_PLUGIN_PATH
sm="$dir/bin/scalemeter"

"$sm" plugins | grep -q "^conv2d .*$dir/lib/scalemeter/plugins/conv2d.so" ||
    fail "the copy does not load its own plugins: $("$sm" plugins 2>&1 | head -3)"
out=$("$sm" metrics resnet50 --format json 2>&1) || fail "metrics: $out"
echo "$out" | grep -q '"weights": 25557032' || fail "metrics: $out"
out=$("$sm" fit "$src/configs/calibrations/cpu-amd-epyc-1thread.csv" -o "$dir/coeffs.ini" 2>&1) ||
    fail "fit: $out"
[ -s "$dir/coeffs.ini" ] || fail "fit wrote no coefficient file"
out=$("$sm" predict resnet50 --coeffs "$dir/coeffs.ini" --batch 8 --format json 2>&1) ||
    fail "predict: $out"
echo "$out" | grep -q '"t_step"' || fail "predict: $out"
out=$("$sm" curve resnet50 --coeffs "$dir/coeffs.ini" --batch 8 --nodes 1,2,4 2>&1) ||
    fail "curve: $out"
[ -n "$out" ] || fail "curve printed nothing"
echo "1 passed, 0 failed"
