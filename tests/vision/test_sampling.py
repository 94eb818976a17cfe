"""The float remap the calibration and the renderer use reads the same on every OpenCV:
exact bilinear sampling (a Pi's OpenCV 4.11 rounds coordinates to 1/32 of a pixel in its own
``cv2.remap``), and on OpenCV 5 bit for bit what ``cv2.remap`` gives there."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.sampling import remap_linear, remap_linear_grid

SHAPES = [(5, 7), (6, 4, 3)]
BORDERS = [None, 0.0, 0.25]


def maps(rng: np.random.Generator, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates over the image and two pixels beyond each edge, off every 1/32 step."""
    h, w = shape[:2]
    return (
        (rng.random((40, 50)) * (w + 4) - 2).astype(np.float32),
        (rng.random((40, 50)) * (h + 4) - 2).astype(np.float32),
    )


def exact(image: np.ndarray, x: np.ndarray, y: np.ndarray, border: float | None) -> np.ndarray:
    """Bilinear sampling in float64, one neighbour at a time."""
    h, w = image.shape[:2]
    padded = np.pad(image.astype(np.float64), [(1, 1), (1, 1)] + [(0, 0)] * (image.ndim - 2), mode="edge")
    if border is not None:
        padded[[0, -1]] = border
        padded[:, [0, -1]] = border
    x0, y0 = np.floor(x.astype(np.float64)), np.floor(y.astype(np.float64))
    out = np.zeros(x.shape + image.shape[2:])
    for dx in (0, 1):
        for dy in (0, 1):
            weight = (1 - abs(x - x0 - dx)) * (1 - abs(y - y0 - dy))
            column = np.clip(x0.astype(int) + dx, -1, w) + 1
            row = np.clip(y0.astype(int) + dy, -1, h) + 1
            out += (weight if image.ndim == 2 else weight[..., None]) * padded[row, column]
    return out


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("border", BORDERS)
def test_samples_at_the_exact_coordinate(shape: tuple[int, ...], border: float | None) -> None:
    rng = np.random.default_rng(len(shape))
    image = rng.normal(size=shape).astype(np.float32)
    x, y = maps(rng, shape)
    got = remap_linear(image, x, y, border)
    assert got.dtype == np.float32 and got.shape == x.shape + shape[2:]
    np.testing.assert_allclose(got, exact(image, x, y, border), atol=2e-6)


@pytest.mark.skipif(int(cv2.__version__.split(".")[0]) < 5, reason="OpenCV 4 rounds to 1/32 pixel")
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("border", BORDERS)
def test_is_opencv_5s_remap_bit_for_bit(shape: tuple[int, ...], border: float | None) -> None:
    """What was measured with OpenCV 5 stays as it was."""
    rng = np.random.default_rng(7)
    image = rng.normal(size=shape).astype(np.float32)
    x, y = maps(rng, shape)
    mode = (
        {"borderMode": cv2.BORDER_REPLICATE}
        if border is None
        else {"borderMode": cv2.BORDER_CONSTANT, "borderValue": (border,) * 4}
    )
    expected = cv2.remap(image, x, y, cv2.INTER_LINEAR, **mode)
    assert np.array_equal(remap_linear(image, x, y, border), expected)


@pytest.mark.parametrize("shape", [*SHAPES, (4, 4, 1)])
def test_on_a_grid_of_coordinates_is_remap_linear_bit_for_bit(shape: tuple[int, ...]) -> None:
    """Coordinates by column and by row (the board's level over the view): the same numbers as
    the whole maps give, their blends along the rows made once a column."""
    rng = np.random.default_rng(3)
    image = rng.normal(size=shape).astype(np.float32)
    x, y = maps(rng, shape)
    xs, ys = x[0], y[:, 0]
    whole = remap_linear(
        image, np.broadcast_to(xs, x.shape).copy(), np.broadcast_to(ys[:, None], y.shape).copy()
    )
    got = remap_linear_grid(image, xs, ys)
    assert got.dtype == np.float32 and got.shape == whole.shape
    assert np.array_equal(got.view(np.uint32), whole.view(np.uint32))
