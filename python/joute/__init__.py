"""joute from Python: games, bots written as functions, tournaments, ratings and tuning.
See docs/python.md."""
from ._joute import Game, __version__, perft, solve
from ._run import Run, Table, load, match, run
from ._tune import Tuning, rate, tune

__all__ = [
    "Game",
    "Run",
    "Table",
    "Tuning",
    "__version__",
    "load",
    "match",
    "perft",
    "rate",
    "run",
    "solve",
    "tune",
]
