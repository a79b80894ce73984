#!/usr/bin/env python3
"""The same Python negamax (negamax_connect4.py) against alphabeta:4, in-process and as a
line-protocol program: the same games move for move, and the games per second of each.

    python3 examples/python/inprocess_vs_line.py [GAMES] [ROUNDS] [THREADS]
    # 100 games, 3 rounds, one game at a time per core
"""
import statistics
import sys
import time
from pathlib import Path

import joute

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import negamax_connect4  # noqa: E402

games = int(sys.argv[1]) if len(sys.argv) > 1 else 100
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
threads = int(sys.argv[3]) if len(sys.argv) > 3 else None
script = HERE / "negamax_connect4.py"
line_bot = f"cmd={sys.executable},arg={script},proto=line,name=negamax_connect4"
ways = {"in-process": negamax_connect4.bot, "line protocol": line_bot}
rates = {way: [] for way in ways}  # games per second of the whole call (report included)
plays = {way: [] for way in ways}  # games per second of play alone (the session's games)
played = {}
for _ in range(rounds):  # interleaved: the machine's load falls on both alike
    for way, engine in ways.items():
        start = time.perf_counter()
        run = joute.match("connect4", engine, "alphabeta:4", games=games, seed=1, progress=False,
                          threads=threads)
        rates[way].append(games / (time.perf_counter() - start))
        plays[way].append(games / run.seconds)
        played[way] = sorted((g["id"], g["result"], g["opening"], g["moves"]) for g in run.games)
same = played["in-process"] == played["line protocol"]
print(f"{games} games against alphabeta:4, negamax depth {negamax_connect4.DEPTH}, {rounds} rounds, threads {threads or 'one per core'}")
for what, table in (("the whole call", rates), ("play alone", plays)):
    print(f" {what}:")
    for way, r in table.items():
        print(f"  {way:>13}: median {statistics.median(r):7.1f} games/s  (all: {', '.join(f'{x:.1f}' for x in r)})")
    ratio = statistics.median(table["in-process"]) / statistics.median(table["line protocol"])
    print(f"  in-process / line protocol: {ratio:.2f}x")
print(f" the same games: {same}")
assert same
