"""The AI: search, evaluation, the junior solver, levels, the engine protocol and matches.

``Engine(variant, level="strong", seed=0).search(position, time=..., depth=..., nodes=...)``
returns a ``SearchResult``; ``Engine.stop()`` cancels a running search from another thread.
"""

from companion.engine.engine import Engine
from companion.engine.levels import LEVELS, Level
from companion.engine.search import MATE, SearchResult

__all__ = ["LEVELS", "MATE", "Engine", "Level", "SearchResult"]
