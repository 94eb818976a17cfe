"""A cup's colour under a lamp moved since calibration (``pixels.LAMP_BRIGHTNESS_SPREAD``).

How bright a cup's wall is against the wood is the lamp's doing: the vision bench's bench-03
(natural cups on maple, ``tests/data/bench/bench-03``) is calibrated under a soft light and its
lamp moves behind the cups from frame 07 on. The white 4 on b4 then shows the camera its shaded
wall, 0.41-0.45 darker than the reference white cups, nearer the black model's brightness than
the white's (whose spread under the soft light is 0.14), while its colour is the white cups':
it read as a black 4 on five boards (0.51-0.57 before the fix), and the white 4 moved to c4
on 13b as a black 4 too (0.34). On a frame lit unevenly since the board in use, the colour vote
widens each colour's brightness spread to ``LAMP_BRIGHTNESS_SPREAD``, so the colour axes decide
where brightness no longer can.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.observation import class_index
from companion.vision.pixels import LAMP_BRIGHTNESS_SPREAD, Gaussian, under_a_moved_lamp
from tests.shared_calibrations import BENCH, frame_read, frame_truth, square_row

FRAMES = BENCH / "bench-03" / "frames"


def test_only_the_brightness_spread_widens() -> None:
    """The means and the colour axes stay; a brightness spread already wider is left alone."""
    narrow = Gaussian(
        np.array([-0.08, -0.03, -0.05]),
        np.array([[0.02, 0.002, 0.003], [0.002, 0.002, 0.001], [0.003, 0.001, 0.002]]),
    )
    widened = under_a_moved_lamp(narrow)
    assert np.array_equal(widened.mean, narrow.mean)
    assert widened.cov[0, 0] == pytest.approx(LAMP_BRIGHTNESS_SPREAD**2)
    assert np.array_equal(widened.cov[1:, :], narrow.cov[1:, :])
    assert np.array_equal(widened.cov[:, 1:], narrow.cov[:, 1:])
    wide = Gaussian(narrow.mean, narrow.cov + np.diag([0.5, 0.0, 0.0]))
    assert np.array_equal(under_a_moved_lamp(wide).cov, wide.cov)


@pytest.mark.slow  # a calibration and three reads: about 3 s of CPU
@pytest.mark.parametrize(("frame", "square"), [("07b-move", "b4"), ("09b-move", "b4"), ("13b-move", "c4")])
def test_a_white_4_in_its_shade_reads_white(frame: str, square: str) -> None:
    """Under the moved lamp the white 4 reads as a white 4 (before the fix: a black 4 at 0.56,
    0.55 and 0.34), and every square of the board as the truth."""
    calibration, observation = frame_read(FRAMES, frame)
    row = observation.probabilities[square_row(square)]
    assert int(np.argmax(row)) == class_index((0, 4), calibration.max_piece)
    truth = frame_truth(FRAMES, frame)
    assert {sq: top for sq, top in observation.tops().items() if top is not None} == truth


@pytest.mark.slow
def test_the_black_cups_keep_their_colour() -> None:
    """The black 4s under the same lamp stay black and sure of it (0.9 of their cup
    probability or more; the black 4s on a1, b1 and a3 of 07b are 0.93-0.99 black)."""
    calibration, observation = frame_read(FRAMES, "07b-move")
    size = calibration.max_piece
    for square in ("a1", "b1", "a3"):
        p = observation.probabilities[square_row(square)]
        assert p[1 + size :].sum() / p[1:].sum() >= 0.9
