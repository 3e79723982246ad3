#!/bin/sh
# scalemeter calibrate under a real one-node Slurm, as an operator runs it: Debian's slurmctld,
# slurmd and munged started here on a temporary slurm.conf, key and spool (nothing of the
# system's is used or changed), then one sbatch job that calibrates with mpirun and with
# `srun --mpi=pmix`, and srun without PMIx refused in one line. Skipped (77) where Slurm is not
# installed, pmix is not among srun's MPI plugins, or the daemons do not start (not root, a
# container without the rights).
# usage: test_slurm.sh SCALEMETER MPIEXEC [MPIRUN FLAGS...]
set -u
scalemeter=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") mpiexec=$2
shift 2
skip() { echo "skipped: $*"; exit 77; }
for cmd in slurmctld slurmd munged sbatch srun sinfo; do
    command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || skip "no $cmd (tools/install-deps.sh --test installs Slurm and munge)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd runs jobs as root here: not root"
PATH=$PATH:/usr/sbin

dir=$(mktemp -d)
chmod 755 "$dir" # slurmstepd and the job read and write here
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    [ -f "$dir/munge/pid" ] && kill "$(cat "$dir/munge/pid")" 2>/dev/null
    sleep 1
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() {
    echo "FAIL: $*"
    for f in slurmctld.log slurmd.log job.out; do
        [ -f "$dir/$f" ] && { echo "--- $f"; tail -20 "$dir/$f"; }
    done
    exit 1
}

# munge with its own key and socket
mkdir -m 700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/key" bs=1024 count=1 2>/dev/null
chmod 400 "$dir/munge/key"
munged --key-file="$dir/munge/key" --socket="$dir/munge/sock" --pid-file="$dir/munge/pid" \
    --log-file="$dir/munge/log" --seed-file="$dir/munge/seed" --force 2>"$dir/munged.err" ||
    skip "munged does not start: $(cat "$dir/munged.err")"

host=$(hostname -s)
port=$((20000 + $$ % 20000)) # two of these tests at once do not meet
cpus=$(nproc --all)
mkdir "$dir/spool" "$dir/state"
export SLURM_CONF="$dir/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=scalemetertest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=10 State=UP OverSubscribe=YES
CONF
srun --mpi=list 2>&1 | grep -qw pmix || skip "srun has no pmix plugin: $(srun --mpi=list 2>&1 | tr '\n' ' ')"
slurmctld -D -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$SLURM_CONF" -N "$host" >"$dir/slurmd.out" 2>&1 &
pids="$pids $!"
up=0
for _ in $(seq 40); do
    sinfo -h -o %t 2>/dev/null | grep -q idle && { up=1; break; }
    sleep 0.5
done
[ $up -eq 1 ] || skip "slurmctld and slurmd did not come up: $(tail -3 "$dir/slurmctld.out" "$dir/slurmd.out" | tr '\n' ' ')"

# 4 networks x 1 image x 2 batches (as test_calibrate_cli.sh): 8 rows, enough for the fit and
# its leave-one-model-out validation
small="resnet18,mobilenet_v2,squeezenet1_0,shufflenet_v2_x1_0 --image 32 --batch 1,2"
small="$small --reps 1 --min-time 0.01 --warmup 1 -q"
# rows of 1 node x 2 ranks in a CSV
rows() { awk -F, 'NR > 1 && $4 == 1 && $5 == 2' "$1" | wc -l; }

# srun without PMIx (the default here, and pmi2): one line saying what to run, not Open MPI's
# twenty and an abort
for mpi in none pmi2; do
    (cd "$dir" && srun --mpi=$mpi -n 2 -t 2 "$scalemeter" calibrate $small -o "$dir/no-$mpi") >"$dir/out" 2>"$dir/err" &&
        fail "srun --mpi=$mpi: exit 0"
    grep -v '^srun: ' "$dir/err" >"$dir/ours"
    [ "$(wc -l <"$dir/ours")" -eq 1 ] || fail "srun --mpi=$mpi: not one line: $(cat "$dir/err")"
    grep -q "srun .*started 2 ranks without PMIx: run \`srun --mpi=pmix \.\.\.\`" "$dir/ours" ||
        fail "srun --mpi=$mpi: $(cat "$dir/ours")"
    [ ! -s "$dir/no-$mpi.csv" ] || fail "srun --mpi=$mpi measured: $(cat "$dir/no-$mpi.csv")"
done

# one batch job: mpirun inside sbatch, then srun --mpi=pmix as a step of the same job
cat >"$dir/job.sh" <<JOB
#!/bin/sh
cd "$dir" || exit 10
"$mpiexec" -np 2 $* "$scalemeter" calibrate $small -o "$dir/mpirun" || exit 11
srun --mpi=pmix -n 2 "$scalemeter" calibrate $small -o "$dir/srun" || exit 12
JOB
sbatch -W -n 2 -t 5 -o "$dir/job.out" "$dir/job.sh" >"$dir/sbatch.out" 2>&1 ||
    fail "sbatch: $(cat "$dir/sbatch.out")"
for run in mpirun srun; do
    [ "$(rows "$dir/$run.csv")" -eq 8 ] || fail "$run: expected 8 rows of 1 node x 2 ranks: $(cat "$dir/$run.csv")"
    grep -q "^c1_flops = " "$dir/$run.ini" 2>/dev/null || fail "$run: no coefficients in $run.ini"
    grep -q '"phases"' "$dir/$run-loo.json" || fail "$run: no validation"
done
# srun binds nothing here (task/none): both ranks have every CPU, and share them
want=$(( $(nproc) / 2 > 1 ? $(nproc) / 2 : 1 ))
got=$(awk -F, 'NR > 1 { print $12 }' "$dir/srun.csv" | sort -u)
[ "$got" = "$want" ] || fail "srun: threads $got, expected $want of $(nproc) CPUs over 2 ranks"
echo "1 passed, 0 failed"
