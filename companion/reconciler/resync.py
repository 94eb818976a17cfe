"""Recovery: the two starts a resynchronisation restarts from (the tops the board shows,
either side to move), and replaying a game from a better start once lifts reveal what stacks
hid. See docs/reconciler.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.errors import CompanionError
from companion.reconciler.hidden import HiddenCups
from companion.reconciler.likelihood import Likelihood, View
from companion.reconciler.unknowns import HiddenContents
from companion.rules.game import Game
from companion.rules.move import Move, MoveError
from companion.rules.position import Piece, Position
from companion.rules.square import Square
from companion.vision.observation import class_top


def restart_options(
    game: Game, likelihood: Likelihood, hidden: HiddenCups
) -> list[tuple[HiddenContents, Position]] | None:
    """What the board shows as two possible starts, the side to move first then the other:
    the tops read, and stacks whose top is unchanged keep the contents the game knows
    (``HiddenCups.known_stack``: not the cups a start taken on a hypothesis put under them,
    which stay open). None when the tops are no possible board."""
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
        if position.top(sq) == top and (stack := hidden.known_stack(position, sq)) is not None:
            known[sq] = stack
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


def replayed_with_placement(
    game: Game,
    contents: HiddenContents,
    piece: Piece,
    to: Square,
    kept: Sequence[Move] = (),
) -> Game | None:
    """The game replayed from the likeliest start in which ``piece`` may be placed on ``to``
    next (what the stacks hide fixes what the external stacks still hold), when that start is
    not the game's own; None when no start the hidden contents still allow has it, the moves
    held need the start they came from, or it would make one of the ``kept`` moves illegal.

    A placement is evidence about what the stacks hide, as a lift's reveal is: a cup placed
    from the external stacks was not hidden under another. A game restarted from the board
    takes one hypothesis for its start, and with it how many of each size the external
    stacks hold; a placement legal under another hypothesis still open is no illegal action.
    The same holds the other way: ``kept`` are the lawful moves the reading ranks above the
    placement, and a start that rules one out is not taken on the word of a worse account
    (bench-12: a White 3 on b1, read so on every board and legal from the start taken, was
    called illegal once a White 2, a size doubt behind it, replayed the game from a start
    hiding the 3)."""
    narrowed = contents.copy()
    try:
        narrowed.put(to, piece)
        start = narrowed.start_position()
    except CompanionError:
        return None
    if start == game.start:
        return None
    again = replayed_from(game, start)
    if again is None or again.turn != piece[0] or again.check(Move.place(piece[1], to)) is not None:
        return None
    if any(again.check(move) is not None for move in kept):
        return None
    return again
