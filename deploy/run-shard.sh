#!/usr/bin/env bash
# Plays one shard of a joute tournament into $OUT/shard-I-of-N/, or (COMMAND=tune) one shard of
# a regression tuning run in $OUT, whose shards wait for each other's rounds: all N must run at
# once. Safe to re-run: --resume continues a shard that was killed or requeued, and does nothing
# for one that finished.
#
# Environment:
#   COMMAND      run (a tournament, the default) or tune (a spec with method = "regression";
#                no merge step: the shard that fits the last round writes the results)
#   SPEC         the tournament or tuning spec (required)
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
case ${COMMAND:-run} in
  run) args=(run "$SPEC" --shard "$SHARD_INDEX/$SHARD_COUNT" --out "$OUT/shard-$SHARD_INDEX-of-$SHARD_COUNT" --resume --quiet) ;;
  tune) args=(tune "$SPEC" --shard "$SHARD_INDEX/$SHARD_COUNT" --out "$OUT" --resume --quiet) ;;
  *)
    echo "error: COMMAND is '$COMMAND': run (a tournament) or tune (a regression tuning run)" >&2
    exit 2
    ;;
esac
if [[ -n "${THREADS:-}" ]]; then
  args+=(--threads "$THREADS")
fi
exec "$JOUTE" "${args[@]}"
