"""Frame sources: where frames come from, behind one interface.

Every source is an iterator of ``(timestamp, image)`` (seconds, BGR uint8), has ``read()``
(the next image, ``None`` if none is ready yet, ``EOFError`` at the end of a finite source)
and ``close()``, and is a context manager.

- ``PiCameraSource``: the Raspberry Pi camera through picamera2, which exists only as
  Raspberry Pi OS's apt package; it is imported when such a source is opened, never
  otherwise. Exposure, white balance and (Camera Module 3) focus settle once, then are
  locked so the board's brightness only changes when the room's light does; the lock is
  handed to ``on_locked`` to be saved with the calibration, and a saved ``ExposureLock`` is
  applied at the next open instead of settling again (a calibration holds for the light it
  was made in). ``relock()`` settles again (after the room light changed for good). Frames
  come at the few per second the stability gate needs, each within ``frame_timeout``.
- ``OpenCVSource``: any camera index or video file OpenCV can open; a USB camera keeps one
  buffered frame (always the newest) and has its exposure and white balance locked too.
- ``FolderSource``: the images of a folder in name order, at a chosen rate.

A camera that delivers nothing raises ``CameraFrameError``: the device's camera link counts
it a bad frame, and enough of them in a row make the camera lost.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import cv2
import numpy as np

from companion.errors import CompanionError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
Frame = tuple[float, np.ndarray]


class FrameSource:
    """Base class: iterate for frames, ``read()`` for one, ``close()`` when done."""

    def frame(self) -> Frame | None:
        """The next (timestamp, image), None if not ready; EOFError when exhausted."""
        raise NotImplementedError

    def read(self) -> np.ndarray | None:
        got = self.frame()
        return None if got is None else got[1]

    def close(self) -> None:
        """Release the device or file; safe to call twice."""

    def __iter__(self) -> Iterator[Frame]:
        while True:
            try:
                got = self.frame()
            except EOFError:
                return
            if got is not None:
                yield got

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


class CameraFrameError(CompanionError):
    """A live camera gave no frame (a read that failed, or one that timed out)."""


USB_SETTLE_SECONDS = 2.0  # a USB camera's automatic exposure runs this long before it is locked
V4L2_MANUAL_EXPOSURE, V4L2_AUTO_EXPOSURE = 1, 3  # CAP_PROP_AUTO_EXPOSURE values of the V4L2 backend
LOCK_BRIGHTNESS_TOLERANCE = 0.25  # a lock that moves the mean brightness more than this is undone


class OpenCVSource(FrameSource):
    """A camera (device index) or a video file through ``cv2.VideoCapture``."""

    def __init__(
        self,
        device: int | str,
        resolution: tuple[int, int] | None = None,
        clock: Callable[[], float] = time.monotonic,
        fps: float | None = None,
        settle_seconds: float = USB_SETTLE_SECONDS,
        capture: Callable[[int | str], Any] | None = None,
    ) -> None:
        self.device = device
        self._clock = clock
        self._file = isinstance(device, str)
        if self._file and not Path(str(device)).is_file():
            raise CompanionError(f"video file {device} does not exist")
        self._capture = (capture or cv2.VideoCapture)(device)
        if not self._capture.isOpened():
            self._capture.release()
            what = f"video file {device}" if self._file else f"camera {device}"
            raise CompanionError(f"cannot open {what}: is it connected and not in use by another program?")
        self._lock_at: float | None = None
        self.locked: dict[int, float] = {}
        if not self._file:
            # one buffered frame: a read returns what the camera sees now, not a second ago
            self._capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
            if resolution:
                self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, resolution[0])
                self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, resolution[1])
            if fps:
                self._capture.set(cv2.CAP_PROP_FPS, fps)
            self._lock_at = clock() + settle_seconds

    def frame(self) -> Frame | None:
        if self._capture is None:
            raise EOFError
        ok, image = self._capture.read()
        if not ok or image is None:
            if self._file:
                raise EOFError
            raise CameraFrameError(f"camera {self.device} gave no frame (unplugged, or its driver stalled)")
        stamp = self._capture.get(cv2.CAP_PROP_POS_MSEC) / 1000 if self._file else self._clock()
        if self._lock_at is not None and stamp >= self._lock_at:
            self._lock_at = None
            self._lock_exposure(image)
        return stamp, image

    def _lock_exposure(self, settled: np.ndarray) -> None:
        """Fix exposure and white balance where they settled. UVC cameras differ: some report
        a stale exposure while automatic, so the lock is checked on the next frame and undone
        if it changed the picture's brightness (the camera then stays automatic)."""
        capture = self._capture
        exposure = capture.get(cv2.CAP_PROP_EXPOSURE)
        temperature = capture.get(cv2.CAP_PROP_WB_TEMPERATURE)
        if exposure and exposure > 0:
            capture.set(cv2.CAP_PROP_AUTO_EXPOSURE, V4L2_MANUAL_EXPOSURE)
            capture.set(cv2.CAP_PROP_EXPOSURE, exposure)
            self.locked[cv2.CAP_PROP_EXPOSURE] = exposure
        if temperature and temperature > 0:
            capture.set(cv2.CAP_PROP_AUTO_WB, 0)
            capture.set(cv2.CAP_PROP_WB_TEMPERATURE, temperature)
            self.locked[cv2.CAP_PROP_WB_TEMPERATURE] = temperature
        if not self.locked:
            return
        ok, after = capture.read()
        before_mean, after_mean = (
            float(settled.mean()),
            float(after.mean()) if ok and after is not None else 0.0,
        )
        if abs(after_mean - before_mean) > LOCK_BRIGHTNESS_TOLERANCE * max(before_mean, 1.0):
            capture.set(cv2.CAP_PROP_AUTO_EXPOSURE, V4L2_AUTO_EXPOSURE)
            capture.set(cv2.CAP_PROP_AUTO_WB, 1)
            self.locked = {}

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


