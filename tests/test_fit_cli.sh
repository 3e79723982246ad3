#!/bin/sh
# `scalemeter fit` and `scalemeter predict` as a user runs them (tests/fit.cmake runs this).
#
#   test_fit_cli.sh fails TEXT COMMAND...
#       exit status 1 or 2 (an error, not a crash) and exactly one line on stderr, containing TEXT
#   test_fit_cli.sh warns TEXT COMMAND...
#       exit status 0 and a "warning:" line on stderr containing TEXT
#   test_fit_cli.sh grows KEY BATCHES COMMAND...
#       COMMAND --batch B --format json for every B of BATCHES (comma-separated, ascending):
#       the number under "KEY" grows strictly with B
set -u
mode=$1
shift
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

case $mode in
fails | warns)
    text=$1
    shift
    "$@" >"$out" 2>"$err"
    rc=$?
    if [ "$mode" = fails ] && [ $rc -ne 1 ] && [ $rc -ne 2 ]; then
        echo "exit status $rc, expected 1 or 2"
        cat "$err"
        exit 1
    fi
    if [ "$mode" = warns ] && [ $rc -ne 0 ]; then
        echo "exit status $rc, expected 0"
        cat "$err"
        exit 1
    fi
    if [ "$mode" = fails ] && [ "$(wc -l <"$err")" -ne 1 ]; then
        echo "expected one line on stderr, got:"
        cat "$err"
        exit 1
    fi
    if ! grep -F -e "$text" "$err" >/dev/null; then
        echo "stderr does not contain: $text"
        cat "$err"
        exit 1
    fi
    if [ "$mode" = warns ] && ! grep -F "warning:" "$err" >/dev/null; then
        echo "no warning: line"
        cat "$err"
        exit 1
    fi
    cat "$err"
    ;;
grows)
    key=$1 batches=$2
    shift 2
    prev=""
    for b in $(echo "$batches" | tr ',' ' '); do
        if ! "$@" --batch "$b" --format json >"$out" 2>"$err"; then
            echo "batch $b: failed"
            cat "$err"
            exit 1
        fi
        v=$(sed -n "s/.*\"$key\": \([0-9.e+-]*\).*/\1/p" "$out")
        if [ -z "$v" ]; then
            echo "batch $b: no number under \"$key\""
            cat "$out"
            exit 1
        fi
        echo "batch $b: $key = $v"
        if [ -n "$prev" ] && ! awk -v a="$prev" -v b="$v" 'BEGIN { exit !(b > a) }'; then
            echo "$key does not grow: $prev at the batch before, $v at batch $b"
            exit 1
        fi
        prev=$v
    done
    ;;
*)
    echo "unknown mode $mode"
    exit 2
    ;;
esac
