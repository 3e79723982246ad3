#!/bin/sh
# The example plugin is built outside the core with a plain compiler call, loaded through
# SCALEMETER_PLUGIN_PATH without rebuilding anything, counted as derived by hand, and its CPU
# kernel benchmarked (a training step through it, forward and backward).
# usage: test_example_plugin.sh SCALEMETER CC SOURCE_DIR
set -eu
scalemeter=$1 cc=$2 src=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

$cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -I"$src/core/include" \
    -o "$dir/mish.so" "$src/examples/plugin/mish.c" -lm

# Without the path the type is unknown, and the message names file, line and type.
if out=$("$scalemeter" metrics "$src/examples/plugin/mish_net.ini" 2>&1); then
    fail "mish loaded without SCALEMETER_PLUGIN_PATH"
fi
echo "$out" | grep -q "mish_net.ini:8: layer act: unknown layer type 'mish'" || fail "$out"

SCALEMETER_PLUGIN_PATH=$dir "$scalemeter" plugins | grep -q "^mish .*$dir/mish.so" ||
    fail "scalemeter plugins does not list mish from $dir"

# By hand, 3x32x32 input: conv 8*32*32*3*9 = 221,184 MACs, 2*221,184 + 8*1024 bias = 450,560
# FLOPs; mish 7 FLOPs x 8,192 elements = 57,344; pool 8,192 + 8 = 8,200; fc 8*10 = 80 MACs,
# 160 + 10 bias = 170 FLOPs. Total FLOPs 516,274; MACs 221,264; weights 8*27+8 + 80+10 = 314.
json=$(SCALEMETER_PLUGIN_PATH=$dir "$scalemeter" metrics "$src/examples/plugin/mish_net.ini" \
       --format json)
for want in '"flops": 516274' '"macs": 221264' '"weights": 314' '"layers": 2'; do
    echo "$json" | grep -q "$want" || fail "missing $want in $json"
done
# The CPU kernel runs: one row measured, forward and backward through mish.
csv="$dir/runs.csv"
out=$(SCALEMETER_PLUGIN_PATH=$dir "$scalemeter" bench --model "$src/examples/plugin/mish_net.ini" \
      --batch 2 --reps 1 --warmup 1 --min-time 0.001 --threads 1 -o "$csv" 2>&1) ||
    fail "bench through mish: $out"
row=$(tail -n 1 "$csv")
echo "$row" | grep -Eq "mish_net.ini,32,2,1,1,[0-9.e+-]+,[0-9.e+-]+,[0-9.e+-]+,.*,cpu,1,1,ok,,$" ||
    fail "bench row: $row"
# check-plugin: its cases pass, gradients included; a wrong backward (mish's derivative with
# 1 - tanh for 1 - tanh^2) fails the gradient check, which bench would have timed silently.
out=$("$scalemeter" check-plugin "$dir/mish.so" --cases "$src/examples/plugin/cases.ini" 2>&1) ||
    fail "check-plugin mish: $out"
echo "$out" | grep -q "^mish: 3 cases, 1 refusal, 3 gradient checks: all passed$" || fail "$out"
echo "$out" | grep -q "^ok .* refuse unknown_parameter (mish): refused" || fail "$out"
# check-plugin on a copy of mish.c in folder $1, changed by the sed expression $2 (grep $3
# proves it changed): it must fail; its output is left in $out.
check_broken() {
    mkdir "$dir/$1"
    sed "$2" "$src/examples/plugin/mish.c" > "$dir/$1/mish.c"
    grep -q "$3" "$dir/$1/mish.c" || fail "the $1 copy of mish.c is not changed"
    $cc -std=c11 -O2 -shared -fPIC -I"$src/core/include" -o "$dir/$1/mish.so" "$dir/$1/mish.c" -lm
    if out=$("$scalemeter" check-plugin "$dir/$1/mish.so" \
             --cases "$src/examples/plugin/cases.ini" 2>&1); then
        fail "check-plugin passed the $1 copy of mish: $out"
    fi
}
check_broken bad 's/(1.0f - t \* t)/(1.0f - t)/' "(1.0f - t) \* sig"
echo "$out" | grep -q "^FAIL .*case vector (mish): .*gradient error input .*: too large$" ||
    fail "$out"
