#!/usr/bin/env bash
# Submits a joute tournament to Slurm as a job array of N shards plus a merge job that runs
# when every shard has succeeded.
#
#   deploy/slurm/submit.sh tournaments/othello-depths.toml 8
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
array=$(sbatch --parsable ${SBATCH_EXTRA:-} --export=ALL --array=0-$((SHARDS - 1)) \
  --output="$OUT/slurm-%A_%a.out" "$here/shard.sbatch")
merge=$(sbatch --parsable ${SBATCH_EXTRA:-} --export=ALL --dependency=afterok:"$array" \
  --output="$OUT/slurm-merge-%j.out" "$here/merge.sbatch")
echo "submitted shards as job $array and the merge as job $merge, which waits for them; results in $OUT"