def _natural_key(path: Path) -> list[object]:
    """Name order with numbers compared as numbers (frame2 before frame10)."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", path.name)]


class FolderSource(FrameSource):
    """A folder of images in name order, stamped ``i / fps``; paced in real time if asked."""

    def __init__(
        self,
        path: str | Path,
        fps: float = 2.0,
        realtime: bool = False,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        folder = Path(path)
        if not folder.is_dir():
            raise CompanionError(f"{folder} is not a folder of images")
        if fps <= 0:
            raise CompanionError(f"frame rate {fps} must be positive")
        self.files = sorted(
            (p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES), key=_natural_key
        )
        if not self.files:
            raise CompanionError(f"{folder} holds no images ({', '.join(IMAGE_SUFFIXES)})")
        self.fps = fps
        self.realtime = realtime
        self._sleep = sleep
        self._next = 0
        self._started: float | None = None

    def frame(self) -> Frame | None:
        if self._next >= len(self.files):
            raise EOFError
        path = self.files[self._next]
        stamp = self._next / self.fps
        if self.realtime:
            now = time.monotonic()
            self._started = now if self._started is None else self._started
            self._sleep(max(0.0, self._started + stamp - now))
        self._next += 1
        return stamp, read_image(path)


class ImageError(CompanionError, ValueError):
    """An image file that is missing, unreadable, not an image, or not whole."""


def read_image(path: str | Path) -> np.ndarray:
    """A BGR image from a file, or an ``ImageError`` saying why not: a file that is not whole
    (cut short while copying, or by a full disk) is refused, not read as half a picture."""
    path = Path(path)
    if not path.is_file():
        raise ImageError(f"image {path} does not exist")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ImageError(f"cannot read image {path}: {error.strerror or error}") from None
    return decode_image(data, f"image {path}")


def decode_image(data: bytes, name: str = "image") -> np.ndarray:
    """Decode an encoded image (JPEG, PNG, BMP, WebP, TIFF) to BGR, refusing one that is not
    whole. libjpeg only warns about a JPEG that ends early and fills the rest with grey, so
    the file's own structure is checked first: a JPEG must reach its end marker, a PNG its
    IEND chunk, a BMP or WebP the length its header declares."""
    problem = incomplete_reason(data)
    if problem is not None:
        raise ImageError(f"{name} is not whole ({problem}): copy it again, or take a new picture")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    if image is None:
        raise ImageError(f"cannot read {name}: not an image file, or corrupt")
    return image


JPEG_START, JPEG_END, JPEG_SCAN = 0xD8, 0xD9, 0xDA
JPEG_BARE_MARKERS = frozenset({0x01, *range(0xD0, 0xD8)})  # TEM and RST0-7: no length field
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def incomplete_reason(data: bytes) -> str | None:
    """Why encoded image ``data`` is cut short, or None (whole, or a format not checked)."""
    if data[:2] == b"\xff\xd8":
        return _jpeg_incomplete(data)
    if data[:8] == PNG_SIGNATURE:
        return _png_incomplete(data)
    if data[:2] == b"BM" and len(data) >= 6:
        declared = int.from_bytes(data[2:6], "little")
        return f"{len(data)} of the {declared} bytes its header declares" if len(data) < declared else None
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        declared = int.from_bytes(data[4:8], "little") + 8
        return f"{len(data)} of the {declared} bytes its header declares" if len(data) < declared else None
    return None


def _jpeg_incomplete(data: bytes) -> str | None:
    """Walk the JPEG's segments and scans to its end-of-image marker (what follows it, as a
    phone's appended data, is allowed)."""
    end, at = len(data), 2
    while True:
        if at >= end:
            return "the JPEG data ends before its end marker"
        if data[at] != 0xFF:
            return f"no JPEG marker at byte {at}"
        while at < end and data[at] == 0xFF:  # fill bytes before a marker
            at += 1
        if at >= end:
            return "the JPEG data ends before its end marker"
        marker = data[at]
        at += 1
        if marker == JPEG_END:
            return None
        if marker in JPEG_BARE_MARKERS:
            continue
        if at + 2 > end:
            return "the JPEG data ends inside a segment"
        at += int.from_bytes(data[at : at + 2], "big")
        if at > end:
            return "the JPEG data ends inside a segment"
        if marker == JPEG_SCAN:
            at = _jpeg_scan_end(data, at)


