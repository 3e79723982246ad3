#!/bin/sh
# env.sh of the offline pack (written by tools/pack-offline.sh) finds its folder whatever the
# shell and the working folder, or says how to point it, never a wrong place (issue 17: sourced
# by sh from another folder, it set OPAL_PREFIX wrong and every MPI program died in MPI_Init).
# The env.sh text is taken from pack-offline.sh itself, into a stand-in of the pack's folder.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pack=$work/unpacked/scalemeter-offline
mkdir -p "$pack/bin" "$work/elsewhere" "$work/scripts"
sed -n '/^cat >"\$stage\/env.sh" <<.ENV.$/,/^ENV$/p' "$src/tools/pack-offline.sh" |
    sed '1d;$d' >"$pack/env.sh"
grep -q OPAL_PREFIX "$pack/env.sh" || { echo "FAILED: no env.sh text in pack-offline.sh"; exit 1; }
printf '#!/bin/sh\n' >"$pack/bin/scalemeter" && chmod +x "$pack/bin/scalemeter"
want=$pack/mpi/usr
fails=0
check() { # what, got
    if [ "$2" = "$want" ]; then echo "ok    $1"; else echo "FAIL  $1: OPAL_PREFIX=$2"; fails=$((fails + 1)); fi
}
# sh, from another folder, told where: what tools/gpu-validate.sh does
got=$(cd "$work/elsewhere" && SCALEMETER_OFFLINE=$pack sh -c '. "$1"; echo "$OPAL_PREFIX"' sh "$pack/env.sh")
check "sh from another folder with SCALEMETER_OFFLINE" "$got"
# sh from the folder holding scalemeter-offline (the README's `. scalemeter-offline/env.sh`)
got=$(cd "$work/unpacked" && sh -c '. scalemeter-offline/env.sh; echo "$OPAL_PREFIX"')
check "sh from the parent folder" "$got"
# sh from inside it
got=$(cd "$pack" && sh -c '. ./env.sh; echo "$OPAL_PREFIX"')
check "sh from the folder itself" "$got"
# bash names the sourced file: any folder
if command -v bash >/dev/null; then
    got=$(cd "$work/elsewhere" && bash -c '. "$1"; echo "$OPAL_PREFIX"' bash "$pack/env.sh")
    check "bash from another folder" "$got"
fi
# a script run by sh elsewhere, sourcing it by its full path, not told where: $0 is the script,
# the working folder has no pack; it must refuse in one line, not set a wrong OPAL_PREFIX
printf '. "%s" || exit 3\necho "OPAL_PREFIX=$OPAL_PREFIX"\n' "$pack/env.sh" >"$work/scripts/run.sh"
if out=$(cd "$work/elsewhere" && sh "$work/scripts/run.sh" 2>"$work/err"); then
    echo "FAIL  a lost env.sh went on: $out"
    fails=$((fails + 1))
elif grep -q "set SCALEMETER_OFFLINE=/path/to/scalemeter-offline" "$work/err" &&
    [ "$(wc -l <"$work/err")" -eq 1 ]; then
    echo "ok    a lost env.sh refuses in one line: $(cat "$work/err")"
else
    echo "FAIL  a lost env.sh: $(cat "$work/err")"
    fails=$((fails + 1))
fi
[ "$fails" -eq 0 ]
