"""The device's side of vision: opening the camera named in the configuration, loading (or
making) the calibration, and the frame → stable observation function the loop calls; and,
for the embedded default, the synthetic scene renderer behind the simulated table.
"""

from __future__ import annotations

import logging
import time
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


class BoardObserver:
    """The device's frame -> stable observation: the calibrated board reader and the gate.

    With no calibration file yet (a freshly installed device), it calibrates itself from the
    camera once the empty board with its four markers is in view, saves the calibration, and
    says so meanwhile through ``fault`` (the alert LED blinks). A damaged calibration file is
    an error at start: the user must know, not get a silently wrong board."""

    def __init__(self, calibration: Path, variant: Variant, retry_seconds: float = 5.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        from companion.vision.calibration import Calibration

        self.path = calibration
        self.variant = variant
        self.retry_seconds = retry_seconds
        self._clock = clock
        self._next_try = float("-inf")
        self._observe: Callable[[np.ndarray], Observation | None] | None = None
        self.fault: str | None = None
        if calibration.exists():
            self._use(Calibration.load(calibration, variant.size))
        else:
            self.fault = f"no calibration at {calibration}: show the empty board with its four markers"
            log.warning("%s", self.fault)

    def _use(self, calibration: object) -> None:
        from companion.vision.reader import BoardReader

        self._observe = reader_observer(BoardReader(calibration, self.variant.size))  # type: ignore[arg-type]
        self.fault = None

    def __call__(self, frame: np.ndarray) -> Observation | None:
        if self._observe is not None:
            return self._observe(frame)
        if self._clock() >= self._next_try:
            self._next_try = self._clock() + self.retry_seconds
            self._calibrate(frame)
        return None

    def _calibrate(self, frame: np.ndarray) -> None:
        from companion.vision.calibration import calibrate
        from companion.vision.geometry import BoardLayout

        try:
            calibration = calibrate(frame, layout=BoardLayout(size=self.variant.size), max_piece=self.variant.max_piece)
            calibration.save(self.path)
        except CompanionError as error:
            log.info("not calibrated yet: %s", error)
            return
        log.warning("calibrated from the empty board; saved %s", self.path)
        self._use(calibration)
