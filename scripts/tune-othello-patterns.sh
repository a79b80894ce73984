#!/usr/bin/env bash
# Reproduces generation 1 of weights/othello-patterns.jpw (issue #32; shipped until the weights of
# tournaments/tune-othello-patterns.toml replaced it) with joute's own pipeline:
# self-play of joute's engines with the previous weights, exact endgames in play, then the
# pattern fit refining the previous weights by the new positions.
#
#   generation 0  the weights shipped before (commit 152bb0b): `joute fit --patterns` on
#                 200,000 alpha-beta depth-3 self-play games of tune-othello-regression.toml
#                 (seeds 7 and 8), labels = game results (README, "A pattern evaluation")
#   self-play     (a) pvs:5 against itself, exact from 16 empties, generation 0's weights:
#                 `joute match`, 10-ply random openings of seed 101, 2,478 games; the
#                 engines are one deterministic program, so a colour-swapped pair is one game
#                 twice: the even ids are kept (1,239 games)
#                 (b) pvs:4 against pvs:5, both exact from 16 empties, generation 0's
#                 weights, 10-ply openings of seed 102: ids 0..25768 (25,769 games); two
#                 depths so that each colour-swapped pair is two games
#                 Both sides solve exactly from 16 empty squares, so every position with 16
#                 or fewer is labelled by its perfect-play result (what --exact-labels 16
#                 would give) at no extra cost.
#   fit           `joute fit --patterns --weights GEN0 --phase-overlap 3`: 6 phases, each also
#                 learning from the positions within 3 empty squares of its range, from
#                 generation 0 with the ridge (16 positions) pulling towards it: 1.38 M
#                 positions (27,008 games, every position after the opening; 2.11 M counted
#                 in every phase they are in)
#
# Usage: scripts/tune-othello-patterns.sh OUT_DIR [SCALE]
#   OUT_DIR  where the logs and OUT_DIR/othello-patterns.jpw go (created; never the repository)
#   SCALE    divide the self-play games by this (default 1: the shipped weights' games; e.g.
#            100 for a check of the pipeline in about a minute)
# Environment: JOUTE (default target/release/joute), THREADS (default 2).
# The fit reads the games in id order; the shipped file was fitted on (b) in the order its two
# threads finished them, so the sums of a fit from this script may differ from it in the last
# bits. Run from the repository's root (needs git for generation 0). Measured here (2 cores shared
# with other jobs at a load of about 10): the self-play about 12 CPU-minutes (25 ms a game), the
# fit 103 CPU-s (541 s wall) and 0.98 GB.
set -euo pipefail
out=${1:?usage: scripts/tune-othello-patterns.sh OUT_DIR [SCALE]}
scale=${2:-1}
joute=${JOUTE:-target/release/joute}
threads=${THREADS:-2}
mkdir -p "$out"
gen0="$out/gen0.jpw"
git show 152bb0b:weights/othello-patterns.jpw > "$gen0"

# Even game counts (a match plays colour-swapped pairs), at least one pair.
games() { local n=$(( ($1 / scale + 1) / 2 * 2 )); echo $(( n < 2 ? 2 : n )); }
a_games=$(games 2478)
b_keep=$(( 25769 / scale > 1 ? 25769 / scale : 1 ))
b_games=$(( (b_keep + 1) / 2 * 2 ))

"$joute" match othello "pvs:5:exact=16:$gen0,name=a" "pvs:5:exact=16:$gen0,name=b" \
    --games "$a_games" --openings 10 --seed 101 --threads "$threads" --out "$out/sp5" --quiet
"$joute" match othello "pvs:4:exact=16:$gen0,name=d4" "pvs:5:exact=16:$gen0,name=d5" \
    --games "$b_games" --openings 10 --seed 102 --threads "$threads" --out "$out/sp45" --quiet

# The games fitted: (a)'s even ids, (b)'s first b_keep ids, in id order.
python3 - "$out" "$b_keep" <<'EOF'
import json, sys
out, keep = sys.argv[1], int(sys.argv[2])
def games(path, take):
    lines = [l for l in open(path) if l.endswith("\n")]
    with_ids = ((json.loads(l)["id"], l) for l in lines)
    return [l for i, l in sorted(w for w in with_ids if take(w[0]))]
chosen = games(f"{out}/sp5/games.jsonl", lambda i: i % 2 == 0)
chosen += games(f"{out}/sp45/games.jsonl", lambda i: i < keep)
with open(f"{out}/selfplay.jsonl.tmp", "w") as f:
    f.writelines(chosen)
EOF
mv "$out/selfplay.jsonl.tmp" "$out/selfplay.jsonl"

"$joute" fit "$out/selfplay.jsonl" --game othello --patterns --weights "$gen0" \
    --phase-overlap 3 --out "$out/othello-patterns.jpw" --force
