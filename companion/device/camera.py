"""A camera that may vanish: the link keeps the game going while the camera is unplugged,
crashed or sending garbage, says so, and reopens it.

A camera feed (``CameraFeed``: the Pi camera, a USB camera, a video, a folder or the simulated
table) has ``read()`` (a BGR image, or None when no new frame is ready), ``close()``,
and raises ``EOFError`` when a finite source (a folder, the simulation) has no more frames.
Anything else it raises, any frame that cannot be a picture of a board (wrong shape, empty,
one flat colour), and every ``frame_timeout`` seconds without a frame (a USB camera whose
``read()`` keeps returning nothing) count against it; after ``max_bad_frames`` in a row the
camera is declared lost, closed, and reopened every ``reconnect_delay`` seconds. The fault
says what to do (``advice``: a CSI camera must be reseated with the power off).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from companion.component import Component
from companion.errors import CompanionError

log = logging.getLogger("gobblet-companion.camera")

FLAT = 2.0  # a frame whose pixel values spread less than this is a lens cap or a dead sensor


class CameraFeed(Protocol):
    """What ``CameraLink`` reads from (``companion.vision.sources.FrameSource`` is one)."""

    def read(self) -> np.ndarray | None: ...

    def close(self) -> None: ...


def garbage_reason(frame: Any) -> str | None:
    """Why ``frame`` cannot be a picture of the board, or None if it may be one."""
    if not isinstance(frame, np.ndarray):
        return f"the camera returned {type(frame).__name__}, not an image"
    if frame.ndim not in (2, 3) or frame.shape[0] < 16 or frame.shape[1] < 16:
        return f"the camera returned an image of shape {frame.shape}"
    if frame.dtype != np.uint8:
        return f"the camera returned {frame.dtype} pixels, not 8-bit"
    if float(frame[::8, ::8].std()) < FLAT:
        return "the camera sees one flat colour (lens covered, or no signal)"
    return None


class CameraLink(Component):
    def __init__(
        self,
        open_source: Callable[[], CameraFeed],
        *,
        max_bad_frames: int = 10,
        reconnect_delay: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        name: str = "camera",
        frame_timeout: float = 1.0,
        advice: str | None = None,
    ) -> None:
        self._open_source = open_source
        self.max_bad_frames = max_bad_frames
        self.reconnect_delay = reconnect_delay
        self.frame_timeout = frame_timeout
        self.advice = advice
        self._clock = clock
        self.name = name
        self._waiting_since = clock()  # of the last frame, or of the last wait counted as bad
        self._source: CameraFeed | None = None
        self._bad = 0
        self._next_attempt = float("-inf")
        self.fault: str | None = None
        self.reconnects = 0
        self.timestamp = 0.0  # of the last good frame: the source's own clock when it has one

    @property
    def ok(self) -> bool:
        return self.fault is None

    @property
    def is_open(self) -> bool:
        """A camera is open (it may still be sending nothing good)."""
        return self._source is not None

    def read(self) -> np.ndarray | None:
        """The next good frame, or None (no frame now, or the camera is lost and being
        reopened: see ``fault``). ``EOFError`` passes through: a finite source has ended."""
        source = self._source or self._reopen()
        if source is None:
            return None
        try:
            frame = self._grab(source)
        except EOFError:
            raise
        except Exception as error:  # whatever a driver throws, the referee keeps going
            self._bad_frame(f"{type(error).__name__}: {error}")
            return None
        if frame is None:
            if self._clock() - self._waiting_since >= self.frame_timeout:
                self._bad_frame(f"no frame for {self.frame_timeout:g} s")
            return None
        reason = garbage_reason(frame)
        if reason is not None:
            self._bad_frame(reason)
            return None
        self._bad = 0
        self._waiting_since = self._clock()
        if self.fault is not None:
            log.warning("%s is back", self.name)
            self.fault = None
        return frame

    def open_now(self) -> None:
        """Open the camera at once, failing with a clear error: for a person at a terminal who
        named a camera that is not there (a service keeps retrying instead)."""
        try:
            self._source = self._open_source()
        except CompanionError:
            raise
        except Exception as error:
            raise CompanionError(f"cannot open the {self.name}: {error}") from None
        self._waiting_since = self._clock()

    def _grab(self, source: CameraFeed) -> np.ndarray | None:
        """A frame, stamped by the source when it can (a video's own time line), else now."""
        frame_with_time = getattr(source, "frame", None)
        if frame_with_time is None:
            self.timestamp = self._clock()
            return source.read()
        got = frame_with_time()
        if got is None:
            return None
        self.timestamp, image = got
        return image

    def _bad_frame(self, reason: str) -> None:
        self._bad += 1
        self._waiting_since = self._clock()
        log.debug("bad frame %d from %s: %s", self._bad, self.name, reason)
        if self._bad >= self.max_bad_frames:
            self._lose(reason)

    def _lose(self, reason: str) -> None:
        if self.fault is None:
            log.error(
                "%s lost (%s); the game is kept, reconnecting every %.1f s%s",
                self.name,
                reason,
                self.reconnect_delay,
                f"; {self.advice}" if self.advice else "",
            )
        self.fault = f"{self.name} lost: {reason}" + (f"; {self.advice}" if self.advice else "")
        self._drop_source()
        self._next_attempt = self._clock() + self.reconnect_delay

    def _reopen(self) -> CameraFeed | None:
        if self._clock() < self._next_attempt:
            return None
        try:
            self._source = self._open_source()
        except Exception as error:
            self._bad = self.max_bad_frames
            self._lose(f"cannot open it ({error})")
            return None
        if self.fault is not None:
            self.reconnects += 1
            log.warning("%s reopened (attempt %d)", self.name, self.reconnects)
        self._bad = 0
        self._waiting_since = self._clock()
        return self._source

    def _drop_source(self) -> None:
        if self._source is not None:
            try:
                self._source.close()
            except Exception as error:
                log.debug("closing %s failed: %s", self.name, error)
            self._source = None

    def close(self) -> None:
        self._drop_source()
