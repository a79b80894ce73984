#!/usr/bin/env bash
# Submits a joute tournament to Slurm as a job array of N shards plus a merge job that runs
# when every shard has succeeded; with COMMAND=tune, a regression tuning run as N shards (no
# merge job: the shard that fits the last round writes the results; the N tasks wait for each
# other's rounds, so the cluster must run them all at once).
#
#   deploy/slurm/submit.sh tournaments/othello-depths.toml 8
#   COMMAND=tune deploy/slurm/submit.sh tournaments/tune-othello-patterns.toml 4
#
# Run it from the repository root, with joute built (cargo build --release) on a filesystem
# the compute nodes share. Extra sbatch options (partition, account) go in SBATCH_EXTRA.
set -euo pipefail
SPEC=${1:?usage: submit.sh SPEC.toml SHARDS}
SHARDS=${2:?usage: submit.sh SPEC.toml SHARDS}
export SPEC SHARD_COUNT=$SHARDS
export OUT=${OUT:-reports/$(basename "$SPEC" .toml)}
export JOUTE=${JOUTE:-$PWD/target/release/joute}
mkdir -p "$OUT"
here=$(dirname "$0")
export COMMAND=${COMMAND:-run}
array=$(sbatch --parsable ${SBATCH_EXTRA:-} --export=ALL --array=0-$((SHARDS - 1)) \
  --output="$OUT/slurm-%A_%a.out" "$here/shard.sbatch")
if [[ $COMMAND == tune ]]; then
  echo "submitted the tuning run's shards as job $array; results in $OUT when the last round's fitter has played the matches"
  exit 0
fi
merge=$(sbatch --parsable ${SBATCH_EXTRA:-} --export=ALL --dependency=afterok:"$array" \
  --output="$OUT/slurm-merge-%j.out" "$here/merge.sbatch")
echo "submitted shards as job $array and the merge as job $merge, which waits for them; results in $OUT"
