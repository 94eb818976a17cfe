"""Under a lamp moved since calibration the region cue's size weighs less against the edges'
(``reader.LAMP_REGION_TRUST``).

The region cue sizes a cup by where the colour model stops calling pixels cup, against the
apparent radii learned under the calibration's lamp. A new lamp moves that edge: on the vision
bench's bench-24 (natural cups on grey-washed wood, a strong low lamp from frame 16 on;
``tests/data/lamp/bench-24``) the shade at a dark cup's foot reads as cup, its black cups fit
1.6-2.5 mm larger than their calibration radii, and the black 2 on c2 of 24b read a 3 (0.61).
Its base circle, placed by the camera pose, reads the 2 (0.24 against the 3's 0.19), as does its
rim. Calibrated under the first lamp, read under the second.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.vision.observation import class_index
from companion.vision.pixels import lit_unevenly
from companion.vision.reader import LAMP_REGION_TRUST, BoardReader
from companion.vision.sources import read_image
from tests.shared_calibrations import frame_read, frame_truth, frames_calibration, square_row

LAMP = Path(__file__).resolve().parents[1] / "data" / "lamp" / "bench-24" / "frames"


def test_a_gain_is_even_light_and_a_field_is_a_lamp_moved() -> None:
    """One gain per channel (exposure, white balance) leaves the cups' look against the wood;
    a field over the board (``Background.light_field``) is a lamp moved."""
    assert not lit_unevenly(np.array([0.3, -0.2, 0.25]))
    assert lit_unevenly(np.zeros((8, 8, 3), np.float32))


@pytest.mark.slow  # a calibration and a read: about 2 s of CPU
def test_a_black_2_under_the_new_lamp_reads_as_a_2() -> None:
    """bench-24's 24b: the black 2 on c2, its foot's shade read as cup under the new lamp, reads
    as a black 2 (before the fix: a black 3 at 0.61), and no square reads otherwise than the
    truth (on main c2 alone was wrong)."""
    calibration, observation = frame_read(LAMP, "24b-move")
    k = square_row("c2")
    assert int(np.argmax(observation.probabilities[k])) == class_index((1, 2), calibration.max_piece)
    truth = frame_truth(LAMP, "24b-move")
    assert {sq: top for sq, top in observation.tops().items() if top is not None} == truth


@pytest.mark.slow
def test_the_new_lamp_is_seen_as_light_changed_unevenly() -> None:
    """The frames under bench-24's new lamp are lit unevenly against the calibration's board
    (the region cue then weighs at most ``LAMP_REGION_TRUST``); its reference frame, under the
    calibration's own light, is not."""
    assert 0.0 < LAMP_REGION_TRUST < 1.0
    reader = BoardReader(frames_calibration(LAMP))
    for name, moved in (("16b-move", True), ("24b-move", True), ("01-reference", False)):
        light = reader.background.seen(reader.rectified(read_image(LAMP / f"{name}.jpg")))[2]
        assert lit_unevenly(light) is moved
