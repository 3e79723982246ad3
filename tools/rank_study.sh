#!/bin/sh
# Data-parallel CPU training on one node at several rank counts, the measurements that check how
# a fit on few ranks extrapolates to more (docs/scaling.md, "Which form"; docs/accuracy.md, "More
# ranks on one node"). It made tests/data/scaling/xeon-16-vcpu-ranks-1-to-16.csv:
#
#   tools/rank_study.sh [--ranks LIST] [--bin SCALEMETER] -o RUNS.csv
#
#   --ranks LIST   rank counts, comma-separated (default 1,2,4,8,16; at most the node's cores)
#   --bin PATH     the scalemeter to run (default: scalemeter on the PATH, else build/bin/)
#   -o FILE        the measurement CSV, appended to: a run cut off goes on where it stopped;
#                  FILE.lscpu gets the node's topology (how many of its cores share a physical
#                  core or a socket decides how co-located ranks slow each other), with
#                  `lscpu -e`'s table of every CPU's core, socket and NUMA node, and
#                  FILE.bindings the cores mpirun bound each rank to, at each rank count
#
# Each rank count runs `mpirun --bind-to core -np N scalemeter bench --backend cpu --threads 1
# --reps 3` over resnet18 and mobilenet_v2 at images 32, 64 and batches 2, 8; vgg11 at image 32
# and batches 2, 8; and the four networks (squeezenet1_0 too) at image 32, batch 4: the
# configurations of ../shared/data/cpu-16-ranks/. About 5 minutes for 1 to 16 ranks on 16 cores.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
ranks=1,2,4,8,16
bin=
out=
while [ $# -gt 0 ]; do
    case $1 in
    --ranks) ranks=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "rank_study.sh: unexpected argument '$1' (--help)" >&2; exit 2 ;;
    esac
done
[ -n "$out" ] || { echo "rank_study.sh: -o RUNS.csv is required (--help)" >&2; exit 2; }
if [ -z "$bin" ]; then
    bin=$(command -v scalemeter || echo "$src/build/bin/scalemeter")
fi
[ -x "$bin" ] || { echo "rank_study.sh: no scalemeter at $bin (build it, or --bin PATH)" >&2; exit 1; }
cores=$(nproc)
# a batch job on a rented node often runs as root, which Open MPI refuses unless told
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
if command -v lscpu >/dev/null 2>&1; then
    { lscpu; echo; lscpu -e; } >"$out.lscpu"
fi
: >"$out.bindings"
for n in $(echo "$ranks" | tr ',' ' '); do
    [ "$n" -le "$cores" ] ||
        { echo "rank_study.sh: $n ranks on $cores cores: each rank needs a core of its own" >&2; exit 1; }
    { echo "# $n ranks"; mpirun --bind-to core --report-bindings -np "$n" true 2>&1; } \
        >>"$out.bindings"
    for spec in "resnet18,mobilenet_v2 --image 32,64 --batch 2,8" "vgg11 --image 32 --batch 2,8" \
        "resnet18,mobilenet_v2,vgg11,squeezenet1_0 --image 32 --batch 4"; do
        # shellcheck disable=SC2086 # spec is words on purpose
        mpirun --bind-to core -np "$n" "$bin" bench --backend cpu --threads 1 --reps 3 -q \
            --model $spec -o "$out"
    done
    echo "rank_study.sh: $n ranks done" >&2
done
