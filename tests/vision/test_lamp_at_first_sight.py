"""A new lamp read at first sight: the cups' shadows fitted to the frame that shows them.

The vision bench's bench-24 (``tests/data/lamp/bench-24``) is calibrated under soft light (no
shadow model: its shadows hide under the cups) and from frame 16 on lit by a strong low lamp
whose long shadows cross the margin and the grid. Every board under it read as covered until
the picture had held still 1.5 s (``learning.relit``). Where a shadow falls is geometry: the
reader now fits the lamp to how the board darkened beside the cups of the very frame it reads
(``BoardReader.lamp_seen``), when the margin says the light changed, and judges the frame again
with those shadows (``BoardReader._under_frame_lamp``). A hand keeps its colour and hides the
board's marks: it is flagged whatever lamp is fitted.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.vision.calibration import calibrate
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from companion.vision.synth import SceneRenderer, random_tops
from tests.shared_calibrations import frames_calibration

pytestmark = pytest.mark.slow  # three calibrations and some twenty reads: about 11 s (loaded machine)

LAMP = Path(__file__).resolve().parents[1] / "data" / "lamp" / "bench-24" / "frames"


def frame(name: str) -> np.ndarray:
    return read_image(LAMP / f"{name}.jpg")


@pytest.mark.parametrize("name", ["16b-move", "19b-move"])
def test_a_board_under_a_new_low_lamp_reads_hand_free_at_first_sight(name: str) -> None:
    """16b (the first board under the lamp: 148 mm² of the margin, 276 of the grid, the fist
    test 0.22 on main) and 19b (452 mm² of the margin, fist 0.68), each read once by a fresh
    reader, no time to hold still."""
    calibration = frames_calibration(LAMP)
    assert calibration.shadows is None  # the calibration's soft light taught no lamp
    reading = BoardReader(calibration).read_details(frame(name))
    assert not reading.observation.occluded
    assert reading.still_seconds == 0.0
    assert reading.band_area_mm2 == 0


def test_the_lamp_fitted_to_a_board_is_the_lamp_that_moved() -> None:
    """The lamp fitted to 16b throws the cups' shadows one way, more than a cup's height long,
    as the lamp in bench-24's scene (low, to one side) does."""
    calibration = frames_calibration(LAMP)
    reader = BoardReader(calibration)
    image = frame("16b-move")
    reading = reader.read_details(image)
    features, _ = reader.background.features(reader.rectified(image))
    lamp = reader.lamp_seen(features, reading.matches, reading.standing)
    assert lamp is not None
    assert max(np.hypot(*lamp.along), lamp.reach) > 1.0
    assert lamp.depth < -0.5


def test_a_hand_under_the_new_lamp_stays_flagged_with_the_lamp_known() -> None:
    """21a-hand read after the boards taught the reader the lamp (``_lamp``, tried first)."""
    reader = BoardReader(frames_calibration(LAMP))
    for name in ("16b-move", "19b-move"):
        assert not reader.read(frame(name)).occluded
    assert reader.read(frame("21a-hand")).occluded


def test_hands_under_a_lamp_changed_since_a_soft_calibration_are_flagged() -> None:
    """A synthetic set-up calibrated under soft overhead light, then lit by a low lamp (20°
    up): its boards read hand-free, the reader fits the lamp, and an arm, a lone fist (which
    hides no marks: flagged by its colour alone) and a steep arm are all still flagged."""
    soft = {"light_dir": lamp_toward(80.0, 0.4), "penumbra_mm": 5.0}
    renderer = SceneRenderer(2, look_overrides=soft)
    calibration = calibrate(renderer.empty(), renderer.reference())
    assert calibration.shadows is None
    renderer.look.light_dir = lamp_toward(20.0, 2.6)
    renderer.look.direct, renderer.look.penumbra_mm = 1.1, 2.0
    reader = BoardReader(calibration)
    rng = np.random.default_rng(2)
    assert not any(reader.read(renderer.render(random_tops(rng, fill=0.6))).occluded for _ in range(4))
    for kind in ("arm", "fist", "steep"):
        assert reader.read(renderer.render(random_tops(rng), hand=kind)).occluded, kind
    assert reader.frame_lamp is not None  # the hands were judged with a lamp fitted too


def test_a_board_the_lamp_does_not_clear_is_fitted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame still flagged under the lamp (here a lone fist, which hides no marks) read again
    and again, as the device reads a board while it stands: its lamp is fitted once for the
    same cups under the same light, not on every read."""
    soft = {"light_dir": lamp_toward(80.0, 0.4), "penumbra_mm": 5.0}
    renderer = SceneRenderer(2, look_overrides=soft)
    reader = BoardReader(calibrate(renderer.empty(), renderer.reference()))
    renderer.look.light_dir = lamp_toward(20.0, 2.6)
    renderer.look.direct, renderer.look.penumbra_mm = 1.1, 2.0
    fist = renderer.render(random_tops(np.random.default_rng(5), fill=0.6), hand="fist")
    fits = []
    lamp_seen = BoardReader.lamp_seen
    monkeypatch.setattr(BoardReader, "lamp_seen", lambda self, *a: fits.append(1) or lamp_seen(self, *a))
    readings = [reader.read_details(fist) for _ in range(3)]
    assert all(r.observation.occluded and r.hidden_area_mm2 == 0 for r in readings)
    assert len(fits) == 1


def lamp_toward(elevation_deg: float, azimuth: float) -> np.ndarray:
    """A unit vector toward a lamp this high above the table, from this direction."""
    e = np.radians(elevation_deg)
    return np.array([np.cos(azimuth) * np.cos(e), np.sin(azimuth) * np.cos(e), np.sin(e)])
