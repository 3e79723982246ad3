#!/bin/sh
# libscalemeter exports its API alone: every defined dynamic symbol is named sm_ (a program
# linking the library meets none of its inner names), and every function the public headers
# declare is there.
# usage: test_exports.sh LIBSCALEMETER.so INCLUDE_DIR
lib=$1
inc=$2
syms=$(nm -D --defined-only "$lib" | awk 'NF == 3 { print $3 }') || exit 1
if [ -z "$syms" ]; then
    echo "FAIL: no dynamic symbols read from $lib"
    exit 1
fi
bad=$(printf '%s\n' "$syms" | grep -v '^sm_')
if [ -n "$bad" ]; then
    echo "FAIL: $lib exports names without the sm_ prefix:"
    printf '%s\n' "$bad"
    exit 1
fi
# functions declared on one line of a public header (static inline ones are not symbols)
declared=$(grep -hE '^[a-z][a-z0-9_ ]*[ *]+sm_[a-z0-9_]+\(' "$inc"/scalemeter/*.h |
           grep -vE '^(static|typedef)' | sed -E 's/.*[ *](sm_[a-z0-9_]+)\(.*/\1/' | sort -u)
n=0
for f in $declared; do
    n=$((n + 1))
    if ! printf '%s\n' "$syms" | grep -qx "$f"; then
        echo "FAIL: $f, declared in $inc/scalemeter, is not exported"
        exit 1
    fi
done
if [ "$n" -lt 50 ]; then
    echo "FAIL: only $n functions found declared in $inc/scalemeter"
    exit 1
fi
echo "$(printf '%s\n' "$syms" | wc -l) symbols exported, all sm_; the $n declared ones among them"
