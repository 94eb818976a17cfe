"""Set-ups shared by every test folder: a synthetic board rendered and calibrated once per
test session (a calibration costs about half a second of CPU), whoever asks first."""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable, Iterator
from functools import cached_property
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # imported when first used: a run of tests/rules alone never loads OpenCV
    from companion.vision.calibration import Calibration
    from companion.vision.reader import BoardReader
    from companion.vision.synth import SceneRenderer


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection loaded (numpy, OpenCV, hypothesis, aiohttp, every test module) stays
    for the whole session: frozen, the garbage collector stops walking it at every full
    collection (about 2 s of the quick loop's CPU otherwise). The device does the same after
    its start-up (companion/device/app.py)."""
    gc.collect()
    gc.freeze()


class Setup:
    """A renderer with its calibration; ``reader()`` gives a fresh reader each time."""

    def __init__(self, renderer: SceneRenderer) -> None:
        self.renderer = renderer

    @cached_property
    def calibration(self) -> Calibration:
        """Read-only: every test that asks for this board reads the same calibration.

        Made from the renderer's first two frames (the empty board, the reference layout),
        whichever test asks first and whatever it rendered before: the frames' noise depends on
        their number, and a calibration from later frames differs (seed 2's outline scale 0.92
        against 0.94 to 1.04, when another test's frames came first)."""
        from companion.vision.calibration import calibrate
        from tests.shared_calibrations import read_only

        r = self.renderer
        return read_only(calibrate(r.render({}, frame=1), r.render(r.reference_tops(), frame=2)))

    def reader(self) -> BoardReader:
        from companion.vision.reader import BoardReader

        return BoardReader(self.calibration)


SETUPS: dict[tuple, Setup] = {}
"""The session's set-ups (``setup_for``), by seed and options."""
CALIBRATION_FRAMES = 2
"""A set-up's calibration is made from its renderer's frames 1 and 2."""


@pytest.fixture(scope="session")
def setup_for() -> Callable[..., Setup]:
    """``setup_for(seed, **renderer_options)``, cached for the session."""

    def make(seed: int, **options: object) -> Setup:
        key = (seed, tuple(sorted((k, repr(v)) for k, v in options.items())))
        if key not in SETUPS:
            from companion.vision.synth import SceneRenderer

            SETUPS[key] = Setup(SceneRenderer(seed, **options))
        return SETUPS[key]

    return make


@pytest.fixture(autouse=True)
def _frames_of_their_own() -> None:
    """Each test renders a shared set-up's frames from frame 3 on (after the calibration's
    two), whatever ran before it: a test sees the same frames alone, in the whole suite, or in
    another order (pytest-xdist's workers)."""
    for setup in SETUPS.values():
        setup.renderer.restart(CALIBRATION_FRAMES)


@pytest.fixture(autouse=True)
def _root_logger_restored() -> Iterator[None]:
    """A command run in-process (``run``, ``cups``) sets up logging as the service does, with a
    stream handler on the stderr pytest captured for that test; left in place, a device thread
    that logs a line after the test has ended writes to a closed stream ("Logging error: I/O
    operation on closed file"). Each test takes away the plain stream handlers it left on the
    root logger (pytest's own are subclasses, added and removed by pytest per phase) and its
    level."""
    root = logging.getLogger()
    level = root.level
    yield
    for handler in root.handlers[:]:
        if type(handler) is logging.StreamHandler:
            root.removeHandler(handler)
    root.setLevel(level)