echo "$out" | grep -q "^mish: 3 cases, 1 refusal, 3 gradient checks: 3 failed$" || fail "$out"
# A backward that writes NaN fails too: a NaN error loses every comparison with the largest so
# far, so it once read as 0 and passed.
check_broken nan 's/(1.0f - t \* t)/(1.0f - t * t) * NAN/' "t \* t) \* NAN"
echo "$out" | grep -q "^FAIL .*case vector (mish): .*gradient error input inf.*: too large$" ||
    fail "$out"
# A backward that overwrites its input's gradient (= for +=) agrees with the finite differences,
# where nothing else adds into that gradient, but drops the other reader's wherever two layers
# read one tensor (kernels.h: backward adds into din). It once passed.
check_broken overwrite 's/dx\[i\] += dy\[i\]/dx[i] = dy[i]/' "dx\[i\] = dy\[i\]"
echo "$out" | grep -q "^FAIL .*case vector (mish): .*; its backward overwrites the gradient of input 0 instead of adding to it" ||
    fail "$out"
# A saved() that keeps nothing while the backward reads the input: the memory model would
# count no activation for mish. Case vector's saved_inputs = 1 catches it as a count; case
# after_conv, which gives no saved key, by the input made NaN. It once passed.
check_broken keeps_nothing 's/\.saved = mish_saved,/.saved = sm_saved_nothing,/' \
    "saved = sm_saved_nothing"
echo "$out" | grep -q "^FAIL .*case vector (mish): saved_inputs 0, expected 1$" || fail "$out"
echo "$out" | grep -q "^FAIL .*case after_conv (mish): .*; its backward reads input 0 (its gradients turn NaN when it is NaN), but its saved() keeps nothing" ||
    fail "$out"
# A forward pass wrong in step with its backward (2 mish(x), and twice its derivative) passes
# the gradient check, which compares the two with each other; case values holds the forward
# to PyTorch's numbers. It once passed whole.
check_broken twice 's/y\[i\] = x\[i\]/y[i] = 2.0f * x[i]/; s/dx\[i\] += dy\[i\]/dx[i] += 2.0f * dy[i]/' \
    "dx\[i\] += 2.0f \* dy\[i\]"
echo "$out" | grep -q "^ok .*case vector (mish): output 40; gradient error" || fail "$out"
echo "$out" | grep -q "^FAIL .*case values (mish): output 6; forward values differ from output_values by 1.00e+00 of the largest (at most 1e-04): output 5 is 5.97307, expected 2.986535$" ||
    fail "$out"
# Values that are not a list of numbers, or given without their other half, are refused at
# their line; a refusal has none to check.
for bad in "input_values = 1 2 x" "input_values = 1 inf" "weight_values = 1"; do
    printf '%s\n' "[case v]" "input = 2" "layer = mish" "$bad" > "$dir/bad_cases.ini"
    if out=$("$scalemeter" check-plugin "$dir/mish.so" --cases "$dir/bad_cases.ini" 2>&1); then
        fail "check-plugin took '$bad': $out"
    fi
    echo "$out" | grep -q "bad_cases.ini:4: ${bad%% *} " || fail "'$bad': $out"
done
# A damaged cases file is refused at its line: a batch whose tensors no machine holds, a
# fractional batch, a verdict that is neither yes nor no, an infinite tolerance.
for bad in "batch = 1000000000" "batch = 2.5" "gradient = maybe" "tolerance = inf"; do
    sed "/^\[case vector\]/a $bad" "$src/examples/plugin/cases.ini" > "$dir/bad_cases.ini"
    grep -qx "$bad" "$dir/bad_cases.ini" || fail "no '$bad' in the damaged cases file"
    line=$(grep -nx "$bad" "$dir/bad_cases.ini" | cut -d: -f1)
    if out=$("$scalemeter" check-plugin "$dir/mish.so" --cases "$dir/bad_cases.ini" 2>&1); then
        fail "check-plugin took '$bad': $out"
    fi
    echo "$out" | grep -q "bad_cases.ini:$line: ${bad%% *} must be" || fail "'$bad': $out"
