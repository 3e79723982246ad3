#!/bin/sh
# Formats the tree's C, C headers and CUDA with .clang-format (clang-format 14, Debian's), or
# only the FILEs given; with --check, lists what is not formatted and fails (CI runs it:
# .ci/run). Files git does not track yet are included, unless ignored, so that a new file is
# checked before it is committed.
# usage: tools/format.sh [--check] [FILE...]
set -eu
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format.sh: clang-format is not installed (tools/install-deps.sh --test)" >&2; exit 2; }
check=0
if [ "${1:-}" = "--check" ]; then
    check=1
    shift
fi
if [ $# -gt 0 ]; then
    # clang-format takes any text for C: a shell script given by mistake comes back mangled
    for f in "$@"; do
        case $f in
        *.c | *.h | *.cu | *.cuh) ;;
        *) echo "format.sh: $f is not C, a header or CUDA: not formatted" >&2; exit 2 ;;
        esac
    done
    files="$*"
else
    files=$(git ls-files --cached --others --exclude-standard '*.c' '*.h' '*.cu' '*.cuh')
fi
if [ $check -eq 1 ]; then
    # one line per file that differs
    bad=0
    for f in $files; do
        if ! clang-format --dry-run -Werror "$f" 2>/dev/null; then
            echo "format.sh: $f is not formatted (tools/format.sh $f formats it)"
            bad=1
        fi
    done
    [ $bad -eq 0 ] && echo "format.sh: $(echo "$files" | wc -w) files formatted"
    exit $bad
fi
echo "$files" | xargs clang-format -i