def _jpeg_scan_end(data: bytes, at: int) -> int:
    """The offset of the marker that ends the entropy-coded data from ``at`` (len when none):
    in it, 0xFF is followed by a stuffed 0x00 or a restart marker."""
    while True:
        at = data.find(b"\xff", at)
        if at < 0 or at + 1 >= len(data):
            return len(data)
        follower = data[at + 1]
        if follower == 0x00 or 0xD0 <= follower <= 0xD7 or follower == 0xFF:
            at += 1 if follower == 0xFF else 2
            continue
        return at


def _png_incomplete(data: bytes) -> str | None:
    at, end = len(PNG_SIGNATURE), len(data)
    while at + 8 <= end:
        length = int.from_bytes(data[at : at + 4], "big")
        kind = data[at + 4 : at + 8]
        at += 12 + length
        if at > end:
            return f"the PNG data ends inside its {kind.decode('latin-1')!r} chunk"
        if kind == b"IEND":
            return None
    return "the PNG data ends before its IEND chunk"


PI_CAMERA_ADVICE = (
    "power the Pi off, reseat the camera's ribbon cable at both ends (contacts the right way "
    "round), power on: a CSI camera is not hot-pluggable"
)
AF_MODE_MANUAL, AF_MODE_AUTO = 0, 1  # libcamera's AfModeEnum values
AE_FLICKER_MANUAL = 1  # libcamera's AeFlickerModeEnum.FlickerManual
AUTOFOCUS_SECONDS = 5.0


