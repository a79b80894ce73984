#!/usr/bin/env bash
# Starts the fastest joute build this processor can run. Installed as `joute` next to the
# variants that deploy/build-portable.sh (or deploy/Dockerfile) builds:
#
#   joute-x86-64-v4  AVX-512 (F, BW, CD, DQ, VL) on top of v3: the vector flips of Othello
#   joute-x86-64-v3  AVX2, BMI1/2, LZCNT, MOVBE, FMA, F16C on top of v2 (POPCNT, SSE4.2)
#   joute-x86-64     the x86-64 baseline: runs on any x86-64 processor
#
# It reads the processor's flags from /proc/cpuinfo, picks the highest level whose flags every
# processor listed has and whose binary is present, and execs it with the arguments unchanged
# and its own name as argv[0] (so the exit code, signals and stdin/stdout are joute's own, and
# the command lines joute prints, such as the one to resume a run, name this launcher).
#
# Environment:
#   JOUTE_CPUINFO      file to read the flags from (default /proc/cpuinfo; tests use fakes)
#   JOUTE_VARIANT_DIR  folder of the variants (default: the folder of this script)
#   JOUTE_VARIANT      x86-64, x86-64-v3 or x86-64-v4: use that one, whatever the flags say
#   JOUTE_LAUNCH_VERBOSE  when set and not empty, print the choice on stderr
set -u

cpuinfo=${JOUTE_CPUINFO:-/proc/cpuinfo}
if [ -n "${JOUTE_VARIANT_DIR:-}" ]; then
  dir=$JOUTE_VARIANT_DIR
else
  self=$0
  # Through a symbolic link (joute linked into a PATH folder): the variants are next to the
  # real script.
  if [ -L "$self" ] && resolved=$(readlink -f "$self" 2>/dev/null); then
    self=$resolved
  fi
  dir=$(dirname "$self")
fi

# The flags every processor in the file has ("flags" lines: one a processor on x86 Linux).
# An unreadable or flagless file yields nothing: the baseline.
flags=$(awk -F: '
  $1 ~ /^flags[ \t]*$/ {
    n++
    split($2, f, " ")
    delete seen
    for (i in f) seen[f[i]] = 1
    for (k in seen) count[k]++
  }
  END { for (k in count) if (count[k] == n) print k }
' "$cpuinfo" 2>/dev/null | tr '\n' ' ')

has_all() {
  for want in "$@"; do
    case " $flags " in
      *" $want "*) ;;
      *) return 1 ;;
    esac
  done
  return 0
}

# The x86-64 microarchitecture levels (the psABI's), as Linux names the flags. LZCNT is "abm".
v2="cx16 lahf_lm popcnt sse4_1 sse4_2 ssse3"
v3="$v2 avx avx2 bmi1 bmi2 f16c fma abm movbe xsave"
v4="$v3 avx512f avx512bw avx512cd avx512dq avx512vl"

if [ -n "${JOUTE_VARIANT:-}" ]; then
  case $JOUTE_VARIANT in
    x86-64 | x86-64-v3 | x86-64-v4) candidates=$JOUTE_VARIANT ;;
    *)
      echo "joute-launch: JOUTE_VARIANT=$JOUTE_VARIANT is not one of x86-64, x86-64-v3, x86-64-v4" >&2
      exit 2
      ;;
  esac
else
  candidates=""
  # shellcheck disable=SC2086 # the lists are meant to split into words
  if has_all $v4; then candidates="x86-64-v4"; fi
  # shellcheck disable=SC2086
  if has_all $v3; then candidates="$candidates x86-64-v3"; fi
  candidates="$candidates x86-64"
fi

for level in $candidates; do
  bin=$dir/joute-$level
  if [ -x "$bin" ]; then
    if [ -n "${JOUTE_LAUNCH_VERBOSE:-}" ]; then
      echo "joute-launch: $bin" >&2
    fi
    exec -a "$0" "$bin" "$@"
  fi
done
looked=""
for level in $candidates; do looked="$looked joute-$level"; done
echo "joute-launch: no joute build to run in $dir (looked for$looked)" >&2
exit 127
