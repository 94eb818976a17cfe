"""What the camera saw on the board at one instant: the vision part's one output type.

The reconciler infers moves from a stream of these, so an observation carries not just each
square's best guess but the whole class distribution: a square read as "white 3, 0.55" is
treated differently from one read at 0.99. Columns are ``[empty, white 1..S, black 1..S]``
with ``S`` the number of cup sizes, rows follow ``board_squares(size)`` (a1, b1, ..., a2, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from companion.errors import CompanionError
from companion.rules.square import (
    BLACK,
    COLOR_NAMES,
    WHITE,
    Square,
    board_squares,
    parse_square,
    square_name,
)

Top = tuple[int, int] | None
"""What is visible on a square: ``None`` (empty) or ``(colour, size)``."""

CERTAIN = 0.999
"""Probability ``from_tops`` gives the stated class; the rest is spread over the others."""


def class_count(max_piece: int) -> int:
    """Number of probability columns: empty plus each colour at each size."""
    return 1 + 2 * max_piece


def class_index(top: Top, max_piece: int) -> int:
    """Column of ``top`` in a probability row."""
    if top is None:
        return 0
    color, size = top
    if color not in (WHITE, BLACK) or not 1 <= size <= max_piece:
        raise CompanionError(f"{top!r} is not a cup (colour 0/1, size 1..{max_piece})")
    return 1 + color * max_piece + (size - 1)


def class_top(index: int, max_piece: int) -> Top:
    """Inverse of ``class_index``."""
    if index == 0:
        return None
    color, size0 = divmod(index - 1, max_piece)
    return (color, size0 + 1)


@dataclass(frozen=True)
class Observation:
    """Per-square class probabilities for one frame, plus whether they can be trusted."""

    size: int
    max_piece: int
    probabilities: np.ndarray
    occluded: bool
    moved: bool = False
    timestamp: float = 0.0
    hidden: int = 0
    """Set by the stability gate on the reading it passes: how many times the board was hidden
    (runs of occluded frames, a hand or an arm each) since it passed the last one; 0 when
    unknown. Each move is made by a hand: more than two means more moves may have been made
    out of sight than one reading can tell (the reconciler then restarts from the board
    rather than guess them). None since a help request opened, and a board that reads as the
    game has it again was misread, not put right (``cleared``, not ``restored``): a source
    that does not count hands gets that wording, never a wrong move."""
    still: bool = False
    """Set by the stability gate on a second look (``StabilityGate.look_again``) at a board
    that every frame since the reading before agreed with and none covered: nothing can have
    been moved in between, so the reading is a repeat of the last one, not news (the referee
    then weighs only accounts that leave the board as it was)."""

    def __post_init__(self) -> None:
        shape = (self.size * self.size, class_count(self.max_piece))
        if self.probabilities.shape != shape:
            raise CompanionError(
                f"observation probabilities have shape {self.probabilities.shape}, expected {shape}"
            )

    # -- square addressing -------------------------------------------------------------------

    def row(self, sq: int | str) -> int:
        """Row index of a square given as its row index (0..n*n-1) or its name ("b3").

        Ints are taken as row indices, not ``Square`` numbers, because rows are what callers
        iterate; use ``row_of_square`` for a ``Square``.
        """
        if isinstance(sq, str):
            return self.row_of_square(parse_square(sq))
        if not 0 <= sq < self.size * self.size:
            raise CompanionError(f"row {sq} is off a {self.size}x{self.size} board")
        return int(sq)

    def row_of_square(self, sq: Square) -> int:
        squares = board_squares(self.size)
        if sq not in squares:
            raise CompanionError(f"{square_name(sq)} is off a {self.size}x{self.size} board")
        return squares.index(sq)

    # -- reading -------------------------------------------------------------------------------

    def top(self, sq: int | str) -> Top:
        """Most probable content of a square: ``None`` or ``(colour, size)``."""
        return class_top(int(np.argmax(self.probabilities[self.row(sq)])), self.max_piece)

    def confidence(self, sq: int | str) -> float:
        """Probability of the most probable class of a square."""
        return float(np.max(self.probabilities[self.row(sq)]))

    def tops(self) -> dict[str, Top]:
        """Square name -> most probable content, for every square."""
        return {square_name(sq): self.top(i) for i, sq in enumerate(board_squares(self.size))}

    def to_json(self, image: str | None = None) -> dict[str, Any]:
        """The CLI's ``read --json`` record for this observation."""
        squares: dict[str, Any] = {}
        for i, sq in enumerate(board_squares(self.size)):
            top = self.top(i)
            squares[square_name(sq)] = (
                None
                if top is None
                else {
                    "color": COLOR_NAMES[top[0]],
                    "size": top[1],
                    "confidence": round(self.confidence(i), 4),
                }
            )
        record: dict[str, Any] = {}
        if image is not None:
            record["image"] = image
        record["occluded"] = bool(self.occluded)
        record["squares"] = squares
        return record

    # -- building ------------------------------------------------------------------------------

    @classmethod
    def from_tops(
        cls,
        tops: Mapping[str, Top],
        size: int = 4,
        max_piece: int = 4,
        *,
        certainty: float = CERTAIN,
        occluded: bool = False,
        moved: bool = False,
        timestamp: float = 0.0,
    ) -> Observation:
        """A (near-)certain observation: each named square holds its top, the rest are empty."""
        k = class_count(max_piece)
        rest = (1.0 - certainty) / (k - 1)
        probs = np.full((size * size, k), rest)
        index = {sq: i for i, sq in enumerate(board_squares(size))}
        chosen = np.zeros(size * size, dtype=int)
        for name, top in tops.items():
            sq = parse_square(name)
            if sq not in index:
                raise CompanionError(f"{name} is off a {size}x{size} board")
            chosen[index[sq]] = class_index(top, max_piece)
        probs[np.arange(size * size), chosen] = certainty
        return cls(size, max_piece, probs, occluded, moved, timestamp)

    def same_reading(self, other: Observation) -> bool:
        """True when both observations give every square the same most probable content."""
        if (self.size, self.max_piece) != (other.size, other.max_piece):
            return False
        return bool(
            np.array_equal(np.argmax(self.probabilities, axis=1), np.argmax(other.probabilities, axis=1))
        )
