"""Finding the burned grid lines, to check where the markers put the board.

Markers fix the board only as well as they were glued: one placed 2 mm off its spot, or a
board whose squares are not quite the nominal size, shifts or stretches the whole grid the
reader works in. The empty board shows the grid lines themselves, so calibration looks for
them in the board-plane view: along each axis, the n + 1 thin dark lines evenly spaced that
best match the view's darkness profile. When they are found clearly, the markers' true place
relative to the grid follows, as an offset and a scale per axis.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from companion.vision.geometry import BoardLayout, Camera, RectifiedView

SCALE = 2.0  # px per mm of the view searched
SPACING_RANGE = 0.1  # square size searched: nominal +-10 %
OFFSET_RANGE = 0.15  # grid origin searched: +-15 % of a square
MIN_CONTRAST = 2.0
"""The lines must be this many times darker (on the profile) than the same comb shifted by
half a square, or the grid is not trusted (worn lines, a cloth board)."""
MIN_CHANGE_MM = 0.3


def darkness_profiles(
    image: np.ndarray, layout: BoardLayout, camera: Camera
) -> tuple[np.ndarray, np.ndarray]:
    """How dark and thin-line-like the view is at each x and each y, sampled every 1/SCALE mm
    from x = y = -margin, over the grid's inside so the markers and margin do not count."""
    view = RectifiedView(layout, SCALE)
    gray = cv2.cvtColor(view.warp(image, camera), cv2.COLOR_BGR2GRAY).astype(np.float32)
    lines = np.maximum(cv2.GaussianBlur(gray, (0, 0), 2.0 * SCALE) - gray, 0.0)
    inside = view.to_pixels(np.array([[0.15, 0.15], [0.85, 0.85]]) * layout.grid_mm)
    (u0, v1), (u1, v0) = np.round(inside).astype(int)
    # rows run from the far edge (y = grid + margin) down; reversed, row i is y = -margin + (i + 1) / SCALE
    rows = np.median(lines[:, u0:u1], axis=1)[::-1]
    return np.median(lines[v0:v1, :], axis=0), np.concatenate([[0.0], rows[:-1]])


def fit_comb(
    profile: np.ndarray, origin_mm: float, lines: int, square_mm: float
) -> tuple[float, float] | None:
    """(first line, spacing) in mm of the evenly spaced comb that best fits a profile sampled
    from ``origin_mm`` at SCALE px/mm, or None when no comb stands out."""
    positions = origin_mm + np.arange(len(profile)) / SCALE
    spacings = square_mm * np.linspace(1 - SPACING_RANGE, 1 + SPACING_RANGE, 161)
    offsets = square_mm * np.linspace(-OFFSET_RANGE, OFFSET_RANGE, 97)
    k = np.arange(lines)
    comb = offsets[:, None, None] + spacings[None, :, None] * k
    score = np.interp(comb, positions, profile).sum(axis=2)
    i, j = np.unravel_index(int(np.argmax(score)), score.shape)
    between = np.interp(comb[i, j] + spacings[j] / 2, positions, profile).sum()
    if score[i, j] < MIN_CONTRAST * max(between, 1e-6):
        return None
    return float(offsets[i]), float(spacings[j])


def refined_layout(image: np.ndarray, layout: BoardLayout, camera: Camera) -> BoardLayout | None:
    """The layout with the markers' true place relative to the grid lines seen, or None when
    the lines are not clear or already where the nominal layout puts them."""
    columns, rows = darkness_profiles(image, layout, camera)
    origin = -layout.margin_mm
    x = fit_comb(columns, origin, layout.size + 1, layout.square_mm)
    y = fit_comb(rows, origin, layout.size + 1, layout.square_mm)
    if x is None or y is None:
        return None
    (x0, dx), (y0, dy) = x, y
    g = layout.square_mm
    if max(abs(x0), abs(y0), abs(dx - g) * layout.size, abs(dy - g) * layout.size) < MIN_CHANGE_MM:
        return None
    return replace(layout, marker_frame=(x0, y0, g / dx, g / dy))
