#!/bin/sh
# Every option of predict and curve is in its generated --help, and every option the help
# lists is one the parser takes: the lists below are written from docs/output.md and issue
# 39 (the 21 options the two commands share, and each one's own; --accumulate and --fp8
# since), not from the code.
# usage: test_option_help.sh SCALEMETER
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
shared="batch coeffs device precision nodes gpus-per-node image seq dataset tokens epochs
    format overlap bucket-mib collective algorithm protocol framework optimizer shard
    checkpoint attention compile dispatch accumulate output help fp8"
check() { # CMD OPTIONS...: the help lists exactly these, and each is parsed as an option
    cmd=$1
    shift
    "$bin" "$cmd" --help >"$tmp/help" || { echo "FAIL: $cmd --help exits $?"; fail=1; }
    # the options the help lists: "  --name" or "  -g, --name" at the start of a line
    sed -n 's/^  \(-[a-z], \)\{0,1\}--\([a-z0-9-]*\).*/\2/p' "$tmp/help" | sort >"$tmp/listed"
    printf '%s\n' "$@" | sort >"$tmp/expected"
    if ! cmp -s "$tmp/listed" "$tmp/expected"; then
        echo "FAIL: $cmd --help lists other options than expected (< listed, > expected):"
        diff "$tmp/listed" "$tmp/expected" | sed 's/^/  | /'
        fail=1
    fi
    for o in "$@"; do
        "$bin" "$cmd" "--$o=1" >"$tmp/out" 2>&1
        if grep -q "unknown option\|ambiguous" "$tmp/out"; then
            echo "FAIL: $cmd does not take --$o: $(cat "$tmp/out")"
            fail=1
        fi
    done
}
# shellcheck disable=SC2086
check predict $shared per-block per-layer max-batch max-infer-batch kv-cache
# shellcheck disable=SC2086
check curve $shared global-batch threshold
# short letters: -g and -o are listed beside their long names
for cmd in predict curve; do
    "$bin" "$cmd" --help | grep -q '^  -g, --gpus-per-node G ' &&
        "$bin" "$cmd" --help | grep -q '^  -o, --output FILE ' ||
        { echo "FAIL: $cmd --help: -g, -o"; fail=1; }
done
exit $fail
