"""Board geometry shared by every position of a given size and win length: lines and hashing keys.

Computed once per (size, win length) and cached, because move generation and the end-of-turn
check consult the line masks on every move.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

from companion.rules.square import FILE_STRIDE, Square, board_squares, square

MASK64 = (1 << 64) - 1
MAX_PIECE_CODE = 2 * 10  # piece code = size << 1 | colour, sizes 1..9
ZOBRIST_SEED = 0x60BB1E7
_zobrist_rng = random.Random(ZOBRIST_SEED)
# ZOBRIST[piece_code][square]: a piece of that size and colour anywhere in that square's stack.
# Sizes in one stack are distinct, so the set of pieces fixes every stack and its order.
ZOBRIST: tuple[tuple[int, ...], ...] = tuple(
    tuple(_zobrist_rng.getrandbits(64) for _ in range(FILE_STRIDE * FILE_STRIDE))
    for _ in range(MAX_PIECE_CODE)
)
ZOBRIST_BLACK_TO_MOVE: int = _zobrist_rng.getrandbits(64)


@dataclass(frozen=True)
class Line:
    squares: tuple[Square, ...]
    mask: int


@dataclass(frozen=True)
class Geometry:
    size: int
    win_length: int
    squares: tuple[Square, ...]
    board_mask: int
    lines: tuple[Line, ...]
    lines_through: dict[Square, tuple[Line, ...]]


def bit(sq: Square) -> int:
    return 1 << sq


def squares_of(mask: int) -> list[Square]:
    """The squares whose bits are set, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@cache
def geometry(size: int, win_length: int) -> Geometry:
    squares = tuple(board_squares(size))
    lines = []
    for file_step, rank_step in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for rank in range(size):
            for file in range(size):
                end_file = file + file_step * (win_length - 1)
                end_rank = rank + rank_step * (win_length - 1)
                if not (0 <= end_file < size and 0 <= end_rank < size):
                    continue
                line = tuple(square(file + file_step * k, rank + rank_step * k) for k in range(win_length))
                lines.append(Line(line, sum(bit(sq) for sq in line)))
    through = {sq: tuple(line for line in lines if sq in line.squares) for sq in squares}
    return Geometry(
        size=size,
        win_length=win_length,
        squares=squares,
        board_mask=sum(bit(sq) for sq in squares),
        lines=tuple(lines),
        lines_through=through,
    )


def reserve_key(color: int, reserve: tuple[tuple[int, ...], ...]) -> int:
    """Hash key of one player's external stacks (ints only, so it is the same in every run)."""
    return hash((0x5EED, color, reserve)) & MASK64
