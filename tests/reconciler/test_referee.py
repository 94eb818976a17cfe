"""Illegal actions, the touch rule, outcomes: what the referee must announce."""

from __future__ import annotations

import pytest

from companion.reconciler.referee import Action, ActionKind
from companion.rules import Move, parse_square
from companion.testing.faults import apply_action, tops_of
from tests.reconciler.helpers import observe, observe_tops, played, types


def act(game, kind: ActionKind, color: int, size: int, to: str | None = None, origin: str | None = None):
    action = Action(
        kind, color, size, parse_square(to) if to else None, parse_square(origin) if origin else None
    )
    return observe_tops(apply_action(tops_of(game.position), game.position, action))


@pytest.mark.parametrize(
    ("moves", "action", "words"),
    [
        # gobbling from a stack outside the line-of-three exception
        ("4a1 4b2 4c3 3d4", (ActionKind.PLACE, 0, 4, "d4", None), "gobble d4 from a stack"),
        # a size not on top of any of the player's stacks
        ("", (ActionKind.PLACE, 0, 2, "a1", None), "your stacks show size 4, not 2"),
        # moving the opponent's piece
        ("4a1", (ActionKind.MOVE, 0, 4, "b2", "a1"), "may not move White's pieces"),
        # moving twice
        ("4a1", (ActionKind.PLACE, 0, 4, "b2", None), "White may not move twice"),
    ],
)
def test_illegal_action_is_announced_then_restored(moves: str, action: tuple, words: str) -> None:
    reconciler, game = played("classic", moves)
    legal = game.position.text()
    events = reconciler.feed(act(game, *action))
    assert types(events) == ["illegal"]
    assert words in events[0].reason
    assert events[0].position == legal
    # nothing else is accepted until the board is put right
    assert reconciler.feed(act(game, *action)) == []
    assert types(reconciler.feed(observe(game.position))) == ["restored"]
    assert reconciler.awaiting_restore is None
    assert reconciler.game.position.text() == legal


def test_a_legal_move_after_putting_right_is_accepted() -> None:
    reconciler, game = played("classic", "4a1")
    reconciler.feed(act(game, ActionKind.MOVE, 0, 4, "b2", "a1"))
    game.push(Move.from_text("4d4"))
    events = reconciler.feed(observe(game.position))
    assert [(e.type, e.move) for e in events] == [("restored", None), ("move", "4d4")]


def test_lift_then_put_back_breaks_the_touch_rule() -> None:
    reconciler, game = played("classic", "4a1 4b2")
    events = reconciler.feed(act(game, ActionKind.LIFT, 0, 4, origin="a1"))
    assert [(e.type, e.squares) for e in events] == [("lifted", ("a1",))]
    events = reconciler.feed(observe(game.position))
    assert types(events) == ["illegal"]
    assert "touch rule" in events[0].reason and events[0].detail["must_move"] == "a1"
    # the lifted cup must be the one that moves
    game.push(Move.from_text("4c3"))
    events = reconciler.feed(observe(game.position))
    assert types(events) == ["illegal"] and "must move it" in events[0].reason


def test_lift_then_put_back_is_fine_without_the_touch_rule() -> None:
    reconciler, game = played("rogers", "4a1 4b2")
    assert types(reconciler.feed(act(game, ActionKind.LIFT, 0, 4, origin="a1"))) == ["lifted"]
    assert reconciler.feed(observe(game.position)) == []


def test_lift_then_move_is_one_move() -> None:
    reconciler, game = played("classic", "4a1 4b2")
    assert types(reconciler.feed(act(game, ActionKind.LIFT, 0, 4, origin="a1"))) == ["lifted"]
    game.push(Move.from_text("a1-c3"))
    assert [e.move for e in reconciler.feed(observe(game.position))] == ["a1-c3"]


def test_peek_under_an_opponent_stack() -> None:
    reconciler, game = played("classic", "4a1 4b2 4c3")
    events = reconciler.feed(act(game, ActionKind.LIFT, 0, 4, origin="a1"))
    assert types(events) == ["lifted", "illegal"]
    assert "may not touch a1" in events[1].reason
    assert types(reconciler.feed(observe(game.position))) == ["restored"]


def test_win_event_names_the_line() -> None:
    reconciler, game = played("classic", "4a1 4a2 4b1 4b2 4c1 4c2")
    game.push(Move.from_text("3d1"))
    events = reconciler.feed(observe(game.position))
    assert types(events) == ["move", "win"]
    assert events[1].winner == "white" and events[1].line == ("a1", "b1", "c1", "d1")


def test_the_losing_uncover_names_the_line() -> None:
    reconciler, game = played("rogers", "4c4 4a1 4b4 3d1 4d1 4b1 3c3 4c1")
    game.push(Move.from_text("d1-d3"))
    events = reconciler.feed(observe(game.position))
    assert types(events) == ["move", "loss"]
    assert events[1].winner == "black" and events[1].line == ("a1", "b1", "c1", "d1")
    assert events[1].detail["termination"] == "uncover"


def test_lifting_onto_the_uncover_warns() -> None:
    reconciler, game = played("rogers", "4c4 4a1 4b4 3d1 4d1 4b1 3c3 4c1")
    events = reconciler.feed(act(game, ActionKind.LIFT, 0, 4, origin="d1"))
    assert types(events) == ["lifted"]
    assert events[0].detail["uncovers"] == ["a1", "b1", "c1", "d1"]


def test_threefold_repetition_draws() -> None:
    reconciler, game = played("classic", "4a1 4d4 a1-a2 d4-d3 a2-a1 d3-d4 a1-a2 d4-d3 a2-a1")
    game.push(Move.from_text("d3-d4"))
    events = reconciler.feed(observe(game.position))
    assert types(events) == ["move", "draw"]


def test_after_the_end_only_takeback_or_new_game() -> None:
    reconciler, game = played("classic", "4a1 4a2 4b1 4b2 4c1 4c2 3d1")
    game.pop()
    assert [(e.type, e.move) for e in reconciler.feed(observe(game.position))] == [("takeback", "3d1")]
    assert not reconciler.game.is_over()