done
# A shape or a message longer than the case keeps was cut: input = 1x<60 zeros>40 (1x40) ran
# as 1x4, failing as "output 1x4, expected 1x40", and a long refusal message was matched on its
# first 255 characters. Refused at its line.
zeros=$(printf '%060d' 0)
long_message=$(printf 'unknown parameter beta%0240d' 0)
for bad in "input = 1x${zeros}40" "output = 1x${zeros}40" "message = $long_message"; do
    printf '%s\n' "[refuse r]" "layer = mish beta=2" "$bad" > "$dir/bad_cases.ini"
    [ "${bad%% *}" = message ] || printf '%s\n' "[case c]" "layer = mish" "$bad" > "$dir/bad_cases.ini"
    if out=$("$scalemeter" check-plugin "$dir/mish.so" --cases "$dir/bad_cases.ini" 2>&1); then
        fail "check-plugin took '$bad': $out"
    fi
    echo "$out" | grep -qx "scalemeter check-plugin: .*bad_cases.ini:3: ${bad%% *} is longer than [0-9]* characters" ||
        fail "'${bad%% *}' of ${#bad} characters: $out"
done
# A count past int64, at its saturated value SM_OVERFLOW (2^63 - 1) or below 0, and a step
# below a double's range are refused at their line, not clamped (the count to
# 9223372036854775807, printed as what the case expects).
for bad in "macs = 100000000000000000000000" "macs = 9223372036854775807" "macs = -1" \
           "eps = 1e-310"; do
    sed "/^\[case vector\]/a $bad" "$src/examples/plugin/cases.ini" > "$dir/bad_cases.ini"
    line=$(grep -nx "$bad" "$dir/bad_cases.ini" | cut -d: -f1)
    if out=$("$scalemeter" check-plugin "$dir/mish.so" --cases "$dir/bad_cases.ini" 2>&1); then
        fail "check-plugin took '$bad': $out"
    fi
    echo "$out" | grep -q "bad_cases.ini:$line: ${bad%% *} must be" || fail "'$bad': $out"
    case $out in *"expected 9223372036854775807"*) fail "'$bad' printed a clamped count: $out" ;; esac
done
# A key given twice is refused at the second (the last once won: flops = 999, then the
# file's flops = 280, passed); net, a case's layers in order, repeats (case after_conv).
sed '/^\[case vector\]/a flops = 999' "$src/examples/plugin/cases.ini" > "$dir/bad_cases.ini"
first=$(grep -nx "flops = 999" "$dir/bad_cases.ini" | cut -d: -f1)
second=$(grep -nx "flops = 280" "$dir/bad_cases.ini" | cut -d: -f1)
if out=$("$scalemeter" check-plugin "$dir/mish.so" --cases "$dir/bad_cases.ini" 2>&1); then
    fail "check-plugin took flops twice: $out"
fi
echo "$out" | grep -qx "scalemeter check-plugin: .*bad_cases.ini:$second: flops given twice in \[case vector\] (first at line $first)" ||
    fail "flops twice: $out"
# A refusal must name layer g itself: one of layer gate (a name holding g) is not g's.
printf '%s\n' "[case vector]" "input = 40" "layer = mish" "" "[refuse other_layer]" \
    "input = 40" "net = g = mish" "net = gate = mish beta=2 from=g" \
    "message = unknown parameter beta" > "$dir/gate_cases.ini"
if out=$("$scalemeter" check-plugin "$dir/mish.so" --cases "$dir/gate_cases.ini" 2>&1); then
    fail "check-plugin took a refusal of layer gate as g's: $out"
fi
echo "$out" | grep -q "^FAIL .*gate_cases.ini:5 refuse other_layer (mish): refused with .*layer gate (mish).*naming layer g$" ||
    fail "refusal of layer gate: $out"
