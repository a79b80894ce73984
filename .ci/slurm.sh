#!/usr/bin/env bash
# CI: a real one-node Slurm cluster on this machine runs deploy/slurm/submit.sh on a small
# tournament (a 400-game copy of tournaments/quickstart.toml, SHARDS shards), and the merged
# CSV files and game log must be byte-identical to an unsharded `joute run` of the same spec.
#
#   bash .ci/slurm.sh            (from anywhere; root or passwordless sudo)
#
# Installs Debian's slurm-wlm and munge when missing (apt-get update once). Everything else lives
# in a temporary folder: munged (its own key and socket), slurmctld and slurmd run in the
# foreground as children of this script, with SLURM_CONF pointing at a slurm.conf written there,
# on free ports. No systemd is needed. Every exit path (success, failure, Ctrl-C) cancels the
# jobs, stops the daemons, kills any job step left behind and removes the folder, so the script
# can run again at once. Environment: SHARDS (default 3), SLURM_CI_TIMEOUT (seconds to wait for
# the jobs, default 180), JOUTE (a joute binary to use instead of building target/release/joute),
# KEEP=1 keeps the folder for a post-mortem.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  # slurmd launches the jobs, and only root can: run the whole script as root.
  exec sudo -E bash "$0" "$@"
fi

SHARDS=${SHARDS:-3}
TIMEOUT=${SLURM_CI_TIMEOUT:-180}
started=$(date +%s)
say() { printf '[slurm %3ss] %s\n' "$(($(date +%s) - started))" "$*"; }

# --- Install (once) ------------------------------------------------------------------------
if ! command -v munged >/dev/null || ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
  || ! command -v sbatch >/dev/null; then
  say "installing slurm-wlm and munge"
  log=$(mktemp)
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge; } >"$log" 2>&1 \
    || { cat "$log"; rm -f "$log"; exit 1; }
  rm -f "$log"
fi

# joute itself, as the cluster's jobs run it (.ci/run builds only debug binaries before this),
# unless JOUTE names a binary already built.
if [ -z "${JOUTE:-}" ]; then
  cargo build --release --quiet
  JOUTE=$PWD/target/release/joute
fi
say "$(slurmctld -V), munge $(munged -V 2>&1 | awk '{print $1}' | sed 's/munge-//'), $("$JOUTE" --version 2>/dev/null || echo joute) built"

