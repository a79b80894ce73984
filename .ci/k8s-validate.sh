#!/usr/bin/env bash
# CI: the Kubernetes manifests in deploy/k8s/ checked against the Kubernetes API's JSON schemas
# (PyPI's kubernetes-validate, which bundles them; strict: an unknown field is an error), for the
# oldest Kubernetes they run on (1.29: the Indexed Job's backoffLimitPerIndex is on by default
# from 1.29) and the newest the package knows; then checked against each other and the
# Dockerfile (k8s-validate.py). Broken copies (a wrong type, an unknown field, a misspelt field,
# shards and merge disagreeing) must be rejected: the check is shown to fail.
#
#   bash .ci/k8s-validate.sh
#
# The validator goes into a virtualenv in target/ci-k8s-venv (made once, reused after).
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=1.37.0 # kubernetes-validate, and the newest Kubernetes its schemas cover
OLDEST=1.29.0
venv=target/ci-k8s-venv
say() { printf '[k8s] %s\n' "$*"; }

if ! "$venv/bin/python" -c "import kubernetes_validate, yaml" 2>/dev/null \
  || [ "$("$venv/bin/kubernetes-validate" --version 2>/dev/null)" != "$VERSION" ]; then
  say "installing kubernetes-validate $VERSION into $venv"
  rm -rf "$venv"
  mkdir -p target
  if ! python3 -m venv "$venv" 2>/dev/null; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    rm -rf "$venv"
    python3 -m venv "$venv"
  fi
  "$venv/bin/pip" install -q --disable-pip-version-check "kubernetes-validate==$VERSION"
fi
validate() { "$venv/bin/kubernetes-validate" --strict --quiet --no-warn "$@"; }

manifests=(deploy/k8s/*.yaml)
for k in "$OLDEST" "$VERSION"; do
  validate -k "$k" "${manifests[@]}"
  say "schemas of Kubernetes $k: ${manifests[*]} valid"
done
"$venv/bin/python" .ci/k8s-validate.py deploy/k8s/joute-shards.yaml deploy/k8s/joute-merge.yaml \
  deploy/k8s/joute-results-pvc.yaml deploy/Dockerfile
say "consistent: the shards, the merge, the volume and the image agree"

# The check must be able to fail: each broken copy is to be rejected.
T=$(mktemp -d /tmp/joute-k8s.XXXXXX)
trap 'rm -rf "$T"' EXIT
broken() { # NAME FILE SED-EXPRESSION: a copy of FILE with one edit
  sed "$3" "$2" >"$T/$1.yaml"
  ! cmp -s "$2" "$T/$1.yaml" || { echo "error: '$3' changed nothing in $2" >&2; exit 1; }
}
broken wrong-type deploy/k8s/joute-shards.yaml 's/completions: 8/completions: "eight"/'
broken unknown-field deploy/k8s/joute-shards.yaml 's/command:/comand:/'
broken misspelt-field deploy/k8s/joute-shards.yaml 's/backoffLimitPerIndex:/backoffLimitPerIndx:/'
broken wrong-type-env deploy/k8s/joute-merge.yaml 's/value: "8"/value: 8/'
for f in "$T"/*.yaml; do
  if out=$(validate "$f" 2>&1); then
    echo "error: the broken manifest $(basename "$f") passed the schema check" >&2
    exit 1
  fi
  say "rejected $(basename "$f"): ${out#ERROR }" | sed "s|$T/||"
done
broken disagree deploy/k8s/joute-merge.yaml 's/value: "8"/value: "4"/'
if out=$("$venv/bin/python" .ci/k8s-validate.py deploy/k8s/joute-shards.yaml "$T/disagree.yaml" \
  deploy/k8s/joute-results-pvc.yaml deploy/Dockerfile 2>&1); then
  echo "error: a merge of 4 shards after 8 passed the consistency check" >&2
  exit 1
fi
say "rejected disagree.yaml: ${out#error: }" | sed "s|$T/||"

# deploy/k8s/submit.sh against a stand-in kubectl that keeps what it is asked to apply: the
# manifests it renders for another spec and shard count must pass the same checks.
mkdir "$T/applied"
cat >"$T/kubectl" <<'STUB'
#!/usr/bin/env bash
echo "$*" >>"$(dirname "$0")/kubectl.log"
if [ "$1" = apply ]; then
  n=$(ls "$(dirname "$0")/applied" | wc -l)
  if [ "$3" = - ]; then cat; else cat "$3"; fi >"$(dirname "$0")/applied/$n.yaml"
fi
STUB
chmod +x "$T/kubectl"
KUBECTL=$T/kubectl IMAGE=registry.example/joute:1 THREADS=2 \
  deploy/k8s/submit.sh tournaments/quickstart.toml 3 >/dev/null
a=("$T"/applied/{0,1,2}.yaml)
validate -k "$OLDEST" "${a[@]}"
validate -k "$VERSION" "${a[@]}"
"$venv/bin/python" .ci/k8s-validate.py "${a[1]}" "${a[2]}" "${a[0]}" deploy/Dockerfile
grep -q '^  completions: 3$' "${a[1]}" && grep -q 'value: tournaments/quickstart.toml' "${a[2]}" \
  && grep -q 'image: registry.example/joute:1' "${a[2]}" && grep -q 'cpu: "2"' "${a[1]}" \
  || { echo "error: submit.sh did not set the spec, shards, image and threads" >&2; exit 1; }
grep -q '^wait --for=condition=complete job/joute-shards' "$T/kubectl.log" \
  || { echo "error: submit.sh did not wait for the shards before the merge" >&2; exit 1; }
say "deploy/k8s/submit.sh tournaments/quickstart.toml 3: the manifests it applies are valid and consistent"
