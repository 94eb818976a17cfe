"""Bilinear sampling of float images that gives the same values on every OpenCV.

``cv2.remap`` with float maps and ``INTER_LINEAR`` is not the same function on every
release: OpenCV 4.x (a Raspberry Pi's 4.11 among them) rounds each map coordinate to 1/32
of a pixel and looks its weights up in a table, OpenCV 5.0 interpolates at the exact
coordinate: a float image's values move by up to 1/64 of the step between two neighbouring
pixels (docs/device.md#versions). The product's float remaps are made here instead, with OpenCV
5.0's arithmetic (three linear blends, each one fused multiply-add rounded to float32), so
the readings made with 5.0 stay what they were and a 4.x reads the same. Remaps of 8-bit
frames with fixed-point maps (``convertMaps`` to ``CV_16SC2``, the reader's warp) agree
across versions already and stay OpenCV's.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Border = float | tuple[float, ...] | None
"""Outside the image: its nearest edge pixel (None), or this value (one a channel)."""


def remap_linear(
    image: np.ndarray,
    map_x: np.ndarray,
    map_y: np.ndarray,
    border: Border = None,
) -> np.ndarray:
    """``image`` (float32, H x W or H x W x C) sampled bilinearly at (``map_x``, ``map_y``).

    As ``cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=...)`` on OpenCV 5.0:
    a neighbour outside the image is its nearest edge pixel (``BORDER_REPLICATE``) when
    ``border`` is None, else ``border`` (``BORDER_CONSTANT``; one value a channel)."""
    image = np.asarray(image, np.float32)
    map_x = np.asarray(map_x, np.float32)
    map_y = np.asarray(map_y, np.float32)
    x0, y0 = np.floor(map_x), np.floor(map_y)
    ax, ay = _weights(map_x - x0, image.ndim), _weights(map_y - y0, image.ndim)
    neighbour = _neighbours(image, x0.astype(np.intp), y0.astype(np.intp), border)
    upper = _blend(neighbour(0, 0), neighbour(1, 0), ax)
    lower = _blend(neighbour(0, 1), neighbour(1, 1), ax)
    return _blend(upper, lower, ay)


def remap_linear_grid(image: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """``remap_linear`` (a neighbour outside the image its nearest edge pixel) at every
    (``xs[column]``, ``ys[row]``): the same numbers, each blend along the rows made once a
    column of the image's rows rather than once a pixel (the board's level over the view,
    ``calibration.levelled``: 1.1 ms where its maps and their remap took 3.0 on the EPYC)."""
    image = np.asarray(image, np.float32)
    xs, ys = np.asarray(xs, np.float32), np.asarray(ys, np.float32)
    x0, y0 = np.floor(xs), np.floor(ys)
    ax = _weights(xs - x0, image.ndim)  # (columns[, 1]): every row alike
    ay = _weights(ys - y0, image.ndim)[:, None]  # (rows, 1[, 1])
    h, w = image.shape[:2]
    left = x0.astype(np.intp)
    columns = [image[:, np.clip(left + dx, 0, w - 1)] for dx in (0, 1)]
    along = _blend(columns[0], columns[1], ax)  # each of the image's rows, at every column
    top = y0.astype(np.intp)
    return _blend(along[np.clip(top, 0, h - 1)], along[np.clip(top + 1, 0, h - 1)], ay)


def _weights(fraction: np.ndarray, ndim: int) -> np.ndarray:
    """A blend's weights in float64 (exact), shaped to scale every channel."""
    return (fraction if ndim == 2 else fraction[..., None]).astype(np.float64)


def _neighbours(
    image: np.ndarray, left: np.ndarray, top: np.ndarray, border: Border
) -> Callable[[int, int], np.ndarray]:
    """A function (dx, dy) -> the image at (left + dx, top + dy), with the border outside."""
    h, w = image.shape[:2]
    flat = image.reshape(h * w, *image.shape[2:])
    fill = None if border is None else np.asarray(border, np.float32)

    def neighbour(dx: int, dy: int) -> np.ndarray:
        x, y = left + dx, top + dy
        values = np.take(flat, np.clip(y, 0, h - 1) * w + np.clip(x, 0, w - 1), axis=0)
        if fill is not None:
            outside = (x < 0) | (x >= w) | (y < 0) | (y >= h)
            if outside.any():
                values[outside] = fill
        return values

    return neighbour


def _blend(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """a + t·(b − a) with the difference in float32 and one rounding for the multiply-add,
    as a fused multiply-add makes it (the product of two float32 is exact in float64; ``t``
    is float64)."""
    blended = t * (b - a)
    blended += a
    return blended.astype(np.float32)
