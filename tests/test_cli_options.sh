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

# help names the commands that take --format, and what each takes: it said every one took
# table, csv or json, where backends refused csv (it takes it now) and predict --per-block does
run help
cmds=$(tr '\n' ' ' <"$tmp/out" | sed -n 's/.*--help\. \(.*\) take --format.*/\1/p' | tr -d ',' |
    sed 's/ and / /')
[ "$(echo $cmds | wc -w)" -eq 12 ] && grep -q 'predict --per-block table or json' "$tmp/out" ||
    check "help: --format"
for cmd in $cmds; do
    "$bin" $cmd --format nosuch >"$tmp/out" 2>&1
    grep -Eq "expected (one of )?table,? csv,? (or )?json" "$tmp/out" ||
        check "$cmd takes table, csv and json"
done
run predict resnet18 --batch 8 --device h100 --per-block --format csv
[ $? -eq 2 ] && grep -q -- "--per-block: --format table or json" "$tmp/out" || check "--per-block csv"

# "--name=V", an abbreviation, and "--" before an operand
run predict --batch=8 --coeffs default --form json -- resnet18 &&
    grep -q '"model": "resnet18".*"batch": 8' "$tmp/out" || check "--name=V, abbreviation, --"

# usage errors: one line, naming the option and the command, exit 2
run predict resnet18 --batch 8 --bogus
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
    grep -q "^scalemeter predict: unknown option '--bogus' (scalemeter help predict" "$tmp/out" ||
    check "unknown option"
# a misspelt one is answered with the command's nearest: a plural, a slip of a letter, two
# letters swapped, with =VALUE; one near none gets no guess
run compare resnet18 --devices h100,a100 --batch 8
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
    grep -q "^scalemeter compare: unknown option '--devices' (did you mean --device? scalemeter help compare lists the options)$" "$tmp/out" ||
    check "did you mean --device"
run predict resnet18 --bach 8 --coeffs default
[ $? -eq 2 ] && grep -q "unknown option '--bach' (did you mean --batch?" "$tmp/out" ||
    check "did you mean --batch"
run curve resnet18 --batch 8 --coeffs default --nodes 1:2 --precsiion=bf16
[ $? -eq 2 ] && grep -q "unknown option '--precsiion=bf16' (did you mean --precision?" "$tmp/out" ||
    check "did you mean --precision"
run predict resnet18 --batch 8 --frobnicate
[ $? -eq 2 ] && grep -q "unknown option '--frobnicate' (scalemeter help predict" "$tmp/out" ||
    check "no guess for --frobnicate"
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

