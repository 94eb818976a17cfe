"""Frame sources: where frames come from, behind one interface.

Every source is an iterator of ``(timestamp, image)`` (seconds, BGR uint8), has ``read()``
(the next image, ``None`` if none is ready yet, ``EOFError`` at the end of a finite source)
and ``close()``, and is a context manager.

- ``PiCameraSource``: the Raspberry Pi camera through picamera2, which exists only as
  Raspberry Pi OS's apt package; it is imported when such a source is opened, never
  otherwise. Exposure and white balance run automatically for ``settle_seconds``, then are
  locked so the board's brightness only changes when the room's light does; ``relock()``
  lets them settle again (after the room light changed for good).
- ``OpenCVSource``: any camera index or video file OpenCV can open.
- ``FolderSource``: the images of a folder in name order, at a chosen rate.
"""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Callable, Iterator
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


class OpenCVSource(FrameSource):
    """A camera (device index) or a video file through ``cv2.VideoCapture``."""

    def __init__(
        self,
        device: int | str,
        resolution: tuple[int, int] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.device = device
        self._clock = clock
        self._file = isinstance(device, str)
        if self._file and not Path(str(device)).is_file():
            raise CompanionError(f"video file {device} does not exist")
        self._capture = cv2.VideoCapture(device)
        if not self._capture.isOpened():
            self._capture.release()
            what = f"video file {device}" if self._file else f"camera {device}"
            raise CompanionError(f"cannot open {what}: is it connected and not in use by another program?")
        if resolution and not self._file:
            self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, resolution[0])
            self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, resolution[1])

    def frame(self) -> Frame | None:
        if self._capture is None:
            raise EOFError
        ok, image = self._capture.read()
        if not ok or image is None:
            if self._file:
                raise EOFError
            return None
        stamp = self._capture.get(cv2.CAP_PROP_POS_MSEC) / 1000 if self._file else self._clock()
        return stamp, image

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


class PiCameraSource(FrameSource):
    """The Raspberry Pi camera via picamera2, with exposure and white balance locked."""

    def __init__(
        self,
        resolution: tuple[int, int] = (640, 480),
        settle_seconds: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.resolution = resolution
        self.settle_seconds = settle_seconds
        self._clock = clock
        self._sleep = sleep
        module = _import_picamera2()
        try:
            self._camera: Any = module.Picamera2()
            config = self._camera.create_video_configuration(
                main={"format": "RGB888", "size": tuple(resolution)}
            )
            self._camera.configure(config)
            self._camera.start()
        except (RuntimeError, IndexError, OSError) as error:
            raise CompanionError(
                f"cannot open the Raspberry Pi camera: {error}; is it connected and enabled?"
            ) from error
        self.locked: dict[str, Any] = {}
        self.relock()

    def relock(self) -> dict[str, Any]:
        """Let exposure and white balance settle automatically, then fix them; returns the
        locked controls."""
        self._camera.set_controls({"AeEnable": True, "AwbEnable": True})
        self._sleep(self.settle_seconds)
        meta = self._camera.capture_metadata()
        self.locked = {
            "AeEnable": False,
            "AwbEnable": False,
            "ExposureTime": int(meta.get("ExposureTime", 10000)),
            "AnalogueGain": float(meta.get("AnalogueGain", 1.0)),
        }
        if "ColourGains" in meta:
            self.locked["ColourGains"] = tuple(meta["ColourGains"])
        self._camera.set_controls(self.locked)
        return self.locked

    def frame(self) -> Frame | None:
        if self._camera is None:
            raise EOFError
        # picamera2's "RGB888" is laid out B, G, R in memory: OpenCV's order already
        image = np.ascontiguousarray(self._camera.capture_array("main")[..., :3])
        return self._clock(), image

    def close(self) -> None:
        if self._camera is not None:
            try:
                self._camera.stop()
                self._camera.close()
            finally:
                self._camera = None


def _import_picamera2() -> Any:
    try:
        return importlib.import_module("picamera2")
    except ImportError as error:
        raise CompanionError(
            "the Raspberry Pi camera needs picamera2, which comes with Raspberry Pi OS "
            "(sudo apt install python3-picamera2); elsewhere use a camera index, a video or a folder"
        ) from error


def open_source(spec: str, fps: float = 2.0, resolution: tuple[int, int] = (640, 480)) -> FrameSource:
    """``pi`` -> Pi camera, a number -> that camera, a folder -> its images, a file -> a video."""
    if spec == "pi":
        return PiCameraSource(resolution)
    if spec.isdigit():
        return OpenCVSource(int(spec), resolution)
    if Path(spec).is_dir():
        return FolderSource(spec, fps)
    return OpenCVSource(spec)
