"""A size one camera angle keeps misreading, learned away (issue 11, point 3): each square's
lean between a colour's sizes, learned from the sizes the referee was sure of there
(``learning.learned_leans``), bounded and reversible, and how the reader applies it
(``reader.leaned``)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from companion.errors import CompanionError
from companion.rules.square import board_squares, square_name
from companion.vision.calibration import Adaptation, Calibration
from companion.vision.learning import LEAN_BOUND, LabelledFrame, Learner, label, learned_leans, learned_less
from companion.vision.observation import Observation, class_index
from companion.vision.reader import BoardReader, leaned

NAMES = [square_name(sq) for sq in board_squares(4)]
C2 = NAMES.index("c2")
WHITE_3 = (0, 3)


def read_between(three: float, four: float, on: str = "c2", colour: int = 0) -> Observation:
    """A reading of a board with one cup on ``on``, split between its 3 and its 4."""
    observation = Observation.from_tops({on: (colour, 3)})
    row = NAMES.index(on)
    observation.probabilities[row] = 0.0
    observation.probabilities[row, class_index((colour, 3), 4)] = three
    observation.probabilities[row, class_index((colour, 4), 4)] = four
    return observation


def sure_frame(
    observation: Observation, tops: dict[str, tuple[int, int]], unknown: str = ""
) -> LabelledFrame:
    rows = {NAMES.index(name): top for name, top in tops.items()}
    doubt = frozenset({NAMES.index(unknown)} if unknown else ())
    return label(np.zeros((4, 4, 3), np.uint8), rows, observation, doubt)


def lean_after(frames: list[LabelledFrame]) -> np.ndarray | None:
    leans = None
    for frame in frames:
        leans = learned_leans(leans, frame, 16)
    return leans


def test_a_square_that_keeps_reading_a_size_large_leans_toward_the_smaller() -> None:
    """bench-18's c2: its white 3, read right at 0.66-0.86 on six sure boards, read as a 4 at
    0.67 on 10b and 0.57 on 11b once a white 4 and a black 4 stood beside it."""
    frames = [sure_frame(read_between(1.0 - p, p), {"c2": WHITE_3}) for p in (0.67, 0.57)]
    leans = lean_after(frames)
    assert leans is not None and leans[C2, 0] == pytest.approx(-LEAN_BOUND)
    assert np.all(np.delete(leans, C2, axis=0) == 0.0) and leans[C2, 1] == 0.0  # c2's white only
    later = read_between(0.3, 0.7)  # the 3 read as a 4 at 0.7
    assert later.top("c2") == (0, 4)
    mended = Observation(4, 4, leaned(later.probabilities, leans), False, False)
    assert mended.top("c2") == WHITE_3


def test_a_size_read_right_teaches_no_lean() -> None:
    """Only a cup read as its neighbour (or right by a hair, ``NEAR_TIE``) teaches. A largest
    cup's reading can only fall short of its size: learned from every cup, a white 4 read right
    at 0.995 leant its square toward the larger by 0.005 a frame without end; learned from every
    cup read below 0.99, bench-38's white 4s on a4 and d3, read right at 0.48-0.91, leant both
    squares to the cap toward the larger, and its referee, surer of d3, lost the game from the
    board it never saw stable (12 / 4 / 0, against 14 / 2 / 0 learning from near ties only)."""
    four_sure = sure_frame(read_between(0.005, 0.995), {"c2": (0, 4)})
    four_doubted = sure_frame(read_between(0.2, 0.8), {"c2": (0, 4)})
    assert lean_after([four_sure] * 200) is None and lean_after([four_doubted] * 20) is None
    three_misread = sure_frame(read_between(0.4, 0.6), {"c2": WHITE_3})
    once, then_right = lean_after([three_misread]), lean_after([three_misread, *[four_doubted] * 20])
    assert once is not None and then_right is not None and np.array_equal(once, then_right)


def test_nothing_is_learned_where_the_referee_is_unsure_or_the_reading_saw_no_such_cup() -> None:
    doubted = sure_frame(read_between(0.6, 0.4), {"c2": WHITE_3}, unknown="c2")
    assert doubted.sizes_seen == {} and learned_leans(None, doubted, 16) is None
    black_read = sure_frame(read_between(0.6, 0.4, colour=1), {"c2": WHITE_3})  # the other colour
    empty_read = sure_frame(Observation.from_tops({}), {"c2": WHITE_3})
    assert black_read.sizes_seen == {} and empty_read.sizes_seen == {}


def test_a_lean_is_bounded_and_a_clear_change_of_size_still_reads() -> None:
    """Labels that keep saying 3 where every reading says 4 lean c2 no further than the bound;
    a white 4 put there (a gobble) whose evidence is clear still reads as a 4, and whether the
    square holds a cup, and its colour, stay as read."""
    leans = lean_after([sure_frame(read_between(0.02, 0.98), {"c2": WHITE_3})] * 30)
    assert leans is not None and leans[C2, 0] == pytest.approx(-LEAN_BOUND)
    gobbled = read_between(0.03, 0.95)
    gobbled.probabilities[C2, 0] = 0.02  # empty
    after = leaned(gobbled.probabilities, leans)
    assert Observation(4, 4, after, False, False).top("c2") == (0, 4)
    assert after[C2, 0] == pytest.approx(0.02)
    assert after[C2, 1:5].sum() == pytest.approx(gobbled.probabilities[C2, 1:5].sum())
    assert np.allclose(np.delete(after, C2, axis=0), np.delete(gobbled.probabilities, C2, axis=0))


def test_a_sure_frame_read_the_other_way_leans_back() -> None:
    """A lean is a prior shift, not a lock: sure frames of a larger cup read as the smaller
    size there undo it."""
    leans = lean_after([sure_frame(read_between(0.4, 0.6), {"c2": WHITE_3})] * 6)
    assert leans is not None and leans[C2, 0] < 0.0
    for _ in range(6):
        leans = learned_leans(leans, sure_frame(read_between(0.6, 0.4), {"c2": (0, 4)}), 16)
    assert leans is not None and leans[C2, 0] > 0.0


@pytest.mark.slow
def test_the_reader_reads_with_the_leans_learned_saves_and_forgets_them(
    setup_for: Callable, tmp_path: Path
) -> None:
    setup = setup_for(7)
    calibration = setup.calibration
    frame = setup.renderer.render({"a1": (0, 3), "c2": (0, 2), "d4": (1, 4)})
    plain = BoardReader(calibration).read(frame)
    leans = np.zeros((16, 2))
    leans[C2, 0], leans[NAMES.index("d4"), 1] = -LEAN_BOUND, LEAN_BOUND
    learned = Adaptation(calibration.cups, calibration.pixels, calibration.background, 1, size_leans=leans)
    reader = BoardReader(dataclasses.replace(calibration, learned=learned))
    assert np.allclose(reader.read(frame).probabilities, leaned(plain.probabilities, leans))
    path = tmp_path / "board.json"
    reader.calibration.save(path)
    loaded = Calibration.load(path).learned
    assert loaded is not None and np.array_equal(loaded.size_leans, leans)  # type: ignore[arg-type]
    data = json.loads(path.read_text())
    data["learned"]["size_leans"] = [[0.0, 0.0]] * 9  # not one lean per square
    path.write_text(json.dumps(data))
    with pytest.raises(CompanionError, match=r"size leans.*calibrate again"):
        Calibration.load(path)
    del data["learned"]["size_leans"]  # a file from before the leans: none learned
    path.write_text(json.dumps(data))
    assert Calibration.load(path).learned.size_leans is None  # type: ignore[union-attr]
    Learner(reader).forget()
    assert np.array_equal(reader.read(frame).probabilities, plain.probabilities)


@pytest.mark.slow
def test_going_back_to_the_calibrations_sizes_drops_the_leans_learned_with_them(setup_for: Callable) -> None:
    """A lean corrects the radii in use on its square (``learned_leans``): going back on the
    learned sizes (``learning.learned_less``) drops it with them, and nothing else does."""
    calibration = setup_for(7).calibration
    leans = np.zeros((16, 2))
    leans[C2, 0] = -LEAN_BOUND
    bigger = calibration.cups.with_radius(0, 3, calibration.cups.radii[0][2] * 1.05)
    learned = Adaptation(bigger, calibration.pixels, calibration.background, 3, size_leans=leans)
    board, colours, sizes, alone = learned_less(dataclasses.replace(calibration, learned=learned))
    assert sizes.learned is not None and sizes.learned.cups is calibration.cups
    assert sizes.learned.size_leans is None
    for kept in (board, colours):
        assert kept.learned is not None and kept.learned.size_leans is leans
    assert alone.learned is None
