import os
import subprocess
import sys
import types
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.errors import CompanionError
from companion.vision.sources import FolderSource, OpenCVSource, PiCameraSource, open_source, read_image


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
    """Just enough of picamera2.Picamera2 to drive the source."""

    def __init__(self):
        self.controls = []
        self.running = False

    def create_video_configuration(self, main):
        return {"main": main}

    def configure(self, config):
        self.size = config["main"]["size"]

    def start(self):
        self.running = True

    def stop(self):
        self.running = False

    def close(self):
        pass

    def set_controls(self, controls):
        self.controls.append(dict(controls))

    def capture_metadata(self):
        return {"ExposureTime": 12000, "AnalogueGain": 2.0, "ColourGains": (1.8, 1.5)}

    def capture_array(self, stream):
        w, h = self.size
        return np.zeros((h, w, 4), np.uint8)


def test_pi_camera_settles_then_locks_and_relocks(monkeypatch):
    made = []
    module = types.SimpleNamespace(Picamera2=lambda: made.append(FakePicamera2()) or made[-1])
    monkeypatch.setitem(sys.modules, "picamera2", module)
    waits = []
    source = PiCameraSource((320, 240), settle_seconds=1.5, sleep=waits.append)
    camera = made[0]
    assert waits == [1.5]
    assert camera.controls[0] == {"AeEnable": True, "AwbEnable": True}
    assert camera.controls[1] == {
        "AeEnable": False,
        "AwbEnable": False,
        "ExposureTime": 12000,
        "AnalogueGain": 2.0,
        "ColourGains": (1.8, 1.5),
    }
    image = source.read()
    assert image.shape == (240, 320, 3)
    source.relock()
    assert len(camera.controls) == 4
    source.close()
    assert not camera.running
    with pytest.raises(EOFError):
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
