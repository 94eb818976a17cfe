"""Bilinear sampling of float images that gives the same values on every OpenCV.

``cv2.remap`` with float maps and ``INTER_LINEAR`` is not the same function on every
release: OpenCV 4.x (a Raspberry Pi's 4.11 among them) rounds each map coordinate to 1/32
of a pixel and looks its weights up in a table, OpenCV 5.0 interpolates at the exact
coordinate. On a float image the two differ by up to 7 % of a step between neighbours
(docs/device.md#versions). The product's float remaps are made here instead, with OpenCV
5.0's arithmetic (three linear blends, each one fused multiply-add rounded to float32), so
the readings made with 5.0 stay what they were and a 4.x reads the same. Remaps of 8-bit
frames with fixed-point maps (``convertMaps`` to ``CV_16SC2``, the reader's warp) agree
across versions already and stay OpenCV's.
"""

from __future__ import annotations

import numpy as np


def remap_linear(
    image: np.ndarray,
    map_x: np.ndarray,
    map_y: np.ndarray,
    border: float | tuple[float, ...] | None = None,
) -> np.ndarray:
    """``image`` (float32, H x W or H x W x C) sampled bilinearly at (``map_x``, ``map_y``).

    As ``cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=...)`` on OpenCV 5.0:
    a neighbour outside the image is its nearest edge pixel (``BORDER_REPLICATE``) when
    ``border`` is None, else ``border`` (``BORDER_CONSTANT``; one value a channel)."""
    image = np.asarray(image, np.float32)
    map_x = np.asarray(map_x, np.float32)
    map_y = np.asarray(map_y, np.float32)
    x0, y0 = np.floor(map_x), np.floor(map_y)
    ax, ay = map_x - x0, map_y - y0
    if image.ndim == 3:
        ax, ay = ax[..., None], ay[..., None]
    padded = _bordered(image, border)
    h, w = image.shape[:2]
    stride = w + 2 * PAD
    # Beyond the image a neighbour is border whichever pixel of the pad it is: clipping
    # keeps every index inside the pad and spares a mask.
    left = np.clip(x0.astype(np.intp), -PAD, w) + PAD
    top = np.clip(y0.astype(np.intp), -PAD, h) + PAD
    first = top * stride + left
    flat = padded.reshape(-1, *image.shape[2:])
    upper = _blend(np.take(flat, first, axis=0), np.take(flat, first + 1, axis=0), ax)
    lower = _blend(np.take(flat, first + stride, axis=0), np.take(flat, first + stride + 1, axis=0), ax)
    return _blend(upper, lower, ay)


PAD = 2
"""Border pixels put around the image: a pixel's two neighbours are both outside from two on."""


def _bordered(image: np.ndarray, border: float | tuple[float, ...] | None) -> np.ndarray:
    """The image with ``PAD`` pixels of border on every side: its edge, or ``border``."""
    pad = ((PAD, PAD), (PAD, PAD)) + ((0, 0),) * (image.ndim - 2)
    if border is None:
        return np.pad(image, pad, mode="edge")
    padded = np.empty((image.shape[0] + 2 * PAD, image.shape[1] + 2 * PAD, *image.shape[2:]), np.float32)
    padded[...] = np.asarray(border, np.float32)
    padded[PAD:-PAD, PAD:-PAD] = image
    return padded


def _blend(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """a + t·(b − a) with the difference in float32 and one rounding for the multiply-add,
    as a fused multiply-add makes it (the product of two float32 is exact in float64)."""
    return (t.astype(np.float64) * (b - a) + a).astype(np.float32)
