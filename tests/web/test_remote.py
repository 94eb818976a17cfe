"""The meeting point of the loop and the page, without a server: events with what the camera
saw, listeners that fail, pairing by one press, and the board drawing's badges."""

from __future__ import annotations

import pytest

from companion.device.remote import Remote
from companion.reconciler.events import Event, EventType
from companion.rules import Game
from companion.vision.observation import Observation
from companion.web.board import BoardView, board_svg, stack_words, view_of
from companion.web.pages import event_words


def test_a_needs_attention_event_says_what_the_camera_sees_against_the_game() -> None:
    game = Game()
    game.push_text("4a1")
    camera = Observation.from_tops({"a1": (0, 3)}, 4, 4)  # a 3 where the game has White's 4
    remote = Remote()
    event = Event(EventType.NEEDS_ATTENTION, squares=("a1",), reason="the board is unclear")
    remote.record([event], camera, game.position)
    ((_, data),) = remote.events_after(0)
    assert data["compare"] == [{"square": "a1", "camera": "white 3", "game": "white 4"}]
    assert "a1: the camera sees white 3, the game has white 4" in event_words(data)


def test_a_result_with_a_move_still_in_doubt_says_which_and_a_settled_doubt_says_how() -> None:
    win = Event(EventType.WIN, winner="white", reason="White wins", detail={"unsure": [7]})
    assert "still in doubt: move 7" in event_words(win.to_json())
    settled = Event(EventType.SETTLED, moves=("4b1",), reason="later readings settle it: ply 7 was 4b1")
    assert event_words(settled.to_json()) == "settled: 4b1 — later readings settle it: ply 7 was 4b1"


def test_a_listener_that_fails_is_dropped_and_the_others_still_hear() -> None:
    remote = Remote()
    heard: list[int] = []

    def broken() -> None:
        raise RuntimeError("the page's loop is closed")

    remote.listen(broken)
    stop = remote.listen(lambda: heard.append(1))
    remote.record([Event(EventType.MOVE, ply=1, move="4a1")])
    remote.record([Event(EventType.MOVE, ply=2, move="4d4")])
    assert heard == [1, 1]
    stop()
    remote.record([Event(EventType.MOVE, ply=3, move="3a2")])
    assert heard == [1, 1]
    assert [n for n, _ in remote.events_after(1)] == [2, 3]


def test_one_press_pairs_one_waiting_browser_and_a_newer_request_wins() -> None:
    remote = Remote()
    assert remote.confirm_pairing() is False  # nobody waits: the press is a hint
    first = remote.request_pairing()
    second = remote.request_pairing()
    assert first.result(timeout=0) is False  # replaced by the newer request
    assert remote.pairing_pending
    assert remote.confirm_pairing() is True
    assert second.result(timeout=0) is True
    assert remote.confirm_pairing() is False and not remote.pairing_pending


@pytest.mark.parametrize(
    ("cups", "unknown", "words"),
    [
        ((("white", 1), ("black", 4)), (), "black 4, white 1"),
        ((("black", 3),), ("white 1", ""), "black 3, unknown below: white 1 or nothing"),
        ((), (), "empty"),
    ],
)
def test_a_stack_in_words(cups, unknown, words) -> None:
    assert stack_words(cups, unknown) == words


def test_the_board_marks_hidden_and_unknown_cups_and_the_last_move() -> None:
    game = Game()
    for move in ("4a1", "4d4", "3b1", "d4-b1"):
        game.push_text(move)
    svg = board_svg(view_of(game.position, "d4-b1"))
    assert 'data-square="b1" data-stack="black 4, white 3"' in svg and ">+1</text>" in svg
    assert svg.count('class="square dark last"') + svg.count('class="square light last"') == 2
    view = BoardView(4, 4, {"c3": [("black", 2)]}, unknown={"c3": ("white 1", "")}, hint="4d4")
    drawn = board_svg(view)
    assert 'class="badge unknown"' in drawn and 'data-hint="4d4"' in drawn
