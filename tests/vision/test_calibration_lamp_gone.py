"""Under a light changed since calibration, the calibration lamp's shadows are not taken for
board at first sight (``reader.lamp_lit``): that lamp no longer throws them.

The bench's bench-31 (``tests/data/shadows/bench-31``: natural cups on walnut in a dim warm
room, the light changed from frame 07 on) calibrates a lamp from its reference frame. On
11a-hand a black 4 held over the margin lay where that lamp would throw d2's white 4's
shadow; lifted as that shadow it read as board and the hand was missed."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.learning import LabelledFrame, Learner
from companion.vision.reader import BoardReader, lamp_lit
from companion.vision.shadows import CastingCup, lit_otherwise
from companion.vision.sources import read_image
from tests.shared_calibrations import LAMP_GONE, frame_truth, frames_calibration, square_row


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    calibration = frames_calibration(LAMP_GONE)
    assert calibration.shadows is not None  # the calibration learned a lamp
    return BoardReader(calibration)


def changed_light(reader: BoardReader, name: str) -> np.ndarray:
    """Frame ``name``, checked to show another light than the calibration's."""
    image = read_image(LAMP_GONE / f"{name}.jpg")
    assert lit_otherwise(reader.background, reader.rectified(image))
    return image


def test_a_hand_holding_a_cup_where_the_calibration_lamp_threw_a_shadow_is_flagged(
    reader: BoardReader,
) -> None:
    reading = reader.read_details(changed_light(reader, "11a-hand"))
    assert reading.observation.occluded
    assert reading.band_area_mm2 > 150.0  # the held cup over the margin, not board


def test_after_the_board_is_relit_by_learning_the_calibration_lamp_still_casts_nothing() -> None:
    """Learning from a board under the new light relights the board in use but keeps the
    calibration's lamp (no lamp learned again): the frame's light is the board's now, not the
    lamp's, and the hand stays flagged."""
    reader = BoardReader(frames_calibration(LAMP_GONE))
    board = read_image(LAMP_GONE / "10b-move.jpg")
    reading = reader.read_details(board)
    tops = {square_row(name): top for name, top in frame_truth(LAMP_GONE, "10b-move").items()}
    Learner(reader).learn(LabelledFrame(reader.rectified(board), tops, fits=reading.fits))
    learned = reader.calibration.learned
    assert learned is not None and learned.shadows is None  # the board relit, the lamp kept
    hand = read_image(LAMP_GONE / "11a-hand.jpg")
    assert not lit_otherwise(reader.background, reader.rectified(hand))  # the board's light
    assert reader.read(hand).occluded


def test_a_board_under_the_changed_light_still_reads_hand_free(reader: BoardReader) -> None:
    assert not reader.read(changed_light(reader, "10b-move")).occluded


def test_the_calibration_lamp_casts_only_under_its_own_light() -> None:
    cups = [CastingCup(x=26.0, y=34.0, radius=22.0, height=44.0)]
    gains = np.zeros(3, np.float32)  # the margin's light field: one gain per channel
    assert lamp_lit(cups, gains) == cups
    assert lamp_lit(cups, gains + 0.2) == []  # the light changed
    assert lamp_lit(cups, None) == cups  # a lamp learned during the game, under the light now
