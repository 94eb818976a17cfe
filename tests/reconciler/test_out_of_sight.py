"""The board hidden for longer than a reading can tell: the stability gate counts how often
the board was hidden before a reading settled (``Observation.hidden``, a hand per move). When
that is more than the two moves a reading is searched for, any account of the moves made out
of sight is a guess (a cup moved twice looks like one move, and leaves the other side to
move): the referee restarts from the board instead of announcing the guess."""

from __future__ import annotations

from dataclasses import replace

from companion.rules import Game, Move
from companion.testing.faults import tops_of
from tests.reconciler.helpers import observe, played, torn, types

OPENING = "4a1 4d4 4b1 4d3"
# White moves a1-a2, Black d3-c3, White the same cup on a2-a3: the board shows what a1-a3 and
# d3-c3 would show, with White to move, but Black is to move
HIDDEN = ("a1-a2", "d3-c3", "a2-a3")


def hidden_stretch() -> tuple[Game, Game]:
    """The true game after the opening, and after the three moves made out of sight."""
    _, game = played("classic", OPENING)
    before = Game(game.variant)
    for move in game.moves:
        before.push(move)
    for text in HIDDEN:
        game.push(Move.from_text(text))
    return before, game


def test_without_the_gates_count_the_stretch_reads_as_two_moves() -> None:
    # (what the referee does when it is not told: the guess it cannot check, White to move)
    reconciler, _ = played("classic", OPENING)
    _, game = hidden_stretch()
    events = reconciler.feed(observe(game.position))
    assert [e.move for e in events if e.type == "move"] == ["a1-a3", "d3-c3"]


def test_a_board_hidden_for_three_moves_restarts_from_what_it_shows() -> None:
    reconciler, _ = played("classic", OPENING)
    _, game = hidden_stretch()
    events = reconciler.feed(replace(observe(game.position), hidden=3))
    assert types(events) == ["resync"] and events[0].detail["record"] == OPENING.split()
    assert all(reconciler.game.position.top(sq) == game.position.top(sq) for sq in game.position.squares)
    # the side to move is kept open: Black's next move is followed
    for text in ("c3-c1", "3a4", "c1-d2"):
        game.push(Move.from_text(text))
        reconciler.feed(observe(game.position))
    assert [m.text() for m in reconciler.game.moves][-2:] == ["3a4", "c1-d2"]
    assert reconciler.game.turn == game.turn


def test_after_a_long_stretch_an_unsure_reading_asks_for_help_and_announces_nothing() -> None:
    # Too unsure to restart from: the player is asked at once (no second unclear reading
    # waited for), nothing is announced from the guess, and the first sure reading restarts.
    reconciler, _ = played("classic", OPENING)
    _, game = hidden_stretch()
    events = reconciler.feed(replace(torn(tops_of(game.position), 0.7), hidden=4))
    assert "help" in types(events) and "move" not in types(events)
    events = reconciler.feed(observe(game.position))
    assert types(events) == ["resync"]


def test_one_move_after_the_board_was_hidden_often_is_played_as_usual() -> None:
    # A hand hovering (hidden three times) over a single move: the move is seen whole.
    reconciler, game = played("classic", OPENING)
    game.push(Move.from_text("4b2"))
    events = reconciler.feed(replace(observe(game.position), hidden=3))
    assert types(events) == ["move"] and events[0].move == "4b2"
