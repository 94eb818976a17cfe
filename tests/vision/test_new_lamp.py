"""A lamp changed during the game is learned without the referee: once the picture has held
still, the new lamp's shadows are learned from the board around the cups the reader found
(``learning.relit``, ``ObserverLearning.seen``); a hand held still is not learned as light,
and under the calibration's own light nothing is relearned."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from companion.device.vision_link import reader_observer
from companion.errors import CompanionError
from companion.rules.square import board_squares, square_name
from companion.vision.calibration import Adaptation, Calibration, calibrate
from companion.vision.gate import StabilityGate
from companion.vision.geometry import BoardLayout
from companion.vision.learning import Learner, ObserverLearning
from companion.vision.marks import HIDDEN_MM2
from companion.vision.reader import STILL_SECONDS, BoardReader, moderate
from companion.vision.shadows import ShadowModel
from companion.vision.synth import SceneRenderer, Top

pytestmark = pytest.mark.slow  # a calibration and 10-20 reads each: about 5 s of CPU in all

TOPS: dict[str, Top] = {
    "a1": (0, 3),
    "b2": (1, 3),
    "c3": (0, 2),
    "d4": (1, 4),
    "a4": (1, 1),
    "c1": (0, 4),
    "b4": (0, 4),
    "d2": (1, 2),
}
NAMES = [square_name(sq) for sq in board_squares(4)]
FPS = 5.0
SEED = 13
LOW_LAMP_DEG = (16.0, 161.0)
"""Elevation and azimuth of the evening's lamp: low, from the side (shadows 3.5 cup heights)."""


def lamp(elevation_deg: float, azimuth_deg: float) -> np.ndarray:
    e, a = np.radians(elevation_deg), np.radians(azimuth_deg)
    return np.array([np.cos(a) * np.cos(e), np.sin(a) * np.cos(e), np.sin(e)])


@pytest.fixture(scope="module")
def evening() -> tuple[SceneRenderer, Calibration]:
    """Calibrated under a lamp nearly overhead (no cast shadows to learn), then the lamp is
    changed for a low, brighter one from the side and the room's own light dims."""
    scene = SceneRenderer(seed=SEED, look_overrides={"light_dir": lamp(80.0, 0.0)})
    calibration = calibrate(scene.empty(), scene.reference(), layout=BoardLayout(size=4), max_piece=4)
    scene.look.light_dir = lamp(*LOW_LAMP_DEG)
    scene.look.direct = 1.2
    scene.look.ambient = scene.look.ambient * 0.6
    return scene, calibration


def wrong(reader: BoardReader, image: np.ndarray) -> int:
    observation = reader.read(image)
    return sum(observation.top(name) != TOPS.get(name) for name in NAMES)


def shown_still(calibration: Calibration, image: np.ndarray, seconds: float) -> BoardReader:
    """A reader after the device's observer was shown ``image`` for ``seconds`` with no referee."""
    reader = BoardReader(calibration)
    observe = reader_observer(reader, StabilityGate(), clock=lambda: 0.0)
    for k in range(int(seconds * FPS) + 1):
        observe(image, k / FPS)
    return reader


def test_a_new_low_lamp_is_learned_from_a_still_board_within_seconds(
    evening: tuple[SceneRenderer, Calibration],
) -> None:
    scene, calibration = evening
    assert calibration.shadows is None  # nothing to learn under the overhead lamp
    image = scene.render(TOPS)
    assert wrong(BoardReader(calibration), image) >= 2  # the new shadows misread some squares

    reader = shown_still(calibration, image, STILL_SECONDS + 2 / FPS)
    learned = reader.calibration.learned
    assert learned is not None and learned.shadows is not None
    angle = np.degrees(np.arctan2(learned.shadows.along[1], learned.shadows.along[0]))
    away = LOW_LAMP_DEG[1] + 180.0  # shadows fall away from the lamp
    assert abs((angle - away + 180.0) % 360.0 - 180.0) < 15.0
    assert wrong(reader, image) == 0
    assert learned.frames == 0  # no referee was asked: no cup's pixels were learned
    assert reader.calibration.shadows is None  # the calibration's own model is kept
    Learner(reader).forget()
    assert reader.models.shadows is None


def test_the_board_not_held_still_long_enough_teaches_nothing(
    evening: tuple[SceneRenderer, Calibration],
) -> None:
    scene, calibration = evening
    reader = shown_still(calibration, scene.render(TOPS), STILL_SECONDS - 2 / FPS)
    assert reader.calibration.learned is None


@pytest.mark.parametrize("hand", ["arm", "fist"])
def test_a_hand_held_still_over_the_board_is_not_learned_as_light(
    evening: tuple[SceneRenderer, Calibration], hand: str
) -> None:
    """An arm across the margin (it hides a marker here) and a fist over the grid and the
    margin (every marker in view: only its not-board evidence tells it from light). For the
    fist a lamp is learned and tried: it does not explain the patch, so it is given back."""
    scene, calibration = evening
    image = scene.render(TOPS, hand=hand)
    reader = shown_still(calibration, image, 3.0)
    assert reader.calibration.learned is None
    assert reader.read(image, 3.2).occluded


