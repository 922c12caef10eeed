#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for tests: munged, slurmctld and
# slurmd with a private key, configuration, state, spool and logs under one
# directory, on ports of their own.
#
#   deploy/slurm/local-cluster.sh start [DIR]   start it; prints the SLURM_CONF to export
#   deploy/slurm/local-cluster.sh stop  [DIR]   stop exactly the daemons it started
#
# DIR defaults to $FLUID_SLURM_DIR, else ${TMPDIR:-/tmp}/fluid-slurm. Needs the
# Debian packages slurm-wlm and munge, and root (SlurmUser is root). Clients
# reach the cluster with SLURM_CONF=DIR/slurm.conf.
set -euo pipefail

cmd=${1:-}
dir=${2:-${FLUID_SLURM_DIR:-${TMPDIR:-/tmp}/fluid-slurm}}
ctld_port=${FLUID_SLURMCTLD_PORT:-16817}
slurmd_port=${FLUID_SLURMD_PORT:-16818}
daemons=(slurmd slurmctld munged) # stop order

log() { echo "local-cluster: $*" >&2; }

# pid_of NAME: the PID recorded for the daemon, if it is still that daemon.
pid_of() {
  local f="$dir/$1.pid" pid
  [[ -s $f ]] || return 1
  pid=$(<"$f")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ "$(cat /proc/"$pid"/comm 2>/dev/null)" == "$1" ]] || return 1
  echo "$pid"
}

stop() {
  [[ -d $dir ]] || { log "nothing to stop in $dir"; return 0; }
  local name pid left=()
  if [[ -f $dir/slurm.conf ]] && pid_of slurmctld >/dev/null; then
    SLURM_CONF=$dir/slurm.conf scancel --quiet --user=root 2>/dev/null || true
  fi
  for name in "${daemons[@]}"; do
    if pid=$(pid_of "$name"); then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 100); do
        [[ -d /proc/$pid ]] || break
        sleep 0.1
      done
      if [[ -d /proc/$pid ]]; then
        log "$name ($pid) did not stop on SIGTERM: SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        sleep 0.2
      fi
      [[ -d /proc/$pid ]] && left+=("$name:$pid")
    fi
    rm -f "$dir/$name.pid"
  done
  # Job steps the cluster left behind (slurmstepd of this cluster's spool).
  local p
  for p in $(pgrep -x slurmstepd || true); do
    if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "$dir" ||
       grep -qz "SLURM_CONF=$dir/slurm.conf" "/proc/$p/environ" 2>/dev/null; then
      kill -KILL "$p" 2>/dev/null || true
    fi
  done
  if ((${#left[@]})); then
    log "still running: ${left[*]}"
    return 1
  fi
  log "stopped (state kept in $dir)"
}

start() {
  for bin in munged mungekey slurmctld slurmd sinfo; do
    command -v "$bin" >/dev/null || { log "$bin not found: apt-get install -y slurm-wlm munge"; return 1; }
  done
  if pid_of slurmctld >/dev/null || pid_of slurmd >/dev/null || pid_of munged >/dev/null; then
    log "a cluster is already running in $dir: stop it first"
    return 1
  fi
  local host cpus mem
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
  mkdir -p "$dir"/{state,spool,log,munge}
  chmod 700 "$dir" "$dir/munge"
  # A private MUNGE key: nothing outside DIR is touched.
  if [[ ! -s $dir/munge/munge.key ]]; then
    mungekey --create --keyfile="$dir/munge/munge.key" 2>/dev/null ||
      dd if=/dev/urandom of="$dir/munge/munge.key" bs=1 count=1024 status=none
  fi
  chmod 600 "$dir/munge/munge.key"
  cat >"$dir/slurm.conf" <<CONF
# One-node test cluster (deploy/slurm/local-cluster.sh).
ClusterName=fluidtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  echo "# No cgroup plugins: proctrack/linuxproc, task/none." >"$dir/cgroup.conf"

  munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed"
  wait_for "munged" test -S "$dir/munge/munge.socket"
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -f "$SLURM_CONF"
  wait_for "slurmctld" scontrol ping
  slurmd -f "$SLURM_CONF"
  wait_for "the node" node_idle "$host"
  log "running: munged $(pid_of munged), slurmctld $(pid_of slurmctld), slurmd $(pid_of slurmd); node $host, $cpus CPUs"
  echo "export SLURM_CONF=$SLURM_CONF"
}

node_idle() { sinfo --noheader --nodes="$1" --format=%t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; }

# wait_for WHAT CMD...: poll CMD for up to 30 s.
wait_for() {
  local what=$1
  shift
  for _ in $(seq 150); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  log "$what did not come up; logs in $dir/log:"
  tail -n 20 "$dir"/log/*.log >&2 || true
  return 1
}

case $cmd in
start) start ;;
stop) stop ;;
*)
  echo "usage: $0 start|stop [DIR]" >&2
  exit 2
  ;;
esac
