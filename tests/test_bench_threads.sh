#!/bin/sh
# bench's default thread count follows the CPU affinity mask: under `taskset -c 0` one thread
# (the CSV's threads column), whatever the machine's cores; under `taskset -c 0,1` two, and
# under mpirun two ranks that share CPUs 0 and 1 one each.
# usage: test_bench_threads.sh SCALEMETER MPIEXEC NP_FLAG [MPIRUN FLAGS...]
set -eu
scalemeter=$1 mpiexec=$2 np=$3
shift 3
command -v taskset >/dev/null || { echo "no taskset: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
tiny="--model examples/tiny_resnet.ini --image 8 --batch 1 --warmup 1 --reps 1 --min-time 0.01"
# the threads column of every row, by the header's name
threads() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "threads") c = i; next }
                     { print $c }' "$1" | sort -u | tr '\n' ' '; }

taskset -c 0 "$scalemeter" bench $tiny -o "$dir/one.csv" >/dev/null 2>"$dir/err" ||
    fail "bench under taskset -c 0: $(cat "$dir/err")"
[ "$(threads "$dir/one.csv")" = "1 " ] || fail "taskset -c 0: threads $(threads "$dir/one.csv")"

if [ "$(nproc --all)" -ge 2 ] && taskset -c 0,1 true 2>/dev/null; then
    taskset -c 0,1 "$scalemeter" bench $tiny -o "$dir/two.csv" >/dev/null 2>"$dir/err" ||
        fail "bench under taskset -c 0,1: $(cat "$dir/err")"
    [ "$(threads "$dir/two.csv")" = "2 " ] || fail "taskset -c 0,1: threads $(threads "$dir/two.csv")"
    # 2 ranks, both on CPUs 0 and 1 (no binding): one thread each
    taskset -c 0,1 "$mpiexec" "$np" 2 "$@" --bind-to none "$scalemeter" bench $tiny \
        -o "$dir/np2.csv" >/dev/null 2>"$dir/err" || fail "mpirun: $(cat "$dir/err")"
    [ "$(threads "$dir/np2.csv")" = "1 " ] || fail "2 ranks on 2 CPUs: threads $(threads "$dir/np2.csv")"
fi
echo "1 passed, 0 failed"