def test_under_the_calibration_light_nothing_is_relearned() -> None:
    scene = SceneRenderer(seed=SEED)
    calibration = calibrate(scene.empty(), scene.reference(), layout=BoardLayout(size=4), max_piece=4)
    reader = shown_still(calibration, scene.render(TOPS), 3.0)
    assert reader.calibration.learned is None


def lamp_changed_to(elevation_deg: float, direct: float, ambient: float) -> tuple[SceneRenderer, Calibration]:
    """Calibrated under the overhead lamp, then lit by a side lamp ``elevation_deg`` high."""
    scene = SceneRenderer(seed=SEED, look_overrides={"light_dir": lamp(80.0, 0.0)})
    calibration = calibrate(scene.empty(), scene.reference(), layout=BoardLayout(size=4), max_piece=4)
    scene.look.light_dir = lamp(elevation_deg, LOW_LAMP_DEG[1])
    scene.look.direct = direct
    scene.look.ambient = scene.look.ambient * ambient
    return scene, calibration


def test_shadows_as_large_as_a_hand_are_learned_once_the_new_lamp_explains_them() -> None:
    """A lower lamp (13 degrees): its long shadows over the margin read as a hand's patch at
    first sight (not ``moderate``), the board's marks all in view. The lamp learned from the
    still board explains them: it is kept, and the board reads right and uncovered."""
    scene, calibration = lamp_changed_to(13.0, 1.5, 0.5)
    image = scene.render(TOPS)
    first = BoardReader(calibration).read_details(image)
    assert first.observation.occluded and not moderate(first.cover)
    assert first.cover.hidden_mm2 <= HIDDEN_MM2

    reader = shown_still(calibration, image, STILL_SECONDS + 2 / FPS)
    assert reader.calibration.learned is not None and reader.models.shadows is not None
    assert not reader.read(image, 2.0).occluded
    assert wrong(reader, image) == 0


def test_the_frame_the_lamp_is_learned_on_is_handed_on_as_read_with_it() -> None:
    """The gate takes the reading ``ObserverLearning.seen`` returns: on the frame the new lamp
    is learned on, the frame as the lamp kept reads it (uncovered), not as the old one did, so
    the board's stable period starts on that frame and not a frame later."""
    scene, calibration = lamp_changed_to(13.0, 1.5, 0.5)
    image = scene.render(TOPS)
    reader = BoardReader(calibration)
    learning = ObserverLearning(reader)
    for k in range(int((STILL_SECONDS + 2 / FPS) * FPS) + 1):
        reading = reader.read_details(image, k / FPS)
        handed = learning.seen(image, reading)
        if reader.calibration.learned is not None:
            break
    assert reader.calibration.learned is not None  # the lamp was learned on this frame
    assert reading.observation.occluded and not handed.observation.occluded
    assert handed.observation.timestamp == reading.observation.timestamp


def test_the_lamp_learned_again_drops_the_size_leans(evening: tuple[SceneRenderer, Calibration]) -> None:
    """A square's size lean corrects the radii it was learned against (``learned_leans``);
    the fits those radii took in are emptied when the lamp is learned again, and so is it."""
    scene, calibration = evening
    leans = np.full((16, 2), 0.5)
    learned = Adaptation(calibration.cups, calibration.pixels, calibration.background, 2, size_leans=leans)
    reader = shown_still(replace(calibration, learned=learned), scene.render(TOPS), STILL_SECONDS + 2 / FPS)
    assert reader.calibration.learned is not None and reader.calibration.learned.shadows is not None
    assert reader.calibration.learned.size_leans is None


class Empty:
    """The referee's position, as far as learning asks it: no cup anywhere."""

    def top(self, sq: object) -> None:
        return None


def test_the_device_is_told_to_save_the_lamp_once_it_is_learned(
    evening: tuple[SceneRenderer, Calibration],
) -> None:
    scene, calibration = evening
    observe = reader_observer(BoardReader(calibration), StabilityGate(), clock=lambda: 0.0)
    image = scene.render(TOPS)
    for k in range(int((STILL_SECONDS + 2 / FPS) * FPS) + 1):
        observe(image, k / FPS)
    assert observe.judged([], Empty(), {})  # the calibration to save changed
    assert not observe.judged([], Empty(), {})  # and not again until something more is learned


def test_the_lamp_learned_is_saved_with_the_calibration(
    evening: tuple[SceneRenderer, Calibration], tmp_path: Path
) -> None:
    scene, calibration = evening
    reader = shown_still(calibration, scene.render(TOPS), STILL_SECONDS + 2 / FPS)
    path = tmp_path / "calibration.json"
    reader.calibration.save(path)
    loaded = Calibration.load(path)
    assert loaded.learned is not None and loaded.learned.shadows is not None
    assert loaded.in_use().shadows == reader.models.shadows
    assert replace(loaded, learned=None).in_use().shadows is None
    assert isinstance(loaded.learned.shadows, ShadowModel)

    data = json.loads(path.read_text())
    data["learned"]["shadows"]["depth"] = 0.5  # a shadow that lightens: corrupt
    path.write_text(json.dumps(data))
    with pytest.raises(CompanionError, match=r"learned during games.*shadow model is corrupt.*calibrate"):
        Calibration.load(path)
