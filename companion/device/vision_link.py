"""The device's side of vision: opening the camera named in the configuration, loading (or
making) the calibration, and the frame → stable observation function the loop calls; and,
for the embedded default, the synthetic scene renderer behind the simulated table.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np

from companion.device.scenario import Shot
from companion.device.simulate import tops_of
from companion.errors import CompanionError
from companion.rules.variant import Variant
from companion.vision.observation import Observation

log = logging.getLogger("gobblet-companion.vision")

STEADY_FRAMES = 3   # a reading must repeat this often before the referee sees it


class SteadyGate:
    """Passes a reading once it has been the same, unoccluded, for ``frames`` frames in a
    row, and only once per distinct reading: hands, blur and half-placed cups never reach
    the referee."""

    def __init__(self, frames: int = STEADY_FRAMES) -> None:
        self.frames = frames
        self._last: Observation | None = None
        self._count = 0
        self._passed: Observation | None = None

    def feed(self, observation: Observation) -> Observation | None:
        if observation.occluded:
            self._last, self._count = None, 0
            return None
        if self._last is not None and observation.same_reading(self._last):
            self._count += 1
        else:
            self._last, self._count = observation, 1
        if observation.moved:
            return observation
        if self._count < self.frames:
            return None
        if self._passed is not None and observation.same_reading(self._passed):
            return None
        self._passed = observation
        return observation


def reader_observer(reader: object, gate: SteadyGate | None = None) -> Callable[[np.ndarray], Observation | None]:
    gate = gate or SteadyGate()

    def observe(frame: np.ndarray) -> Observation | None:
        try:
            observation = reader.read(frame)  # type: ignore[attr-defined]
        except CompanionError as error:
            log.warning("unreadable frame: %s", error)
            return None
        return gate.feed(observation)

    return observe


class SynthRenderer:
    """The project's synthetic scene renderer as the simulated table's camera, calibrated the
    way a user calibrates: an empty board, then the reference layout."""

    def __init__(self, variant: Variant, seed: int) -> None:
        from companion.vision.calibration import calibrate
        from companion.vision.synth import SceneRenderer

        self.scene = SceneRenderer(seed=seed, size=variant.size, max_piece=variant.max_piece)
        self.calibration = calibrate(self.scene.empty(), self.scene.reference(), max_piece=variant.max_piece)
        self.size = variant.size

    def render(self, shot: Shot, index: int) -> np.ndarray:
        return self.scene.render(tops_of(shot.board), hand=shot.hand is not None)

    def observer(self) -> Callable[[np.ndarray], Observation | None]:
        from companion.vision.reader import BoardReader

        return reader_observer(BoardReader(self.calibration, self.size))


def camera_opener(source: str) -> Callable[[], object]:
    raise CompanionError(f"camera source {source!r}: the camera sources are not available yet")


def observer(calibration: Path, variant: Variant) -> Callable[[np.ndarray], Observation | None]:
    from companion.vision.calibration import Calibration
    from companion.vision.reader import BoardReader

    if not calibration.exists():
        raise CompanionError(f"no calibration at {calibration}: calibrate the board first")
    return reader_observer(BoardReader(Calibration.load(calibration, variant.size), variant.size))
