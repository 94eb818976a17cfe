"""Colours, sizes and squares: the vocabulary every other module speaks.

A square is an ``int``: ``file + FILE_STRIDE * rank`` with files a, b, c, ... from White's
left and ranks 1, 2, ... from White's side, so ``a1`` is 0. The stride is fixed (boards of
up to 16x16), which makes a square's number independent of the board size: ``c3`` is the
same number on the 3x3, 4x4 and 8x8 boards, and a move can be parsed without knowing the
variant. Bitboards use the same numbering (bit ``square`` is set).
"""

from __future__ import annotations

from companion.errors import CompanionError

Color = int
WHITE: Color = 0
BLACK: Color = 1
COLORS: tuple[Color, Color] = (WHITE, BLACK)
COLOR_NAMES: tuple[str, str] = ("white", "black")

Square = int
Piece = tuple[Color, int]  # (colour, size) of a cup
FILE_STRIDE = 16
MAX_BOARD_SIZE = 16
FILE_NAMES = "abcdefghijklmnop"


class SquareSyntaxError(CompanionError, ValueError):
    """A square name that is not a file letter followed by a rank number."""


def opponent(color: Color) -> Color:
    return color ^ 1


def color_name(color: Color) -> str:
    return COLOR_NAMES[color]


def parse_color(text: str) -> Color:
    """``"white"``/``"w"`` or ``"black"``/``"b"``, any case."""
    key = text.strip().lower()
    if key in ("white", "w"):
        return WHITE
    if key in ("black", "b"):
        return BLACK
    raise CompanionError(f"unknown colour {text!r}: use white or black")


def square(file: int, rank: int) -> Square:
    return file + FILE_STRIDE * rank


def square_file(sq: Square) -> int:
    return sq % FILE_STRIDE


def square_rank(sq: Square) -> int:
    return sq // FILE_STRIDE


def square_name(sq: Square) -> str:
    return f"{FILE_NAMES[square_file(sq)]}{square_rank(sq) + 1}"


def parse_square(name: str) -> Square:
    """``"c3"`` -> the square's number. Raises ``SquareSyntaxError`` on anything else."""
    text = name.strip().lower()
    if len(text) < 2 or text[0] not in FILE_NAMES or not (text[1:].isascii() and text[1:].isdigit()):
        raise SquareSyntaxError(f"{name!r} is not a square (expected a file letter and rank, as b3)")
    rank = int(text[1:]) - 1
    if not 0 <= rank < MAX_BOARD_SIZE or text[1] == "0":
        raise SquareSyntaxError(f"{name!r} is not a square (ranks start at 1)")
    return square(FILE_NAMES.index(text[0]), rank)


def board_squares(size: int) -> list[Square]:
    """Every square of a ``size`` x ``size`` board in a1, b1, ..., a2, ... order."""
    return [square(f, r) for r in range(size) for f in range(size)]


def on_board(sq: Square, size: int) -> bool:
    return sq >= 0 and square_file(sq) < size and square_rank(sq) < size
