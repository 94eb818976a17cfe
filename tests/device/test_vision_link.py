"""The device's vision glue: a fresh device calibrating itself from the empty board, a damaged
calibration refused."""

from __future__ import annotations

import json

import pytest

from companion.device.vision_link import BoardObserver
from companion.errors import CompanionError
from companion.rules.variant import CLASSIC


@pytest.mark.slow
def test_a_fresh_device_calibrates_from_the_empty_board(tmp_path):
    from companion.vision.synth import SceneRenderer

    scene = SceneRenderer(seed=5)
    path = tmp_path / "calibration.json"
    now = [0.0]
    observe = BoardObserver(path, CLASSIC, clock=lambda: now[0])
    assert observe.fault is not None and "empty board" in observe.fault
    assert observe(scene.empty(), 0.0) is None
    assert observe.fault is None and path.exists()
    frame = scene.render({"b2": (1, 4)})
    seen = None
    for t in (1.0, 1.5, 2.0):  # the gate wants the reading to hold for a second (camera time)
        seen = observe(frame, t)
    assert seen is not None and seen.top("b2") == (1, 4)
    again = BoardObserver(path, CLASSIC)  # the next start reads the saved file
    assert again.fault is None


def test_a_damaged_calibration_is_an_error_at_start(tmp_path):
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(CompanionError):
        BoardObserver(path, CLASSIC)
