#!/usr/bin/env bash
# Runs a sharded joute tournament on Kubernetes in one command: the results volume, the shards as
# an Indexed Job of N pods, then, once every shard completed, the merge job.
#
#   deploy/k8s/submit.sh tournaments/othello-depths.toml 8
#
# SPEC is a path inside the image (the Dockerfile copies tournaments/ to its working folder). The
# manifests beside this script are applied with SPEC, SHARD_COUNT, completions and parallelism
# set to these arguments. Environment: IMAGE (default: the manifests' joute:latest), THREADS
# (worker threads and CPUs requested per shard pod, default: the manifest's), TIMEOUT (for the
# shards, default 24h), KUBECTL (default kubectl; extra options such as --namespace go in it).
# The Jobs are named joute-shards and joute-merge: delete the previous run's before another.
set -euo pipefail
SPEC=${1:?usage: submit.sh SPEC.toml SHARDS}
SHARDS=${2:?usage: submit.sh SPEC.toml SHARDS}
[[ $SHARDS =~ ^[1-9][0-9]*$ ]] || { echo "error: SHARDS must be a positive number, not '$SHARDS'" >&2; exit 2; }
KUBECTL=${KUBECTL:-kubectl}
here=$(dirname "$0")

# A manifest with this run's values: each env value is on the line after its name.
render() {
  local edits=(
    -e "/- name: SPEC\$/{n;s|value: .*|value: $SPEC|}"
    -e "/- name: SHARD_COUNT\$/{n;s|value: .*|value: \"$SHARDS\"|}"
    -e "s|^\(  *\)completions: .*|\1completions: $SHARDS|"
    -e "s|^\(  *\)parallelism: .*|\1parallelism: $SHARDS|"
  )
  if [[ -n ${IMAGE:-} ]]; then
    edits+=(-e "s|^\(  *\)image: .*|\1image: $IMAGE|")
  fi
  if [[ -n ${THREADS:-} ]]; then
    edits+=(-e "/- name: THREADS\$/{n;s|value: .*|value: \"$THREADS\"|}" -e "s|^\(  *\)cpu: .*|\1cpu: \"$THREADS\"|")
  fi
  sed "${edits[@]}" "$1"
}

$KUBECTL apply -f "$here/joute-results-pvc.yaml"
render "$here/joute-shards.yaml" | $KUBECTL apply -f -
echo "the $SHARDS shards of $SPEC run as job/joute-shards; waiting for them (up to ${TIMEOUT:-24h})"
$KUBECTL wait --for=condition=complete job/joute-shards --timeout="${TIMEOUT:-24h}"
render "$here/joute-merge.yaml" | $KUBECTL apply -f -
$KUBECTL wait --for=condition=complete job/joute-merge --timeout=30m
echo "merged: the ratings and CSV files are on the volume joute-results (OUT of the manifests)"
