"""Shared synthetic set-ups: rendering and calibrating once per test session keeps the suite fast."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path

import numpy as np
import pytest

from companion.vision.calibration import Calibration, calibrate
from companion.vision.reader import BoardReader
from companion.vision.synth import SceneRenderer

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"


class Setup:
    """A renderer with its calibration; ``reader()`` gives a fresh reader each time."""

    def __init__(self, renderer: SceneRenderer) -> None:
        self.renderer = renderer

    @cached_property
    def calibration(self) -> Calibration:
        return calibrate(self.renderer.empty(), self.renderer.reference())

    def reader(self) -> BoardReader:
        return BoardReader(self.calibration)


@pytest.fixture(scope="session")
def setup_for() -> Callable[..., Setup]:
    """``setup_for(seed, **renderer_options)``, cached for the session."""
    cache: dict[tuple, Setup] = {}

    def make(seed: int, **options: object) -> Setup:
        key = (seed, tuple(sorted((k, repr(v)) for k, v in options.items())))
        if key not in cache:
            cache[key] = Setup(SceneRenderer(seed, **options))
        return cache[key]

    return make


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


def shared_frames() -> Path:
    """../shared/data/frames-dev, or skip the test when the shared folder is absent."""
    path = SHARED / "data" / "frames-dev"
    if not path.is_dir():
        pytest.skip("../shared/data/frames-dev is not available")
    return path