@dataclass(frozen=True)
class ExposureLock:
    """The Pi camera's settled exposure, white balance and focus, saved with the calibration
    and applied at every open, so the picture matches the one the calibration learnt from."""

    exposure_time: int  # microseconds
    analogue_gain: float
    colour_gains: tuple[float, float] | None = None
    lens_position: float | None = None  # dioptres (Camera Module 3), None for a fixed lens

    def controls(self) -> dict[str, Any]:
        controls: dict[str, Any] = {
            "AeEnable": False,
            "AwbEnable": False,
            "ExposureTime": self.exposure_time,
            "AnalogueGain": self.analogue_gain,
        }
        if self.colour_gains is not None:
            controls["ColourGains"] = self.colour_gains
        if self.lens_position is not None:
            controls.update(AfMode=AF_MODE_MANUAL, LensPosition=self.lens_position)
        return controls

    def to_json(self) -> dict[str, Any]:
        return {
            "exposure_time_us": self.exposure_time,
            "analogue_gain": self.analogue_gain,
            "colour_gains": list(self.colour_gains) if self.colour_gains else None,
            "lens_position": self.lens_position,
        }

    @classmethod
    def from_json(cls, data: Any) -> ExposureLock:
        """Refuses (ValueError) anything that is not a plausible lock."""
        if not isinstance(data, dict):
            raise ValueError("not a table")
        exposure = int(data["exposure_time_us"])
        gain = float(data["analogue_gain"])
        gains = data.get("colour_gains")
        colour = (float(gains[0]), float(gains[1])) if gains else None
        lens = float(data["lens_position"]) if data.get("lens_position") is not None else None
        numbers = [gain, *(colour or ()), *([lens] if lens is not None else [])]
        if not (0 < exposure <= 10**8 and all(math.isfinite(v) and v >= 0 for v in numbers) and gain > 0):
            raise ValueError(f"implausible values {data}")
        return cls(exposure, gain, colour, lens)


