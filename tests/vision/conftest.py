"""The vision tests' own fixtures; the synthetic set-ups (``setup_for``) are tests/conftest.py's,
shared with the other folders."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


def shared_frames() -> Path:
    """../shared/data/frames-dev, or skip the test when the shared folder is absent."""
    path = SHARED / "data" / "frames-dev"
    if not path.is_dir():
        pytest.skip("../shared/data/frames-dev is not available")
    return path
