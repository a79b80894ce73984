#!/usr/bin/env bash
# Plays one shard of a joute tournament into $OUT/shard-I-of-N/. Safe to re-run: --resume
# continues a shard that was killed or requeued, and does nothing for one that finished.
#
# Environment:
#   SPEC         the tournament spec (required)
#   SHARD_INDEX  this shard, 0-based (required; Slurm: SLURM_ARRAY_TASK_ID, Kubernetes:
#                JOB_COMPLETION_INDEX are used when it is unset)
#   SHARD_COUNT  number of shards (required)
#   OUT          output folder of the whole run (default reports/NAME-OF-SPEC)
#   THREADS      worker threads (default: all cores the task sees)
#   JOUTE        the joute binary (default: joute on the PATH)
set -euo pipefail
: "${SPEC:?set SPEC to the tournament spec}"
SHARD_INDEX=${SHARD_INDEX:-${SLURM_ARRAY_TASK_ID:-${JOB_COMPLETION_INDEX:-}}}
: "${SHARD_INDEX:?set SHARD_INDEX (or run as a Slurm array task / Kubernetes Indexed Job)}"
: "${SHARD_COUNT:?set SHARD_COUNT to the number of shards}"
OUT=${OUT:-reports/$(basename "$SPEC" .toml)}
JOUTE=${JOUTE:-joute}
args=(run "$SPEC" --shard "$SHARD_INDEX/$SHARD_COUNT" --out "$OUT/shard-$SHARD_INDEX-of-$SHARD_COUNT" --resume --quiet)
if [[ -n "${THREADS:-}" ]]; then
  args+=(--threads "$THREADS")
fi
exec "$JOUTE" "${args[@]}"
