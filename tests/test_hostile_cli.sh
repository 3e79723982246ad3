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
# bench's CSV names a network by the path given, whole: a field of 64 bytes cut a long path
# short (a file fit cannot find), and two paths alike in their first 63 bytes were taken for
# one configuration, so that a resumed job skipped the second network's rows.
long="$dir/networks_of_a_project_whose_folder_names_run_long/second_level"
mkdir -p "$long"
for w in 2 4; do
    printf '[network]\ninput = 3x8x8\n[layers]\nc = conv2d out=%d kernel=1\n' $w >"$long/net_$w.ini"
done
quick="$sm bench --threads 1 --warmup 1 --reps 3 --min-time 0.01 --image 8 --batch 1"
$quick "$long/net_2.ini" -o "$dir/long.csv" >/dev/null 2>"$dir/err" ||
    fail "bench of $long/net_2.ini: $(cat "$dir/err")"
$quick "$long/net_2.ini,$long/net_4.ini" -o "$dir/long.csv" \
    >/dev/null 2>"$dir/err" || fail "bench resumed: $(cat "$dir/err")"
grep -q "1 configurations measured, 0 out of memory, 1 already there" "$dir/err" ||
    fail "the second network was not measured: $(cat "$dir/err")"
[ "$(cut -d, -f1 "$dir/long.csv" | tail -n +2)" = "$(printf '%s\n' "$long/net_2.ini" "$long/net_4.ini")" ] ||
    fail "the model column does not name the files: $(cut -d, -f1 "$dir/long.csv")"
ok
echo "$passed passed, 0 failed"
