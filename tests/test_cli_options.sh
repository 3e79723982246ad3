#!/bin/sh
# The command-line conventions every command shares (cli/output.c, next_option): "--name V" and
# "--name=V", abbreviations, "--" ends the options, "-" reads the standard input, help CMD, -o,
# and one-line usage errors with exit status 2. Counts come from torchvision's published
# parameter counts (resnet18: 11,689,512).
# usage: test_cli_options.sh SCALEMETER SOURCE_DIR
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # NAME: the last command's output in $tmp/out matched what the caller tested
    echo "FAIL: $1"
    sed 's/^/  | /' "$tmp/out"
    fail=1
}
run() { "$bin" "$@" >"$tmp/out" 2>&1; }

# help CMD is CMD --help, and an unknown CMD is named
run help predict && grep -q '^usage: scalemeter predict MODEL' "$tmp/out" || check "help predict"
run help nothing; [ $? -eq 2 ] && grep -q "unknown command 'nothing'" "$tmp/out" || check "help nothing"

# "--name=V", an abbreviation, and "--" before an operand
run predict --batch=8 --coeffs default --form json -- resnet18 &&
    grep -q '"model": "resnet18".*"batch": 8' "$tmp/out" || check "--name=V, abbreviation, --"

# usage errors: one line, naming the option and the command, exit 2
run predict resnet18 --batch 8 --bogus
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
    grep -q "^scalemeter predict: unknown option '--bogus' (scalemeter help predict" "$tmp/out" ||
    check "unknown option"
run predict resnet18 --batch
[ $? -eq 2 ] && grep -q "option --batch needs a value" "$tmp/out" || check "missing value"
run predict resnet18 --batch 8 --per-block=yes
[ $? -eq 2 ] && grep -q "option --per-block takes no value" "$tmp/out" || check "flag with a value"
# a --format value longer than the message: cut at 200 characters, still one line (it wrote
# past the message's buffer; found by fuzz/fuzz_cli.c)
long=$(printf '%0300d' 0)
run metrics resnet18 --format "$long"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
    grep -q -- "--format $(printf '%0200d' 0): expected one of table csv json$" "$tmp/out" ||
    check "--format too long"
run fit runs.csv --dev x
[ $? -eq 2 ] && grep -q "option '--dev' is ambiguous" "$tmp/out" || check "ambiguous abbreviation"
run fit runs.csv --device x
[ $? -ne 0 ] && grep -q -- "--device is --device-name NAME" "$tmp/out" || check "fit --device renamed"

# "-": a network file and a measurement CSV on the standard input
"$bin" metrics - --format json <"$src/models/resnet18.ini" >"$tmp/out" 2>&1 &&
    grep -q '"weights": 11689512' "$tmp/out" || check "metrics -"
"$bin" fit - --format json <"$src/configs/calibrations/cpu-amd-epyc-1thread.csv" >"$tmp/out" 2>&1 &&
    grep -q '"rows": 200' "$tmp/out" || check "fit -"

# -o FILE and --format csv where a command prints data
run predict resnet18 --batch 8 --format csv -o "$tmp/p.csv" && [ ! -s "$tmp/out" ] &&
    head -1 "$tmp/p.csv" | grep -q '^model,image,batch,nodes,gpus_per_node,precision,' &&
    sed -n 2p "$tmp/p.csv" | grep -q '^resnet18,224,8,1,1,fp32,' || check "predict --format csv -o"
# -g is --gpus-per-node wherever a command takes devices per node
for cmd in "predict resnet18 --batch 8" "curve resnet18 --coeffs default --batch 8 --nodes 2"; do
    run $cmd -g 3 --format csv && grep -q '^resnet18,224,8,[12],3,' "$tmp/out" ||
        check "$cmd -g 3"
done
run metrics resnet18 --format json -o "$tmp/m.json" &&
    grep -q '"weights": 11689512' "$tmp/m.json" || check "metrics -o"
run models --format json && head -1 "$tmp/out" | grep -q '^{"models": \[' || check "models json object"
run plugins --format json && head -1 "$tmp/out" | grep -q '^{"plugins": \[' || check "plugins json object"
run predict resnet18 --batch 8 -o /nonexistent/dir/p.txt
[ $? -ne 0 ] && grep -q "cannot write /nonexistent/dir/p.txt" "$tmp/out" || check "-o unwritable"

exit $fail