class PiCameraSource(FrameSource):
    """The Raspberry Pi camera via picamera2, exposure, white balance and focus locked."""

    advice = PI_CAMERA_ADVICE

    def __init__(
        self,
        resolution: tuple[int, int] = (640, 480),
        settle_seconds: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        *,
        fps: float = 5.0,
        mains_hz: int = 50,
        frame_timeout: float = 1.0,
        lock: ExposureLock | None = None,
        on_locked: Callable[[ExposureLock], None] | None = None,
    ) -> None:
        self.resolution = resolution
        self.settle_seconds = settle_seconds
        self.frame_timeout = frame_timeout
        self.frame_us = int(1_000_000 / fps)
        self.flicker_us = int(1_000_000 / (2 * mains_hz)) if mains_hz else None  # light flickers at 2x mains
        self._clock = clock
        self._sleep = sleep
        self._on_locked = on_locked
        self._camera: Any = self._open(_import_picamera2())
        self.lock: ExposureLock | None = None
        try:
            self.apply(lock) if lock is not None else self.relock()
        except Exception as error:
            self.close()
            raise CompanionError(f"the Raspberry Pi camera did not settle ({error}); {self.advice}") from None

    def _open(self, module: Any) -> Any:
        """Open, configure and start the camera; whatever fails, a half-opened camera is closed
        (libcamera keeps it acquired otherwise, and every later open fails)."""
        camera = None
        try:
            camera = module.Picamera2()
            controls: dict[str, Any] = {"FrameDurationLimits": (self.frame_us, self.frame_us)}
            if self.flicker_us and "AeFlickerMode" in getattr(camera, "camera_controls", {}):
                controls.update(AeFlickerMode=AE_FLICKER_MANUAL, AeFlickerPeriod=self.flicker_us)
            config = camera.create_video_configuration(
                main={"format": "RGB888", "size": tuple(self.resolution)}, controls=controls, buffer_count=2
            )
            camera.configure(config)
            camera.start()
        except Exception as error:  # picamera2 and libcamera raise RuntimeError, IndexError, OSError ...
            if camera is not None:
                _close_camera(camera)
            raise CompanionError(f"cannot open the Raspberry Pi camera ({error}); {self.advice}") from None
        return camera

    @property
    def has_focus_control(self) -> bool:
        return "AfMode" in getattr(self._camera, "camera_controls", {})

    def apply(self, lock: ExposureLock) -> None:
        """Use a saved lock as it is: no settling, no autofocus."""
        controls = lock.controls()
        if not self.has_focus_control:
            controls.pop("AfMode", None)
            controls.pop("LensPosition", None)
        self._camera.set_controls(controls)
        self.lock = lock

    def relock(self) -> ExposureLock:
        """Let exposure and white balance settle automatically, focus once (Camera Module 3),
        then fix them all; the lock is kept, handed to ``on_locked`` and returned."""
        self._camera.set_controls({"AeEnable": True, "AwbEnable": True})
        started = self._clock()
        lens = self._focus_once()
        self._sleep(max(0.0, self.settle_seconds - (self._clock() - started)))
        meta = self._camera.capture_metadata()
        exposure, gain = self._flicker_free(
            int(meta.get("ExposureTime", 10000)), float(meta.get("AnalogueGain", 1.0))
        )
        gains = meta.get("ColourGains")
        lock = ExposureLock(exposure, gain, (float(gains[0]), float(gains[1])) if gains else None, lens)
        self.apply(lock)
        if self._on_locked is not None:
            self._on_locked(lock)
        return lock

    def _focus_once(self) -> float | None:
        """One autofocus cycle, then the lens stays where it ended (no hunting during play)."""
        if not self.has_focus_control:
            return None
        self._camera.set_controls({"AfMode": AF_MODE_AUTO})
        job = self._camera.autofocus_cycle(wait=False)
        try:
            self._camera.wait(job, timeout=AUTOFOCUS_SECONDS)
        except TimeoutError:
            self._camera.cancel_all_and_flush()
        position = self._camera.capture_metadata().get("LensPosition")
        return float(position) if position is not None else None

    def _flicker_free(self, exposure: int, gain: float) -> tuple[int, float]:
        """An exposure of whole flicker periods (no banding under mains lighting), the gain
        changed to keep the brightness; never longer than a frame."""
        if not self.flicker_us or exposure < self.flicker_us:
            return exposure, gain
        periods = max(1, min(round(exposure / self.flicker_us), self.frame_us // self.flicker_us))
        rounded = periods * self.flicker_us
        return rounded, gain * exposure / rounded

    def frame(self) -> Frame | None:
        if self._camera is None:
            raise EOFError
        job = self._camera.capture_array("main", wait=False)
        try:
            array = self._camera.wait(job, timeout=self.frame_timeout)
        except TimeoutError:
            self._camera.cancel_all_and_flush()  # drop the stuck request so the next one can run
            raise CameraFrameError(
                f"no frame from the Raspberry Pi camera within {self.frame_timeout:g} s"
            ) from None
        # picamera2's "RGB888" is laid out B, G, R in memory: OpenCV's order already
        return self._clock(), np.ascontiguousarray(array[..., :3])

    def close(self) -> None:
        if self._camera is not None:
            camera, self._camera = self._camera, None
            _close_camera(camera)


def _close_camera(camera: Any) -> None:
    """Stop and close, each step tried whatever the one before did."""
    with contextlib.suppress(Exception):
        camera.stop()
    with contextlib.suppress(Exception):
        camera.close()


def _import_picamera2() -> Any:
    try:
        return importlib.import_module("picamera2")
    except ImportError as error:
        raise CompanionError(
            "the Raspberry Pi camera needs picamera2, which comes with Raspberry Pi OS "
            "(sudo apt install python3-picamera2); elsewhere use a camera index, a video or a folder"
        ) from error


def open_source(
    spec: str,
    fps: float = 2.0,
    resolution: tuple[int, int] = (640, 480),
    **camera: Any,
) -> FrameSource:
    """``pi`` -> Pi camera, a number -> that camera, a folder -> its images, a file -> a video.
    ``fps`` is the rate asked of a camera or given to a folder's frames; ``camera`` holds the
    Pi camera's other options (``mains_hz``, ``frame_timeout``, ``lock``, ``on_locked``)."""
    if spec == "pi":
        return PiCameraSource(resolution, fps=fps, **camera)
    if spec.isascii() and spec.isdigit():
        return OpenCVSource(int(spec), resolution, fps=fps)
    if Path(spec).is_dir():
        return FolderSource(spec, fps)
    return OpenCVSource(spec)
