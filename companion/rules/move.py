"""Moves: small immutable values whose text round-trips exactly.

Placement ``4a1`` (size, then square); where two external stacks show the same size but hold
different pieces (custom stack sets only) the stack is named: ``4(2)a1`` is a 4 from external
stack 2, stacks numbered from 1 in the order the position text lists them. A move on the board
is ``a1-c3``; ``a1c3`` is accepted on input. The two are two kinds of ``Move``,
``Placement`` and ``BoardMove``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from companion.errors import CompanionError
from companion.rules.square import Square, SquareSyntaxError, parse_square, square_name


class MoveError(CompanionError, ValueError):
    """Base of every error about a proposed move."""


class MoveSyntaxError(MoveError):
    """Text that is not a move in the notation."""


class IllegalMoveError(MoveError):
    """A well-formed move that the rules do not allow here; the message says why."""


class AmbiguousMoveError(MoveError):
    """A placement that fits more than one external stack holding different pieces."""


_PLACEMENT = re.compile(r"^([1-9])(?:\((\d+)\))?([a-p]\d{1,2})$", re.ASCII)
_BOARD_MOVE = re.compile(r"^([a-p]\d{1,2})-?([a-p]\d{1,2})$", re.ASCII)


class Move:
    """A move: a ``Placement`` from an external stack or a ``BoardMove`` on the board.

    Two kinds, as their fields differ: a placement has a size (and sometimes names its
    stack) but no origin, a board move an origin but no size. ``isinstance(move, Placement)``
    (or ``move.is_placement``) tells them apart; every move also answers ``from_square``,
    ``size`` and ``stack``, None where the kind has none. Moves are small immutable values,
    equal when they are the same move, and their text round-trips exactly."""

    __slots__ = ()

    if TYPE_CHECKING:  # the fields both kinds answer (defined by each kind)

        @property
        def to_square(self) -> Square: ...
        @property
        def from_square(self) -> Square | None: ...
        @property
        def size(self) -> int | None: ...
        @property
        def stack(self) -> int | None: ...

    @staticmethod
    def place(size: int, to_square: Square, stack: int | None = None) -> Placement:
        return Placement(to_square, size, stack)

    @staticmethod
    def board(from_square: Square, to_square: Square) -> BoardMove:
        return BoardMove(to_square, from_square)

    @property
    def is_placement(self) -> bool:
        return isinstance(self, Placement)

    @staticmethod
    def from_text(text: str) -> Move:
        """Parse ``4a1``, ``4(2)a1``, ``a1-c3`` or ``a1c3``; raise ``MoveSyntaxError`` otherwise."""
        token = text.strip().lower()
        try:
            if match := _PLACEMENT.match(token):
                stack = int(match.group(2)) if match.group(2) else None
                if stack == 0:
                    raise MoveSyntaxError(f"{text!r}: external stacks are numbered from 1")
                return Move.place(int(match.group(1)), parse_square(match.group(3)), stack)
            if match := _BOARD_MOVE.match(token):
                return Move.board(parse_square(match.group(1)), parse_square(match.group(2)))
        except SquareSyntaxError as error:
            raise MoveSyntaxError(f"{text!r} is not a move: {error}") from None
        raise MoveSyntaxError(
            f"{text!r} is not a move: write a placement as size and square (4a1) "
            "or a move as two squares (a1-c3)"
        )

    def text(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Move.from_text({self.text()!r})"


@dataclass(frozen=True, slots=True, repr=False)
class Placement(Move):
    """A piece of ``size`` taken from an external stack and put on ``to_square``; ``stack``
    (1-based) only where two stacks show that size but hold different pieces."""

    to_square: Square
    size: int
    stack: int | None = None

    @property
    def from_square(self) -> None:
        return None

    def text(self) -> str:
        stack = f"({self.stack})" if self.stack is not None else ""
        return f"{self.size}{stack}{square_name(self.to_square)}"


@dataclass(frozen=True, slots=True, repr=False)
class BoardMove(Move):
    """The top piece of ``from_square`` lifted and put on ``to_square``."""

    to_square: Square
    from_square: Square

    @property
    def size(self) -> None:
        return None

    @property
    def stack(self) -> None:
        return None

    def text(self) -> str:
        return f"{square_name(self.from_square)}-{square_name(self.to_square)}"


def parse_moves(text: str) -> list[Move]:
    """A space-separated move sequence; a bad token raises naming it and its ply."""
    moves = []
    for ply, token in enumerate(text.split(), start=1):
        try:
            moves.append(Move.from_text(token))
        except MoveSyntaxError as error:
            raise MoveSyntaxError(f"ply {ply}: {error}") from None
    return moves