echo "$out" | grep -q "^ok .*gate_cases.ini:1 case vector" || fail "gate_cases.ini: $out"
# The gradient check's work is bounded before any kernel runs. Case vector at input N, batch
# 2: 2N values (no weights) x 2 x (7N FLOPs + N outputs) = 16N per forward pass = 32 N^2,
# past 5e8 from N = 3953 (32 x 3953^2 = 500,038,688; 3952 gives 499,785,728). Unbounded, N =
# 10^6 would run for days (N = 8000 took 21 s); timeout makes that a failure here.
for n in 3953 1000000; do
    sed "s/^input = 40$/input = $n/; s/^output = 40$/output = $n/; /^flops = 280$/d; /^bwd_flops = 560$/d" \
        "$src/examples/plugin/cases.ini" > "$dir/big_cases.ini"
    grep -qx "input = $n" "$dir/big_cases.ini" || fail "no input = $n in big_cases.ini"
    if out=$(timeout 60 "$scalemeter" check-plugin "$dir/mish.so" --cases "$dir/big_cases.ini" 2>&1); then
        fail "check-plugin took input = $n: $out"
    fi
    echo "$out" | grep -q "^FAIL .*big_cases.ini:8 case vector (mish): gradient check of $((2 * n)) values .* x $((16 * n)) per forward pass (batch x (FLOPs + output elements)) = $((32 * n * n)), past the bound of 500000000 (docs/plugin-abi.md): .*gradient = no$" ||
        fail "input = $n: $out"
done
# ... and gradient = no checks the counts alone, at once: 7 x 10^6 FLOPs.
printf '%s\n' "[case huge]" "input = 1000000" "layer = mish" "flops = 7000000" "gradient = no" \
    > "$dir/big_cases.ini"
out=$(timeout 60 "$scalemeter" check-plugin "$dir/mish.so" --cases "$dir/big_cases.ini" 2>&1) &&
    fail "check-plugin passed mish without a gradient-checked case: $out"
echo "$out" | grep -q "^ok .*case huge (mish): output 1000000$" ||
    fail "gradient = no: $out"
# A count the plugin's checked arithmetic saturates (10^23 x 40 FLOPs) fails its case, never
# passes nor prints as 9223372036854775807.
check_broken huge 's/sm_mul(MISH_FLOPS_PER_ELEMENT, sm_shape_elems(out))/sm_mul(sm_mul(INT64_C(1000000000000), INT64_C(100000000000)), sm_shape_elems(out))/' \
    "INT64_C(100000000000))"
echo "$out" | grep -q "^FAIL .*case vector (mish): does not load: .*layer g (mish): a count overflows 64 bits" ||
    fail "$out"
case $out in *9223372036854775807*) fail "a saturated count printed: $out" ;; esac
# A plugin named without a folder is the file here, as the docs run it, not one dlopen finds
# on the library path.
out=$(cd "$dir" && "$scalemeter" check-plugin mish.so --cases "$src/examples/plugin/cases.ini" 2>&1) ||
    fail "check-plugin mish.so from its folder: $out"
# The docs state the header's ABI version.
abi=$(sed -n 's/^#define SM_PLUGIN_ABI_VERSION \([0-9]*\)u$/\1/p' "$src/core/include/scalemeter/plugin.h")
[ -n "$abi" ] || fail "no SM_PLUGIN_ABI_VERSION in plugin.h"
for want in "## ABI rules (version $abi)" "\`SM_PLUGIN_ABI_VERSION\` ($abi)" "versions 2 to $abi;"; do
    grep -qF "$want" "$src/docs/plugin-abi.md" || fail "docs/plugin-abi.md lacks '$want'"
done
# A layer the network loader refuses is named at its line of the cases file (line 4 here), not
# at a line of the temporary network file check-plugin builds from the case.
printf '%s\n' "[case bad]" "input = 8" "net = a = mish" "net = g = mish bogus=1" \
    > "$dir/bad_cases.ini"
