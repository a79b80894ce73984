"""joute from Python: see docs/python.md."""
from ._joute import __version__

__all__ = ["__version__"]
