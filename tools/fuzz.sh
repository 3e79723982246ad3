#!/bin/sh
# Fuzzes scalemeter's parsers in-process with libFuzzer (docs/fuzzing.md): builds the targets of
# fuzz/ with clang in build-fuzz/ (ASan + UBSan), replays every saved reproducer of
# fuzz/regressions/, then runs each target for --seconds S (default 20) on its corpus in
# build-fuzz/corpus/TARGET (seeded from the repository's own files), and prints per target the
# inputs run and the rate. Exits non-zero on a crash, a leak, a hang or a failed replay, naming
# the input that caused it.
#
#   tools/fuzz.sh [--seconds S] [--jobs N] [TARGET...]
#   targets: network coeffs device runs_csv comm cli framework fit elf resume atomic
# --jobs N runs N processes per target (libFuzzer's -fork=N), for the long run on many cores.
set -eu
cd "$(dirname "$0")/.."
seconds=20
jobs=1
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --seconds=*) seconds=${1#--seconds=}; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    --jobs=*) jobs=${1#--jobs=}; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (--help)" >&2; exit 2 ;;
    *) break ;;
    esac
done
case $seconds in ''|*[!0-9]*) echo "fuzz.sh: --seconds $seconds: expected whole seconds" >&2; exit 2 ;; esac
case $jobs in ''|0|*[!0-9]*) echo "fuzz.sh: --jobs $jobs: expected a positive integer" >&2; exit 2 ;; esac
fork=""
[ "$jobs" -eq 1 ] || fork="-fork=$jobs"
all="network coeffs device runs_csv comm cli framework fit elf resume atomic"
targets=${*:-$all}

# clang and its sanitizer and libFuzzer runtimes, from Debian's packages
tools/install-deps.sh
if ! command -v clang >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a \
        >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang \
        libclang-rt-dev
fi

CC=clang cmake -S . -B build-fuzz -DSCALEMETER_FUZZ=ON -DSCALEMETER_CUDA=OFF \
    -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$(nproc)" >/dev/null

# Seeds: what the repository itself holds in each format.
seeds() {
    case $1 in
    network) ls models/*.ini examples/*.ini tests/data/fit/tiny_*.ini 2>/dev/null ;;
    coeffs) ls configs/calibrations/*.ini tests/data/fit/*coeffs*.ini ;;
    device) ls configs/devices/*.ini configs/frameworks/*.ini ;;
    framework) ls configs/frameworks/*.ini ;;
    runs_csv) ls configs/calibrations/*.csv tests/data/fit/*.csv ;;
    atomic) ;; # any bytes: libFuzzer's own start does
    *) ls fuzz/seeds/"$1"/* ;;
    esac
}
dict() {
    case $1 in
    network) echo fuzz/dict/network.dict ;;
    coeffs|device|framework) echo fuzz/dict/ini.dict ;;
    runs_csv|comm|resume) echo fuzz/dict/csv.dict ;;
    cli) echo fuzz/dict/cli.dict ;;
    elf) echo fuzz/dict/elf.dict ;;
    esac # fit and atomic: binary inputs without tokens
}

# libFuzzer's limits: a slow input (10 s) or one that grows past 2 GiB is a finding too.
limits="-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
status=0
printf '%-10s %12s %10s %s\n' target inputs "inputs/s" corpus
for t in $targets; do
    bin=build-fuzz/bin/fuzz_$t
    [ -x "$bin" ] || { echo "fuzz.sh: no target '$t' ($all)" >&2; exit 2; }
    if [ -d "fuzz/regressions/$t" ] && [ -n "$(ls "fuzz/regressions/$t")" ]; then
        if ! "$bin" $limits fuzz/regressions/"$t"/* >build-fuzz/replay-$t.log 2>&1; then
            echo "fuzz.sh: $t: a saved reproducer fails again (build-fuzz/replay-$t.log)" >&2
            status=1
            continue
        fi
    fi
    corpus=build-fuzz/corpus/$t
    mkdir -p "$corpus" build-fuzz/artifacts/$t
    for f in $(seeds "$t"); do cp -n "$f" "$corpus/" 2>/dev/null || true; done
    log=build-fuzz/fuzz-$t.log
    d=$(dict "$t")
    if "$bin" $limits $fork ${d:+-dict=$d} -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix=build-fuzz/artifacts/$t/ "$corpus" >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
        if [ -n "$fork" ]; then # no final stats: the last progress line, "#RUNS: ... exec/s R"
            runs=$(sed -n 's/^#\([0-9]*\): cov.*/\1/p' "$log" | tail -n 1)
            rate=$(sed -n 's/^#[0-9]*: cov.* exec\/s \([0-9]*\).*/\1/p' "$log" | tail -n 1)
        fi
        printf '%-10s %12s %10s %s\n' "$t" "${runs:-?}" "${rate:-?}" "$(ls "$corpus" | wc -l) files"
    else
        echo "fuzz.sh: $t: a finding; the input is in build-fuzz/artifacts/$t/ (log: $log):" >&2
        grep -m 3 -E "ERROR|runtime error|SUMMARY" "$log" >&2 || tail -n 5 "$log" >&2
        status=1
    fi
done
exit $status
