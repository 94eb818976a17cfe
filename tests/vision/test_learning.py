"""Learning during the game (companion.vision.learning): which frames are labels, and that what
is learned is bounded, reversible, saved with the calibration and makes the reading better."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from companion.device.vision_link import reader_observer
from companion.errors import CompanionError
from companion.reconciler.events import Event, EventType
from companion.rules import Game
from companion.rules.square import board_squares, square_name
from companion.vision.calibration import Calibration
from companion.vision.cups import CupSet
from companion.vision.gate import StabilityGate
from companion.vision.learning import (
    MAX_DISAGREEMENT,
    RADIUS_BOUNDS,
    LabelledFrame,
    Learner,
    SureFrames,
    fit_weight,
    fits_averaged_in,
    label,
    pushed_a_ring_away,
    radius_averaged_in,
    tops_of,
)
from companion.vision.observation import Observation
from companion.vision.reader import BoardReader

TOPS = {"a1": (0, 3), "b2": (1, 3), "c3": (0, 2), "d4": (1, 4), "a4": (1, 1), "c1": (0, 4)}


def rows_of(tops: dict[str, tuple[int, int]]) -> dict[int, tuple[int, int]]:
    order = [square_name(sq) for sq in board_squares(4)]
    return {order.index(name): top for name, top in tops.items()}


def labelled(tops: dict[str, tuple[int, int]] = TOPS) -> LabelledFrame:
    return LabelledFrame(np.zeros((4, 4, 3), np.uint8), rows_of(tops))


def seen(tops: dict[str, tuple[int, int]] = TOPS) -> Observation:
    return Observation.from_tops(tops)


# -- which frames are labels -------------------------------------------------------------------


def test_a_frame_is_learned_once_the_next_clean_move_confirms_it() -> None:
    sure = SureFrames()
    first, second = labelled(), labelled()
    assert sure.judged(["move"], first, seen()) is None  # nothing confirms it yet
    assert sure.judged([], None, None) is None  # the same board again changes nothing
    assert sure.judged(["move"], second, seen()) is first
    assert sure.judged(["move", "win"], labelled(), seen()) is second


def test_a_doubt_settled_beside_a_move_keeps_the_frame_a_label() -> None:
    # (the referee's ``settled``: a ply it was unsure of is sure again; more sure, not less)
    sure = SureFrames()
    first = labelled()
    sure.judged(["move"], first, seen())
    assert sure.judged(["move", "settled"], labelled(), seen()) is first


@pytest.mark.parametrize(
    "kind",
    [
        "needs-attention",
        "illegal",
        "resync",
        "correction",
        "lifted",
        "takeback",
        "help",
        "restored",
        "cleared",
    ],
)
def test_any_doubt_drops_the_waiting_frame_and_needs_two_clean_moves_again(kind: str) -> None:
    sure = SureFrames()
    sure.judged(["move"], labelled(), seen())
    sure.judged(["move"], labelled(), seen())  # learning has started
    assert sure.judged([kind], labelled(), seen()) is None
    assert sure.judged(["move", kind], labelled(), seen()) is None  # a move with doubt is no label
    after = labelled()
    assert sure.judged(["move"], after, seen()) is None  # the frame before it is not confirmed
    assert sure.judged(["move"], labelled(), seen()) is after


def test_a_frame_read_far_from_its_label_is_not_learned() -> None:
    sure = SureFrames()
    far = dict(TOPS)
    for name in ["a2", "b3", "c4", "d1"][: MAX_DISAGREEMENT + 1]:
        far[name] = (0, 1)
    sure.judged(["move"], labelled(far), seen())  # read without those cups
    assert sure.judged(["move"], labelled(), seen()) is None
    assert sure.refused == 1


def test_sizes_are_taught_by_the_squares_read_wrong_or_doubted() -> None:
    reading = dict(TOPS)
    reading["a1"] = (0, 2)  # a white 3 read as a 2
    doubtful = seen(reading)
    c3 = [square_name(sq) for sq in board_squares(4)].index("c3")
    doubtful.probabilities[c3] = 0.0
    doubtful.probabilities[c3, [2, 3]] = [0.6, 0.4]  # the white 2 on c3 read at 0.6
    frame = label(np.zeros((4, 4, 3), np.uint8), rows_of(TOPS), doubtful)
    assert frame.misread == frozenset(rows_of({"a1": (0, 3), "c3": (0, 2)}))
    assert label(frame.rectified, rows_of(TOPS), seen()).misread == frozenset()


def test_a_position_gives_each_squares_top() -> None:
    game = Game()
    game.push_text("4a1")
    game.push_text("4b2")
    assert tops_of(game.position, 4) == rows_of({"a1": (0, 4), "b2": (1, 4)})


# -- what is learned ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def board(setup_for: Callable) -> tuple:
    """A synthetic set-up, its calibration and frames of one position with its labels."""
    setup = setup_for(7)
    frames = [setup.renderer.render(TOPS) for _ in range(5)]
    return setup, setup.calibration, frames


def misjudged(calibration: Calibration, factor: float) -> Calibration:
    """The calibration with White's size 3 taken ``factor`` times its learned size."""
    cups = calibration.cups
    return dataclasses.replace(calibration, cups=cups.with_radius(0, 3, cups.radii[0][2] * factor))


