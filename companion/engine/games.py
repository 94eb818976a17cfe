"""The engine's side of the game seam: which search plays which game.

Gobblet is searched by its own fast search (``compiled.searcher_for``: the compiled core where
it was built, else ``search.Searcher`` on the Python ``SearchBoard``); every other game by a
searcher built on ``gamesearch.GameSearcher`` with the game's evaluation. A third game is one
entry in ``SEARCHERS``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from companion.engine.compiled import searcher_for as gobblet_searcher
from companion.engine.cups import CupsSearcher
from companion.engine.levels import Level
from companion.engine.search import Limits, SearchResult
from companion.rules.cups import GAME_NAME as CUPS
from companion.rules.games import GOBBLET, kind_of
from companion.rules.state import GameVariant


class TreeSearch(Protocol):
    """What ``Engine`` asks of a game's search."""

    nodes: int
    on_iteration: Callable[[SearchResult], None] | None

    def search(
        self, position: Any, limits: Limits, stop_event: threading.Event | None = None
    ) -> SearchResult: ...

    def score_moves(self, position: Any, depth: int) -> list[tuple[int, int]]: ...

    def stop(self) -> None:
        """End a running search now (from another thread)."""
        ...


SEARCHERS: dict[str, Callable[[Any, Level], TreeSearch]] = {
    GOBBLET: lambda variant, level: gobblet_searcher(variant),
    CUPS: lambda variant, level: CupsSearcher(endgame=level.solver),
}


def searcher_for(variant: GameVariant, level: Level) -> TreeSearch:
    """A fresh search for the variant's game at this level."""
    return SEARCHERS[kind_of(variant).name](variant, level)
