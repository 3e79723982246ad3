#!/bin/sh
# Runs COMMAND with EXTRA added at its end on rank 1 of an mpirun job, as a wrapper script that
# gives one rank options of its own would (tests/bench.cmake, allreduce.cmake).
# usage: rank_extra_args.sh N EXTRA_1 ... EXTRA_N COMMAND...
n=$1
shift
extra=""
i=0
while [ "$i" -lt "$n" ]; do
    extra="$extra $1"
    shift
    i=$((i + 1))
done
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
if [ "$rank" = 1 ]; then
    # shellcheck disable=SC2086 # the extra arguments hold no spaces
    exec "$@" $extra
fi
exec "$@"
