"""No accusation without certainty: when the camera cannot tell a legal move from an illegal
action, the referee plays the legal move (reported unsure) and keeps the illegal one as a
rival that later readings can still prove; it calls a player's action illegal only when it
beats every lawful account of the board by the margin."""

from __future__ import annotations

from companion.reconciler.events import Event
from companion.reconciler.reconciler import Reconciler
from companion.rules import Game, Move
from companion.rules.square import parse_square
from companion.testing.faults import tops_of
from companion.vision.observation import Observation, class_index
from tests.reconciler.helpers import observe_tops, types

W3, W4, B1 = (0, 3), (0, 4), (1, 1)


def reading(
    game: Game, extra: dict[str, tuple[int, int]], square: str, top, sure: float, other
) -> Observation:
    """The true game's board with ``extra`` cups on it, ``square`` read as ``top`` with
    probability ``sure`` and as ``other`` (a class, None: empty) with the rest."""
    tops = {**tops_of(game.position), **{parse_square(sq): t for sq, t in extra.items()}}
    observation = observe_tops(tops)
    probabilities = observation.probabilities.copy()
    row = observation.row(square)
    probabilities[row] = 0.0
    probabilities[row, class_index(top, 4)] = sure
    probabilities[row, class_index(other, 4)] = 1.0 - sure
    return Observation(observation.size, observation.max_piece, probabilities, False)


def moved(events: list[Event]) -> list[str | None]:
    return [e.move for e in events if e.type == "move"]


def test_a_legal_placement_read_closer_to_its_illegal_size_is_played_unsure() -> None:
    # White opens 4c4; c4 reads a White 3 at 0.7 and a 4 at 0.3. A 3 would be illegal (it is
    # under the 4 in its stack), and that account fits the reading better, but not by the
    # margin: the referee plays 4c4, says ply 1 is in doubt against the illegal 3c4, and
    # accuses no one.
    reconciler, game = Reconciler("classic"), Game()
    game.push(Move.from_text("4c4"))
    events = reconciler.feed(reading(game, {}, "c4", W3, 0.7, W4))
    assert moved(events) == ["4c4"] and "illegal" not in types(events)
    assert "illegal 3c4" in reconciler.unsure[1] and "4c4" in reconciler.unsure[1]
    # the same reading again (the board stands): still no accusation, the move stands
    assert "illegal" not in types(reconciler.feed(reading(game, {}, "c4", W3, 0.7, W4)))
    # Black replies while c4 still reads a 3: the game goes on and the doubt settles
    for text in ("4d4", "4a1"):
        game.push(Move.from_text(text))
        events = reconciler.feed(reading(game, {}, "c4", W3, 0.7, W4))
        assert moved(events) == [text] and "illegal" not in types(events)
    assert [m.text() for m in reconciler.game.moves] == ["4c4", "4d4", "4a1"]
    assert 1 not in reconciler.unsure


def test_an_illegal_placement_a_later_reading_shows_clearly_is_corrected_and_called() -> None:
    # White really places the 3 from under its 4 (illegal). The first reading is unclear
    # (0.7 a 3): the legal 4c4 is played, unsure. The next readings show the 3 beyond
    # doubt: the referee withdraws 4c4 (a correction) and calls the illegal placement.
    reconciler, game = Reconciler("classic"), Game()
    assert moved(reconciler.feed(reading(game, {"c4": W3}, "c4", W3, 0.7, W4))) == ["4c4"]
    # (a repeat of a reading of an untouched cup is weighed as correlated evidence, repeats.py:
    # the clear reading proves it on its second showing)
    events = reconciler.feed(reading(game, {"c4": W3}, "c4", W3, 0.999, W4))
    events += reconciler.feed(reading(game, {"c4": W3}, "c4", W3, 0.999, W4))
    assert types(events)[:2] == ["correction", "illegal"]
    assert events[0].detail["withdrawn"] == ["4c4"] and events[1].detail["action"] == "3c4"
    assert reconciler.game.ply == 0 and reconciler.unsure == {}
    # White puts it right with a legal move: the referee follows it
    game.push(Move.from_text("4c4"))
    events = reconciler.feed(reading(game, {}, "c4", W4, 0.999, W3))
    assert types(events) == ["restored", "move"] and moved(events) == ["4c4"]


def test_an_illegal_placement_read_clearly_twice_is_called() -> None:
    # A guard: the illegal 3 read at 0.99. One reading never proves a one-square action by
    # the margin (a square read wrong however sure it looks costs about 4.4 nats, the rules
    # broken 1 more), and 4c4 would need c4 read against it: nothing is played on the first
    # reading; the second, the same, calls the illegal placement.
    reconciler, game = Reconciler("classic"), Game()
    events = reconciler.feed(reading(game, {"c4": W3}, "c4", W3, 0.99, W4))
    assert types(events) == ["needs-attention"] and "illegal 3c4" in (events[0].reason or "")
    events = reconciler.feed(reading(game, {"c4": W3}, "c4", W3, 0.99, W4))
    assert types(events) == ["illegal"] and events[0].detail["action"] == "3c4"
    assert reconciler.game.ply == 0


def test_a_cup_read_faintly_where_only_an_illegal_action_could_put_it_is_no_accusation() -> None:
    # After 4c4 4d4, White to move: b2 reads a Black 1 at 0.7 (nothing at 0.3). Only Black
    # moving out of turn could have put it there (a ghost in the reading, as on bench-19):
    # no accusation, nothing to say; the next clean reading ends the matter.
    reconciler, game = Reconciler("classic"), Game()
    for text in ("4c4", "4d4"):
        game.push(Move.from_text(text))
        assert moved(reconciler.feed(reading(game, {}, "a1", None, 1.0, B1))) == [text]
    events = reconciler.feed(reading(game, {}, "b2", B1, 0.7, None))
    assert events == [] and reconciler.attention is None
    game.push(Move.from_text("4a1"))
    assert moved(reconciler.feed(reading(game, {}, "a1", W4, 1.0, B1))) == ["4a1"]