def squares_wrong(reader: BoardReader, frame: np.ndarray) -> int:
    observation = reader.read(frame)
    return sum(observation.top(name) != TOPS.get(name) for name in map(square_name, board_squares(4)))


@pytest.mark.slow
def test_a_misjudged_size_is_learned_back_within_bounds(board: tuple) -> None:
    _, calibration, frames = board
    wrong = misjudged(calibration, 0.8)
    reader = BoardReader(wrong)
    learner = Learner(reader)
    right = calibration.cups.radii[0][2]
    for frame in frames:
        learner.learn(LabelledFrame(reader.rectified(frame), rows_of(TOPS)))
    learned = reader.models.cups.radii[0][2]
    assert abs(learned - right) < abs(wrong.cups.radii[0][2] - right) / 2
    assert reader.calibration.cups == wrong.cups  # the calibration's own models are kept
    assert reader.calibration.learned is not None and reader.calibration.learned.frames == 5


BENCH_19_FITS = (27.38, 26.46, 25.40, 26.63, 26.19, 25.16, 27.51, 25.66, 24.59, 27.45)
"""The white 4's radius fitted on ten sure frames of the vision bench's bench-19 (26.02 mm at
calibration): a different cup, or the same one elsewhere, each time."""


def test_a_radius_converges_to_the_mean_of_its_fits() -> None:
    """Each fit is averaged in as one more (the calibration's radius counting as one), so the
    radius settles on the fits' mean instead of following the last: moved 35 % of the way
    toward each, main's radius went 26.7, 26.6, 26.2, 26.3, 26.2, 26.0, 26.7, 26.2, 25.6."""
    calibrated = CupSet.default(60.0).with_radius(0, 4, 26.02)
    cups, fits = calibrated, [[0] * 4, [0] * 4]
    seen = []
    for fit in BENCH_19_FITS:
        cups = radius_averaged_in(cups, calibrated, fits, 0, 4, fit)
        seen.append(cups.radii[0][3])
    assert fits == [[0, 0, 0, len(BENCH_19_FITS)], [0] * 4]
    assert seen[-1] == pytest.approx(np.mean((26.02, *BENCH_19_FITS)), abs=0.05)  # (the floor on the last)
    assert max(seen[2:]) - min(seen[2:]) < 0.35  # main: 1.0 mm
    assert min(seen) > 26.0  # main: 25.6


BENCH_24_FRAMES = ((34.42, 27.92), (34.50, 28.50))
"""The white 4's fits on b1 and b2 on the two sure frames after plies 18 and 19 of the vision
bench's bench-24, its lamp learned again at 16b (b1, on the board's edge beside a black 4,
fits their shadows over the margin as cup)."""


