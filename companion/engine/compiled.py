"""The search on the compiled core (``native.c``), and the choice between it and Python's.

``native.c`` is the same search as ``search.py`` (board, move order, reductions, evaluation)
in C, so ``CompiledSearcher`` only changes where the tree is searched: the iterative
deepening, the limits' bookkeeping, the principal variation and the answer stay in
``Searcher``. What the core needs from Python is handed over once: the variant's lines,
Zobrist keys and evaluation weights when the searcher is made, and at each search the
position and every external-stack state the search can reach from it (the rules engine
interns those lazily, so they are walked here with its own ``take``).

``searcher_for`` gives the compiled searcher where the core was built (``pip install``
compiles it; it needs a C compiler and Python's headers, which ``bootstrap`` installs) and the
variant fits it (boards up to 8x8), else the Python one, saying once in the log that it is
the slower one.
"""

from __future__ import annotations

import logging
import threading
import time as _time
from importlib import import_module
from types import ModuleType
from typing import Any

from companion.engine.board import PIECE_BITS
from companion.engine.evaluate import (
    BLOCKED_THREAT,
    BURIED,
    CENTRE,
    DOUBLE_THREAT,
    MATE_BOUND,
    PINNED,
    STACK_GOBBLE_DISCOUNT,
    TEMPO,
    THREAT,
    reserve_summary,
)
from companion.engine.search import FUTILITY_MARGIN, MATE, Limits, Searcher, SearchStopped
from companion.rules import Position, Variant
from companion.rules.codes import PLACEMENT_SHIFT, STACK_SHIFT
from companion.rules.geometry import ZOBRIST, ZOBRIST_BLACK_TO_MOVE
from companion.rules.reserves import PLACEMENT_OPTIONS, RESERVES, TAKES, take

log = logging.getLogger("gobblet-companion.engine")

MAX_SQUARES = 64  # a bitboard is one 64-bit word in the core
MAX_STACKS = 9  # external stacks per player (a placement's stack index fits in 4 bits; fewer
# stacks also keep the number of reserve states the core is handed small)
TT_BITS = 20  # 1,048,576 entries of 16 bytes: 16 MB (a Pi shares its memory with the camera)
EVAL_BITS = 12  # 4,096 entries, 64 kB: a small cache stays in the CPU's cache; a large one
# costs more in memory stalls than it saves (measured: ~1.5x the nodes/s of 2**20 entries)
# what the core reads of evaluate.py and search.py, in the order it reads them
WEIGHTS = (THREAT, BLOCKED_THREAT, DOUBLE_THREAT, STACK_GOBBLE_DISCOUNT, PINNED, BURIED, CENTRE, TEMPO)
SEARCH_CONSTANTS = (MATE, MATE_BOUND, FUTILITY_MARGIN)


def load_native() -> ModuleType | None:
    """The compiled core, or None where it was not built."""
    try:
        return import_module("companion.engine.native")
    except ImportError:
        return None


NATIVE = load_native()
_warned = threading.Event()


def native_supports(variant: Variant) -> bool:
    """Can the compiled core play this variant (built, and the board and stacks fit it)?"""
    return NATIVE is not None and variant.size**2 <= MAX_SQUARES and len(variant.stacks) <= MAX_STACKS


def searcher_for(variant: Variant) -> Searcher:
    """The fastest searcher for the variant: the compiled one where it can play it."""
    if native_supports(variant):
        return CompiledSearcher(variant)
    if not _warned.is_set():
        _warned.set()
        reason = "the compiled core is not built" if NATIVE is None else f"{variant.spec} is too large for it"
        log.warning(
            "engine: using the pure-Python search, several times slower (%s; reinstall with a C "
            "compiler and Python's headers: ./bootstrap does it)",
            reason,
        )
    return Searcher(variant)


class CompiledSearcher(Searcher):
    """``Searcher`` with its tree searched by the compiled core."""

    def __init__(self, variant: Variant, max_depth: int = 64, tt_bits: int = TT_BITS) -> None:
        if NATIVE is None or not native_supports(variant):
            raise ValueError(f"the compiled core cannot play {variant.spec}")
        super().__init__(variant, max_depth)
        tables, evaluator = self.tables, self.evaluator
        shape = (variant.size, variant.win_length, tables.gobble_kind, variant.max_piece)
        terms = (evaluator.own_line, evaluator.centre_masks, evaluator.piece_values, evaluator.stack_gobble)
        keys = (tables.lines, tables.zobrist, ZOBRIST_BLACK_TO_MOVE)
        self.core: Any = NATIVE.Core(shape, *keys, terms, WEIGHTS, SEARCH_CONSTANTS, tt_bits, EVAL_BITS)
        self.added: set[int] = set()  # reserve ids the core knows
        assert len(ZOBRIST) >= 2 * variant.max_piece + 2

    def stop(self) -> None:
        super().stop()
        self.core.interrupt()

    def set_position(self, position: Position) -> None:
        """Hand ``position`` to the core (also the tests' way to use the core's board)."""
        for rid in position.reserve_ids:
            self._add_reserves(rid)
        stacks = position.piece_stacks
        compact = []
        for sq in self.tables.rules_square:
            stack = 0
            for piece in stacks[sq]:  # bottom first: the top ends in the lowest bits
                stack = stack << PIECE_BITS | piece
            compact.append(stack)
        decided = position.line_result()
        self.core.set_position(
            compact,
            *position.reserve_ids,
            position.turn,
            position.hash,
            position.repetition_counts(),
            -1 if decided is None else decided.winner,
        )

    def _add_reserves(self, rid: int) -> None:
        """Hand the core this reserve and every one its placements lead to."""
        pending = [rid]
        while pending:
            current = pending.pop()
            if current in self.added:
                continue
            self.added.add(current)
            options = []
            for size, index, _ in PLACEMENT_OPTIONS[current]:
                key = size | index << STACK_SHIFT - PLACEMENT_SHIFT  # codes.placement_key
                following, white_change, black_change = TAKES[current].get(key) or take(current, key)
                options.append((size, index, following, white_change, black_change))
                pending.append(following)
            count, value = reserve_summary(RESERVES[current])
            self.core.add_reserve(current, count, value, options)

    # ----- Searcher's hooks -----------------------------------------------------------------

    def _prepare(self, position: Position, limits: Limits, stop_event: threading.Event | None) -> None:
        outcome = position.outcome()
        if outcome is not None:
            super()._prepare(position, limits, stop_event)  # refuses it
        self.pos = position.copy()
        self.set_position(self.pos)
        self.stop_event = stop_event or threading.Event()
        self.core.clear_interrupt()  # before the event is read: a stop() from now on is seen
        self.start = _time.perf_counter()
        self.deadline = limits.deadline_after(self.start)
        remaining = -1.0 if self.deadline is None else max(self.deadline - _time.perf_counter(), 0.0)
        self.core.new_search(remaining, -1 if limits.nodes is None else limits.nodes)
        self.nodes = 0

    def _root(self, depth: int, codes: list[int], previous_best: int) -> tuple[int, int]:
        if self.stop_event.is_set():
            raise SearchStopped
        code, score, finished = self.core.root(depth, codes, previous_best)
        self.nodes = self.core.nodes
        if not finished:
            self.root_best = (code, score) if code else None
            raise SearchStopped
        return code, score

    def _score_all(self, codes: list[int], depth: int) -> list[int]:
        scores: list[int] = self.core.score_moves(codes, depth)
        self.nodes = self.core.nodes
        return scores

    def _hash_move(self, key: int) -> int:
        move: int = self.core.tt_move(key)
        return move
