#!/bin/sh
# `scalemeter bench` as a user runs it (tests/bench.cmake runs this). COMMAND is the whole
# bench command line (mpirun ... scalemeter bench ...) without -o, which this script adds.
#
#   test_bench_cli.sh rows NODES PER_NODE ROWS COMMAND...
#       exit 0; the file holds the header and ROWS well-formed rows (nodes and gpus_per_node as
#       given, every time a positive number, status ok, the all-reduce and bucket size on
#       several ranks, empty on one), the same rows went to stdout; a second run measures
#       nothing and leaves the file byte for byte; on several ranks with --allreduce, a run of
#       the other all-reduce measures every row again, and a file of the columns of before
#       (without allreduce and bucket_mib) is resumed as it is, with a warning
#   test_bench_cli.sh resume KILL ROWS COMMAND...
#       starts COMMAND, kills it with SIGKILL once the first row is in the file (KILL = self:
#       the command's process, mpirun or not; rank: one rank of an mpirun job), checks that the
#       file holds only whole rows, runs COMMAND again to the end and checks every one of the
#       ROWS configurations is there exactly once
#   test_bench_cli.sh interrupt SIGNAL COMMAND...   (SIGNAL: INT, TERM or HUP)
#       sends SIGNAL (INT or TERM) to COMMAND once its first row is in the file: it exits with
#       128 + the signal's number, says on stderr how many rows the file keeps, and the file
#       holds whole rows only
#   test_bench_cli.sh locked COMMAND...
#       while COMMAND runs (once its header is in the file), the same COMMAND on the same file
#       fails with one message, and the first one's rows are all there at the end
#   test_bench_cli.sh oom OK OOM COMMAND...
#       exit 0; OK rows with status ok and OOM rows with status oom, empty times and reps 0
#   test_bench_cli.sh fails PATTERN COMMAND...
#       a non-zero exit and exactly one "scalemeter" line on stderr, matching PATTERN; the file
#       given to -o holds another program's header ("a,b"), untouched afterwards
#   test_bench_cli.sh fails_plain PATTERN COMMAND...
#       the same with no -o added
set -u
mode=$1
shift
dir=$(mktemp -d)
csv=$dir/runs.csv
out=$dir/out
err=$dir/err
trap 'rm -rf "$dir"' EXIT
header="model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step,backend,threads,reps,status,allreduce,bucket_mib"

fail() {
    echo "FAILED: $*"
    echo "--- $csv"
    cat "$csv" 2>/dev/null
    echo "--- stderr"
    cat "$err" 2>/dev/null
    exit 1
}

# Whole rows only: a header, then lines of 16 fields, the file ending with a line break.
check_whole() {
    [ -s "$csv" ] || fail "no file"
    [ "$(head -n 1 "$csv")" = "$header" ] || fail "header"
    [ "$(tail -c 1 "$csv" | od -An -c | tr -d ' ')" = '\n' ] || fail "the last line is cut"
    awk -F, 'NR > 1 && NF != 16 { exit 1 }' "$csv" || fail "a row without 16 fields"
}

# ROWS distinct configurations, each once.
check_once() {
    n=$(tail -n +2 "$csv" | wc -l)
    distinct=$(tail -n +2 "$csv" | cut -d, -f1-5,11,12,15,16 | sort -u | wc -l)
    [ "$n" -eq "$1" ] || fail "$n rows, expected $1"
    [ "$distinct" -eq "$1" ] || fail "$distinct distinct configurations in $n rows"
}

case $mode in
rows)
    nodes=$1 per_node=$2 rows=$3
    shift 3
    "$@" -o "$csv" >"$out" 2>"$err" || fail "exit status $?"
    check_whole
    check_once "$rows"
    awk -F, -v nodes="$nodes" -v per="$per_node" '
        function bad(why) { print "line " NR ": " why ": " $0; failed = 1 }
        function num(x) { return x ~ /^[0-9.]+(e[-+]?[0-9]+)?$/ && x + 0 > 0 }
        NR == 1 { next }
        {
            if ($2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/) bad("image or batch")
            if ($4 != nodes) bad("nodes " $4 ", expected " nodes)
            if ($5 != per) bad("gpus_per_node " $5 ", expected " per)
            for (k = 6; k <= 10; k++) if (!num($k)) bad("time in field " k)
            if ($11 != "cpu" || $12 !~ /^[0-9]+$/ || $13 + 0 < 1 || $14 != "ok") bad("extras")
            if (nodes * per > 1 && ($15 !~ /^(ring|mpi)$/ || !num($16))) bad("all-reduce")
            if (nodes * per == 1 && ($15 != "" || $16 != "")) bad("all-reduce on one rank")
        }
        END { exit failed }' "$csv" || fail "malformed rows"
    # stdout: the same header and rows
    cmp -s "$csv" "$out" || fail "stdout differs from the file"
    cp "$csv" "$dir/before"
    "$@" -o "$csv" >"$out" 2>"$err" || fail "second run: exit status $?"
    cmp -s "$csv" "$dir/before" || fail "the second run changed the file"
    # the note names bench, as its errors do (it said "scalemeter: FILE: ...")
    grep -q "^scalemeter bench: $csv: 0 configurations measured, 0 out of memory, $rows already" \
        "$err" || fail "the second run did not skip all $rows configurations: $(cat "$err")"
    # on several ranks, a row's key holds its all-reduce: the other one is measured again
    # (rows of the first stood for it without a word), and a file of before is resumed as it
    # is, saying that its rows do not record it
    case " $* " in
    *" --allreduce "*)
        if [ "$per_node" -gt 1 ]; then
            case " $* " in *" --allreduce mpi "*) other=ring ;; *) other=mpi ;; esac
            "$@" --allreduce $other -o "$csv" >"$out" 2>"$err" ||
                fail "the other all-reduce: exit status $?"
            grep -q "^scalemeter bench: $csv: $rows configurations measured, 0 out of memory, 0 already" \
                "$err" || fail "the other all-reduce did not measure its $rows rows: $(cat "$err")"
            check_once $((2 * rows))
            [ "$(tail -n +2 "$csv" | cut -d, -f15 | sort -u | tr '\n' ' ')" = "mpi ring " ] ||
                fail "the all-reduce column"
            head -n $((rows + 1)) "$dir/before" | cut -d, -f1-14 >"$csv"
            cp "$csv" "$dir/before"
            "$@" -o "$csv" >"$out" 2>"$err" || fail "the file of before: exit status $?"
            cmp -s "$csv" "$dir/before" || fail "the file of before was changed"
            grep -q "was written before bench recorded the all-reduce" "$err" ||
                fail "no warning that the skipped rows' all-reduce is not recorded: $(cat "$err")"
        fi
        ;;
    esac
    ;;
