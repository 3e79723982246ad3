#!/bin/sh
# srun without PMIx, as its environment looks to a task (srun --mpi=pmi2 -n 2), without Slurm:
# bench, allreduce and calibrate refuse in one line on rank 0, nothing on rank 1, before
# MPI_Init (where Debian's Open MPI would print twenty lines and abort); the batch script
# itself (no job step) and mpirun inside it are not refused.
# usage: test_srun_without_pmix.sh SCALEMETER
set -u
scalemeter=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
step="SLURM_JOB_ID=7 SLURM_STEP_ID=0 SLURM_NTASKS=2 SLURM_STEP_NUM_TASKS=2 SLURM_MPI_TYPE=pmi2 PMI_RANK"
want="srun (--mpi=pmi2) started 2 ranks without PMIx: run \`srun --mpi=pmix ...\` (Debian's Open MPI talks to Slurm through PMIx), or mpirun inside sbatch"

for cmd in "bench resnet18 -o $dir/b.csv" "allreduce" "calibrate resnet18 -o $dir/c"; do
    name=${cmd%% *}
    env $step=0 SLURM_PROCID=0 "$scalemeter" $cmd >"$dir/out" 2>"$dir/err" && fail "$name: exit 0"
    [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "$name: not one line: $(cat "$dir/err")"
    case "$(cat "$dir/err")" in
    "scalemeter bench: $want" | "scalemeter allreduce: $want") ;;
    *) fail "$name: $(cat "$dir/err")" ;;
    esac
    env $step=1 SLURM_PROCID=1 "$scalemeter" $cmd >"$dir/out" 2>"$dir/err" && fail "$name rank 1: exit 0"
    [ ! -s "$dir/err" ] || fail "$name: rank 1 spoke: $(cat "$dir/err")"
done
[ ! -e "$dir/b.csv" ] && [ ! -e "$dir/c.csv" ] || fail "a CSV was written"

# plain srun (no --mpi): the same, without the plugin's name
env SLURM_JOB_ID=7 SLURM_STEPID=0 SLURM_NTASKS=3 SLURM_PROCID=0 "$scalemeter" allreduce \
    2>"$dir/err" >/dev/null && fail "plain srun: exit 0"
grep -qx "scalemeter allreduce: srun started 3 ranks without PMIx: .*" "$dir/err" || fail "plain srun: $(cat "$dir/err")"

# the batch script: SLURM_JOB_ID without a step, a singleton MPI_Init works
env SLURM_JOB_ID=7 SLURM_NTASKS=2 SLURM_PROCID=0 "$scalemeter" bench examples/tiny_resnet.ini \
    --image 8 --batch 1 --warmup 1 --reps 1 --min-time 0.01 -o "$dir/batch.csv" >/dev/null \
    2>"$dir/err" || fail "in the batch script: $(cat "$dir/err")"
[ "$(tail -n +2 "$dir/batch.csv" | wc -l)" -eq 1 ] || fail "batch script: $(cat "$dir/batch.csv")"
echo "1 passed, 0 failed"
