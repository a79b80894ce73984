"""joute from Python: see docs/python.md."""
from ._joute import Game, __version__, perft, solve

__all__ = ["Game", "__version__", "perft", "solve"]
