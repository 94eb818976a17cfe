import os
import subprocess
import sys
import types
from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np
import pytest

from companion.errors import CompanionError
from companion.vision.sources import (
    CameraFrameError,
    ExposureLock,
    FolderSource,
    OpenCVSource,
    PiCameraSource,
    open_source,
    read_image,
)


def write_images(folder, names):
    for i, name in enumerate(names):
        cv2.imwrite(str(folder / name), np.full((48, 64, 3), 10 * i, np.uint8))


def test_folder_plays_images_in_name_order_at_the_rate(tmp_path):
    write_images(tmp_path, ["frame10.png", "frame2.png", "frame1.jpg"])
    (tmp_path / "notes.txt").write_text("not an image")
    with FolderSource(tmp_path, fps=4) as source:
        frames = list(source)
    assert [t for t, _ in frames] == [0.0, 0.25, 0.5]
    assert [int(img[0, 0, 0]) for _, img in frames] == [20, 10, 0]  # frame1, frame2, frame10
    with pytest.raises(EOFError):
        source.read()


def test_folder_in_real_time_sleeps_between_frames(tmp_path):
    write_images(tmp_path, ["a.png", "b.png"])
    waits = []
    list(FolderSource(tmp_path, fps=2, realtime=True, sleep=waits.append))
    assert len(waits) == 2 and waits[1] > 0.3


def test_folder_errors(tmp_path):
    with pytest.raises(CompanionError, match="not a folder"):
        FolderSource(tmp_path / "missing")
    with pytest.raises(CompanionError, match="holds no images"):
        FolderSource(tmp_path)
    (tmp_path / "broken.png").write_bytes(b"not really a png")
    with pytest.raises(CompanionError, match="cannot read image"):
        list(FolderSource(tmp_path))


