"""The device's vision glue: the steadiness gate, and a fresh device calibrating itself from
the empty board."""

from __future__ import annotations

import json

import pytest

from companion.device.vision_link import BoardObserver, SteadyGate
from companion.errors import CompanionError
from companion.rules.variant import CLASSIC
from companion.vision.observation import Observation

A = Observation.from_tops({"a1": (0, 4)})
B = Observation.from_tops({"a1": (0, 4), "b2": (1, 3)})
HAND = Observation.from_tops({}, occluded=True)


def test_the_gate_passes_a_reading_once_it_is_steady_and_only_once():
    gate = SteadyGate(frames=3)
    assert [gate.feed(o) is not None for o in (A, A, A, A, A)] == [False, False, True, False, False]
    assert [gate.feed(o) is not None for o in (B, HAND, B, B, B)] == [False, False, False, False, True]
    assert [gate.feed(o) is not None for o in (A, A, A)] == [False, False, True]


def test_a_fresh_device_calibrates_from_the_empty_board(tmp_path):
    from companion.vision.synth import SceneRenderer

    scene = SceneRenderer(seed=5)
    path = tmp_path / "calibration.json"
    now = [0.0]
    observe = BoardObserver(path, CLASSIC, clock=lambda: now[0])
    assert observe.fault is not None and "empty board" in observe.fault
    assert observe(scene.empty()) is None
    assert observe.fault is None and path.exists()
    frame = scene.render({"b2": (1, 4)})
    seen = [observe(frame) for _ in range(3)][-1]
    assert seen is not None and seen.top("b2") == (1, 4)
    again = BoardObserver(path, CLASSIC)  # the next start reads the saved file
    assert again.fault is None


def test_a_damaged_calibration_is_an_error_at_start(tmp_path):
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(CompanionError):
        BoardObserver(path, CLASSIC)
