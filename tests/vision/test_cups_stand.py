"""A cup stands where its base is, whatever the lamp: what it explains, and what is learned
from it, are placed there (``BoardReader._standing``).

The region cue places a cup where its colour model calls pixels cup. Under a new low lamp a
pale cup's lit wall reads as board and its shaded side as cup, so the region cue places it
toward one side, up to its whole search away; the part of its body left outside hid the
board's grid lines and read as a hand, and a still board under the new lamp was never learned
from. Its base circle, fitted on the board plane from the camera pose, does not move with the
light. The frames are the vision bench's bench-24 (natural cups on grey-washed wood, a strong
low lamp from frame 16 on; ``tests/data/lamp/bench-24``): calibrated under the first lamp,
read under the second.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.device.vision_link import reader_observer
from companion.vision.gate import StabilityGate
from companion.vision.marks import HIDDEN_MM2
from companion.vision.reader import STILL_SECONDS, BoardReader, moderate
from companion.vision.sources import read_image
from tests.shared_calibrations import frames_calibration, square_row

pytestmark = pytest.mark.slow  # a calibration and a few reads: about 4 s of CPU

LAMP = Path(__file__).resolve().parents[1] / "data" / "lamp" / "bench-24" / "frames"
FPS = 5.0


def frame(name: str) -> np.ndarray:
    return read_image(LAMP / f"{name}.jpg")


row = square_row


def test_a_pale_cup_under_a_new_low_lamp_stands_where_its_base_is() -> None:
    """16b, the first board under the new lamp: the white 4 on b1 is matched a 3, 10 mm toward
    its lit side; where it stands is within a few mm of its square's centre, as a 4."""
    calibration = frames_calibration(LAMP)
    reading = BoardReader(calibration).read_details(frame("16b-move"))
    scale = calibration.view.scale
    matched = reading.matches[row("b1")]
    assert reading.standing is not None
    standing = reading.standing[row("b1")]
    assert np.hypot(matched.dy, matched.dx) / scale >= 8.0  # the lamp moved the region cue
    assert np.hypot(standing.dy, standing.dx) / scale <= 3.0
    assert standing.size == 4


@pytest.mark.parametrize("name", ["16b-move", "19b-move"])
def test_the_marks_a_pale_cup_stands_on_are_not_hidden(name: str) -> None:
    """The grid lines under the shaded side of the white 4s read hidden (280 and 175 mm² when
    the real outline was placed where the region cue put the cup): now the cups explain them,
    and what the frame shows is what a still shadow or a lamp can give, short of a hand."""
    reading = BoardReader(frames_calibration(LAMP)).read_details(frame(name))
    assert reading.hidden_area_mm2 < HIDDEN_MM2 / 4
    assert moderate(reading.cover)


def test_a_hand_under_the_new_lamp_is_still_flagged() -> None:
    reading = BoardReader(frames_calibration(LAMP)).read_details(frame("21a-hand"))
    assert reading.observation.occluded
    assert reading.hidden_area_mm2 > HIDDEN_MM2
    assert not moderate(reading.cover)


def test_the_first_still_board_under_the_new_lamp_teaches_the_lamp() -> None:
    """Held still with no referee (``learning.relit``), 16b's cups' new shadows are learned, and
    the board then reads hand-free on one frame."""
    calibration = frames_calibration(LAMP)
    reader = BoardReader(calibration)
    observe = reader_observer(reader, StabilityGate(), clock=lambda: 0.0)
    image = frame("16b-move")
    for k in range(int((STILL_SECONDS + 2 / FPS) * FPS) + 1):
        observe(image, k / FPS)
    learned = reader.calibration.learned
    assert learned is not None and learned.shadows is not None
    assert not BoardReader(reader.calibration).read(image).occluded


def test_a_base_fit_stopped_at_its_search_edge_places_no_cup() -> None:
    """A base whose best shift lies on its search's edge found no maximum there: the cup stays
    where the region cue placed it (bench-26: a white 4's base pinned in the corner at 6, 6 mm,
    its shadow cast from there, flagged a hand-free board)."""
    calibration = frames_calibration(LAMP)
    edges = BoardReader(calibration).edges
    assert edges is not None
    reach = edges.base_reach
    assert edges.found(np.array([reach - 1, 1 - reach]))
    assert not edges.found(np.array([reach, 0]))
    assert not edges.found(np.array([0, -reach]))
