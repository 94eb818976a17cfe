"""The exact Cups solver: the best final margin of pots from any position, by full minimax.

Cups always ends (every move takes beans from a stock or puts one in a pot), and what a
player can still gain does not depend on what the pots already hold. So a position's value
is one number, the margin the side to move can force from now on between their future
gains and the opponent's, and it depends only on the cups and stocks, seen from the mover:
``(my cups, their cups, my stock, their stock)``. The final result is the pots' margin now
plus that value. A pass is folded in: when the opponent cannot move after my move, I move
again and the child's value counts for me.

The table keeps every value it has worked out (a game's later positions reuse them); its
size is what limits where the solver is used: ``exact_reach`` says which positions it
answers within a hint's time (docs/engine.md#cups).
"""

from __future__ import annotations

import sys
import threading
import time

from companion.rules.cups import Row, apply_code, can_move, mover_codes

Key = tuple[Row, Row, int, int]  # my cups, their cups, my stock, their stock
TABLE_LIMIT = 3_000_000  # values kept; cleared when full (a Pi shares its memory with the camera)
RECURSION = 4_000  # a Cups game is at most (beans in stock + beans that reach a pot) moves long


class SolveStopped(Exception):
    """The solve was stopped (a stop request, its node budget or its time ran out)."""


class CupsSolver:
    """Exact values by memoised minimax; ``value`` and ``best`` from the side to move."""

    def __init__(self) -> None:
        self.table: dict[Key, int] = {}
        self.nodes = 0
        self.budget: int | None = None  # nodes this solve may visit
        self.deadline: float | None = None  # the perf_counter time this solve must end by
        self.stop_event: threading.Event | None = None
        if sys.getrecursionlimit() < RECURSION:
            sys.setrecursionlimit(RECURSION)

    def value(self, mine: Row, theirs: Row, my_stock: int, their_stock: int) -> int:
        """The margin the mover (who must be able to move) forces from here on."""
        key = (mine, theirs, my_stock, their_stock)
        known = self.table.get(key)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes & 1023 == 0:
            self._check()
        best = -(1 << 30)
        for code in mover_codes(mine, my_stock):
            score = self.child(mine, theirs, my_stock, their_stock, code)
            if score > best:
                best = score
        if len(self.table) >= TABLE_LIMIT:
            self.table.clear()
        self.table[key] = best
        return best

    def child(self, mine: Row, theirs: Row, my_stock: int, their_stock: int, code: int) -> int:
        """The mover's margin from here on after playing ``code`` (then playing perfectly)."""
        new_mine, new_theirs, taken, gained = apply_code(mine, theirs, code)
        my_stock -= taken
        if can_move(new_theirs, their_stock):
            return gained - self.value(new_theirs, new_mine, their_stock, my_stock)
        if can_move(new_mine, my_stock):
            return gained + self.value(new_mine, new_theirs, my_stock, their_stock)
        return gained

    def best(self, mine: Row, theirs: Row, my_stock: int, their_stock: int) -> list[tuple[int, int]]:
        """Every move code with its exact value, best first (stable: sowing before cups)."""
        scored = [
            (code, self.child(mine, theirs, my_stock, their_stock, code))
            for code in mover_codes(mine, my_stock)
        ]
        return sorted(scored, key=lambda item: -item[1])

    def _check(self) -> None:
        if self.stop_event is not None and self.stop_event.is_set():
            raise SolveStopped
        if self.budget is not None and self.nodes > self.budget:
            raise SolveStopped
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise SolveStopped