out=$("$scalemeter" check-plugin "$dir/mish.so" --cases "$dir/bad_cases.ini" 2>&1) &&
    fail "check-plugin passed an unknown parameter: $out"
echo "$out" | grep -q "^FAIL .*bad_cases.ini:1 case bad (mish): does not load: $dir/bad_cases.ini:4: layer g (mish): unknown parameter bogus (it takes inplace)$" ||
    fail "the refused layer is not named at its cases line: $out"
# A layer name two net lines give is named at both lines of the cases file (8, first at 4),
# not at the temporary network file's (7, first at 5).
printf '%s\n' "[case dup]" "input = 8" "" "net = a = mish" "net = g = mish from=a" "" "" \
    "net = a = mish from=g" > "$dir/dup_cases.ini"
out=$("$scalemeter" check-plugin "$dir/mish.so" --cases "$dir/dup_cases.ini" 2>&1) &&
    fail "check-plugin passed a layer name given twice: $out"
echo "$out" | grep -q "^FAIL .*dup_cases.ini:1 case dup (mish): does not load: $dir/dup_cases.ini:8: layer name a is already used at line 4$" ||
    fail "the name given twice is not named at its cases lines: $out"
# layer and net both in one case are refused at the second, saying to give one: g given twice
# failed to load naming neither key, and a net layer beside layer's g was run unasked.
for second in "net = g = mish" "net = a = mish from=g"; do
    printf '%s\n' "[case both]" "input = 8" "layer = mish" "$second" > "$dir/both_cases.ini"
    out=$("$scalemeter" check-plugin "$dir/mish.so" --cases "$dir/both_cases.ini" 2>&1) &&
        fail "check-plugin took layer and '$second': $out"
    [ "$out" = "scalemeter check-plugin: $dir/both_cases.ini:4: net beside layer (line 3) in [case both]: give one of them, layer = TYPE ... for the layer alone, or net = NAME = TYPE ... lines with the one under test named g" ] ||
        fail "layer, then '$second': $out"
done
printf '%s\n' "[refuse both]" "input = 8" "net = a = mish" "layer = mish" "message = x" \
    > "$dir/both_cases.ini"
out=$("$scalemeter" check-plugin "$dir/mish.so" --cases "$dir/both_cases.ini" 2>&1) &&
    fail "check-plugin took net, then layer: $out"
echo "$out" | grep -q "^scalemeter check-plugin: $dir/both_cases.ini:4: layer beside net (line 3) in \[refuse both\]: give one of them" ||
    fail "net, then layer: $out"
# Keys that a section's kind cannot check are refused at their line, not ignored: a count in a
# refusal, a message in a case.
printf '%s\n' "[refuse r]" "input = 8" "layer = mish" "flops = 3" "message = x" \
    > "$dir/kind_cases.ini"
out=$("$scalemeter" check-plugin "$dir/mish.so" --cases "$dir/kind_cases.ini" 2>&1) &&
    fail "check-plugin took flops in a refusal: $out"
[ "$out" = "scalemeter check-plugin: $dir/kind_cases.ini:4: flops in refusal r: a refused layer has no counts to check" ] ||
    fail "flops in a refusal: $out"
printf '%s\n' "[case c]" "input = 8" "layer = mish" "message = x" > "$dir/kind_cases.ini"
out=$("$scalemeter" check-plugin "$dir/mish.so" --cases "$dir/kind_cases.ini" 2>&1) &&
    fail "check-plugin took a message in a case: $out"
[ "$out" = "scalemeter check-plugin: $dir/kind_cases.ini:4: message in case c: only a [refuse] section expects one" ] ||
    fail "message in a case: $out"
# Without cases: the type is named, and the exit is 1.
out=$("$scalemeter" check-plugin "$dir/mish.so" 2>&1) && fail "check-plugin without cases.ini"
echo "$out" | grep -qF "$dir/cases.ini: cannot read the cases file: No such file or directory (without --cases FILE, check-plugin reads cases.ini beside the plugin)" ||
    fail "$out"
echo "1 passed, 0 failed"
