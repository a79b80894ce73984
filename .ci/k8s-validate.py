"""CI: the Kubernetes manifests of a sharded joute tournament agree with each other and with the
image (what a schema cannot see). Run by .ci/k8s-validate.sh:

    python k8s-validate.py SHARDS.yaml MERGE.yaml PVC.yaml Dockerfile

Checks: the shards are an Indexed Job of SHARD_COUNT completions (parallelism at most that); the
merge reads the same SPEC, SHARD_COUNT and OUT; both use one image and mount the claim the PVC
manifest names at OUT; their commands are scripts the Dockerfile copies to that path; the SPEC is
a tournament the image holds. Prints one line per disagreement and exits 1.
"""

import os
import re
import sys

import yaml


def load(path):
    with open(path) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    if len(docs) != 1:
        sys.exit(f"error: {path}: expected one resource, found {len(docs)}")
    return docs[0]


def container(job, path):
    containers = job["spec"]["template"]["spec"]["containers"]
    if len(containers) != 1:
        sys.exit(f"error: {path}: expected one container")
    return containers[0]


def env(c):
    return {e["name"]: e.get("value") for e in c.get("env", [])}


def mounts(job, c):
    volumes = {v["name"]: v for v in job["spec"]["template"]["spec"].get("volumes", [])}
    out = {}
    for m in c.get("volumeMounts", []):
        claim = volumes.get(m["name"], {}).get("persistentVolumeClaim", {}).get("claimName")
        out[m["mountPath"]] = claim
    return out


def main(shards_path, merge_path, pvc_path, dockerfile):
    errors = []
    shards, merge, pvc = load(shards_path), load(merge_path), load(pvc_path)
    sc, mc = container(shards, shards_path), container(merge, merge_path)
    se, me = env(sc), env(mc)

    spec = shards["spec"]
    if spec.get("completionMode") != "Indexed":
        errors.append(f"{shards_path}: completionMode is not Indexed (no JOB_COMPLETION_INDEX)")
    count = se.get("SHARD_COUNT")
    if not (count or "").isdigit():
        errors.append(f"{shards_path}: SHARD_COUNT {count!r} is not a number")
    elif spec.get("completions") != int(count):
        errors.append(f"{shards_path}: completions {spec.get('completions')} but SHARD_COUNT {count}")
    elif spec.get("parallelism", 1) > int(count):
        errors.append(f"{shards_path}: parallelism {spec['parallelism']} exceeds SHARD_COUNT {count}")
    for key in ("SPEC", "SHARD_COUNT", "OUT"):
        if se.get(key) is None:
            errors.append(f"{shards_path}: no {key} in the environment")
        elif se.get(key) != me.get(key):
            errors.append(f"{merge_path}: {key} {me.get(key)!r}, but the shards have {se.get(key)!r}")
    if sc["image"] != mc["image"]:
        errors.append(f"{merge_path}: image {mc['image']}, but the shards run {sc['image']}")

    claim = pvc["metadata"]["name"]
    if "ReadWriteMany" not in pvc["spec"].get("accessModes", []):
        errors.append(f"{pvc_path}: not ReadWriteMany (every shard pod mounts it)")
    for path, c, e, job in ((shards_path, sc, se, shards), (merge_path, mc, me, merge)):
        out = e.get("OUT")
        if mounts(job, c).get(out) != claim:
            errors.append(f"{path}: OUT {out} is not the claim {claim} mounted")

    # What the image holds: the scripts it copies to /usr/local/bin, its WORKDIR's tournaments.
    with open(dockerfile) as f:
        text = f.read()
    scripts = set()
    for line in text.splitlines():
        m = re.match(r"COPY\s+(?!--from)(.+)\s+/usr/local/bin/\s*$", line)
        if m:
            scripts |= {"/usr/local/bin/" + os.path.basename(s) for s in m.group(1).split()}
    for path, c, want in ((shards_path, sc, "run-shard.sh"), (merge_path, mc, "merge.sh")):
        cmd = (c.get("command") or [""])[0]
        if cmd not in scripts:
            errors.append(f"{path}: command {cmd} is not a script the image copies ({dockerfile})")
        elif os.path.basename(cmd) != want:
            errors.append(f"{path}: command {cmd}, expected deploy/{want}")
    spec_file = se.get("SPEC") or ""
    if not spec_file.startswith("/") and not os.path.isfile(spec_file):
        errors.append(f"{shards_path}: SPEC {spec_file} is not in the repository (the image copies tournaments/)")

    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
