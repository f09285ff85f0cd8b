#!/bin/sh
# A real Slurm job array on one node: munged, slurmctld and slurmd started here in a temporary
# folder (own key, own ports on loopback, own state), scripts/sweep_slurm.sh runs a 4-task
# array on tests/sweep/data/small.yaml plus its merge job, and the merged sweep.csv must equal a
# local run's byte for byte. Every daemon is stopped by its PID on exit, pass or fail.
#   slurm_test.sh GEOTRAIN SOURCE_DIR
# Exit 77 (skipped) without root or without slurm-wlm + munge, except under CI=true (fails).
set -eu
geotrain=$1
src=$2

skip() {
  if [ "${CI:-}" = true ]; then echo "FAIL: $1 (CI must run the slurm test)"; exit 1; fi
  echo "SKIP: $1"
  exit 77
}
[ "$(id -u)" = 0 ] || skip "needs root (slurmd)"
for c in munged slurmctld slurmd sbatch squeue sinfo; do
  command -v "$c" > /dev/null || skip "$c not installed (apt-get install slurm-wlm munge)"
done

tmp=$(mktemp -d /tmp/geotrain-slurm-test.XXXXXX)
pids=""
cleanup() {
  status=$?
  for p in $pids; do kill "$p" 2> /dev/null || true; done
  for p in $pids; do
    i=0
    while kill -0 "$p" 2> /dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$p" 2> /dev/null || true
  done
  if [ $status -ne 0 ]; then
    for f in "$tmp"/log/*.log; do echo "== $f"; tail -n 30 "$f" 2> /dev/null || true; done
  fi
  rm -rf "$tmp"
  exit $status
}
trap cleanup EXIT
trap 'exit 1' INT TERM

mkdir -p "$tmp/munge" "$tmp/log" "$tmp/state" "$tmp/spool" "$tmp/run"
chmod 755 "$tmp" "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 2> /dev/null
chmod 400 "$tmp/munge.key"
socket="$tmp/munge/munge.socket"
munged --foreground --force --key-file="$tmp/munge.key" --socket="$socket" \
  --pid-file="$tmp/run/munged.pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/seed" \
  > "$tmp/log/munged.out" 2>&1 &
pids="$pids $!"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ctld_port=$(free_port)
slurmd_port=$(free_port)
cpus=$(nproc)
conf="$tmp/slurm.conf"
cat > "$conf" << CONF
ClusterName=geotraintest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$conf"

i=0
until [ -S "$socket" ]; do
  i=$((i + 1)); [ $i -lt 100 ] || { echo "FAIL: munged did not create $socket"; exit 1; }; sleep 0.1
done
slurmctld -D -i -f "$conf" > "$tmp/log/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -N localhost -f "$conf" > "$tmp/log/slurmd.out" 2>&1 &
pids="$pids $!"

# The node must come up idle (a generous bound: this waits for daemons, it judges nothing).
i=0
until sinfo -h -N -o '%T' 2> /dev/null | grep -q '^idle'; do
  i=$((i + 1)); [ $i -lt 600 ] || { echo "FAIL: the node never became idle"; sinfo -N -l || true; exit 1; }; sleep 0.2
done

cd "$src"
"$geotrain" sweep tests/sweep/data/small.yaml --out "$tmp/local" --no-plot > "$tmp/log/local.log" 2>&1
GEOTRAIN="$geotrain" scripts/sweep_slurm.sh tests/sweep/data/small.yaml 4 "$tmp/slurm"

i=0
while [ -n "$(squeue -h -o '%i' 2> /dev/null)" ]; do
  i=$((i + 1)); [ $i -lt 6000 ] || { echo "FAIL: jobs still queued"; squeue || true; exit 1; }; sleep 0.2
done
for f in "$tmp"/slurm/shards/slurm-*.log "$tmp/slurm/slurm-merge.log"; do cp "$f" "$tmp/log/$(basename "$f").log" 2> /dev/null || true; done
[ -f "$tmp/slurm/sweep.csv" ] || { echo "FAIL: the merge job wrote no sweep.csv"; cat "$tmp/slurm/slurm-merge.log" 2> /dev/null || true; exit 1; }
for s in 1 2 3 4; do [ -f "$tmp/slurm/shards/$s/sweep.csv" ] || { echo "FAIL: shard $s wrote nothing"; exit 1; }; done
cmp "$tmp/local/sweep.csv" "$tmp/slurm/sweep.csv" || { echo "FAIL: merged CSV differs from the local run"; diff "$tmp/local/sweep.csv" "$tmp/slurm/sweep.csv" | head; exit 1; }
echo "PASS: 4-task Slurm array + merge gives the local sweep.csv ($(wc -l < "$tmp/slurm/sweep.csv") lines)"