def test_a_frame_whose_cups_disagree_moves_a_radius_as_far_as_they_agree() -> None:
    """Each frame's median counted as a whole fit took bench-24's white 4 from 27.03 mm (three
    fits since the lamp) to 27.86 and 28.47, and c4's white 4 then read 0.61: the two cups'
    fits, 6 mm apart where frames scatter 1 mm, are as unsure as that, and count for a tenth of
    a fit each. One cup, or cups that agree, still count as one fit."""
    calibrated = CupSet.default(60.0).with_radius(0, 4, 26.73)
    cups, fits = calibrated.with_radius(0, 4, 27.03), [[0.0, 0.0, 0.0, 3.0], [0.0] * 4]
    for fitted in BENCH_24_FRAMES:
        cups = fits_averaged_in(cups, calibrated, fits, 0, 4, list(fitted))
    assert cups.radii[0][3] < 27.4  # each as one fit: 27.86, then 28.47
    assert 3.1 < fits[0][3] < 3.4  # the two frames weigh a fifth of a fit together

    agreeing = [fit_weight(fitted, 27.0) for fitted in ([28.0], [27.9, 28.1], [27.22, 26.22])]
    assert agreeing[0] == 1.0 and agreeing[1] > 0.98 and agreeing[2] > 0.8
    one, same = ([[0.0] * 4, [0.0] * 4] for _ in range(2))
    assert fits_averaged_in(calibrated, calibrated, one, 0, 4, [28.0]).radii[0][3] == pytest.approx(
        radius_averaged_in(calibrated, calibrated, same, 0, 4, 28.0).radii[0][3]
    )


@pytest.mark.parametrize("four", [25.5, 28.5])
def test_cups_read_as_the_next_size_push_it_by_how_well_their_fits_agree(four: float) -> None:
    """Two white 3s fitted 26 and 27 mm, both read as 4s, push the 4 a ring beyond them, worth
    the fits of a white 3 they are: as many fits as they move the 3 by, whatever the 4's radius
    (weighed against the 4's scatter they counted 0.81 or 0.84 fits, not 0.74)."""
    shown = [26.0, 27.0]
    calibrated = CupSet.default(60.0).with_radius(0, 4, four)
    pushed, own = ([[0.0] * 4, [0.0] * 4] for _ in range(2))
    cups = pushed_a_ring_away(calibrated, calibrated, pushed, (0, 3), 4, shown)
    assert cups.radii[0][3] > four  # the 4 moved away from what the 3s showed
    fits_averaged_in(calibrated, calibrated, own, 0, 3, shown)
    assert pushed[0][3] == pytest.approx(own[0][2]) and own[0][2] == pytest.approx(0.738, abs=0.001)
    assert (
        pushed_a_ring_away(calibrated, calibrated, pushed, (0, 3), 4, [21.0]) is calibrated
    )  # the 4 lies a ring beyond already


@pytest.mark.slow
def test_wrong_labels_cannot_push_a_size_beyond_its_bounds(board: tuple) -> None:
    _, calibration, frames = board
    reader = BoardReader(calibration)
    learner = Learner(reader)
    lie = {name: ((c, 4) if (c, s) == (0, 3) else (c, s)) for name, (c, s) in TOPS.items()}
    for _ in range(6):  # every white 3 said to be a 4, over and over
        learner.learn(LabelledFrame(reader.rectified(frames[0]), rows_of(lie)))
    for colour in (0, 1):
        radii = np.array(reader.models.cups.radii[colour])
        own = np.array(calibration.cups.radii[colour])
        assert np.all(radii >= own * RADIUS_BOUNDS[0] - 1e-9)
        assert np.all(radii <= own * RADIUS_BOUNDS[1] + 1e-9)
        assert np.all(np.diff(radii) > 0)


@pytest.mark.slow
def test_a_dim_board_under_the_same_light_is_learned_without_brightening(board: tuple) -> None:
    """Frames of the bare board under the calibration's own light, dim and noisy (a third of its
    brightness, sensor noise of 12 grey levels): the board in use stays as bright as it was.
    The wood's look was learned where each pixel was no darker than a shadow would make it,
    which kept the brighter half of the noise: main's board brightened 2.5 % in four frames
    (the bench's bench-19, dim warm light: a white 4 on b2 then read as a 3 and the referee
    was lost 11.8 s)."""
    _, calibration, _ = board
    dim = np.rint(calibration.background * 0.3).astype(np.uint8)
    reader = BoardReader(dataclasses.replace(calibration, background=dim))
    learner = Learner(reader)
    rng = np.random.default_rng(5)
    for _ in range(4):
        noisy = np.clip(np.rint(dim + rng.normal(0.0, 12.0, dim.shape)), 0, 255).astype(np.uint8)
        learner.learn(LabelledFrame(noisy, {}))
    brighter = float(reader.models.background.mean()) / float(dim.mean()) - 1.0
    assert abs(brighter) < 0.006  # main: 0.025


