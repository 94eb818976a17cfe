"""Readings of a stack nothing has touched are correlated evidence: a reader's error on one
cup repeats on every frame, so reading it again and again settles nothing; a change does (the
cup lifted and put back, a reading that changed materially)."""

from __future__ import annotations

import numpy as np

from companion.reconciler.repeats import fresh_squares, repeat_weights, weigh
from tests.reconciler.helpers import played
from tests.reconciler.test_size_doubt import moves_of, play


def test_a_cup_misread_the_same_way_reading_after_reading_is_never_settled() -> None:
    # bench-26 in small: White places a 3 on b1, and the reader takes it for a 4 at 0.75
    # (0.25 a 3) on every board after, as a reader's error on one cup does. The likelier
    # size is played at once, reported unsure, and stays unsure however often the same
    # reading comes back: it is never held as known (counted as independent, those readings
    # "settled" the wrong 4b1 by the seventh board).
    reconciler, game = played("classic", "4a1 4d4")
    events = play(reconciler, game, "3b1", "b1", 0.75)
    assert [e.move for e in events if e.type == "move"] == ["4b1"] and 3 in reconciler.unsure
    for text in ("4c4", "4d1", "4a4", "3d3", "3c2", "2b3", "2a2"):
        events = play(reconciler, game, text, "b1", 0.75)
        assert "settled" not in [e.type for e in events]
        assert reconciler.unsure.get(3) == ["3b1", "4b1"], text
    assert moves_of(reconciler)[3:] == [m.text() for m in game.moves][3:]  # the game followed


def test_a_size_in_doubt_is_settled_once_the_cup_is_lifted_and_put_down_again() -> None:
    # White's 4 on b1 reads 0.84 a 4 (0.16 a 3) on every board: the game goes on, and the
    # same reading of the untouched cup leaves ply 3 unsure (counted as independent, these
    # readings settled it by the fourth board). Once White lifts that cup and puts it down
    # on c2, read there as before, the reading is of a cup just put down: new evidence, and
    # the size is settled.
    reconciler, game = played("classic", "4a1 4d4")
    for text in ("4b1", "4c4", "4d1", "4a4", "3d3", "3c3"):
        play(reconciler, game, text, "b1")
        assert reconciler.unsure.get(3) == ["3b1", "4b1"], text
    said = play(reconciler, game, "b1-c2", "c2")
    said += play(reconciler, game, "3a3", "c2")
    assert [e.detail["settled"] for e in said if e.type == "settled"] == [{"3": "4b1"}]
    assert reconciler.unsure == {} and moves_of(reconciler) == [m.text() for m in game.moves]


def test_a_reading_that_changed_materially_is_new_evidence() -> None:
    # b1 reads 0.55 a 4 (0.45 a 3) on three boards: still unsure. Then the light changes,
    # and with White's next move it reads 0.99 a 4: a reading unlike the ones before, new
    # evidence at full weight, which with its repeat settles the size (the same evidence as
    # two sure readings of a cup just placed: an earlier ply needs 7 nats)
    reconciler, game = played("classic", "4a1 4d4")
    for text in ("4b1", "4c4", "4d1"):
        play(reconciler, game, text, "b1", 0.55)
    assert 3 in reconciler.unsure
    events = play(reconciler, game, "4a4", "b1", 0.99) + play(reconciler, game, "3d3", "b1", 0.99)
    assert [e.detail["settled"] for e in events if e.type == "settled"] == [{"3": "4b1"}]
    assert reconciler.unsure == {}


def test_repeats_count_less_and_less_and_never_more_than_a_few_readings() -> None:
    weights = repeat_weights()
    assert weights[0] == 1.0 and all(np.diff(weights) < 0)
    assert weights.sum() < 3.0  # a misread held however long is worth under three readings


def test_what_a_repeat_is() -> None:
    # four squares: the first read as before and showing what the path showed (a repeat),
    # the second showing another class now (a change: full weight), the third read
    # differently now (fresh: full weight), the fourth never read (full weight)
    before = np.array([[0.1, 0.9], [0.9, 0.1], [0.9, 0.1], [0.5, 0.5]])
    now = np.array([[0.12, 0.88], [0.9, 0.1], [0.2, 0.8], [0.5, 0.5]])
    fresh = fresh_squares(before, now)
    assert fresh.tolist() == [False, False, True, False]
    log = np.log(now)
    likelihood = type("L", (), {"log": log, "best": log.max(axis=1)})()
    current, shown = np.array([1, 0, 0, 1]), np.array([1, 1, 0, 1])
    repeats = np.array([2, 2, 2, 2])
    base_row = log[np.arange(4), current]
    weighing = weigh(shown, repeats, current, fresh, likelihood, base_row)  # type: ignore[arg-type]
    w = repeat_weights()
    expected = w[2] * base_row[0] + base_row[1] + base_row[2] + w[2] * base_row[3]
    assert np.isclose(weighing.base, expected)
    assert weighing.keep.tolist() == [3, 1, 1, 3]
    # an account showing the path's last class on the second square again: a repeat too
    assert weighing.after([(1, 1)]).tolist() == [3, 3, 1, 3]
    assert np.isclose(weighing.changed([(1, 1)]), (w[2] - 1.0) * log[1, 1])
