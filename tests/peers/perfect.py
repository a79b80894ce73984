#!/usr/bin/env python3
"""Did a perfect Connect 4 player lose a game it started from a won or drawn position?

Usage: perfect.py GAMES_JSONL [ENGINE] [JOUTE]   (ENGINE: pons; JOUTE: target/release/joute)

For each game of ENGINE in the log, the position after the opening is solved with
`joute solve connect4 MOVES --json` (the value for the side to move there; the opening's
moves are the game's first plies, so after an even opening the first player moves). ENGINE
must win every game it started won, and not lose one it started drawn. Prints the count of
each case and every failure; exits 1 on a failure.
"""
import json
import subprocess
import sys

log = sys.argv[1]
engine = sys.argv[2] if len(sys.argv) > 2 else "pons"
joute = sys.argv[3] if len(sys.argv) > 3 else "target/release/joute"
values, counts, failures = {}, {}, []
for line in open(log):
    g = json.loads(line)
    if engine not in (g["first"], g["second"]):
        continue
    position = "".join(g["opening"])
    if position not in values:
        out = subprocess.run([joute, "solve", "connect4", position, "--json"],
                             capture_output=True, text=True, check=True).stdout
        v = json.loads(out)
        values[position] = (v["score"], v["side_to_move"] == "first")
    score, first_to_move = values[position]
    plays_first = g["first"] == engine
    value = score if plays_first == first_to_move else -score
    points = g["score"] if plays_first else 1 - g["score"]
    start = "won" if value > 0 else "drawn" if value == 0 else "lost"
    counts[start, points] = counts.get((start, points), 0) + 1
    if (start == "won" and points < 1) or (start == "drawn" and points < 0.5):
        failures.append("game %d from %s: %s start, %s scored %s" % (g["id"], position, start, engine, points))
for start in ("won", "drawn", "lost"):
    row = ["%s %d" % (name, counts.get((start, p), 0)) for p, name in ((1, "wins"), (0.5, "draws"), (0, "losses"))]
    print("%s started %s: %s" % (engine, start, ", ".join(row)))
for f in failures:
    print("FAIL " + f)
sys.exit(1 if failures else 0)
