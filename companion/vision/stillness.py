"""How long a picture has held still, frame by frame.

A hand moves; light, shadows and things set down do not. The reader releases a frame flagged on
moderate evidence once the board has held still (``reader.STILL_SECONDS``), and the look around
the board releases an arm that has not stirred (``surround.ARM_STILL_SECONDS``): both count the
seconds since the first frame the later ones all stay close to.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.scalars import compare_with

STILL_GREY = 6.0
STILL_SHARE = 0.01
"""A picture is still when at most this share of the pixels judged (on a map small enough that
sensor noise is mostly averaged away: the reader's 2 mm map) differs from the first still
frame's by more than ``STILL_GREY`` grey levels."""


class StillClock:
    """Seconds a picture has held still: since the first frame whose map (float32 grey) the
    later ones differ from by more than ``STILL_GREY`` on at most ``STILL_SHARE`` of the pixels
    judged (``where``, a boolean mask of the map's shape; None: every pixel)."""

    def __init__(self, where: np.ndarray | None = None) -> None:
        self.where = where
        self._first: tuple[float, np.ndarray] | None = None  # (since, map) of the first still frame

    def reset(self) -> None:
        """Forget the first still frame: the next one starts the count."""
        self._first = None

    def seconds(self, picture: np.ndarray, timestamp: float) -> float:
        """How long the picture has held still up to ``timestamp`` (0 when it moved: this frame
        becomes the first still one)."""
        if self._first is not None:
            since, first = self._first
            still = self._moved(cv2.absdiff(picture, first)) <= STILL_SHARE * self._judged(picture)
            if still and timestamp >= since:
                return timestamp - since
        self._first = (timestamp, picture)
        return 0.0

    def _moved(self, difference: np.ndarray) -> int:
        """How many judged pixels differ by more than ``STILL_GREY``."""
        over = compare_with(difference, STILL_GREY, cv2.CMP_GT)
        if self.where is None:
            return cv2.countNonZero(over)
        return int(np.count_nonzero((over > 0) & self.where))

    def _judged(self, picture: np.ndarray) -> int:
        return picture.size if self.where is None else int(np.count_nonzero(self.where))
