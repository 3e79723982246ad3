#!/bin/sh
# Runs COMMAND on rank 1 of an mpirun job from folder DIR, the others from where they start: a
# node whose copy of a network file differs under the same name (tests/bench.cmake).
# usage: rank_other_folder.sh DIR COMMAND...
dir=$1
shift
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
if [ "$rank" = 1 ]; then
    cd "$dir" || exit 1
fi
exec "$@"
