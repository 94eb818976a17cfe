"""A board relit under a new lamp measures the light on the lit wood, and takes the board's own
shade as the frame shows it lifted (``learning.board_shade``, ``learning.lifted_shade``).

On the vision bench's bench-38 the reserve stacks stood beside the board at calibration, their
shadows across the right margin under a low lamp at one side; a high warm lamp from 11b on lifts
that shade far more than the lit wood (1.22 against 0.43 in log on 11b). Averaged together into
one light's change, the relight overshot the lit margin beside the shade into the 255 ceiling
and left the shade in the board, and every board after read the margin as an arm (one step
learned from 11b: 14b's band 1,780 mm²). ``11b-move.jpg``, ``12a-hand.jpg`` and ``14b-move.jpg``
are bench-38's first board under the new lamp, the hand over the board after it and the board
three plies on, as rendered (bench-data, 2026-11-30, not re-encoded)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

from companion.rules.square import board_squares, parse_square
from companion.vision.learning import Learner, board_shade, label, lifted_shade
from companion.vision.occlusion import BAND_OCCLUDED_MM2
from companion.vision.reader import BoardReader, Reading
from companion.vision.sources import read_image
from tests.shared_calibrations import frames_calibration

ALONG_RANKS = Path(__file__).resolve().parents[1] / "data" / "calibration" / "along-ranks"
WHITE, BLACK = 0, 1
ELEVENTH = {"a1": (BLACK, 3), "a3": (BLACK, 4), "a4": (WHITE, 4), "c4": (WHITE, 3), "d3": (WHITE, 4)}
"""11b's tops (its truth): the board learned from, the first under the new lamp."""
SCALE = 2.0  # pixels per mm of the synthetic boards


def frame(name: str) -> np.ndarray:
    return read_image(ALONG_RANKS / f"{name}.jpg")


@cache
def learned_under_the_new_lamp() -> BoardReader:
    """bench-38's reader having learned one step from 11b, labelled with its truth."""
    reader = BoardReader(frames_calibration(ALONG_RANKS))
    squares = board_squares(4)
    tops = {squares.index(parse_square(sq)): top for sq, top in ELEVENTH.items()}
    board = frame("11b-move")
    Learner(reader).learn(label(reader.rectified(board), tops, reader.read(board)))
    return reader


def read(name: str) -> Reading:
    return learned_under_the_new_lamp().read_details(frame(name), 0.0)


@pytest.mark.slow  # a 1280x960 calibration, a learning step and two reads: about 3 s
def test_a_board_learned_under_the_new_lamp_reads_the_margin_as_board() -> None:
    """The relit board holds the light the frame shows on the lit margin, and the shade gone:
    14b's margin reads no arm (1,780 mm² with the shade averaged into the light's change)."""
    reading = read("14b-move")
    assert reading.band_area_mm2 < BAND_OCCLUDED_MM2
    assert not reading.observation.occluded


@pytest.mark.slow
def test_a_hand_under_the_new_lamp_is_still_a_hand() -> None:
    """The hand over the board after 11b, read with the board learned there: its sleeve across
    the margin (some 2,000 mm²), its fist and the marks it hides."""
    reading = read("12a-hand")
    assert reading.observation.occluded
    assert reading.band_area_mm2 > 10 * BAND_OCCLUDED_MM2


def test_the_boards_shade_is_a_shadow_not_the_lamps_fall_off() -> None:
    """A shadow 0.6 deep in log across a board whose light falls off by 0.3 from side to side:
    the shadow, grown by its edge, is the board's shade; the fall-off is not."""
    width = 400
    fall_off = np.linspace(0.0, -0.3, width, dtype=np.float32)[None, :].repeat(300, axis=0)
    level = fall_off.copy()
    level[100:160, 150:250] -= 0.6
    board = np.repeat((180 * np.exp(level))[..., None], 3, axis=2).astype(np.uint8)
    shaded = board_shade(board, SCALE)
    assert shaded[130, 200] and shaded[101, 200]
    assert not shaded[20, 10] and not shaded[20, width - 10] and not shaded[280, width - 10]
    assert shaded.mean() < 0.1


def test_the_shade_is_lifted_where_the_frame_shows_it_lifted_never_deepened() -> None:
    """Inside the board's shade the light's change is the frame's own where it lifts the shade
    more than the lit wood's change does (a shadow at calibration gone), and the lit wood's
    where the frame is darker there (a cup's new shadow); out of the shade, or with no bare
    shade in reach, the lit wood's change stands."""
    shape = (200, 200)
    change = np.full((*shape, 3), 0.4, np.float32)
    diff = np.full((*shape, 3), 0.4, np.float32)
    shaded = np.zeros(shape, bool)
    shaded[50:150, 20:180] = True
    diff[50:150, 20:100] = 1.2  # the shade gone
    diff[50:150, 100:180] = -0.2  # a cup's shadow falling into it
    seen = shaded.copy()
    seen[50:150, 170:180] = False  # under a cup: nothing seen there
    lifted = lifted_shade(change, diff, seen, shaded, SCALE)
    assert np.allclose(lifted[100, 50], 1.2)
    assert np.allclose(lifted[100, 140], 0.4)
    assert np.allclose(lifted[20, 50], 0.4)  # out of the shade
    lit_wood = np.zeros(shape, bool)
    assert np.allclose(lifted_shade(change, diff, lit_wood, shaded, SCALE), change)
