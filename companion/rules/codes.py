"""Move codes and piece codes: the ints of the fast interface.

``Position`` has two interfaces over one state (see ``position.py``): ``Move`` values for
people and the text formats, and ints for the code that makes and unmakes hundreds of
thousands of moves a second (perft, the engine's search, the reconciler's decoder). This module
is the one place that says what those ints hold, as python-chess's ``Bitboard`` and ``Square``
are plain ints with named helpers beside them.

A **move code** (``MoveCode``) packs a legal move into one int::

    bits  0-7    the destination square
    bits  8-15   a move on the board: its origin square
                 a placement: bits 8-11 the size, bits 12-15 the external stack's index
    bit  20      BOARD_FLAG: set for a move on the board, clear for a placement

The stack index is the stack's place in the mover's external stacks *as they are now* (the
order ``Position.reserve`` lists them), so a code is meaningful only in the position that
produced it. ``Position.move_from_code`` and ``Position.code_from_move`` convert to and from
``Move``. Bits 8-15 of a placement (``placement_key``) are what the reserve tables of
``reserves.py`` look a placement up by.

A **piece code** (``PieceCode``) is ``size << 1 | colour``: the ints a ``Position`` keeps in
its stacks (``Position.piece_stacks``) and hashes with.

The helpers are small on purpose: the hottest loops (push and pop, the search's frontier)
inline the same bit operations with the constants below, and name them here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

from companion.rules.square import Color, Square

MoveCode: TypeAlias = int
PieceCode: TypeAlias = int

BOARD_FLAG = 1 << 20
SQUARE_MASK = 0xFF  # a square's bits, at bit 0 (destination) and bit ORIGIN_SHIFT (origin)
ORIGIN_SHIFT = 8
SIZE_SHIFT = 8  # a placement's size: (code >> SIZE_SHIFT) & SIZE_MASK
SIZE_MASK = 0xF
STACK_SHIFT = 12  # a placement's stack index: code >> STACK_SHIFT (no higher bits are set)
PLACEMENT_SHIFT = 8  # placement_key(code) == code >> PLACEMENT_SHIFT
PLACED_PIECE_SHIFT = SIZE_SHIFT - 1  # code >> PLACED_PIECE_SHIFT & PLACED_SIZE_MASK == size << 1,
PLACED_SIZE_MASK = SIZE_MASK << 1  # the piece code a placement puts down, but for its colour bit
CODE_BITS = 21  # every move code is below 1 << CODE_BITS: caches key codes by mask << CODE_BITS | code


# ----- move codes ------------------------------------------------------------------------


def encode_placement(size: int, stack_index: int, to_square: Square) -> MoveCode:
    """A placement of the ``size`` taken from external stack ``stack_index`` onto ``to_square``."""
    return to_square | size << SIZE_SHIFT | stack_index << STACK_SHIFT


def encode_board_move(from_square: Square, to_square: Square) -> MoveCode:
    """A move of the top piece of ``from_square`` onto ``to_square``."""
    return to_square | from_square << ORIGIN_SHIFT | BOARD_FLAG


def is_board_move(code: MoveCode) -> bool:
    """Whether the code moves a piece on the board (else it is a placement)."""
    return bool(code & BOARD_FLAG)


def code_to(code: MoveCode) -> Square:
    """Where the piece goes."""
    return code & SQUARE_MASK


def code_from(code: MoveCode) -> Square:
    """Where a move on the board lifts its piece (meaningless for a placement)."""
    return code >> ORIGIN_SHIFT & SQUARE_MASK


def code_origin(code: MoveCode) -> Square:
    """``code_from`` for a move on the board, -1 for a placement (which lifts nothing)."""
    return code >> ORIGIN_SHIFT & SQUARE_MASK if code & BOARD_FLAG else -1


def code_size(code: MoveCode) -> int:
    """The size a placement takes from its external stack (meaningless for a board move)."""
    return code >> SIZE_SHIFT & SIZE_MASK


def code_stack(code: MoveCode) -> int:
    """The index of the external stack a placement takes from (meaningless for a board move)."""
    return code >> STACK_SHIFT


def code_squares(code: MoveCode) -> tuple[Square, ...]:
    """The squares the move touches: ``(origin, destination)`` or ``(destination,)``."""
    to = code & SQUARE_MASK
    if code & BOARD_FLAG:
        return (code >> ORIGIN_SHIFT & SQUARE_MASK, to)
    return (to,)


def translate_code(code: MoveCode, square_map: Mapping[Square, Square] | Sequence[Square]) -> MoveCode:
    """The same move with its squares renumbered: ``square_map[sq]`` for each square it
    touches (the engine's board numbers squares compactly and translates at the root)."""
    to = square_map[code & SQUARE_MASK]
    if code & BOARD_FLAG:
        return to | square_map[code >> ORIGIN_SHIFT & SQUARE_MASK] << ORIGIN_SHIFT | BOARD_FLAG
    return code & ~SQUARE_MASK | to


def placement_key(code: MoveCode) -> int:
    """A placement's size and stack index as one int, ``size | stack_index << 4``: the key
    under which ``reserves.take`` finds the external stacks the placement leaves."""
    return code >> PLACEMENT_SHIFT


# ----- piece codes -----------------------------------------------------------------------


def piece_code(color: Color, size: int) -> PieceCode:
    return size << 1 | color


def piece_color(piece: PieceCode) -> Color:
    return piece & 1


def piece_size(piece: PieceCode) -> int:
    return piece >> 1


def placed_piece(code: MoveCode, color: Color) -> PieceCode:
    """The piece a placement puts down when ``color`` plays it."""
    return (code >> PLACED_PIECE_SHIFT & PLACED_SIZE_MASK) | color
