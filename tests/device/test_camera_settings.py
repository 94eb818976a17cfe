"""The Pi camera's exposure, white balance and focus are saved with the calibration and
re-applied at every open, instead of settling again (light drift against the calibration
after every restart); a new calibration settles them again. picamera2 is a fake module."""

from __future__ import annotations

import json
import sys
import types

import pytest

from companion.device import vision_link
from companion.device.config import CameraConfig
from companion.device.vision_link import ExposureStore, camera_advice, camera_opener
from companion.errors import CompanionError
from companion.vision.sources import ExposureLock, open_source

from ..vision.test_sources import FakePicamera2


@pytest.fixture
def picamera2(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakePicamera2.made = []
    FakePicamera2.fail_at = None
    FakePicamera2.autofocus = FakePicamera2.flicker = True
    FakePicamera2.settles = []
    # The settle time is waited through the camera's own `sleep` (its default is bound when
    # the module is imported, so patching time.sleep would not reach it): recorded, not slept.
    monkeypatch.setattr(
        vision_link,
        "open_source",
        lambda spec, **options: open_source(spec, sleep=FakePicamera2.settles.append, **options),
    )
    return FakePicamera2


def test_the_lock_is_saved_with_the_calibration_and_reapplied(tmp_path, picamera2):
    store = ExposureStore(tmp_path / "calibration.camera.json", calibration_id="2026-11-01T10:00:00")
    config = CameraConfig(resolution=(800, 600), fps=4.0, mains_hz=60)
    open_camera = camera_opener("pi", True, config, store)
    first = open_camera()
    camera = picamera2.made[0]
    assert camera.config["main"]["size"] == (800, 600)
    assert camera.config["controls"]["FrameDurationLimits"] == (250_000, 250_000)
    assert camera.config["controls"]["AeFlickerPeriod"] == 8333  # 60 Hz mains
    assert camera.autofocus_cycles == 1
    assert len(picamera2.settles) == 1 and 0 < picamera2.settles[0] <= 2.0  # settled once
    saved = json.loads(store.path.read_text())
    assert saved["calibration"] == "2026-11-01T10:00:00"
    first.close()
    open_camera()  # a restart, or the camera reopened after a fault
    again = picamera2.made[1]
    assert again.autofocus_cycles == 0 and again.controls == [store.saved().controls()]
    assert len(picamera2.settles) == 1  # the saved lock is applied without settling again


def test_a_new_calibration_settles_again_and_a_self_calibration_adopts_the_lock(tmp_path, picamera2):
    store = ExposureStore(tmp_path / "c.camera.json", calibration_id="old")
    camera_opener("pi", True, CameraConfig(), store)()
    store.calibration_id = "recalibrated"  # `calibrate` made a new file: its light is not the old one
    assert store.saved() is None
    camera_opener("pi", True, CameraConfig(), store)()
    assert picamera2.made[1].autofocus_cycles == 1 and len(picamera2.settles) == 2
    fresh = ExposureStore(tmp_path / "d.camera.json")  # no calibration yet: settle, keep it in mind
    camera_opener("pi", True, CameraConfig(), fresh)()
    fresh.adopt("made-by-the-device")  # the device calibrated itself under this very lock
    assert fresh.saved() == fresh.current


def test_a_damaged_or_unwritable_lock_file_never_stops_the_camera(tmp_path, picamera2):
    store = ExposureStore(tmp_path / "x.camera.json", calibration_id="c")
    store.path.write_text("{not json")
    assert store.saved() is None
    store.path.write_text(
        json.dumps({"format": "gobblet-companion/camera-lock", "calibration": "c", "lock": {}})
    )
    assert store.saved() is None
    blocked = ExposureStore(tmp_path / "file" / "x.camera.json", calibration_id="c")
    (tmp_path / "file").write_text("a file where the folder should be")
    blocked.save(ExposureLock(1000, 1.0))  # logged, not raised
    assert blocked.current == ExposureLock(1000, 1.0)


def test_the_pi_camera_off_a_pi_and_the_advice_per_camera():
    with pytest.raises(CompanionError, match="needs the Raspberry Pi camera"):
        camera_opener("auto", on_pi=False)
    assert "reseat" in camera_advice("pi") and "USB" in camera_advice("0")