resume)
    kill_what=$1 rows=$2
    shift 2
    "$@" -o "$csv" >"$out" 2>"$err" &
    pid=$!
    i=0
    while [ "$(cat "$csv" 2>/dev/null | wc -l)" -lt 2 ]; do
        i=$((i + 1))
        [ $i -lt 600 ] || fail "no row after 60 s"
        kill -0 $pid 2>/dev/null || fail "the command ended before its first row"
        sleep 0.1
    done
    if [ "$kill_what" = rank ]; then
        victim=$(ps -o pid= --ppid $pid | head -n 1 | tr -d ' ')
        [ -n "$victim" ] || fail "no rank under mpirun $pid"
    else
        victim=$pid
    fi
    kill -KILL "$victim"
    wait $pid 2>/dev/null
    check_whole
    first=$(($(wc -l <"$csv") - 1))
    [ "$first" -lt "$rows" ] || fail "all $rows rows were there before the kill; use slower ones"
    "$@" -o "$csv" >"$out" 2>"$err" || fail "the second run: exit status $?"
    check_whole
    check_once "$rows"
    grep -q "$((rows - first)) configurations measured, 0 out of memory, $first already there" \
        "$err" || fail "the second run did not measure just the $((rows - first)) missing"
    echo "killed after $first of $rows rows; the second run measured the other $((rows - first))"
    ;;
interrupt)
    sig=$1
    shift
    "$@" -o "$csv" >"$out" 2>"$err" &
    pid=$!
    i=0
    while [ "$(cat "$csv" 2>/dev/null | wc -l)" -lt 2 ]; do
        i=$((i + 1))
        [ $i -lt 600 ] || fail "no row after 60 s"
        kill -0 $pid 2>/dev/null || fail "the command ended before its first row"
        sleep 0.1
    done
    kill -"$sig" $pid
    wait $pid
    rc=$?
    case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; *) fail "signal $sig" ;; esac
    [ $rc -eq $want ] || fail "exit status $rc after SIG$sig, expected $want"
    check_whole
    kept=$(($(wc -l <"$csv") - 1))
    grep -q "^scalemeter bench: interrupted: $csv keeps this job's $kept rows measured so far ($kept in" \
        "$err" || fail "no message saying the $kept rows kept: $(cat "$err")"
    echo "SIG$sig after $kept rows: exit $rc, and said so"
    ;;
locked)
    "$@" -o "$csv" >"$out" 2>"$dir/err1" &
    pid=$!
    i=0
    while [ ! -s "$csv" ]; do
        i=$((i + 1))
        [ $i -lt 600 ] || fail "no header after 60 s"
        sleep 0.1
    done
    "$@" -o "$csv" >/dev/null 2>"$err" && fail "a second benchmark on the same file ran"
    kill -0 $pid 2>/dev/null || fail "the first benchmark ended before the second started"
    [ "$(grep -c scalemeter "$err")" -eq 1 ] || fail "not exactly one message"
    grep -q "runs.csv: another process is appending to it" "$err" || fail "no message about it"
    wait $pid || fail "the first benchmark failed"
    check_whole
    grep -q "measured, 0 out of memory, 0 already there" "$dir/err1" || fail "first run's summary"
    ;;
oom)
    ok=$1 oom=$2
    shift 2
    "$@" -o "$csv" >"$out" 2>"$err" || fail "exit status $?"
    check_whole
    check_once $((ok + oom))
    [ "$(grep -c ',ok,,$' "$csv")" -eq "$ok" ] || fail "rows with status ok"
    [ "$(grep -c ',,,,,,cpu,[0-9]*,0,oom,,$' "$csv")" -eq "$oom" ] || fail "rows with status oom"
    grep -q "^scalemeter bench: .* out of memory, recorded as status=oom" "$err" ||
        fail "no message about it: $(cat "$err")"
    ;;
fails | fails_plain)
    pattern=$1
    shift
    printf 'a,b\n' >"$csv"
    if [ "$mode" = fails ]; then
        "$@" -o "$csv" >"$out" 2>"$err" && fail "exit status 0"
    else
        "$@" >"$out" 2>"$err" && fail "exit status 0"
    fi
    [ "$(grep -c scalemeter "$err")" -eq 1 ] || fail "not exactly one message"
    grep -q -e "$pattern" "$err" || fail "no message matching '$pattern'"
    [ "$(cat "$csv")" = "a,b" ] || fail "the file was changed"
    ;;
*)
    echo "unknown mode $mode"
    exit 2
    ;;
esac
