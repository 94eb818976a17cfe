"""The rules of Gobblet in every variant of docs/rules.md: pure logic, no I/O.

The vocabulary follows python-chess: named constants and small helpers (``parse_square``,
``square_name``), ``Move`` values, a ``Position`` with ``legal_moves``, ``push``/``pop`` and
``outcome()``, and a ``Game`` that adds the record's headers, time stamps, agreed draws and
resignation. Text formats live in ``fen`` (positions) and ``record`` (games).

The fast layer is public too, in modules of its own: ``codes`` (what a move code and a piece
code hold: ``MoveCode``, ``encode_placement``, ``code_to``, ...), ``reserves`` (external
stacks and their interned table) and ``tables`` (a variant's line tables); ``Position`` shows
its bitboards and stacks through read-only accessors (``piece_stacks``, ``tops_mask``, ...).

The companion plays a second game, Cups (``cups``). What every game answers is the seam of
``state`` (``GameState``); ``games`` says which game a spec, a position text or a record is
of, and ``game.BaseGame`` is a game of either.
"""

from companion.rules import codes, fen
from companion.rules.codes import MoveCode, PieceCode
from companion.rules.game import Game
from companion.rules.move import (
    AmbiguousMoveError,
    IllegalMoveError,
    Move,
    MoveError,
    MoveSyntaxError,
    parse_moves,
)
from companion.rules.outcome import Outcome, Termination
from companion.rules.perft import perft
from companion.rules.position import Position
from companion.rules.square import (
    BLACK,
    COLOR_NAMES,
    WHITE,
    Color,
    Piece,
    Square,
    board_squares,
    color_name,
    opponent,
    parse_color,
    parse_square,
    square,
    square_file,
    square_name,
    square_rank,
)
from companion.rules.variant import PRESETS, VARIANT_NAMES, GobbleRule, Variant, VariantError

__all__ = [
    "BLACK",
    "COLOR_NAMES",
    "PRESETS",
    "VARIANT_NAMES",
    "WHITE",
    "AmbiguousMoveError",
    "Color",
    "Game",
    "GobbleRule",
    "IllegalMoveError",
    "Move",
    "MoveCode",
    "MoveError",
    "MoveSyntaxError",
    "Outcome",
    "Piece",
    "PieceCode",
    "Position",
    "Square",
    "Termination",
    "Variant",
    "VariantError",
    "board_squares",
    "codes",
    "color_name",
    "fen",
    "opponent",
    "parse_color",
    "parse_moves",
    "parse_square",
    "perft",
    "square",
    "square_file",
    "square_name",
    "square_rank",
]
