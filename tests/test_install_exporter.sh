#!/bin/sh
# The exporter as an installed command: `cmake --install` into a temporary prefix, the prefix
# moved elsewhere (so nothing may point back at the build or the source tree), then
# bin/scalemeter-export-torch, and `scalemeter export-torch` (the git-style external command),
# run from another folder on a model of tests/data; `scalemeter metrics` of the file must give
# the counts derived by hand in tests/data/custom_cnn.py.
# usage: test_install_exporter.sh BUILD_DIR SOURCE_DIR CMAKE   (exit 77: no torch here)
set -eu
build=$1 src=$2 cmake=${3:-cmake}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
if ! python3 -c 'import torch, torchvision' 2>/dev/null &&
   ! /usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null; then
    echo "SKIP: no Python here has torch and torchvision"
    exit 77
fi
unset SCALEMETER_PLUGIN_PATH SCALEMETER_EXPORT_PROG

out=$("$cmake" --install "$build" --prefix "$dir/prefix" 2>&1) || fail "cmake --install: $out"
mv "$dir/prefix" "$dir/moved"
prefix=$dir/moved
cmd=$prefix/bin/scalemeter-export-torch
[ -x "$cmd" ] || fail "the install has no executable bin/scalemeter-export-torch"
for module in export_torch.py export_rules.py torch_python.py; do
    [ -f "$prefix/share/scalemeter/python/$module" ] ||
        fail "the install has no share/scalemeter/python/$module"
done
grep -q -e "$build" -e "$src" "$cmd" && fail "$cmd names the build or source tree: $(cat "$cmd")"

# From a folder of its own, with the model's file copied there: nothing of the source tree used.
mkdir "$dir/work"
cp "$src/tests/data/custom_cnn.py" "$dir/work/"
cd "$dir/work"
out=$(PATH=$prefix/bin:$PATH scalemeter-export-torch --module custom_cnn.py:CustomCNN \
      --input 3x32x32 -o cnn.ini 2>&1) || fail "scalemeter-export-torch: $out"
[ -z "$out" ] || fail "scalemeter-export-torch said something without -v: $out"
grep -q "^;   scalemeter-export-torch --module custom_cnn.py:CustomCNN --input 3x32x32 -o cnn.ini$" \
    cnn.ini || fail "the file's header does not give the command: $(head -n 3 cnn.ini)"
# tests/data/custom_cnn.py, by hand: weights 43,770; MACs 2,842,624; I 19,456; O 32,768;
# 5 layers holding weights, 8 parameter tensors
json=$("$prefix/bin/scalemeter" metrics cnn.ini --format json 2>&1) || fail "metrics: $json"
for want in '"weights": 43770' '"macs": 2842624' '"inputs": 19456' '"outputs": 32768' \
            '"layers": 5' '"param_tensors": 8'; do
    echo "$json" | grep -q "$want" || fail "missing $want in $json"
done

# scalemeter export-torch runs the program beside the binary: the same file
out=$("$prefix/bin/scalemeter" export-torch --module custom_cnn.py:CustomCNN --input 3x32x32 \
      -o cnn.ini 2>&1) || fail "scalemeter export-torch: $out"
cp cnn.ini sub.ini
PATH=$prefix/bin:$PATH scalemeter-export-torch --module custom_cnn.py:CustomCNN \
    --input 3x32x32 -o cnn.ini
cmp -s cnn.ini sub.ini || fail "scalemeter export-torch wrote another file than scalemeter-export-torch"
"$prefix/bin/scalemeter" --help | grep -q "^  export-torch .*(scalemeter-export-torch)$" ||
    fail "scalemeter --help does not list export-torch"
# a user's error is one line naming the command and the option
if out=$("$cmd" --module custom_cnn.py:CustomCNN --input 3x0x32 2>&1); then
    fail "--input 3x0x32 exported"
fi
[ "$out" = "scalemeter-export-torch: custom_cnn.py:CustomCNN: --input 3x0x32: expected sizes joined by 'x', such as 3x224x224" ] ||
    fail "--input 3x0x32: $out"
# A module without a layer type is named at the model's own line, not at the exporter's (the
# installed command runs bin/../share/.../export_torch.py, whose frames once went unrecognised:
# "at export_torch.py:258 (return super().call_module(m, forward, args, kwargs))").
printf '%s\n' "from torch import nn" "" "" "class Soft(nn.Module):" "    def __init__(self):" \
    "        super().__init__()" "        self.act = nn.Softplus()" "" "    def forward(self, x):" \
    "        return self.act(x)" > soft.py
if out=$(PATH=$prefix/bin:$PATH scalemeter-export-torch --module soft.py:Soft --input 3x8x8 2>&1); then
    fail "nn.Softplus exported without a plugin's rule: $out"
fi
echo "$out" | grep -q "^scalemeter-export-torch: soft.py:Soft: node act (call_module act) at soft.py:10 (return self.act(x)): module act of type Softplus; " ||
    fail "the unsupported module is not named at its line of soft.py: $out"
echo "1 passed, 0 failed: installed scalemeter-export-torch and scalemeter export-torch"
