#!/usr/bin/env bash
# Builds joute for a cluster of mixed x86-64 processors: three release binaries, one per x86-64
# level, and a launcher that runs the fastest one the node it starts on supports.
#
#   deploy/build-portable.sh OUTDIR
#
# OUTDIR then holds joute-x86-64 (any x86-64 processor), joute-x86-64-v3 (AVX2, BMI2: Haswell,
# Zen and later), joute-x86-64-v4 (AVX-512: Skylake-SP, Ice Lake, Zen 4 and later) and `joute`,
# deploy/joute-launch.sh, which picks one from /proc/cpuinfo at each start. Point JOUTE at
# OUTDIR/joute (on a filesystem the nodes share):
#
#   deploy/build-portable.sh /shared/joute-bin
#   JOUTE=/shared/joute-bin/joute deploy/slurm/submit.sh tournaments/othello-depths.toml 8
#
# A plain `cargo build --release` targets the processor it builds on (.cargo/config.toml) and
# may stop with "illegal instruction" on an older node. Each level builds in its own target
# folder (target/portable-LEVEL; TARGET_DIR_PREFIX changes the prefix), so that a rebuild is
# incremental; CARGO_FLAGS adds options (CARGO_FLAGS="-j 8").
set -euo pipefail
out=${1:?usage: deploy/build-portable.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
if [[ "$(uname -m)" != x86_64 ]]; then
  echo "build-portable.sh: builds for x86-64 only (this machine is $(uname -m)); build with cargo build --release" >&2
  exit 2
fi
prefix=${TARGET_DIR_PREFIX:-$root/target/portable-}
mkdir -p "$out"
for level in x86-64 x86-64-v3 x86-64-v4; do
  echo "building joute-$level" >&2
  # RUSTFLAGS replaces the target-cpu=native of .cargo/config.toml.
  # shellcheck disable=SC2086 # CARGO_FLAGS is a list of options
  (cd "$root" && unset CARGO_ENCODED_RUSTFLAGS && RUSTFLAGS="-C target-cpu=$level" cargo build --release --locked \
    --target-dir "$prefix$level" ${CARGO_FLAGS:-})
  # Copied under another name, then renamed: a node starting the old binary keeps it intact.
  cp "$prefix$level/release/joute" "$out/.joute-$level.new"
  mv -f "$out/.joute-$level.new" "$out/joute-$level"
done
cp "$here/joute-launch.sh" "$out/.joute.new"
chmod +x "$out/.joute.new"
mv -f "$out/.joute.new" "$out/joute"
echo "built $out/joute: on this machine it runs $(JOUTE_LAUNCH_VERBOSE=1 "$out/joute" --version 2>&1 >/dev/null | sed 's/^joute-launch: //')" >&2