@pytest.mark.slow
def test_forgetting_returns_to_the_calibration(board: tuple) -> None:
    _, calibration, frames = board
    reader = BoardReader(misjudged(calibration, 0.8))
    learner = Learner(reader)
    learner.learn(LabelledFrame(reader.rectified(frames[0]), rows_of(TOPS)))
    assert reader.models.cups != reader.calibration.cups
    learner.forget()
    assert reader.calibration.learned is None
    assert reader.models.cups == misjudged(calibration, 0.8).cups
    assert np.array_equal(reader.models.background, calibration.background)


@pytest.mark.slow
def test_what_was_learned_is_saved_and_loaded_with_the_calibration(board: tuple, tmp_path: Path) -> None:
    _, calibration, frames = board
    reader = BoardReader(misjudged(calibration, 0.8))
    Learner(reader).learn(LabelledFrame(reader.rectified(frames[0]), rows_of(TOPS)))
    path = tmp_path / "board.json"
    reader.calibration.save(path)
    loaded = Calibration.load(path)
    assert loaded.learned is not None and loaded.learned.frames == 1
    assert loaded.learned.cups == reader.calibration.learned.cups  # type: ignore[union-attr]
    assert loaded.learned.fits == reader.calibration.learned.fits  # type: ignore[union-attr]
    assert loaded.learned.fit_count(0, 3) == 1  # White's 3 was fitted once
    assert np.array_equal(loaded.learned.background, reader.calibration.learned.background)  # type: ignore[union-attr]
    assert loaded.cups == reader.calibration.cups
    again = BoardReader(loaded).read(frames[1])
    assert again.tops() == BoardReader(reader.calibration).read(frames[1]).tops()

    data = json.loads(path.read_text())
    learned = data.pop("learned")  # a file from before learning
    path.write_text(json.dumps(data))
    assert Calibration.load(path).learned is None
    data["learned"] = {**learned, "radius_fits": [[1, 2], [3]]}  # not one count per size
    path.write_text(json.dumps(data))
    with pytest.raises(CompanionError, match=r"radius fits.*calibrate again"):
        Calibration.load(path)
    del learned["radius_fits"]  # a file from before the counts: none counted yet
    data["learned"] = learned
    path.write_text(json.dumps(data))
    assert Calibration.load(path).learned.fits == ()  # type: ignore[union-attr]
    data["learned"] = {"frames": 1, "cups": {"radii_mm": "?"}}
    path.write_text(json.dumps(data))
    with pytest.raises(CompanionError, match=r"learned during games.*calibrate again"):
        Calibration.load(path)


@pytest.mark.slow
def test_the_device_observer_learns_only_what_the_referee_is_sure_of(board: tuple) -> None:
    setup, calibration, _ = board
    game = Game()
    observe = reader_observer(BoardReader(misjudged(calibration, 0.8)), StabilityGate(0.0, 1))
    moves = ["4a1", "4b2", "3c3", "3d4", "2a4", "2c1"]
    learned = []
    for ply, text in enumerate(moves, start=1):
        game.push_text(text)
        tops = {square_name(sq): game.position.top(sq) for sq in board_squares(4) if game.position.top(sq)}
        frame = setup.renderer.render(tops)
        assert observe(frame, ply - 0.5) is None  # the gate wants two agreeing frames
        assert observe(frame, float(ply)) is not None
        kinds = [EventType.MOVE] if ply != 3 else [EventType.MOVE, EventType.NEEDS_ATTENTION]
        learned.append(observe.judged([Event(kind) for kind in kinds], game.position))
    # ply 2 confirms ply 1; ply 3 doubts; ply 4 starts again, ply 5 confirms it, ply 6 ply 5
    assert learned == [False, True, False, False, True, True]
    assert observe.calibration.learned is not None and observe.calibration.learned.frames == 3
