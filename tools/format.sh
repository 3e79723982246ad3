#!/bin/sh
# Formats the tree's C, C headers and CUDA with .clang-format (clang-format 14, Debian's), or,
# with --check, lists what is not formatted and fails (CI runs it: .ci/run).
# usage: tools/format.sh [--check]
set -eu
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format.sh: clang-format is not installed (tools/install-deps.sh --test)" >&2; exit 2; }
files=$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')
if [ "${1:-}" = "--check" ]; then
    # one line per file that differs, then the first of its differences
    bad=0
    for f in $files; do
        if ! clang-format --dry-run -Werror "$f" 2>/dev/null; then
            echo "format.sh: $f is not formatted (tools/format.sh formats it)"
            bad=1
        fi
    done
    [ $bad -eq 0 ] && echo "format.sh: $(echo "$files" | wc -w) files formatted"
    exit $bad
fi
echo "$files" | xargs clang-format -i
