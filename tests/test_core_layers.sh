#!/bin/sh
# The core's areas depend one way (core/src/README.md): util < network < device < fit < predict.
# A file may include the headers of its own area and of the areas below it, and an area's
# objects may call only functions defined in their own area or below; an upward include or call
# fails, named by file and line or by object and function.
# usage: test_core_layers.sh CORE_SRC [OBJECT_DIR]  (OBJECT_DIR: the library's src/ objects)
set -u
src=$1 objs=${2:-}
rank() { case "$1" in util) echo 0 ;; network) echo 1 ;; device) echo 2 ;; fit) echo 3 ;;
         predict) echo 4 ;; *) echo -1 ;; esac; }
failed=0 checked=0
for f in "$src"/*.c "$src"/*.h; do
    [ -e "$f" ] || continue
    echo "$f: a source outside every area (core/src/README.md lists them)"; failed=1
done
for dir in "$src"/*/; do
    area=$(basename "$dir"); r=$(rank "$area")
    [ "$r" -ge 0 ] || { echo "$dir: not an area of core/src/README.md"; failed=1; continue; }
    for f in "$dir"*.c "$dir"*.h; do
        [ -e "$f" ] || continue
        checked=$((checked + 1))
        grep -n '#include "[a-z]*/' "$f" | while IFS= read -r line; do
            to=$(printf '%s' "$line" | sed 's/.*#include "\([a-z]*\)\/.*/\1/')
            [ "$(rank "$to")" -le "$r" ] ||
                echo "$f:${line%%:*}: $area includes $to, an area above it"
        done
    done
done >"${TMPDIR:-/tmp}/layers.$$"
if [ -s "${TMPDIR:-/tmp}/layers.$$" ]; then cat "${TMPDIR:-/tmp}/layers.$$"; failed=1; fi
rm -f "${TMPDIR:-/tmp}/layers.$$"
if [ -n "$objs" ]; then
    # where each function is defined, then every object's calls checked against it
    defs=$(for o in "$objs"/*/*.o; do
               area=$(basename "$(dirname "$o")")
               nm --defined-only "$o" | awk -v a="$area" '$2 ~ /^[TDBR]$/ {print $3, a}'
           done)
    for o in "$objs"/*/*.o; do
        area=$(basename "$(dirname "$o")"); r=$(rank "$area")
        checked=$((checked + 1))
        for sym in $(nm -u "$o" | awk '{print $2}'); do
            to=$(printf '%s\n' "$defs" | awk -v s="$sym" '$1 == s {print $2; exit}')
            [ -n "$to" ] && [ "$(rank "$to")" -gt "$r" ] &&
                { echo "$o: $area calls $sym of $to, an area above it"; failed=1; }
        done
    done
fi
[ "$checked" -gt 0 ] || { echo "no sources found under $src"; exit 1; }
[ $failed -eq 0 ] && echo "1 passed, 0 failed"
exit $failed
