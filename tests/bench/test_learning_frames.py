"""Learning during the game on the committed photo-like frames (``tests/data/bench``): a board
whose calibration misjudged a size reads right again once the reader has learned from the
first half of the game's boards, labelled as a sure referee labels them; a calibration that was
right stays right. Nothing here renders."""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest

from companion.rules.square import board_squares, square_name
from companion.vision.calibration import Calibration
from companion.vision.learning import Learner, label
from companion.vision.reader import BoardReader
from tests.shared_calibrations import BENCH, bench_calibration

SCENE = BENCH / "bench-08"
NAMES = [square_name(sq) for sq in board_squares(4)]

Board = tuple[np.ndarray, dict[int, tuple[int, int]]]


def boards() -> list[Board]:
    """Every board after a move, with its tops by row."""
    found = []
    for path in sorted((SCENE / "frames").glob("*b-move.jpg")):
        truth = json.loads(path.with_suffix(".json").read_text())["board"]
        tops = {
            row: (0 if truth[name][-1][0] == "white" else 1, int(truth[name][-1][1]))
            for row, name in enumerate(NAMES)
            if truth.get(name)
        }
        found.append((cv2.imread(str(path)), tops))
    return found


def wrong_squares(reader: BoardReader, shown: list[Board]) -> int:
    total = 0
    for image, tops in shown:
        observation = reader.read(image)
        total += sum(observation.top(row) != tops.get(row) for row in range(len(NAMES)))
    return total


def learned_then_read(calibration: Calibration, shown: list[Board]) -> tuple[int, int]:
    """Wrong squares over the second half of the boards, before and after learning the first."""
    half = len(shown) // 2
    before = wrong_squares(BoardReader(calibration), shown[half:])
    reader = BoardReader(calibration)
    learner = Learner(reader)
    for image, tops in shown[:half]:
        learner.learn(label(reader.rectified(image), tops, reader.read(image)))
    return before, wrong_squares(reader, shown[half:])


@pytest.fixture(scope="module")
def scene() -> tuple[Calibration, list[Board]]:
    return bench_calibration(SCENE.name), boards()


@pytest.mark.slow
@pytest.mark.parametrize("edges", [False, True], ids=["colours alone", "with the edge cue"])
def test_a_misjudged_size_is_learned_away(scene: tuple[Calibration, list[Board]], edges: bool) -> None:
    """Learning moves the colours' models (the edge cue's outline is geometry, not learned).
    Colours alone: 16 wrong squares before, 4 after. With the edge cue: 14 before, 5 after:
    the misjudged radius leaves b4's white 3 a near tie between 3 and 2 that both edges settle
    the wrong way, twice."""
    calibration, shown = scene
    if not edges:
        calibration = dataclasses.replace(calibration, outline=None)
    cups = calibration.cups
    misjudged = dataclasses.replace(calibration, cups=cups.with_radius(0, 3, cups.radii[0][2] * 0.8))
    before, after = learned_then_read(misjudged, shown)
    assert before >= 10  # the misjudged white 3s read as 2s
    assert after <= (before // 2 if edges else before // 4)


@pytest.mark.slow
def test_a_right_calibration_stays_right(scene: tuple[Calibration, list[Board]]) -> None:
    calibration, shown = scene
    before, after = learned_then_read(calibration, shown)
    assert after <= before + 1
