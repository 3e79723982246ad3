#!/bin/sh
# The allreduce command as a user runs it (tests/allreduce.cmake runs this).
#
#   test_allreduce_cli.sh csv RANKS ROWS COMMAND...
#       exit status 0; stdout is the CSV header and ROWS rows of 6 fields each, ranks = RANKS,
#       sizes doubling per implementation, algbw = bytes / time and busbw = algbw * 2(n-1)/n
#   test_allreduce_cli.sh fails PATTERN COMMAND...
#       a non-zero exit status and exactly one "scalemeter:" line on stderr, matching PATTERN
#       (under mpirun too: one message per run, not one per rank)
set -u
mode=$1
shift
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

case $mode in
csv)
    ranks=$1 rows=$2
    shift 2
    "$@" >"$out" 2>"$err"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "exit status $rc"
        cat "$err"
        exit 1
    fi
    awk -F, -v ranks="$ranks" -v rows="$rows" '
        function off(a, b) { return a > b ? a - b : b - a }
        function bad(why) { print "line " NR ": " why ": " $0; failed = 1 }
        NR == 1 {
            if ($0 != "bytes,impl,ranks,nodes,time_s,algbw_gb_s,busbw_gb_s") bad("header")
            next
        }
        {
            n++
            if (NF != 7) { bad(NF " fields"); next }
            if ($1 !~ /^[0-9]+$/ || $1 % 4 != 0) bad("bytes")
            if ($2 != "ring" && $2 != "mpi") bad("impl")
            if ($3 != ranks) bad("ranks")
            if ($4 != 1) bad("nodes: every rank runs on this machine")
            if ($5 !~ /^[0-9]\.[0-9]+e[-+][0-9]+$/ || $5 <= 0) bad("time_s")
            if (($2 in last) && $1 != 2 * last[$2]) bad("size does not double")
            last[$2] = $1
            # one rank sends nothing: no bandwidth (427 TB/s of algbw was printed)
            if (ranks == 1) {
                if ($6 != "" || $7 != "") bad("a bandwidth of one rank")
                next
            }
            algbw = $1 / $5 / 1e9
            if (off($6, algbw) > 1e-3 * algbw + 1e-4) bad("algbw is not bytes / time")
            busbw = $6 * 2 * (ranks - 1) / ranks
            if (off($7, busbw) > 1e-3 * busbw + 1e-4) bad("busbw is not algbw * 2(n-1)/n")
        }
        END {
            if (n != rows) { print n " rows, expected " rows; failed = 1 }
            exit failed
        }' "$out" || { cat "$out"; exit 1; }
    ;;
fails)
    pattern=$1
    shift
    "$@" >"$out" 2>"$err"
    rc=$?
    if [ $rc -eq 0 ]; then
        echo "exit status 0, expected an error"
        exit 1
    fi
    lines=$(grep -c '^scalemeter allreduce:' "$err")
    if [ "$lines" -ne 1 ] || ! grep '^scalemeter allreduce:' "$err" | grep -q -- "$pattern"; then
        echo "expected one line 'scalemeter allreduce: ...$pattern...' on stderr, got:"
        cat "$err"
        exit 1
    fi
    ;;
*)
    echo "usage: test_allreduce_cli.sh csv|fails ..."
    exit 2
    ;;
esac
