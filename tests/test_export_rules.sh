#!/bin/sh
# An out-of-tree plugin brings its own export rule: mish.so built outside the project with a
# plain compiler call, examples/plugin/mish.export.py beside it in a SCALEMETER_PLUGIN_PATH
# folder (or named by --rules), and a model with a Mish class of its own exported into a
# network that `scalemeter metrics` counts as derived by hand. Bad rules files stop the export
# with one line naming the file (and line).
# usage: test_export_rules.sh SCALEMETER EXPORTER CC SOURCE_DIR   (exit 77: no torch here)
set -eu
sm=$1 exporter=$2 cc=$3 src=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
if ! python3 -c 'import torch, torchvision' 2>/dev/null &&
   ! /usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null; then
    echo "SKIP: no Python here has torch and torchvision"
    exit 77
fi
unset SCALEMETER_PLUGIN_PATH SCALEMETER_PYTHON
plugins=$dir/plugins
mkdir -m 700 "$plugins"
$cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -I"$src/core/include" \
    -o "$plugins/mish.so" "$src/examples/plugin/mish.c" -lm
model=$src/examples/plugin/mish_model.py
passed=0
ok() { passed=$((passed + 1)); }

# By hand, 3x32x32 input (as tests/test_example_plugin.sh): conv 8*32*32*3*9 = 221,184 MACs,
# 2*221,184 + 8*1024 bias = 450,560 FLOPs; mish 7 FLOPs x 8,192 elements = 57,344; pool
# 8,192 + 8 = 8,200; fc 8*10 = 80 MACs, 160 + 10 bias = 170 FLOPs. Total FLOPs 516,274;
# MACs 221,264; weights 8*27+8 + 80+10 = 314; layers holding weights 2.
counts() { # counts FILE WHAT
    json=$(SCALEMETER_PLUGIN_PATH=$plugins "$sm" metrics "$1" --format json 2>&1) ||
        fail "$2: metrics: $json"
    for want in '"flops": 516274' '"macs": 221264' '"weights": 314' '"layers": 2'; do
        echo "$json" | grep -q "$want" || fail "$2: missing $want in $json"
    done
}

# Without the rule, the model's Mish is traced into softplus, which has no layer type.
if out=$("$exporter" --module "$model:MishNet" --input 3x32x32 2>&1); then
    fail "MishNet exported without a rule for Mish"
fi
echo "$out" | grep -q "function softplus.*export rule for it (NAME.export.py beside NAME.so" ||
    fail "without the rule: $out"
ok

# The rules file beside the plugin, found through SCALEMETER_PLUGIN_PATH: the module class Mish
cp "$src/examples/plugin/mish.export.py" "$plugins/"
out=$(SCALEMETER_PLUGIN_PATH=$plugins "$exporter" --module "$model:MishNet" --input 3x32x32 \
      -o "$dir/mish_net.ini" 2>&1) || fail "export with the plugin's rules file: $out"
grep -q '^act  = mish$' "$dir/mish_net.ini" || fail "no 'act = mish' layer: $(cat "$dir/mish_net.ini")"
counts "$dir/mish_net.ini" "MishNet"
ok
# The same rules named by --rules, for the function F.mish
out=$("$exporter" --module "$model:FunctionalMishNet" --input 3x32x32 \
      --rules "$src/examples/plugin/mish.export.py" -o "$dir/fmish.ini" 2>&1) ||
    fail "export with --rules: $out"
grep -q '^mish = mish$' "$dir/fmish.ini" || fail "no 'mish = mish' layer: $(cat "$dir/fmish.ini")"
counts "$dir/fmish.ini" "FunctionalMishNet"
ok

