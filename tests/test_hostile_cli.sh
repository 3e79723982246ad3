#!/bin/sh
# Hostile inputs at the command line (issue 40, items 10, 11 and 14):
# - a plugin whose entry point crashes: the process dies, after one line naming the plugin;
# - bench -o naming a pipe or /dev/zero: refused at once (it used to read them to the end);
# - a symbolic link planted at OUT.tmp, the name the atomic writer used to write through: fit
#   -o OUT leaves the link's target as it was and writes OUT.
# usage: test_hostile_cli.sh SCALEMETER CRASH_PLUGIN SOURCE_DIR
set -u
sm=$1 crash=$2 src=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0
fail() {
    echo "FAIL: $*"
    exit 1
}
ok() { passed=$((passed + 1)); }

SCALEMETER_PLUGIN_PATH=$(dirname "$crash") "$sm" plugins >/dev/null 2>"$dir/err" &&
    fail "a plugin that crashes loaded"
grep -qxF "scalemeter: crashed while loading plugin $crash" "$dir/err" ||
    fail "no line naming the crashing plugin in: $(cat "$dir/err")"
ok

cd "$src" || fail "no $src"
bench="$sm bench --model examples/tiny_resnet.ini --threads 1 --warmup 1 --reps 3 --min-time 0.01"
for out in /dev/zero /dev/stdout; do
    # the pipe to cat is what hung: bench read its own output back
    { $bench -o $out 2>"$dir/err"; echo $? >"$dir/rc"; } | cat >/dev/null
    [ "$(cat "$dir/rc")" -ne 0 ] || fail "bench -o $out succeeded"
    want="scalemeter bench: $out: not a regular file (-o names the CSV file bench appends its rows to)"
    [ "$(cat "$dir/err")" = "$want" ] || fail "expected '$want', got: $(cat "$dir/err")"
    ok
done

echo precious >"$dir/victim"
ln -s "$dir/victim" "$dir/out.ini.tmp"
"$sm" fit tests/data/scaling/cpu-16-ranks-1-to-4.csv -o "$dir/out.ini" >/dev/null 2>&1 ||
    fail "fit -o failed"
[ "$(cat "$dir/victim")" = precious ] || fail "the target of out.ini.tmp was overwritten"
[ -L "$dir/out.ini.tmp" ] || fail "the planted link was replaced"
[ -f "$dir/out.ini" ] && [ ! -L "$dir/out.ini" ] || fail "out.ini is not a regular file"
grep -q '^\[' "$dir/out.ini" || fail "out.ini holds no section"
[ -z "$(ls "$dir" | grep '^out\.ini\.tmp\.')" ] || fail "a temporary file was left: $(ls "$dir")"
ok
# 2^32 samples on 2^20 nodes of 2^12 devices is a global batch of 2^64: it wrapped to 0 and
# curve died dividing the epoch by it. Every command refuses a global batch above 2^53.
too_big="batch 4294967296 on 1048576 nodes x 4096 devices: a global batch above \
2^53 samples is beyond what scalemeter counts; give fewer nodes or a smaller batch"
for cmd in curve predict; do
    "$sm" $cmd resnet18 --coeffs default --batch 4294967296 --nodes 1048576 -g 4096 \
        --format csv >"$dir/out" 2>"$dir/err" && fail "$cmd took a global batch of 2^64"
    tail -n 1 "$dir/err" | grep -q "^scalemeter $cmd: resnet18.*: $too_big\$" ||
        fail "$cmd: expected '$too_big', got: $(cat "$dir/err")"
    ok
done
# 2^32 on 2^21 devices is 2^53, the largest taken
"$sm" predict resnet18 --coeffs default --batch 4294967296 --nodes 1048576 -g 2 \
    --format csv >"$dir/out" 2>"$dir/err" || fail "a global batch of 2^53 was refused: $(cat "$dir/err")"
ok
echo "$passed passed, 0 failed"
