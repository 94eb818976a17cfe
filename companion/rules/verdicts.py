"""Why a move is illegal, in a player's words: the explanations behind ``Position.check``,
``Position.push`` and ``Game.push``.

The move generator (``Position.legal_codes``) decides what is legal; this module says *why*
something is not, rule by rule, for the people at the table ("a2 holds a same-size piece",
"your stacks show sizes 4 and 3, not 2"). It reads the position through its public views
only, and ends by asking the generator, so an explanation can never call legal a move the
generator refuses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.rules.codes import MoveCode, encode_board_move, encode_placement
from companion.rules.move import AmbiguousMoveError, BoardMove, Move, Placement
from companion.rules.reserves import placement_options
from companion.rules.square import Square, color_name, on_board, square_name
from companion.rules.variant import GobbleRule

if TYPE_CHECKING:
    from companion.rules.position import Position

NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def examine(position: Position, move: Move) -> MoveCode | str:
    """The move's code if it is legal in ``position``, else why it is not
    (``AmbiguousMoveError`` for a placement that could come from stacks holding different
    pieces)."""
    outcome = position.outcome()
    if outcome is not None:
        return f"the game is over ({outcome.reason})"
    for sq in (move.to_square, move.from_square):
        if sq is not None and not on_board(sq, position.size):
            return f"{square_name(sq)} is not on the {position.size}x{position.size} board"
    player = color_name(position.turn).capitalize()
    if isinstance(move, Placement):
        index = placement_index(position, move)
        if isinstance(index, str):
            return index
        code = encode_placement(move.size, index, move.to_square)
        reason = landing_reason(position, move.to_square, move.size)
        if reason is None and position.top(move.to_square) is not None:
            reason = stack_gobble_reason(position, player, move.to_square)
    elif isinstance(move, BoardMove):
        code = encode_board_move(move.from_square, move.to_square)
        reason = board_move_reason(position, player, move.from_square, move.to_square)
    else:
        raise TypeError(f"{move!r} is neither a placement nor a move on the board")
    if reason is None and code not in position.legal_codes():
        reason = "not a legal move here"  # a gap between these rules and the generator: a bug
    return code if reason is None else reason


def placement_index(position: Position, move: Placement) -> int | str:
    """The external stack a placement takes from, or the reason there is none."""
    reserve = position.reserve(position.turn)
    size = move.size
    if not reserve:
        return "all your pieces are on the board"
    if position.variant.any_order:
        if move.stack not in (None, 1):
            return "in this variant your pieces off the board count as one stack (1)"
        if size not in reserve[0]:
            return f"you have no {size} off the board; you have {sizes_text(set(reserve[0]))}"
        return 0
    if move.stack is not None:
        if move.stack > len(reserve):
            return f"you have {len(reserve)} external stacks, not {move.stack}"
        stack = reserve[move.stack - 1]
        if stack[0] != size:
            return f"your stack {move.stack} shows a {stack[0]}, not a {size}"
        return reserve.index(stack)
    candidates = [o for o in placement_options(reserve, False) if o[0] == size]
    if not candidates:
        return f"your stacks show {sizes_text({s[0] for s in reserve})}, not {size}"
    if len(candidates) > 1:
        numbers = " and ".join(str(o[1] + 1) for o in candidates)
        raise AmbiguousMoveError(
            f"{move.text()} is ambiguous: your stacks {numbers} all show a {size} but hold "
            f"different pieces; name one, as {size}({candidates[0][1] + 1}){square_name(move.to_square)}"
        )
    return candidates[0][1]


def landing_reason(position: Position, to: Square, size: int) -> str | None:
    """docs/rules.md, point 3: a piece goes on an empty square or covers a smaller top."""
    top = position.top(to)
    if top is not None and top[1] >= size:
        word = "larger" if top[1] > size else "same-size"
        return f"{square_name(to)} holds a {word} piece"
    return None


def stack_gobble_reason(position: Position, player: str, to: Square) -> str | None:
    """docs/rules.md, point 4 (and the variants' gobble rules): when a piece from an external
    stack may cover one on the board."""
    if (position.gobble_mask(position.turn) >> to) & 1:
        return None
    rule = position.variant.gobble_rule
    name = square_name(to)
    them = color_name(position.turn ^ 1)
    count = NUMBER_WORDS[position.variant.win_length - 1]
    if rule is GobbleRule.NEVER:
        return "a piece from an external stack may go only on an empty square"
    if rule is GobbleRule.STORER:
        return (
            f"{player} may gobble {name} from a stack only if {name} lies on a line "
            f"with {count} {them} pieces"
        )
    top = position.top(to)
    if top is not None and top[0] == position.turn:
        return f"{player} may not gobble its own piece on {name} from a stack"
    return f"{player} may gobble {name} from a stack only if {name} is one of {count} {them} pieces in a line"


def board_move_reason(position: Position, player: str, origin: Square, to: Square) -> str | None:
    """docs/rules.md, points 2 and 7: only a stack showing the mover's colour is lifted, and
    its piece goes to another square."""
    top = position.top(origin)
    if top is None:
        return f"{square_name(origin)} is empty"
    if top[0] != position.turn:
        touch = " or touch" if position.variant.touch_rule else ""
        return (
            f"{square_name(origin)} shows a {color_name(top[0])} piece: "
            f"{player} may move{touch} only stacks showing {color_name(position.turn)}"
        )
    if to == origin:
        return "a piece may not return to the square it was lifted from"
    return landing_reason(position, to, top[1])


def sizes_text(sizes: set[int]) -> str:
    ordered = [str(s) for s in sorted(sizes, reverse=True)]
    if len(ordered) == 1:
        return f"size {ordered[0]}"
    return "sizes " + ", ".join(ordered[:-1]) + " and " + ordered[-1]
