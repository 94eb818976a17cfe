"""OpenCV's element-wise bounds and comparisons against a number, typed.

OpenCV takes a number (or a 4-tuple ``Scalar``, one value a channel) as the second operand
of ``cv2.max``, ``cv2.min`` and ``cv2.compare``, and the board reader relies on it; its type
stubs declare only arrays there. These wrappers hold the one cast that works around the stubs,
so the rest of the reader's arithmetic stays checked.
"""

from __future__ import annotations

from typing import Any, cast

import cv2
import numpy as np

Bound = float | tuple[float, ...]


def at_least(image: np.ndarray, floor: Bound, out: np.ndarray | None = None) -> np.ndarray:
    """``cv2.max(image, floor)``: each element raised to ``floor``, the dtype kept; into
    ``out`` when given (``image`` itself, for one: a new array costs a pass over memory)."""
    return cv2.max(image, cast(Any, floor), dst=out)  # cast: OpenCV's stubs refuse a scalar operand


def at_most(image: np.ndarray, ceiling: Bound, out: np.ndarray | None = None) -> np.ndarray:
    """``cv2.min(image, ceiling)``: each element lowered to ``ceiling``, the dtype kept; into
    ``out`` when given."""
    return cv2.min(image, cast(Any, ceiling), dst=out)  # cast: OpenCV's stubs refuse a scalar operand


def compare_with(image: np.ndarray, value: float, operation: int) -> np.ndarray:
    """``cv2.compare(image, value, operation)``: a uint8 mask, 255 where the comparison holds."""
    return cv2.compare(image, cast(Any, value), operation)  # cast: the stubs refuse a scalar


def fill_normal(out: np.ndarray, mean: float, stddev: float) -> None:
    """``cv2.randn(out, mean, stddev)``: fill ``out`` from OpenCV's seeded generator."""
    cv2.randn(out, cast(Any, mean), cast(Any, stddev))  # cast: the stubs refuse scalar mean and spread