# --- The temporary folder and the cleanup of everything started below ---------------------
T=$(mktemp -d /tmp/joute-slurm.XXXXXX)
# munged refuses a socket in a folder that not everyone may enter.
chmod 755 "$T"
pids=()
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ] && kill -0 "${ctld_pid:-0}" 2>/dev/null; then
    scancel --quiet "${jobs[@]}" 2>/dev/null
  fi
  # The daemons, youngest first (slurmd, slurmctld, munged).
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[i]}" 2>/dev/null
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  # Job steps (slurmstepd and the shards it runs) detach from slurmd: they are found by the
  # SLURM_CONF of this cluster in their environment, and killed by id.
  for env in /proc/[0-9]*/environ; do
    pid=${env#/proc/}; pid=${pid%/environ}
    [ "$pid" != $$ ] || continue
    if { tr '\0' '\n' <"$env"; } 2>/dev/null | grep -qxF "SLURM_CONF=$T/slurm.conf"; then
      kill -9 "$pid" 2>/dev/null
    fi
  done
  if [ "$rc" -ne 0 ]; then
    for log in "$T"/*.log "$T"/*.stderr "$T"/out/slurm-*.out; do
      # A daemon's stderr repeats its log: shown only when the daemon died before opening it.
      [[ $log == *.stderr && -s ${log%.stderr}.log ]] && continue
      [ -s "$log" ] && { echo "--- $log (last lines)"; tail -n 25 "$log"; }
    done
  fi
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
  say "cleaned up (exit $rc)"
  exit "$rc"
}
jobs=()
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() { echo "error: $*" >&2; exit 1; }
# A TCP port on 127.0.0.1 that nothing listens on (another cluster, an earlier run's leftovers).
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
  local p=$1
  while ! port_free "$p" || ! port_free $((p + 1)); do p=$((p + 2)); done
  echo "$p"
}

# --- munge ---------------------------------------------------------------------------------
mkdir -p "$T/state" "$T/spool" "$T/out"
mungekey --create --keyfile="$T/munge.key" 2>/dev/null \
  || { dd if=/dev/urandom of="$T/munge.key" bs=1 count=1024 status=none; chmod 600 "$T/munge.key"; }
munged --foreground --socket="$T/munge.sock" --key-file="$T/munge.key" --pid-file="$T/munged.pid" \
  --log-file="$T/munged.log" --seed-file="$T/munged.seed" >"$T/munged.stderr" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$T/munge.sock" ] && break; sleep 0.1; done
munge -S "$T/munge.sock" -n | unmunge -S "$T/munge.sock" >/dev/null || fail "munged does not answer"
say "munged up (socket $T/munge.sock)"

# --- slurm.conf, slurmctld, slurmd ---------------------------------------------------------
port=$(free_port 6817)
host=$(hostname -s)
node=joute-ci
export SLURM_CONF=$T/slurm.conf
: >"$T/plugstack.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=joute-ci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge.sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
PlugStackConfig=$T/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
DependencyParameters=kill_invalid_depend
ReturnToService=2
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$host CPUs=2 RealMemory=1024 State=UNKNOWN
PartitionName=ci Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i -f "$SLURM_CONF" >"$T/slurmctld.stderr" 2>&1 &
pids+=($!)
ctld_pid=$!
slurmd -D -N "$node" -f "$SLURM_CONF" >"$T/slurmd.stderr" 2>&1 &
pids+=($!)
for _ in $(seq 150); do
  state=$(sinfo -h -N -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.2
done
[ "$state" = idle ] || fail "the node is not idle after 30 s (sinfo: '${state:-no answer}')"
say "slurmctld and slurmd up: node $node idle, 2 CPUs, ports $port-$((port + 1))"

# --- The tournament: through Slurm, and unsharded ------------------------------------------
spec=$T/quickstart-small.toml
sed -e 's/^name = "quickstart"/name = "quickstart-small"/' -e 's/count = 40 }/count = 20 }/' \
  tournaments/quickstart.toml >"$spec"
grep -q 'count = 20 }' "$spec" || fail "tournaments/quickstart.toml changed: cannot shrink it"

# The tasks ask for 8 CPUs and 2G (shard.sbatch): this node has 2 CPUs, so each task takes one,
# through submit.sh's SBATCH_EXTRA (command-line options override #SBATCH lines).
submitted=$(OUT=$T/out JOUTE=$JOUTE SBATCH_EXTRA="--cpus-per-task=1 --mem=256M" \
  deploy/slurm/submit.sh "$spec" "$SHARDS")
echo "$submitted" | sed 's/^/  submit.sh: /'
array=$(echo "$submitted" | sed -n 's/.*shards as job \([0-9]*\).*/\1/p')
merge=$(echo "$submitted" | sed -n 's/.*merge as job \([0-9]*\).*/\1/p')
[ -n "$array" ] && [ -n "$merge" ] || fail "no job ids in submit.sh's output"
jobs=("$array" "$merge")

# The unsharded run meanwhile (on the 2 cores the shards share).
"$JOUTE" run "$spec" --out "$T/full" --quiet >/dev/null
say "unsharded run done: $(wc -l <"$T/full/games.jsonl") games"

deadline=$((SECONDS + TIMEOUT))
while [ -n "$(squeue -h -j "$array,$merge" -o %i 2>/dev/null)" ]; do
  [ $SECONDS -lt $deadline ] || { squeue; fail "the jobs did not finish in ${TIMEOUT} s"; }
  sleep 1
done
for id in $(seq 0 $((SHARDS - 1))); do
  st=$(scontrol show job "${array}_$id" | grep -o 'JobState=[A-Z_]*' | head -n 1)
  [ "$st" = JobState=COMPLETED ] || fail "array task ${array}_$id: $st"
done
st=$(scontrol show job "$merge" | grep -o 'JobState=[A-Z_]*')
[ "$st" = JobState=COMPLETED ] || fail "merge job $merge: $st"
say "array job $array ($SHARDS tasks) and merge job $merge COMPLETED"

# --- Byte for byte --------------------------------------------------------------------------
for f in ratings.csv pairs.csv crosstable.csv; do
  [ -f "$T/full/$f" ] || fail "the unsharded run wrote no $f"
done
# The cost tables without the columns the machine's clocks give (CostFigures::TIMING_FIELDS and
# the by-ply times): moves, nodes and depths replay bit for bit, milliseconds do not.
untimed_csv() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) keep[i] = $i !~ /^(ms_|cpu_|nodes_per_second$|judged$|starved$)/ }
           { line = ""; for (i = 1; i <= NF; i++) if (keep[i]) line = line "," $i; print substr(line, 2) }' "$1"
}
n=0
for f in "$T"/full/*.csv; do
  cmp <(untimed_csv "$f") <(untimed_csv "$T/out/$(basename "$f")") ||
    fail "merged $(basename "$f") differs from the unsharded run's"
  n=$((n + 1))
done
# The logs: sorted by id, without the machine's timings (GameLine::TIMING_FIELDS).
games() {
  sed -E 's/,"seconds":[^,}]*//; s/,"move_(cpu_)?us":\[[^]]*\]//g' "$@" | LC_ALL=C sort -t: -k2,2n
}
games "$T"/out/shard-*-of-"$SHARDS"/games.jsonl >"$T/merged.games"
games "$T/full/games.jsonl" >"$T/full.games"
cmp "$T/merged.games" "$T/full.games" || fail "the shards' games differ from the unsharded run's"
say "identical: $n CSV files ($(cd "$T/full" && echo *.csv)) and $(wc -l <"$T/full.games") games"