# --algorithm or --protocol beside --collective ring: the option's usage error (it was exit 1,
# naming no option: "an algorithm or protocol restricts NCCL's choice")
for cmd in predict curve; do
    run $cmd resnet18 --batch 8 --nodes 1 --device h100 --collective ring --algorithm Ring
    [ $? -eq 2 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
        grep -q "^scalemeter $cmd: --algorithm Ring restricts NCCL's choice: it needs the nccl collective, not ring$" "$tmp/out" ||
        check "$cmd --collective ring --algorithm"
done
run allreduce --device h100 --collective ring --protocol LL
[ $? -eq 2 ] && grep -q "^scalemeter allreduce: --protocol LL restricts NCCL's choice" "$tmp/out" ||
    check "allreduce --collective ring --protocol"

# "-": a network file and a measurement CSV on the standard input
"$bin" metrics - --format json <"$src/models/resnet18.ini" >"$tmp/out" 2>&1 &&
    grep -q '"weights": 11689512' "$tmp/out" || check "metrics -"
"$bin" fit - --format json <"$src/configs/calibrations/cpu-amd-epyc-1thread.csv" >"$tmp/out" 2>&1 &&
    grep -q '"rows": 200' "$tmp/out" || check "fit -"

# -o FILE and --format csv where a command prints data
run predict resnet18 --batch 8 --format csv -o "$tmp/p.csv" && [ ! -s "$tmp/out" ] &&
    head -1 "$tmp/p.csv" | grep -q '^model,image,batch,nodes,gpus_per_node,t_infer,.*,t_step,precision,' &&
    sed -n 2p "$tmp/p.csv" | grep -Eq '^resnet18,224,8,1,1(,[0-9.e+-]+){5},fp32,' ||
    check "predict --format csv -o"
# -g is --gpus-per-node wherever a command takes devices per node
for cmd in "predict resnet18 --batch 8" "curve resnet18 --coeffs default --batch 8 --nodes 2"; do
    run $cmd -g 3 --format csv && grep -q '^resnet18,224,8,[12],3,' "$tmp/out" ||
        check "$cmd -g 3"
done
run metrics resnet18 --format json -o "$tmp/m.json" &&
    grep -q '"weights": 11689512' "$tmp/m.json" || check "metrics -o"
run models --format json && head -1 "$tmp/out" | grep -q '^{"warning": null, "models": \[' || check "models json object"
run plugins --format json && head -1 "$tmp/out" | grep -q '^{"warning": null, "plugins": \[' || check "plugins json object"
run predict resnet18 --batch 8 -o /nonexistent/dir/p.txt
[ $? -ne 0 ] && grep -q "cannot write /nonexistent/dir/p.txt" "$tmp/out" || check "-o unwritable"

# --bucket-mib has a physical range, one 4-byte gradient (3.8147e-06 MiB) to 1 TiB, in every
# command that takes it: 1e-20 once overflowed the bucket count and hid the all-reduce
for cmd in "predict resnet50 --device h100 --nodes 64 --batch 32" \
    "curve resnet50 --device h100 --nodes 64 --batch 32" "fit runs.csv" "bench resnet18 -o x.csv"; do
    for mib in 1e-20 1e-15 3e-6 2e6 nan inf -1; do
        run $cmd --bucket-mib $mib
        [ $? -ne 0 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
            grep -q -- "--bucket-mib .*from 3.8147e-06 (one 4-byte gradient) to 1048576" "$tmp/out" ||
            check "$cmd --bucket-mib $mib"
    done
done
# bench --max-memory in GB becomes int64_t bytes: past 1e6 GB it is refused, not overflowed
run bench resnet18 -o x.csv --max-memory 1e12
[ $? -ne 0 ] && grep -q -- "--max-memory 1e12: expected from 1e-9 (a byte) to 1000000 GB" \
    "$tmp/out" || check "bench --max-memory 1e12"
# below a byte it was 0 bytes, read as no limit: every configuration ran
run bench resnet18 -o x.csv --max-memory 5e-10
[ $? -ne 0 ] && grep -q -- "--max-memory 5e-10: expected from 1e-9 (a byte) to 1000000 GB" \
    "$tmp/out" || check "bench --max-memory 5e-10"
# at the bounds the all-reduce is computed: 4-byte buckets cost more than 25 MiB ones, as one
# bucket per parameter tensor (161; DDP never splits one) against 4, not 25.6 million buckets
run predict resnet50 --device h100 --nodes 64 --batch 32 --bucket-mib 3.8147e-06 --format csv &&
    small=$(grep '^resnet50,' "$tmp/out") &&
    run predict resnet50 --device h100 --nodes 64 --batch 32 --format csv &&
    awk -F, -v s="$small" '/^model,/ { for (i = 1; i <= NF; i++) if ($i == "t_grad") c = i }
        /^resnet50,/ { split(s, a, ","); exit !(a[c] > 5 * $c && a[c] < 100 * $c && $c > 0) }' \
        "$tmp/out" ||
    check "--bucket-mib 3.8147e-06"
# and a coefficient file's bucket_mb likewise, at its line
sed 's/^bucket_mb *=.*/bucket_mb = 1e-20/' "$src/configs/calibrations/h100-pytorch-fp32.ini" \
    >"$tmp/c.ini"
line=$(grep -n '^bucket_mb' "$tmp/c.ini" | cut -d: -f1)
run predict resnet50 --coeffs "$tmp/c.ini" --batch 8
[ $? -ne 0 ] && grep -q "c.ini:$line: bucket_mb = 1e-20: expected a positive number" "$tmp/out" ||
    check "coefficient file bucket_mb = 1e-20"

# coefficients all zero predict a 0 s step: predict refuses it as curve does, one message
sed -E 's/^(c[0-9]+_[a-z_]+) = .*/\1 = 0/' "$src/configs/calibrations/default.ini" >"$tmp/zero.ini"
for cmd in "predict resnet18 --batch 8" "predict resnet18 --batch 8 --format json" \
    "curve resnet18 --batch 8 --nodes 1:2"; do
    run $cmd --coeffs "$tmp/zero.ini"
    [ $? -ne 0 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
        grep -q "resnet18 at batch 8 on 1 node x 1 device: the predicted step time 0 s is not positive" \
            "$tmp/out" || check "$cmd, zero coefficients"
done
# and an inference of 0 s likewise, the step's coefficients kept
awk '/^\[/ { s = $0 } s == "[infer]" && /^c[0-9]/ { sub(/=.*/, "= 0") } { print }' \
    "$src/configs/calibrations/default.ini" >"$tmp/zero-infer.ini"
run predict resnet18 --batch 8 --coeffs "$tmp/zero-infer.ini"
[ $? -ne 0 ] && grep -q "the predicted inference time 0 s is not positive" "$tmp/out" ||
    check "predict, zero inference coefficients"
# and a training pass of 0 s: a [fwd] of zeros printed t_fwd 0 and a step of t_bwd + t_grad
awk '/^\[/ { s = $0 } s == "[fwd]" && /^c[0-9]/ { sub(/=.*/, "= 0") } { print }' \
    "$src/configs/calibrations/default.ini" >"$tmp/zero-fwd.ini"
run predict resnet18 --batch 8 --coeffs "$tmp/zero-fwd.ini" --format csv
[ $? -ne 0 ] && grep -q "the predicted forward time 0 s is not positive" "$tmp/out" ||
    check "predict, zero forward coefficients"

# device rates have a physical floor: 1e-300 TFLOP/s once gave steps of inf s, printed as
# "inf d" in tables and as inf, which is not JSON
sed 's/^peak_tf32_tflops *=.*/peak_tf32_tflops = 1e-300/' "$src/configs/devices/h100.ini" >"$tmp/slow.ini"
line=$(grep -n '^peak_tf32_tflops' "$tmp/slow.ini" | cut -d: -f1)
run curve resnet18 --device "$tmp/slow.ini" --batch 1 --nodes 1
[ $? -ne 0 ] && grep -q "slow.ini:$line: peak_tf32_tflops = 1e-300: expected a number from 1e-06" \
    "$tmp/out" || check "peak 1e-300 TFLOP/s"
for key in memory_bandwidth_gb_s compute_efficiency intra_node_bandwidth_gb_s; do
    sed "s/^$key *=.*/$key = 1e-300/" "$src/configs/devices/h100.ini" >"$tmp/slow.ini"
    run curve resnet18 --device "$tmp/slow.ini" --batch 1 --nodes 1
    [ $? -ne 0 ] && grep -q "slow.ini:[0-9]*: $key = 1e-300: expected a number from" "$tmp/out" ||
        check "$key = 1e-300"
done
# at the floor, 1e-6 TFLOP/s, a step takes hours (10.08 h at tf32 efficiency 0.3, x 0.3/0.44
# at h100's refitted 0.44 = 6.87 h, its framework's convolutions by kind left out):
# 8 devices / 6.87 h = 0.000323 images/s, shown with its digits, not as 0, and the JSON parses
# (its [framework] base's keys written out in place of the base, to leave those out)
awk -v fw="$src/configs/frameworks/pytorch-eager-hopper.ini" '
    /^base *=/ { while ((getline l < fw) > 0) if (in_fw) print l; else in_fw = l == "[framework]"; next }
    { print }' "$src/configs/devices/h100.ini" |
    sed -e 's/^peak_tf32_tflops *=.*/peak_tf32_tflops = 1e-6/' \
        -e '/^conv[1x]*_[fb][wd][db]_efficiency_tf32 *=/d' >"$tmp/slow.ini"
run curve resnet18 --device "$tmp/slow.ini" --batch 1 --nodes 1 &&
    grep -q '^resnet18 .* 6\.87 h  *[0-9.]* GiB  *0\.000323[0-9]  ' "$tmp/out" || check "sub-unit images/s"
"$bin" curve resnet18 --device "$tmp/slow.ini" --batch 1 --nodes 1:2 --format json >"$tmp/out" 2>&1 &&
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/out" ||
    check "curve JSON of a slow device"

exit $fail
