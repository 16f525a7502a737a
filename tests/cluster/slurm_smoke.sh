#!/usr/bin/env bash
# The cluster path, tested for real: bring up a single-node SLURM cluster on this machine, run the
# smoke workflow through workflow/profiles/slurm, run the same config locally, and check that every
# summary, ratio table, claims file and figure is byte-identical between the two (and every shard
# holds the same values).
#
# Needs root and Debian (it installs slurm-wlm and munge when missing). Run it as `make test-cluster`
# (CI runs it after `make test`). The daemons it starts are stopped on exit, by process id, and
# the config it wrote is removed.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PATH="$ROOT/.venv/bin:$PATH"
TIMEOUT="${SLURM_SMOKE_TIMEOUT:-2400}"  # seconds for the cluster run; CI allows 90 minutes in all
WORK="$(mktemp -d /tmp/slurm-smoke.XXXXXX)"
CONF=/etc/slurm/slurm.conf
MARK="# written by delayed-bandits tests/cluster/slurm_smoke.sh"
PIDS=()
WROTE_CONF=""

log() { printf '[slurm-smoke %(%H:%M:%S)T] %s\n' -1 "$*"; }

cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    # With the config left behind, every later Snakemake start on this machine would wait ~9 s:
    # the SLURM plugin asks `scontrol show config`, which retries the stopped controller.
    if [[ -n $WROTE_CONF ]]; then rm -f "$CONF"; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

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
# A fresh cluster every time: its own state directories, emptied first.
STATE=/var/spool/delayed-bandits-slurm
rm -rf "$STATE"
mkdir -p /etc/slurm "$STATE/ctld" "$STATE/d" "$STATE/log" /run/munge
WROTE_CONF=1
cat >"$CONF" <<EOF
$MARK
ClusterName=smoke
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
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
    "$@" || true
    for _ in $(seq 100); do [[ -s $pidfile ]] && break; sleep 0.1; done
    if [[ ! -s $pidfile ]]; then
        echo "slurm_smoke.sh: $name did not start; the end of its log:" >&2
        tail -5 "$STATE/log/$name.log" >&2 2>/dev/null || true
        exit 1
    fi
    PIDS+=("$(cat "$pidfile")")
}
chown munge:munge /run/munge
if ! pgrep -x munged >/dev/null; then
    rm -f /run/munge/munged.pid
    # as root, munged wants its log owned by root: keep it with the cluster's other logs
    start munged /run/munge/munged.pid munged --force --log-file="$STATE/log/munged.log"
fi
start slurmctld "$STATE/slurmctld.pid" slurmctld
start slurmd "$STATE/slurmd.pid" slurmd
for _ in $(seq 60); do sinfo -h -o %T 2>/dev/null | grep -q idle && break; sleep 1; done
sinfo -h -o %T | grep -q idle || { echo "slurm_smoke.sh: the node never became idle" >&2; exit 1; }
log "cluster up: $(sinfo -h -o '%P %D node(s) %c CPUs %m MB %T')"

for run in local slurm; do
    mkdir -p "$WORK/$run/tests/cluster"
    cp -r "$ROOT/Snakefile" "$ROOT/workflow" "$ROOT/config" "$ROOT/envs" "$WORK/$run/"
    cp "$ROOT/tests/cluster/arena-full-smoke.yaml" "$WORK/$run/tests/cluster/"
done

log "local run"
(cd "$WORK/local" && snakemake --profile workflow/profiles/default --cores 2 \
    --configfile config/smoke.yaml >run.log 2>&1) || { tail -50 "$WORK/local/run.log"; exit 1; }

log "cluster run (timeout ${TIMEOUT}s)"
(cd "$WORK/slurm" && timeout -k 30 "$TIMEOUT" snakemake --profile workflow/profiles/slurm \
    --slurm-no-account --slurm-status-command squeue --slurm-init-seconds-before-status-checks 2 \
    --seconds-between-status-checks 2 --configfile config/smoke.yaml >run.log 2>&1) \
    || { tail -50 "$WORK/slurm/run.log"; exit 1; }

# Every job of the cluster run must have gone through sbatch, not run on the submitting node (a
# job run there is logged as 'localrule'; 'all' has no command): one submission per simulated
# figure (the profile groups each figure's jobs), two per figure drawn from the configuration alone
# (its claims and plot share no input, and a group joins connected jobs only), one for
# gather_claims and one per paper for gather_paper_claims, and one per job of the arena's that the
# profile leaves ungrouped (its shards, screens, contest runs, leaderboards and families table), counted
# from the local run.
submitted="$(grep -c 'has been submitted with SLURM jobid' "$WORK/slurm/run.log" || true)"
figures="$(find "$WORK/local/smoke/results" -name claims.json | wc -l)"
simulated="$(find "$WORK/local/smoke/results" -name summary.csv | wc -l)"
gathered="$(find "$WORK/local/smoke/results" -mindepth 2 -maxdepth 2 -name claims.md | wc -l)"
arena_rules='simulate_arena|screen|contest|leaderboard|families'
ungrouped="$(grep -cE "Finished jobid: [0-9]+ \(Rule: ($arena_rules)\)" "$WORK/local/run.log" \
    || true)"
expected=$((simulated + 2 * (figures - simulated) + 1 + gathered + ungrouped))
on_submitter="$(grep -E '^localrule ' "$WORK/slurm/run.log" | grep -vc '^localrule all:' || true)"
local_jobs="$(grep -E 'Finished jobid: [0-9]+ \(Rule: ' "$WORK/local/run.log" \
    | grep -vc '(Rule: all)' || true)"
log "cluster: $submitted submissions to SLURM for $figures figures, $on_submitter jobs on the" \
    "submitting node; local: $local_jobs jobs with a command"
if [[ $submitted -ne $expected || $figures -eq 0 || $on_submitter -ne 0 ]]; then
    echo "slurm_smoke.sh: $submitted submissions to SLURM, expected $expected," \
        "and $on_submitter jobs on the submitting node, expected 0" >&2
    exit 1
fi
# Summaries, ratios, claims and figures byte for byte; shards by their values (their metadata
# records wall times); the provenance sidecars not at all (tests/compare_runs.py).
python "$ROOT/tests/compare_runs.py" "$WORK/local" "$WORK/slurm" smoke/results smoke/figures
log "the local and the cluster run agree"

# The citable arena run's path (make arena-full: target arena, config/arena-full.yaml) at the
# smoke horizon, both ways, compared the same way.
FULL=(--configfile config/smoke.yaml config/arena-full.yaml tests/cluster/arena-full-smoke.yaml)
log "the full arena's smoke version, local"
(cd "$WORK/local" && snakemake arena --profile workflow/profiles/default --cores 2 "${FULL[@]}" \
    >full.log 2>&1) || { tail -50 "$WORK/local/full.log"; exit 1; }
log "the full arena's smoke version, cluster"
(cd "$WORK/slurm" && timeout -k 30 "$TIMEOUT" snakemake arena --profile workflow/profiles/slurm \
    --slurm-no-account --slurm-status-command squeue --slurm-init-seconds-before-status-checks 2 \
    --seconds-between-status-checks 2 "${FULL[@]}" >full.log 2>&1) \
    || { tail -50 "$WORK/slurm/full.log"; exit 1; }
python "$ROOT/tests/compare_runs.py" "$WORK/local" "$WORK/slurm" full_smoke/results full_smoke/figures
log "the full arena's smoke version: the local and the cluster run agree"
