#!/bin/sh
# tools/gpu-validate.sh stopped by a time limit keeps what its phase measured: the H100 lease of
# 2026-11-27 lost the repeat phase's rows from $OUT when its timeout stopped the script before
# the phase's copy (they survived only on the still-warm machine). Here the script runs with
# stand-ins for nvidia-smi, the offline pack's scalemeter and the measuring tools (each writes
# rows, then runs on), is sent TERM mid-phase, and the rows must be in --out (the layers
# phase's gzipped), the tool stopped, and validate.log must say so.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL  $*"; fails=$((fails + 1)); }

mkdir -p "$tmp/tree/tools" "$tmp/bin" "$tmp/pack/scalemeter-offline/bin"
cp "$src/tools/gpu-validate.sh" "$tmp/tree/tools/"
printf ':\n' >"$tmp/pack/scalemeter-offline/env.sh"
cat >"$tmp/pack/scalemeter-offline/bin/scalemeter" <<'EOF'
#!/bin/sh
[ "$1" = backends ] && echo "cuda     compute     yes    yes     a stand-in"
exit 0
EOF
chmod +x "$tmp/pack/scalemeter-offline/bin/scalemeter"
tar -C "$tmp/pack" -czf "$tmp/pack.tgz" scalemeter-offline
cat >"$tmp/bin/nvidia-smi" <<'EOF'
#!/bin/sh
case "$*" in
*-lms*) while :; do echo "2026/11/27 08:31:00.000, 1980 MHz, 2619 MHz, 650.00 W, 60"; sleep 1; done ;;
*) echo "NVIDIA H100 80GB HBM3, 580.159.04, 81559 MiB" ;;
esac
EOF
# the measuring tools: rows to --out, a mark with the process id, then a long run
cat >"$tmp/bin/python3" <<EOF
#!/bin/sh
case "\$*" in *torch_repeat_runs.py*|*torch_layer_profile.py*) ;; *) exit 0 ;; esac
out=
while [ \$# -gt 0 ]; do [ "\$1" = --out ] && out=\$2; shift; done
printf 'model,round\nresnet50,0\nvgg11,0\n' >>"\$out"
echo \$\$ >"$tmp/running"
exec sleep 120
EOF
chmod +x "$tmp/bin/nvidia-smi" "$tmp/bin/python3"

# stop_mid PHASE ARGS...: runs the phase, sends TERM once the tool runs; the tool's pid
stop_mid() {
    rm -f "$tmp/running"
    PATH=$tmp/bin:$PATH sh "$tmp/tree/tools/gpu-validate.sh" --pack "$tmp/pack.tgz" \
        --out "$tmp/out" "$@" 2>>"$tmp/stderr" &
    script=$!
    i=0
    while [ ! -s "$tmp/running" ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
    [ -s "$tmp/running" ] || { fail "$*: the measuring tool never started"; cat "$tmp/stderr"; }
    kill -TERM "$script"
    wait "$script"
    rc=$?
    [ $rc -ne 0 ] || fail "$*: exit 0 after TERM"
    sleep 0.5
    tool=$(cat "$tmp/running" 2>/dev/null)
    # a process that exited but is not yet reaped (a zombie, state Z) does not run
    state=$(ps -o stat= -p "$tool" 2>/dev/null)
    case $state in '' | Z*) ;; *) fail "$*: the tool still runs ($state)"; kill "$tool" ;; esac
}

stop_mid --phase repeat --repeat-precision fp32
rounds=$tmp/out/h100-pytorch-fp32-rounds.csv
if [ "$(cat "$rounds" 2>/dev/null)" = "$(printf 'model,round\nresnet50,0\nvgg11,0')" ]; then
    echo "ok    repeat: the rows reached --out"
else
    fail "repeat: $rounds holds '$(cat "$rounds" 2>/dev/null)'"
fi
grep -q "stopped (signal)" "$tmp/out/validate.log" && echo "ok    validate.log says it stopped" ||
    fail "validate.log does not say it stopped"

stop_mid --phase layers --models resnet50 --points 32x224
layers=$tmp/out/h100-pytorch-layers-bf16.csv.gz
if [ "$(gzip -dc "$layers" 2>/dev/null | wc -l)" -eq 3 ]; then
    echo "ok    layers: the rows reached --out, gzipped"
else
    fail "layers: $layers missing or not the 3 lines written"
fi
[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
