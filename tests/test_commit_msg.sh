#!/bin/sh
# tools/hooks/commit-msg accepts messages in git's form and refuses the rest, one line saying why.
# usage: test_commit_msg.sh HOOK
set -u
hook=$1 tmp=$(mktemp -d) passed=0 failed=0
trap 'rm -rf "$tmp"' EXIT
expect() { # expect ok|refused "what" MESSAGE
    printf '%s' "$3" >"$tmp/msg"
    if "$hook" "$tmp/msg" 2>"$tmp/err"; then got=ok; else got=refused; fi
    if [ "$got" = "$1" ]; then passed=$((passed + 1)); else
        failed=$((failed + 1)); echo "FAIL: $2: $got ($(cat "$tmp/err"))"; fi
}
s72=$(printf 'core: %066d' 0)   # 72 characters
s73=$(printf 'core: %067d' 0)   # 73
expect ok "a subject alone" "core: count the weights once"
expect ok "subject, blank, body" "$(printf 'cli: say it once\n\nWhy: two lines said the same.\n')"
expect ok "72 characters" "$s72"
expect refused "73 characters" "$s73"
expect refused "no area" "Add a memory model"
expect refused "no blank line" "$(printf 'cli: say it once\nWhy: ...\n')"
expect refused "a body line of 80" "$(printf 'cli: x\n\n%s\n' "$(printf 'word %.0s' $(seq 16))")"
expect ok "a long URL in the body" "$(printf 'docs: link\n\nsee https://example.org/%070d\n' 0)"
expect ok "git's comments ignored" "$(printf '# Please enter the commit message\ncore: fix\n')"
expect ok "a merge" "Merge branch 'hostile-values' into a branch with a long name, longer than 72"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
