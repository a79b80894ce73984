"""joute from Python: games, bots written as functions, tournaments, ratings and tuning.
See docs/python.md."""
from ._joute import Game, __version__, perft, solve
from ._run import Run, Table, load, match, run

__all__ = ["Game", "Run", "Table", "__version__", "load", "match", "perft", "run", "solve"]