def test_video_file_through_opencv(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for i in range(4):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    with open_source(str(path)) as source:
        frames = list(source)
    assert len(frames) == 4
    assert frames[1][0] == pytest.approx(0.2, abs=0.05)


def test_missing_camera_and_video_are_clear_errors(tmp_path):
    with pytest.raises(CompanionError, match="cannot open camera 57"):
        OpenCVSource(57)
    with pytest.raises(CompanionError, match="does not exist"):
        OpenCVSource(str(tmp_path / "nope.mp4"))
    with pytest.raises(CompanionError, match="does not exist"):
        read_image(tmp_path / "nope.jpg")


class FakePicamera2:
    """Enough of picamera2.Picamera2 to drive the source: configuration, controls, metadata,
    the job API with timeouts, autofocus; ``fail_at`` makes one step raise, ``stalled`` makes
    every capture time out."""

    made: ClassVar[list] = []
    fail_at: str | None = None
    autofocus = True
    flicker = True

    def __init__(self):
        FakePicamera2.made.append(self)
        self.controls = []
        self.running = False
        self.closed = False
        self.config = None
        self.stalled = False
        self.flushes = 0
        self.autofocus_cycles = 0
        self.camera_controls = {"ExposureTime": (1, 10**6, 1000), "AnalogueGain": (1.0, 16.0, 1.0)}
        if FakePicamera2.autofocus:
            self.camera_controls.update(AfMode=(0, 2, 0), LensPosition=(0.0, 15.0, 1.0))
        if FakePicamera2.flicker:
            self.camera_controls.update(AeFlickerMode=(0, 2, 0), AeFlickerPeriod=(100, 10**6, 10000))
        if self.fail_at == "open":
            raise IndexError("list index out of range")

    def create_video_configuration(self, main, controls=None, buffer_count=4):
        return {"main": main, "controls": dict(controls or {}), "buffer_count": buffer_count}

    def configure(self, config):
        if self.fail_at == "configure":
            raise RuntimeError("Failed to configure the camera")
        self.config = config

    def start(self):
        if self.fail_at == "start":
            raise RuntimeError("Camera start failed")
        self.running = True

    def stop(self):
        self.running = False

    def close(self):
        self.closed = True

    def set_controls(self, controls):
        self.controls.append(dict(controls))

    def capture_metadata(self):
        meta = {"ExposureTime": 23000, "AnalogueGain": 2.0, "ColourGains": (1.8, 1.5)}
        if self.autofocus_cycles:
            meta["LensPosition"] = 2.5
        return meta

    def autofocus_cycle(self, wait=True):
        assert wait is False
        self.autofocus_cycles += 1
        return "focus job"

    def capture_array(self, stream, wait=True):
        assert (stream, wait) == ("main", False) and self.running
        return "frame job"

    def wait(self, job, timeout=None):
        assert timeout is not None and timeout > 0
        if job == "focus job":
            return True
        if self.stalled:
            raise TimeoutError
        w, h = self.config["main"]["size"]
        return (np.arange(h * w * 4) % 251).astype(np.uint8).reshape(h, w, 4)

    def cancel_all_and_flush(self):
        self.flushes += 1


@pytest.fixture
def picamera2(monkeypatch):
    """A fake picamera2 module in sys.modules, reset for each test."""
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakePicamera2.made = []
    FakePicamera2.fail_at = None
    FakePicamera2.autofocus = True
    FakePicamera2.flicker = True
    return FakePicamera2


def test_pi_camera_settles_focuses_once_then_locks(picamera2):
    locks = []
    waits = []
    source = PiCameraSource((320, 240), settle_seconds=1.5, sleep=waits.append, fps=5, on_locked=locks.append)
    camera = picamera2.made[0]
    assert camera.config["controls"]["FrameDurationLimits"] == (200_000, 200_000)  # 5 fps, not 30
    assert camera.config["controls"]["AeFlickerMode"] == 1
    assert camera.config["controls"]["AeFlickerPeriod"] == 10_000  # 50 Hz mains: 100 Hz flicker
    assert camera.controls[0] == {"AeEnable": True, "AwbEnable": True}
    assert camera.controls[1] == {"AfMode": 1} and camera.autofocus_cycles == 1
    assert waits and waits[0] <= 1.5
    # 23 ms rounded to two whole flicker periods, the gain raised to keep the brightness
    assert locks == [ExposureLock(20_000, pytest.approx(2.3), (1.8, 1.5), 2.5)]
    assert camera.controls[-1] == {
        "AeEnable": False,
        "AwbEnable": False,
        "ExposureTime": 20_000,
        "AnalogueGain": pytest.approx(2.3),
        "ColourGains": (1.8, 1.5),
        "AfMode": 0,
        "LensPosition": 2.5,
    }
    image = source.read()
    assert image.shape == (240, 320, 3)
    source.relock()
    assert camera.autofocus_cycles == 2 and len(locks) == 2
    source.close()
    assert not camera.running and camera.closed
    with pytest.raises(EOFError):
        source.read()


def test_a_saved_lock_is_applied_without_settling_or_focusing(picamera2):
    lock = ExposureLock(30_000, 1.5, (2.0, 1.4), 3.25)
    waits = []
    PiCameraSource(sleep=waits.append, lock=lock, on_locked=pytest.fail)
    camera = picamera2.made[0]
    assert waits == [] and camera.autofocus_cycles == 0
    assert camera.controls == [lock.controls()]


def test_a_camera_without_focus_or_flicker_control_is_not_asked_for_them(picamera2):
    picamera2.autofocus = picamera2.flicker = False
    PiCameraSource(sleep=lambda s: None, mains_hz=60, lock=ExposureLock(8000, 1.0, None, 3.0))
    camera = picamera2.made[0]
    assert "AeFlickerMode" not in camera.config["controls"]
    assert camera.controls == [
        {"AeEnable": False, "AwbEnable": False, "ExposureTime": 8000, "AnalogueGain": 1.0}
    ]


@pytest.mark.parametrize("step", ["configure", "start"])
def test_a_half_opened_camera_is_closed(picamera2, step):
    picamera2.fail_at = step
    with pytest.raises(CompanionError, match="reseat the camera's ribbon cable"):
        PiCameraSource(sleep=lambda s: None)
    assert picamera2.made[0].closed


def test_no_camera_at_all_says_power_off_and_reseat(picamera2):
    picamera2.fail_at = "open"
    with pytest.raises(CompanionError, match="power the Pi off, reseat"):
        PiCameraSource(sleep=lambda s: None)


def test_a_capture_that_times_out_raises_and_drops_the_stuck_request(picamera2):
    source = PiCameraSource(sleep=lambda s: None, frame_timeout=0.5)
    picamera2.made[0].stalled = True
    with pytest.raises(CameraFrameError, match=r"within 0\.5 s"):
        source.read()
    assert picamera2.made[0].flushes == 1


def test_timeouts_are_bad_frames_and_then_the_camera_is_lost_with_advice(picamera2):
    from companion.device.camera import CameraLink

    link = CameraLink(
        lambda: PiCameraSource(sleep=lambda s: None, frame_timeout=0.5),
        max_bad_frames=3,
        advice=PiCameraSource.advice,
    )
    assert link.read() is not None
    camera = picamera2.made[0]
    camera.stalled = True
    for _ in range(3):
        assert link.read() is None
    assert camera.flushes == 3 and camera.closed
    assert not link.ok and "within 0.5 s" in link.fault and "reseat" in link.fault


def test_an_exposure_lock_round_trips_and_refuses_nonsense():
    lock = ExposureLock(20_000, 2.3, (1.8, 1.5), 2.5)
    assert ExposureLock.from_json(lock.to_json()) == lock
    assert ExposureLock.from_json(ExposureLock(9000, 1.0).to_json()) == ExposureLock(9000, 1.0)
    for bad in (
        {**lock.to_json(), "analogue_gain": float("nan")},
        {**lock.to_json(), "exposure_time_us": 0},
        {**lock.to_json(), "colour_gains": [1.0, float("inf")]},
        {"exposure_time_us": 1000},
        [1, 2],
    ):
        with pytest.raises((ValueError, KeyError, TypeError)):
            ExposureLock.from_json(bad)


class FakeCapture:
    """cv2.VideoCapture for a USB camera whose auto exposure settles, then can be locked."""

    def __init__(self, device, stale_exposure=False, fail_reads=False):
        self.properties = {cv2.CAP_PROP_EXPOSURE: 156.0, cv2.CAP_PROP_WB_TEMPERATURE: 4600.0}
        self.sets = []
        self.stale = stale_exposure
        self.fail_reads = fail_reads
        self.released = False

    def isOpened(self):
        return True

    def set(self, prop, value):
        self.sets.append((prop, value))
        return True

    def get(self, prop):
        return self.properties.get(prop, 0.0)

    def read(self):
        if self.fail_reads:
            return False, None
        manual = (cv2.CAP_PROP_AUTO_EXPOSURE, 1) in self.sets[-4:]
        level = 20 if manual and self.stale else 120  # a stale exposure makes the picture dark
        return True, np.full((48, 64, 3), level, np.uint8)

    def release(self):
        self.released = True


def test_a_usb_camera_keeps_one_frame_buffered_and_locks_its_exposure():
    clock = [0.0]
    made = []
    source = OpenCVSource(
        0,
        (800, 600),
        clock=lambda: clock[0],
        fps=5,
        capture=lambda d: made.append(FakeCapture(d)) or made[-1],
    )
    capture = made[0]
    assert (cv2.CAP_PROP_BUFFERSIZE, 1) in capture.sets
    assert {(cv2.CAP_PROP_FRAME_WIDTH, 800), (cv2.CAP_PROP_FRAME_HEIGHT, 600), (cv2.CAP_PROP_FPS, 5)} <= set(
        capture.sets
    )
    source.read()
    assert not source.locked  # still settling
    clock[0] = 2.5
    source.read()
    assert source.locked == {cv2.CAP_PROP_EXPOSURE: 156.0, cv2.CAP_PROP_WB_TEMPERATURE: 4600.0}
    assert (cv2.CAP_PROP_AUTO_EXPOSURE, 1) in capture.sets and (cv2.CAP_PROP_AUTO_WB, 0) in capture.sets


def test_a_usb_camera_whose_lock_darkens_the_picture_stays_automatic():
    clock = [5.0]
    made = []
    source = OpenCVSource(
        0,
        clock=lambda: clock[0],
        settle_seconds=0.0,
        capture=lambda d: made.append(FakeCapture(d, True)) or made[-1],
    )
    source.read()
    assert source.locked == {} and made[0].sets[-2:] == [
        (cv2.CAP_PROP_AUTO_EXPOSURE, 3),
        (cv2.CAP_PROP_AUTO_WB, 1),
    ]


def test_a_usb_camera_read_that_fails_is_a_camera_error_not_nothing():
    source = OpenCVSource(0, capture=lambda d: FakeCapture(d, fail_reads=True))
    with pytest.raises(CameraFrameError, match="gave no frame"):
        source.read()


def test_pi_camera_without_picamera2_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(CompanionError, match="apt install python3-picamera2"):
        PiCameraSource()


def test_nothing_else_imports_picamera2():
    code = (
        "import sys, companion.vision.calibration, companion.vision.reader, companion.vision.sources, "
        "companion.cli.read, companion.cli.calibrate; print('picamera2' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        check=True,
    )
    assert out.stdout.strip() == "False"
