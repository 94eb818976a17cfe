"""Recovery: the two starts a resynchronisation restarts from (the tops the board shows,
either side to move), and replaying a game from a better start once lifts reveal what stacks
hid. See docs/reconciler.md.
"""

from __future__ import annotations

from companion.errors import CompanionError
from companion.reconciler.likelihood import Likelihood, View
from companion.reconciler.unknowns import HiddenContents
from companion.rules.game import Game
from companion.rules.move import MoveError
from companion.rules.position import Position
from companion.rules.square import Square
from companion.vision.observation import class_top


def restart_options(game: Game, likelihood: Likelihood) -> list[tuple[HiddenContents, Position]] | None:
    """What the board shows as two possible starts, the side to move first then the other:
    the tops read, and stacks whose top is unchanged keep the contents the game knows. None
    when the tops are no possible board."""
    max_piece = game.variant.max_piece
    position = game.position
    squares = View(position, None, likelihood=likelihood).squares
    tops: dict[Square, tuple[int, int]] = {}
    known: dict[Square, list[tuple[int, int]]] = {}
    for r, sq in enumerate(squares):
        top = class_top(int(likelihood.reading[r]), max_piece)
        if top is None:
            continue
        tops[sq] = top
        if position.top(sq) == top:
            known[sq] = list(position.stack(sq))
    try:
        first = HiddenContents(game.variant, tops, position.turn, known=known)
        second = first.copy(turn=position.turn ^ 1)
        return [(first, first.start_position()), (second, second.start_position())]
    except CompanionError:
        return None


def replayed_from(game: Game, start: Position) -> Game | None:
    """The game's moves played again from another start; None when they need the start they
    came from."""
    again = Game(game.variant, start=start, headers=game.headers)
    try:
        for played in game.played:
            again.push(played.move, played.timestamp, played.comment)
    except MoveError:
        return None
    return again
