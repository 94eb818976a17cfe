"""Moves: small immutable values whose text round-trips exactly.

Placement ``4a1`` (size, then square); where two external stacks show the same size but hold
different pieces (custom stack sets only) the stack is named: ``4(2)a1`` is a 4 from external
stack 2, stacks numbered from 1 in the order the position text lists them. A move on the board
is ``a1-c3``; ``a1c3`` is accepted on input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class Move:
    """A placement from an external stack (``from_square`` is None) or a move on the board."""

    to_square: Square
    from_square: Square | None = None
    size: int | None = None  # placements only: the size taken from a stack
    stack: int | None = None  # placements only, when it must be named: 1-based external stack

    @classmethod
    def place(cls, size: int, to_square: Square, stack: int | None = None) -> Move:
        return cls(to_square=to_square, size=size, stack=stack)

    @classmethod
    def board(cls, from_square: Square, to_square: Square) -> Move:
        return cls(to_square=to_square, from_square=from_square)

    @property
    def is_placement(self) -> bool:
        return self.from_square is None

    @classmethod
    def from_text(cls, text: str) -> Move:
        """Parse ``4a1``, ``4(2)a1``, ``a1-c3`` or ``a1c3``; raise ``MoveSyntaxError`` otherwise."""
        token = text.strip().lower()
        try:
            if match := _PLACEMENT.match(token):
                stack = int(match.group(2)) if match.group(2) else None
                if stack == 0:
                    raise MoveSyntaxError(f"{text!r}: external stacks are numbered from 1")
                return cls.place(int(match.group(1)), parse_square(match.group(3)), stack)
            if match := _BOARD_MOVE.match(token):
                return cls.board(parse_square(match.group(1)), parse_square(match.group(2)))
        except SquareSyntaxError as error:
            raise MoveSyntaxError(f"{text!r} is not a move: {error}") from None
        raise MoveSyntaxError(
            f"{text!r} is not a move: write a placement as size and square (4a1) "
            "or a move as two squares (a1-c3)"
        )

    def text(self) -> str:
        if self.from_square is None:
            stack = f"({self.stack})" if self.stack is not None else ""
            return f"{self.size}{stack}{square_name(self.to_square)}"
        return f"{square_name(self.from_square)}-{square_name(self.to_square)}"

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Move.from_text({self.text()!r})"


def parse_moves(text: str) -> list[Move]:
    """A space-separated move sequence; a bad token raises naming it and its ply."""
    moves = []
    for ply, token in enumerate(text.split(), start=1):
        try:
            moves.append(Move.from_text(token))
        except MoveSyntaxError as error:
            raise MoveSyntaxError(f"ply {ply}: {error}") from None
    return moves
