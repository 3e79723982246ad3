#!/bin/sh
# bench's progress line: on a terminal (script(1) gives it one), "[k/N] ... elapsed, ... left"
# on stderr; none with --quiet, and the closing tally either way.
# usage: test_progress_line.sh SCALEMETER   (from the source tree)
set -u
bin=$1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
bench="$bin bench examples/tiny_resnet.ini --image 16 --batch 1,2 --reps 3 --min-time 0.01 --threads 1"
script -qec "$bench -o $t/a.csv" /dev/null >"$t/tty.txt" || { echo "FAIL: bench"; exit 1; }
tr '\r' '\n' <"$t/tty.txt" >"$t/lines.txt"
grep -q '\[2/2\] [^ ]*examples/tiny_resnet.ini image 16 batch 2: .* elapsed, ' "$t/lines.txt" || {
    echo "FAIL: no '[2/2] ... elapsed, ...' progress line on the terminal:"; cat "$t/lines.txt"; exit 1; }
script -qec "$bench --quiet -o $t/b.csv" /dev/null >"$t/quiet.txt" || { echo "FAIL: bench --quiet"; exit 1; }
if grep -q '\[1/2\]' "$t/quiet.txt" || ! grep -q '2 configurations measured' "$t/quiet.txt"; then
    echo "FAIL: --quiet drew a progress line, or the tally is missing:"; cat "$t/quiet.txt"; exit 1
fi
echo "ok: progress line on a terminal, none with --quiet"
