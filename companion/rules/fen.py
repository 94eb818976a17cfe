"""The position text format: one line, like chess's FEN, that round-trips every position of
every variant, hidden pieces and external stacks included.

    <variant> <board> <side> <white stacks> <black stacks> [<ply>]

    classic 4/4/4/4 w 4321.4321.4321 4321.4321.4321 0
    classic 4/4/W4,W3B4,2/4 w 4321.4321.21 4321.4321.321 4

- variant: the variant spec (``classic``, ``junior``, ``storer:stacks=543.543.543``, ...).
- board: ranks from the top rank down to rank 1, separated by ``/``; in a rank, squares from
  file a, separated by commas. A square is a stack, bottom piece first, each piece a colour
  letter and a size (``W3B4``: a white 3 under a black 4), or a number counting empty squares.
- side: ``w`` or ``b`` to move.
- stacks: each external stack top first as digits, stacks separated by ``.``, ``-`` for none.
- ply: half-moves played since the start (optional, 0 if absent).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from companion.errors import CompanionError
from companion.rules.reserves import Reserve, canonical_reserve
from companion.rules.square import BLACK, WHITE, Color, Piece, Square, square, square_name
from companion.rules.variant import Variant, VariantError, stack_digits

_PIECE = re.compile(r"([WB])([1-9])")
COLOR_LETTERS = "WB"


class PositionSyntaxError(CompanionError, ValueError):
    """A position text that is malformed or describes an impossible position."""


class PositionLike(Protocol):
    """What the text is written from (a ``Position``: this module does not import it, so the
    position can import the text format)."""

    @property
    def variant(self) -> Variant: ...
    @property
    def turn(self) -> Color: ...
    @property
    def ply(self) -> int: ...
    def stack(self, sq: Square) -> tuple[Piece, ...]: ...
    def reserve(self, color: Color) -> Reserve: ...


@dataclass(frozen=True)
class PositionParts:
    """A parsed position text: what ``Position.from_parts`` builds a position from."""

    variant: Variant
    stacks: dict[Square, list[Piece]]
    reserves: tuple[Reserve, Reserve]
    turn: Color
    ply: int


def position_text(position: PositionLike) -> str:
    size = position.variant.size
    ranks = []
    for rank in reversed(range(size)):
        tokens: list[str] = []
        empty = 0
        for file in range(size):
            stack = position.stack(square(file, rank))
            if not stack:
                empty += 1
                continue
            if empty:
                tokens.append(str(empty))
                empty = 0
            tokens.append("".join(f"{COLOR_LETTERS[c]}{s}" for c, s in stack))
        if empty:
            tokens.append(str(empty))
        ranks.append(",".join(tokens))
    return " ".join(
        [
            position.variant.spec,
            "/".join(ranks),
            "wb"[position.turn],
            _reserve_text(position.reserve(WHITE)),
            _reserve_text(position.reserve(BLACK)),
            str(position.ply),
        ]
    )


def _reserve_text(reserve: Reserve) -> str:
    return ".".join(stack_digits(stack) for stack in reserve) or "-"


def parse_position_text(text: str) -> PositionParts:
    """The parts of a position text, checked: ``PositionSyntaxError`` says what is wrong with
    a malformed text or an impossible position (``Position.from_text`` builds it)."""
    fields = text.split()
    if len(fields) not in (5, 6):
        raise PositionSyntaxError(
            f"position text needs 5 or 6 fields (variant board side white-stacks black-stacks [ply]), "
            f"got {len(fields)}: {text.strip()!r}"
        )
    try:
        variant = Variant.from_spec(fields[0])
    except VariantError as error:
        raise PositionSyntaxError(f"position text: {error}") from None
    stacks = _parse_board(fields[1], variant.size)
    if fields[2] not in ("w", "b"):
        raise PositionSyntaxError(f"position text: side to move must be w or b, not {fields[2]!r}")
    reserves = (_parse_reserve(fields[3], variant), _parse_reserve(fields[4], variant))
    ply = 0
    if len(fields) == 6:
        if not fields[5].isdigit():
            raise PositionSyntaxError(f"position text: ply must be a number, not {fields[5]!r}")
        ply = int(fields[5])
    _check_piece_counts(variant, stacks, reserves)
    return PositionParts(variant, stacks, reserves, WHITE if fields[2] == "w" else BLACK, ply)


def _parse_board(text: str, size: int) -> dict[Square, list[Piece]]:
    ranks = text.split("/")
    if len(ranks) != size:
        raise PositionSyntaxError(f"position text: board has {len(ranks)} ranks, the variant has {size}")
    stacks: dict[Square, list[Piece]] = {}
    for row, rank_text in enumerate(ranks):
        rank = size - 1 - row
        file = 0
        for token in rank_text.split(","):
            if token.isdigit():
                file += int(token)
                continue
            pieces = _parse_stack(token, rank_text)
            if file >= size:
                raise PositionSyntaxError(
                    f"position text: rank {rank + 1} ({rank_text!r}) has more than {size} squares"
                )
            stacks[square(file, rank)] = pieces
            file += 1
        if file != size:
            raise PositionSyntaxError(
                f"position text: rank {rank + 1} ({rank_text!r}) has {file} squares, not {size}"
            )
    return stacks


def _parse_stack(token: str, rank_text: str) -> list[Piece]:
    pieces = [(COLOR_LETTERS.index(c), int(s)) for c, s in _PIECE.findall(token)]
    if not pieces or "".join(f"{COLOR_LETTERS[c]}{s}" for c, s in pieces) != token:
        raise PositionSyntaxError(
            f"position text: {token!r} in rank {rank_text!r} is not a stack (as W4 or B1W3) or a count"
        )
    sizes = [s for _, s in pieces]
    if sizes != sorted(set(sizes)):
        raise PositionSyntaxError(f"position text: stack {token!r} must grow in size from the bottom")
    return pieces


def _parse_reserve(text: str, variant: Variant) -> Reserve:
    if text == "-":
        return ()
    if not re.fullmatch(r"[1-9]+(\.[1-9]+)*", text):
        raise PositionSyntaxError(f"position text: external stacks {text!r} are not digits and dots")
    stacks = tuple(tuple(int(c) for c in part) for part in text.split("."))
    suffixes = {start[k:] for start in variant.stacks for k in range(len(start))}
    for stack in stacks:
        if not variant.any_order and stack not in suffixes:
            raise PositionSyntaxError(
                f"position text: external stack {stack_digits(stack)} cannot occur: stacks lose "
                f"pieces from the top of {'/'.join(stack_digits(s) for s in variant.stacks)}"
            )
    return canonical_reserve(stacks, variant.any_order)


def _check_piece_counts(
    variant: Variant, stacks: dict[Square, list[Piece]], reserves: tuple[Reserve, Reserve]
) -> None:
    """Every piece is somewhere exactly once: on the board or in its owner's stacks."""
    full = Counter(s for stack in variant.stacks for s in stack)
    for color in (WHITE, BLACK):
        have = Counter(s for pieces in stacks.values() for c, s in pieces if c == color)
        have.update(s for stack in reserves[color] for s in stack)
        if have != full:
            name = ("white", "black")[color]
            raise PositionSyntaxError(
                f"position text: {name}'s pieces on the board and in the stacks "
                f"({_count_text(have)}) are not the variant's set ({_count_text(full)})"
            )
    for sq in stacks:
        if sq % 16 >= variant.size:
            raise PositionSyntaxError(f"position text: {square_name(sq)} is off the board")


def _count_text(counts: Counter[int]) -> str:
    return " ".join(f"{counts[s]}x{s}" for s in sorted(counts, reverse=True)) or "none"