# Bad rules files: exit 1 and one line naming the file (and the line where there is one).
bad() { # bad NAME WANT (the file $dir/NAME.export.py written before)
    f=$dir/$1.export.py
    if out=$("$exporter" --module "$model:MishNet" --input 3x32x32 --rules "$f" 2>&1); then
        fail "$1: exported: $out"
    fi
    [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "$1: not one line: $out"
    case $out in
        "scalemeter-export-torch: $f$2"*) ok ;;
        *) fail "$1: expected 'scalemeter-export-torch: $f$2...', got: $out" ;;
    esac
}
printf 'MODULES = {}\n\ndef rule(op, inputs, output) return "mish"\n' > "$dir/syntax.export.py"
bad syntax ":3: syntax error: "
printf 'import no_such_module_here\n' > "$dir/import.export.py"
bad import ":1: the rules file fails to load: ModuleNotFoundError: "
printf 'RULES = {}\n' > "$dir/empty.export.py"
bad empty ": defines neither MODULES nor FUNCTIONS"
printf 'def rule(op, inputs, output):\n    raise ValueError("boom")\n\nMODULES = {"Mish": rule}\n' \
    > "$dir/raises.export.py"
bad raises ":2: the rule for module act (Mish) raised ValueError: boom"
printf 'def rule(op, inputs, output):\n    return 42\n\nMODULES = {"Mish": rule}\n' \
    > "$dir/number.export.py"
bad number ":1: the rule for module act (Mish) returned 42; expected (TYPE, {PARAM: VALUE})"
printf 'def rule(op, inputs, output):\n    return "mish", {"kernel": (3, 3)}\n\nMODULES = {"Mish": rule}\n' \
    > "$dir/tuple.export.py"
bad tuple ":1: the rule for module act (Mish) returned ('mish', {'kernel': (3, 3)}); parameter kernel=(3, 3) is not"
printf 'def rule(op, inputs, output):\n    return "Mish layer"\n\nMODULES = {"Mish": rule}\n' \
    > "$dir/type.export.py"
bad type ":1: the rule for module act (Mish) returned 'Mish layer'; the type must be"
printf 'MODULES = {"Mish": "mish"}\n' > "$dir/notfn.export.py"
bad notfn ": MODULES['Mish'] is 'mish', not a function"

# A rule that gives no layer: the module is reported unsupported, naming the rule.
printf 'def rule(op, inputs, output):\n    return None\n\nMODULES = {"Mish": rule}\n' \
    > "$dir/none.export.py"
if out=$("$exporter" --module "$model:MishNet" --input 3x32x32 --rules "$dir/none.export.py" 2>&1)
then
    fail "a rule giving no layer: exported: $out"
fi
echo "$out" | grep -q "module act of type Mish (the export rule at $dir/none.export.py:1 gives no layer for it)" ||
    fail "a rule giving no layer: $out"
ok
# Two files claiming one class: refused, naming both.
if out=$(SCALEMETER_PLUGIN_PATH=$plugins "$exporter" --module "$model:MishNet" --input 3x32x32 \
         --rules "$dir/raises.export.py" 2>&1); then
    fail "two rules for Mish: exported: $out"
fi
[ "$out" = "scalemeter-export-torch: $dir/raises.export.py: MODULES['Mish'] is already a rule of $plugins/mish.export.py" ] ||
    fail "two rules for Mish: $out"
ok
# Trusted as plugins are: no relative folders, nothing world-writable.
if out=$(cd "$dir" && SCALEMETER_PLUGIN_PATH=plugins "$exporter" --module "$model:MishNet" \
         --input 3x32x32 2>&1); then
    fail "relative SCALEMETER_PLUGIN_PATH: exported: $out"
fi
[ "$out" = "scalemeter-export-torch: SCALEMETER_PLUGIN_PATH: 'plugins' is a relative folder; name plugin folders by absolute path" ] ||
    fail "relative SCALEMETER_PLUGIN_PATH: $out"
ok
chmod o+w "$plugins/mish.export.py"
if out=$(SCALEMETER_PLUGIN_PATH=$plugins "$exporter" --module "$model:MishNet" --input 3x32x32 \
         2>&1); then
    fail "world-writable rules file: exported: $out"
fi
echo "$out" | grep -q "^scalemeter-export-torch: $plugins/mish.export.py: refusing rules file: it is writable by every user" ||
    fail "world-writable rules file: $out"
ok
echo "$passed passed, 0 failed"
