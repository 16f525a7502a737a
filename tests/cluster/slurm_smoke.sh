#!/usr/bin/env bash
# The cluster path, tested for real: bring up a single-node SLURM cluster on this machine, run the
# smoke workflow through workflow/profiles/slurm, run the same config locally, and check that every
# summary, ratio table, claims file and figure is byte-identical between the two.
#
# Needs root and Debian (it installs slurm-wlm and munge when missing). Run it as `make test-cluster`
# (CI runs it after `make test`). The daemons it starts are stopped on exit, by process id.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PATH="$ROOT/.venv/bin:$PATH"
TIMEOUT="${SLURM_SMOKE_TIMEOUT:-2400}"  # seconds for the cluster run; CI allows 90 minutes in all
WORK="$(mktemp -d /tmp/slurm-smoke.XXXXXX)"
CONF=/etc/slurm/slurm.conf
MARK="# written by delayed-bandits tests/cluster/slurm_smoke.sh"
PIDS=()

log() { printf '[slurm-smoke %(%H:%M:%S)T] %s\n' -1 "$*"; }

cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

if [[ $EUID -ne 0 ]]; then
    echo "slurm_smoke.sh: needs root, to install and start the SLURM and munge daemons" >&2
    exit 2
fi
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    log "installing slurm-wlm and munge"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi
if pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null; then
    echo "slurm_smoke.sh: slurmctld or slurmd is already running; stop it first" >&2
    exit 2
fi
if [[ -e $CONF ]] && ! grep -qF "$MARK" "$CONF"; then
    echo "slurm_smoke.sh: $CONF exists and was not written by this script; not touching it" >&2
    exit 2
fi

# Batch jobs' own srun reads the default config path (the executor strips SLURM_* variables), so
# the config goes there rather than behind SLURM_CONF. No accounting database: finished jobs must
# stay visible to squeue (MinJobAge) for Snakemake's status checks.
HOST="$(hostname -s)"
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
cat >"$CONF" <<EOF
$MARK
ClusterName=smoke
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
MinJobAge=600
ReturnToService=2
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$(($(free -m | awk '/^Mem:/ {print $2}') / 2)) State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

start() {  # start a daemon that forks into the background, then record its pid
    local name="$1" pidfile="$2"
    shift 2
    "$@"
    for _ in $(seq 100); do [[ -s $pidfile ]] && break; sleep 0.1; done
    [[ -s $pidfile ]] || { echo "slurm_smoke.sh: $name did not start" >&2; exit 1; }
    PIDS+=("$(cat "$pidfile")")
}
chown munge:munge /run/munge
if ! pgrep -x munged >/dev/null; then
    rm -f /run/munge/munged.pid
    start munged /run/munge/munged.pid munged --force
fi
start slurmctld /run/slurmctld.pid slurmctld
start slurmd /run/slurmd.pid slurmd
for _ in $(seq 60); do sinfo -h -o %T 2>/dev/null | grep -q idle && break; sleep 1; done
sinfo -h -o %T | grep -q idle || { echo "slurm_smoke.sh: the node never became idle" >&2; exit 1; }
log "cluster up: $(sinfo -h -o '%P %D node(s) %c CPUs %m MB %T')"

for run in local slurm; do
    mkdir -p "$WORK/$run"
    cp -r "$ROOT/Snakefile" "$ROOT/workflow" "$ROOT/config" "$ROOT/envs" "$WORK/$run/"
done

log "local run"
(cd "$WORK/local" && snakemake --profile workflow/profiles/default --cores 2 \
    --configfile config/smoke.yaml >run.log 2>&1) || { tail -50 "$WORK/local/run.log"; exit 1; }

log "cluster run (timeout ${TIMEOUT}s)"
first_job="$(($(squeue -h -t all -o %i | sort -n | tail -1) + 0))"
(cd "$WORK/slurm" && timeout -k 30 "$TIMEOUT" snakemake --profile workflow/profiles/slurm \
    --slurm-no-account --slurm-status-command squeue --slurm-init-seconds-before-status-checks 2 \
    --seconds-between-status-checks 2 --configfile config/smoke.yaml >run.log 2>&1) \
    || { tail -50 "$WORK/slurm/run.log"; exit 1; }

# Every job of the cluster run must have gone through sbatch, not run on the submitting process.
submitted="$(grep -c 'has been submitted with SLURM jobid' "$WORK/slurm/run.log" || true)"

# 'all' and the per-paper targets have no command and never reach the cluster
local_jobs="$(grep -cE '^rule (simulate|summarise|claims|plot|gather_claims|pikeburke2018_ratios):' \
    "$WORK/local/run.log" || true)"
log "cluster: $submitted jobs submitted to SLURM; local: $local_jobs jobs with a command"
if [[ $submitted -ne $local_jobs || $submitted -eq 0 ]]; then
    echo "slurm_smoke.sh: $submitted jobs went to SLURM, expected $local_jobs" >&2
    exit 1
fi
completed="$(squeue -h -t CD -o %i | awk -v f="$first_job" '$1 > f' | wc -l)"
if [[ $completed -lt $submitted ]]; then
    echo "slurm_smoke.sh: squeue shows $completed completed jobs, expected $submitted" >&2
    exit 1
fi

# Numbers and figures, byte for byte: the provenance sidecars differ by design (wall time, host).
compare() {
    (cd "$1" && find results figures -type f ! -name '*.provenance.json' | sort)
}
if ! diff <(compare "$WORK/local") <(compare "$WORK/slurm") >"$WORK/files.diff"; then
    echo "slurm_smoke.sh: the two runs produced different sets of files:" >&2
    cat "$WORK/files.diff" >&2
    exit 1
fi
n=0
while read -r path; do
    cmp -s "$WORK/local/$path" "$WORK/slurm/$path" || {
        echo "slurm_smoke.sh: $path differs between the local and the cluster run" >&2
        exit 1
    }
    n=$((n + 1))
done < <(compare "$WORK/local")
log "identical: $n result and figure files (shards, summaries, ratios, claims, figures)"
