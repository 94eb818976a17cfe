"""What a pair of hands can physically do to the board in one action, and what the rules say of it.

The decoder must recognise illegal actions, not just miss them: a wrong gobble that it fails
to explain would otherwise be read as the nearest legal move, silently corrupting every hidden
stack after it. So it scores every *physical* action (any cup of either colour put down from
off the board, any top cup moved, any top cup lifted) against the observation, and this module
says which of them the rules allow and, for the others, why not in a player's words.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from companion.rules.codes import MoveCode, code_from, code_size, code_to, is_board_move
from companion.rules.game import Game
from companion.rules.geometry import Line
from companion.rules.move import Move
from companion.rules.position import Position
from companion.rules.square import Color, Square, color_name, opponent, square_name


class ActionKind(StrEnum):
    PLACE = "place"  # a cup put down from off the board
    MOVE = "move"  # the top cup of a square put down on another square
    LIFT = "lift"  # the top cup of a square held in the air


@dataclass(frozen=True, slots=True)
class Action:
    """One physical action. ``color`` and ``size`` are the cup's; ``origin`` is None for a
    placement and ``to`` is None for a lift."""

    kind: ActionKind
    color: Color
    size: int
    to: Square | None = None
    origin: Square | None = None

    def move(self) -> Move | None:
        """The action in the game's notation (None for a lift)."""
        if self.to is None:
            return None
        if self.kind is ActionKind.PLACE:
            return Move.place(self.size, self.to)
        if self.kind is ActionKind.MOVE and self.origin is not None:
            return Move.board(self.origin, self.to)
        return None

    def text(self) -> str:
        move = self.move()
        if move is not None:
            return move.text()
        return f"lift {square_name(self.origin)}" if self.origin is not None else str(self.kind)

    def squares(self) -> tuple[str, ...]:
        return tuple(square_name(sq) for sq in (self.origin, self.to) if sq is not None)


PhysicalKey = tuple[int, Square, Square]
"""What a move does physically: (the size placed or 0, the origin or -1, the destination)."""


def physical_key(code: MoveCode) -> PhysicalKey:
    """A legal move code as the physical action: a placement by its size, a board move by
    its origin (two external stacks showing the same size give one action)."""
    if is_board_move(code):
        return (0, code_from(code), code_to(code))
    return (code_size(code), -1, code_to(code))


def legal_code_index(position: Position) -> dict[PhysicalKey, list[MoveCode]]:
    """Legal codes keyed by what they do physically: (size or 0, origin or -1, to).

    A placement is keyed by size, a board move by its origin; two codes share a key only when
    two external stacks show the same size but hold different pieces (custom stack sets)."""
    index: dict[PhysicalKey, list[MoveCode]] = {}
    for code in position.legal_codes():
        index.setdefault(physical_key(code), []).append(code)
    return index


def illegal_reason(game: Game, action: Action) -> str:
    """Why ``action`` is not a legal move for the side to move (assumed not legal)."""
    turn = game.turn
    mover = color_name(turn).capitalize()
    other = color_name(opponent(turn)).capitalize()
    outcome = game.outcome()
    if outcome is not None:
        return f"the game is over ({outcome.reason})"
    if action.color != turn:
        if action.kind is ActionKind.PLACE:
            return f"it is {mover}'s turn: {other} may not move twice"
        return (
            f"a {color_name(action.color)} piece moved, but it is {mover}'s turn: "
            f"{other} may not move twice and {mover} may not move {other}'s pieces"
        )
    move = action.move()
    reason = game.check(move) if move is not None else None
    return reason or "not a legal move here"


def touch_reason(game: Game, origin: Square) -> str | None:
    """Why lifting ``origin`` breaks the touch rule (a peek under an opponent's stack), if it does."""
    if not game.variant.touch_rule:
        return None
    return game.touch_violation(origin)


def put_back_reason(game: Game, origin: Square) -> str | None:
    """The touch rule's complaint about a lifted cup put back on its own square, if any."""
    if not game.variant.touch_rule or game.touch_violation(origin) is not None:
        return None
    return (
        f"touch rule: {color_name(game.turn).capitalize()} lifted the piece on "
        f"{square_name(origin)} and put it back; a lifted piece must move to another square"
    )


def wrong_piece_reason(game: Game, lifted: Square, played: str) -> str:
    return (
        f"touch rule: {color_name(game.turn).capitalize()} lifted the piece on "
        f"{square_name(lifted)} and must move it, not play {played}"
    )


def uncovered_line(position: Position, origin: Square) -> Line | None:
    """The opponent's line that lifting ``origin`` uncovers, if any (the losing uncover:
    the lifter loses unless the cup goes down on a piece of that line)."""
    stack = position.stack(origin)
    if len(stack) < 2:
        return None
    under_color = stack[-2][0]
    if under_color == position.turn:
        return None
    tops = position.tops_mask(under_color) | 1 << origin
    for line in position.geometry.lines_through[origin]:
        if tops & line.mask == line.mask:
            return line
    return None


def held_reason(game: Game, action: Action) -> str:
    """Why ``action``, an illegal action left unsaid while the camera could not tell it from a
    lawful one, breaks the rules: a lift under the touch rule (a peek) or any other action."""
    if action.kind is ActionKind.LIFT and action.origin is not None:
        return f"touch rule: {touch_reason(game, action.origin) or 'that stack may not be touched'}"
    return illegal_reason(game, action)
