#!/bin/sh
# The core decides by the plugins' traits, never by a layer type's name: no type that the
# build's plugins provide is named as a string in core/src. "linear" is also the name of a
# value of the coefficient files' grad_model key (ConvMeter's linear gradient form), which those
# two lines read and write; nothing else may name a type.
# usage: test_core_type_names.sh SCALEMETER CORE_SRC
set -eu
bin=$1 src=$2
types=$("$bin" plugins --format csv | tail -n +2 | cut -d, -f1)
[ -n "$types" ] || { echo "no layer types listed by $bin plugins"; exit 1; }
found=0
for t in $types; do
    hits=$(grep -rn --include="*.[ch]" "\"$t\"" "$src" | grep -v 'grad_form == SM_GRAD_RING ? "ring" : "linear"' |
           grep -v 'parse_flag(value, "linear", "ring"' || true)
    if [ -n "$hits" ]; then
        echo "layer type '$t' named in the core:"
        echo "$hits"
        found=1
    fi
done
[ $found -eq 0 ] && echo "1 passed, 0 failed"
exit $found
