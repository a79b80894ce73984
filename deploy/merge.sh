#!/usr/bin/env bash
# Merges the shards of a joute tournament: ratings, CSV files (and, with the reports layer,
# charts and HTML) in $OUT, exactly as an unsharded run renders them. Fails when a shard's
# folder is missing.
#
# Environment: SPEC, SHARD_COUNT, OUT and JOUTE as for run-shard.sh.
set -euo pipefail
: "${SPEC:?set SPEC to the tournament spec}"
: "${SHARD_COUNT:?set SHARD_COUNT to the number of shards}"
OUT=${OUT:-reports/$(basename "$SPEC" .toml)}
JOUTE=${JOUTE:-joute}
logs=()
for ((i = 0; i < SHARD_COUNT; i++)); do
  log="$OUT/shard-$i-of-$SHARD_COUNT/games.jsonl"
  if [[ ! -f "$log" ]]; then
    echo "error: $log is missing: shard $i has not run" >&2
    exit 1
  fi
  logs+=("$log")
done
exec "$JOUTE" report "${logs[@]}" --out "$OUT"
