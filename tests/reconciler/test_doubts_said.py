"""A ply in doubt is said once, and how it settled is said once it does: a player hears the
doubt and its answer, not the same doubt again each time its alternatives narrow."""

from __future__ import annotations

from companion.reconciler.events import Event
from companion.rules import Move
from tests.reconciler.helpers import played, reading
from tests.reconciler.test_size_doubt import play


def doubts(events: list[Event]) -> list[Event]:
    return [e for e in events if e.type == "needs-attention" and "unsure" in e.detail]


def test_a_doubt_is_said_once_and_its_settling_is_said() -> None:
    # White's 4 on b1 is read between a 4 and a 3 reading after reading: 4b1 is played,
    # unsure; once White moves that cup to c2 and it is read there (new evidence: the same
    # reading of the untouched cup settles nothing) the 3 is unlikely enough, the referee
    # says ply 3 was 4b1 after all (``settled``), and says nothing more about it.
    reconciler, game = played("classic", "4a1 4d4")
    said: list[Event] = []
    for text in ("4b1", "4c4", "4d1", "4a4", "3d3", "3c3"):
        said += play(reconciler, game, text, "b1")
    for text in ("b1-c2", "3a3", "2a2"):
        said += play(reconciler, game, text, "c2")
    assert [e.detail["unsure"] for e in doubts(said)] == [{"3": ["3b1", "4b1"]}]
    settled = [e for e in said if e.type == "settled"]
    assert [(e.moves, e.detail["settled"]) for e in settled] == [(("4b1",), {"3": "4b1"})]
    assert reconciler.unsure == {}


def test_a_doubt_settled_the_other_way_is_said_by_the_correction_alone() -> None:
    # The cup on b1 is a 3: the next clean reading corrects 4b1 to 3b1. The correction says
    # how the doubt ended; no ``settled`` event claims the announced 4b1.
    reconciler, game = played("classic", "4a1 4d4")
    said = play(reconciler, game, "3b1", "b1")
    for text in ("4c4", "4d1"):
        said += play(reconciler, game, text)
    assert len(doubts(said)) == 1 and [e.type for e in said].count("correction") == 1
    assert "settled" not in [e.type for e in said] and reconciler.unsure == {}


def test_a_doubt_whose_alternatives_narrow_is_not_said_again() -> None:
    # White's 4 on b1 is read between a 4 and a 2 (a 2 is on top of White's first stack), and
    # a1 (White's 4 over its 3) between a 4 and a 3: ply 7 is in doubt three ways, a1-b1 the
    # third. The next reading sees a1's 4 clearly: a1-b1 drops out, and the same ply with
    # fewer alternatives is no news.
    reconciler, game = played("classic", "4b2 4d4 3a1 4c4 b2-a1 3d3")
    game.push(Move.from_text("4b1"))
    b1 = {"b1": {(0, 4): 0.84, (0, 2): 0.16}}
    said = doubts(reconciler.feed(reading(game, {**b1, "a1": {(0, 4): 0.7, (0, 3): 0.3}})))
    assert [e.detail["unsure"] for e in said] == [{"7": ["2b1", "4b1", "a1-b1"]}]
    assert doubts(reconciler.feed(reading(game, b1))) == []
    assert reconciler.unsure == {7: ["2b1", "4b1"]}


def test_a_game_decided_with_a_ply_in_doubt_says_so_with_its_result() -> None:
    # White's last cup completes the line whatever its size (a 4 or a 3 on d1): the win is
    # announced, and with it that ply 7 is still in doubt (the record keeps it unsure).
    reconciler, game = played("classic", "4a1 4a4 4b1 4b4 3c1 4c4")
    events = play(reconciler, game, "4d1", "d1")
    win = next(e for e in events if e.type == "win")
    assert win.detail["unsure"] == [7] and reconciler.unsure == {7: ["3d1", "4d1"]}
