"""A variant's line tables: what move generation and the end-of-turn check look up.

Built once per variant (``tables_for``) and shared by every position of it. The line masks
by square are fixed; the rest are caches keyed by bitboards, filled as positions meet them and
bounded at ``CACHE_LIMIT`` entries (``BoundedCache``, the oldest forgotten first): the squares
rule 4 lets a placement gobble for given opponent tops, the squares completing a line of W-1
for given own tops, and the move codes of a placement or a board move onto a mask of squares.
``LineTables`` (the lines and the two rule look-ups) is also the base of the engine's board
tables, which number squares compactly, so both answer the same way.
"""

from __future__ import annotations

from collections import deque
from functools import cache
from typing import TypeAlias, TypeVar

from companion.rules.codes import MoveCode
from companion.rules.geometry import geometry, squares_of
from companion.rules.square import Square
from companion.rules.variant import GobbleRule, Variant

CACHE_LIMIT = 100_000  # entries a cache keeps at most
Threat: TypeAlias = tuple[Square, int, tuple[int, ...], int]
"""A square completing a line of W-1: (square, its bit, the lines it completes, their other squares)."""

_Key = TypeVar("_Key")
_Value = TypeVar("_Value")


class BoundedCache(dict[_Key, _Value]):
    """A cache of at most ``CACHE_LIMIT`` entries that forgets its oldest entry for each one
    added past that. Clearing a full cache at once freed 100,000 tuples inside one call (about
    30 ms, inside one of the referee's readings, once in every few hundred games); an
    ``OrderedDict`` forgetting one at a time rebuilt its linked list with its table (12 ms).
    This is a plain dict (look-ups as fast) and a queue of its keys in the order they came."""

    __slots__ = ("_order",)

    def __init__(self) -> None:
        super().__init__()
        self._order: deque[_Key] = deque()

    def remember(self, key: _Key, value: _Value) -> _Value:
        """Keep ``value`` under ``key``, forgetting the oldest entry when full; ``value``."""
        if key not in self:
            if len(self) >= CACHE_LIMIT:
                self.pop(self._order.popleft(), None)
            self._order.append(key)
        self[key] = value
        return value


class LineTables:
    """A variant's lines and the two rule look-ups made of them, cached by bitboard: the
    squares rule 4 lets a placement gobble, and the squares completing a line of W-1. Shared
    by ``Position``'s tables and the engine's board (which numbers squares compactly), so
    both answer the same way."""

    __slots__ = ("gobble", "gobble_kind", "lines", "need", "threats")

    def __init__(self, variant: Variant, lines: tuple[int, ...]) -> None:
        self.lines = lines
        self.need = variant.win_length - 1
        self.gobble_kind = {
            GobbleRule.ALWAYS: 0,
            GobbleRule.NEVER: 1,
            GobbleRule.THREAT_LINE: 2,
            GobbleRule.STORER: 3,
        }[variant.gobble_rule]
        self.gobble: BoundedCache[int, int] = BoundedCache()  # opponent tops -> squares gobbling
        #                                                       may cover (before & occupied)
        self.threats: BoundedCache[int, tuple[Threat, ...]] = BoundedCache()

    def gobble_squares(self, theirs: int, occupied: int) -> int:
        """Of the ``occupied`` squares, those a piece from the external stacks may cover when
        the opponent's tops are ``theirs`` (rule 4, by the variant's gobble rule)."""
        kind = self.gobble_kind
        if kind == 0:  # always
            return occupied
        if kind == 1:  # never
            return 0
        lines = self.gobble.get(theirs)
        if lines is None:
            lines = self.gobble_lines(theirs)
        return lines & occupied

    def gobble_lines(self, theirs: int) -> int:
        """Rule 4 for the threat-line and storer rules: the squares of lines with W-1 of
        ``theirs`` (threat-line: only ``theirs`` in them)."""
        need = self.need
        threat_only = self.gobble_kind == 2
        mask = 0
        for line in self.lines:
            hit = line & theirs
            if hit.bit_count() >= need:
                mask |= hit if threat_only else line
        return self.gobble.remember(theirs, mask)

    def threat_squares(self, own: int) -> tuple[Threat, ...]:
        """(square, its bit, the lines it completes, their other squares) for each square
        completing a line of W-1 of the tops ``own``."""
        need = self.need
        by_square: dict[int, list[int]] = {}
        for line in self.lines:
            if (line & own).bit_count() == need:
                by_square.setdefault(line & ~own, []).append(line)
        found = tuple(
            (b.bit_length() - 1, b, tuple(lines), _union(lines) & ~b)
            for b, lines in sorted(by_square.items())
        )
        return self.threats.remember(own, found)


class VariantTables(LineTables):
    """What one variant's move generation and end-of-turn check look up (``tables_for``)."""

    __slots__ = ("board_mask", "codes", "line_masks", "line_squares", "sizes", "squares")

    def __init__(self, variant: Variant) -> None:
        geo = geometry(variant.size, variant.win_length)
        super().__init__(variant, tuple(line.mask for line in geo.lines))
        self.board_mask = geo.board_mask
        self.sizes = variant.max_piece + 2  # how many size bitboards a Position keeps
        # line_masks[sq]: the masks of the lines through sq; line_squares: a mask's squares
        self.line_masks: list[tuple[int, ...]] = [()] * (geo.squares[-1] + 1)
        for sq in geo.squares:
            self.line_masks[sq] = tuple(line.mask for line in geo.lines_through[sq])
        self.line_squares = {line.mask: line.squares for line in geo.lines}
        self.codes: BoundedCache[int, tuple[MoveCode, ...]] = BoundedCache()  # mask << CODE_BITS
        #                                                                       | base -> move codes
        self.squares: BoundedCache[int, tuple[Square, ...]] = BoundedCache()  # mask -> its squares

    def move_codes(self, key: int, base: MoveCode, mask: int) -> tuple[MoveCode, ...]:
        """The codes ``base | square`` for every square of ``mask``, cached under ``key``
        (``mask << CODE_BITS | base``, which ``Position.legal_codes`` looks up first)."""
        squares = self.squares.get(mask)
        if squares is None:
            squares = self.squares.remember(mask, tuple(squares_of(mask)))
        return self.codes.remember(key, tuple(map(base.__or__, squares)))


def _union(masks: list[int]) -> int:
    union = 0
    for mask in masks:
        union |= mask
    return union


@cache
def tables_for(variant: Variant) -> VariantTables:
    """The variant's tables, made once and shared by all its positions."""
    return VariantTables(variant)
