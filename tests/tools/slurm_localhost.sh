#!/usr/bin/env bash
# A one-machine Slurm cluster for the study tests (tests/integration/study_slurm_test.cpp,
# docs/study.md): munged, slurmctld and slurmd on localhost, every file under DIR, on free ports,
# with a generated slurm.conf. Debian 12: apt-get install slurm-wlm munge (packaging/quickstart.sh).
#
#   slurm_localhost.sh start DIR   start the daemons; prints SLURM_CONF=DIR/slurm.conf when the
#                                  node is idle, else the reason on stderr and exit code 77
#   slurm_localhost.sh stop DIR    stop the daemons started in DIR (by their pid files)
set -u
cmd=${1:-}
dir=${2:-}
[[ -n "$cmd" && -n "$dir" ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

skip() { echo "slurm_localhost: $*" >&2; exit 77; }

stop() {
  # Jobs still running would leave orphaned slurmstepd processes behind the daemons: cancel
  # them first (this cluster holds only the test's jobs).
  if [[ -f "$dir/slurmctld.pid" ]]; then
    SLURM_CONF="$dir/slurm.conf" scancel --quiet --user="$(id -un)" 2>/dev/null && sleep 1
  fi
  for p in slurmd slurmctld munged; do
    if [[ -f "$dir/$p.pid" ]]; then
      kill "$(cat "$dir/$p.pid")" 2>/dev/null
    fi
  done
  sleep 0.5
  for p in slurmd slurmctld munged; do
    if [[ -f "$dir/$p.pid" ]]; then
      kill -9 "$(cat "$dir/$p.pid")" 2>/dev/null
      rm -f "$dir/$p.pid"
    fi
  done
}

if [[ "$cmd" == stop ]]; then
  stop
  exit 0
fi
[[ "$cmd" == start ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

for p in munged mungekey slurmctld slurmd sbatch squeue scontrol; do
  command -v "$p" >/dev/null || [[ -x /usr/sbin/$p ]] ||
    skip "'$p' is missing: install the Debian packages slurm-wlm and munge (packaging/quickstart.sh test does)"
done
export PATH=$PATH:/usr/sbin
[[ $(id -u) -eq 0 ]] || skip "the daemons run as root here (SlurmUser, munged --force); this test runs as $(id -un)"

mkdir -p "$dir"/{state,spool,log,munge}
chmod 700 "$dir" "$dir/munge"
host=$(hostname -s)
# Ports from a range others rarely use, moved by our pid so parallel runs do not collide.
base=$((20000 + ($$ % 4000) * 2))
cpus=$(nproc)

mungekey -c -f -k "$dir/munge/munge.key" 2>"$dir/log/mungekey.err" || skip "mungekey failed: $(cat "$dir/log/mungekey.err")"
munged --force -S "$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
  --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" \
  2>"$dir/log/munged.err" || skip "munged did not start: $(cat "$dir/log/munged.err")"

cat > "$dir/slurm.conf" <<CONF
ClusterName=modescope-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SchedulerParameters=sched_min_interval=100000
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=300
MaxArraySize=10001
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -i -f "$SLURM_CONF" 2>"$dir/log/slurmctld.err" || { stop; skip "slurmctld did not start: $(tail -3 "$dir/log/slurmctld.err" "$dir/log/slurmctld.log" 2>/dev/null)"; }
slurmd -f "$SLURM_CONF" 2>"$dir/log/slurmd.err" || { stop; skip "slurmd did not start: $(tail -3 "$dir/log/slurmd.err" "$dir/log/slurmd.log" 2>/dev/null)"; }
for _ in $(seq 1 60); do
  state=$(sinfo -h -n "$host" -o %T 2>/dev/null)
  if [[ "$state" == idle* ]]; then
    echo "SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.5
done
reason="the node did not become idle (state '${state:-unknown}'): $(tail -3 "$dir/log/slurmd.log" "$dir/log/slurmctld.log" 2>/dev/null)"
stop
skip "$reason"
