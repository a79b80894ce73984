#!/usr/bin/env python3
"""A game-tree search course's lab, top to bottom, as a notebook would run it (each section a
cell): the game, the course's algorithms compared with what each paid for its rating, a Python
bot against pvs:4, a small tuning run, the ratings plotted against their cost.

    pip install ./python matplotlib pandas
    python3 examples/python/course.py            # about a minute on 2 cores
    python3 examples/python/course.py --quick    # fewer games (CI runs this)

Everything is written under reports/ in the current folder (one run folder per section).
"""
import sys
from pathlib import Path

import joute

QUICK = "--quick" in sys.argv
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import negamax_connect4  # noqa: E402  (a Python negamax: the bot of section 3)

# 1. The game: the state API a bot uses, perft, an exact solve.
game = joute.Game("connect4")
for move in "4453":
    game.play(move)
print(game.board())
print("legal moves:", game.legal_moves(), "to move:", game.turn())
print("perft 5 from the start:", joute.perft("connect4", 5))
position = joute.Game("connect4", moves="4444443333332")
solved = joute.solve(position, time=30)
print(f"{position.position()} solved: a {solved['value']} for the side to move, {solved['nodes']} nodes")

# 2. The course's algorithms compared, with what each paid: one round robin, from the same
# openings, each pair of games with colours swapped. The Python negamax plays beside them.
algorithms = {
    "name": "course-algorithms",
    "game": "connect4",
    "seed": 1,
    "openings": {"plies": 4, "count": 6 if QUICK else 30},
    "engine": [
        {"name": "minimax-4", "algorithm": "minimax", "depth": 4},
        {"name": "alphabeta-4", "algorithm": "alphabeta", "depth": 4},
        {"name": "pvs-6", "algorithm": "pvs", "depth": 6},
        {"name": "mcts-1000", "algorithm": "mcts", "playouts": 1000},
        {"name": "negamax-py", "bot": negamax_connect4.bot},
    ],
}
run = joute.run(algorithms, out=Path("reports") / "course-algorithms", fresh=True, progress=not QUICK)
print(run)
ratings = run.ratings.to_pandas()
cost = run.cost.to_pandas()
strength_and_cost = ratings.merge(cost, on="name")[["name", "elo", "error", "nodes_mean", "ms_mean"]]
print(strength_and_cost.to_string(index=False))
# Five engines: ten pairs, each opening played twice.
assert len(run.games) == 10 * 2 * algorithms["openings"]["count"], len(run.games)

# 3. A Python bot against pvs:4, in-process: 100 games (20 with --quick).
duel = joute.match(
    "connect4", negamax_connect4.bot, "pvs:4", games=20 if QUICK else 100, progress=not QUICK
)
h2h = duel.pairs[0]
print(
    f"negamax (Python, depth {negamax_connect4.DEPTH}) against pvs:4: "
    f"+{h2h['wins']} ={h2h['draws']} -{h2h['losses']}, elo {h2h['elo']} "
    f"({duel.seconds:.2f} s of play, {duel.played / duel.seconds:.0f} games/s)"
)
terminations = duel.games.to_pandas()["termination"].value_counts()
print(terminations.to_string())

# 4. A small tuning run: SPSA on two weights of alphabeta's Connect 4 evaluation, each
# candidate heard as it is played, then the confirmation match against the start.
tuning_spec = {
    "name": "course-tuning",
    "game": "connect4",
    "seed": 5,
    "method": "spsa",
    "engine": {
        "algorithm": "alphabeta",
        "depth": 2,
        "weights": str(ROOT / "weights" / "connect4-centre.toml"),
    },
    "openings": {"plies": 6},
    "budget": {"iterations": 4 if QUICK else 30},
    "spsa": {"pairs": 2 if QUICK else 8},
    "confirm": {"games": 20 if QUICK else 200, "aa_games": 8 if QUICK else 100},
    "param": [
        {"name": "own_threes", "min": -20, "max": 40, "step": 4},
        {"name": "own_immediate", "min": -20, "max": 100, "step": 10},
    ],
}
steps = []
tuning = joute.tune(
    tuning_spec,
    out=Path("reports") / "course-tuning",
    fresh=True,
    callback=lambda e: steps.append(e) if e["kind"] == "step" else None,
    progress=not QUICK,
)
print(f"{len(steps)} candidates; tuned:", {k: tuning.weights[k] for k in ("own_threes", "own_immediate")})
if tuning.confirmation:
    print("confirmation against the start:", {k: tuning.confirmation.get(k) for k in ("elo", "error")})

# 5. The ratings plotted against their cost (matplotlib when installed).
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("(no matplotlib: no plot)")
else:
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar(
        strength_and_cost["nodes_mean"].fillna(0) + 1,
        strength_and_cost["elo"],
        yerr=strength_and_cost["error"],
        fmt="o",
    )
    for _, row in strength_and_cost.iterrows():
        nodes = row["nodes_mean"] if row["nodes_mean"] == row["nodes_mean"] else 0  # NaN: no count
        ax.annotate(row["name"], (nodes + 1, row["elo"]))
    ax.set_xscale("log")
    ax.set_xlabel("nodes per move (mean, log scale)")
    ax.set_ylabel("Elo (mean 0)")
    ax.set_title("Connect 4: strength against cost")
    plot = run.folder / "strength-vs-cost.png"
    fig.savefig(plot, dpi=100, bbox_inches="tight")
    print("plot:", plot)
