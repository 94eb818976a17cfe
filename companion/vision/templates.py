"""Each square's cup silhouettes, precomputed for fast matching.

For every square and every (colour, size) the bank holds the soft silhouette a cup standing
on that square's centre would have in the rectified view. They depend only on geometry
(camera centre, square, cup), so they are built once per calibration (or re-location) and
each frame only correlates them with the evidence map. Cups are rarely placed dead centre,
so matching searches shifts up to ``max_offset_mm``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from companion.vision.cups import CupSet, cross_sections, draw_silhouette
from companion.vision.geometry import BoardLayout, RectifiedView

MAX_OFFSET_MM = 9.0


@dataclass(frozen=True)
class SquareTemplates:
    """One square's silhouettes over a frame of the rectified view at (top, left)."""

    top: int
    left: int
    full: np.ndarray  # (2, S, h, w) float32: colour, size - 1
    flat: np.ndarray  # (2, h*w, S) float32: the same, ready for a matrix product
    support: np.ndarray  # (h, w): where any cup on this square could show
    support_centre: tuple[float, float]  # (row, column) centroid of ``support``
    rows: np.ndarray  # 0..h-1 as float32, for centroids
    cols: np.ndarray  # 0..w-1
    masks: np.ndarray  # (2, S, h, w) uint8: 255 where a silhouette shows at all
    areas: np.ndarray  # (2, S) silhouette areas in pixels


@dataclass(frozen=True)
class TemplateBank:
    """Silhouettes of every square, plus how far a cup may sit off centre (pixels)."""

    squares: tuple[SquareTemplates, ...]
    offset: int  # full-resolution pixels
    pad: int  # the evidence map must be padded by this many pixels on each side


def cup_sections(centre_mm: np.ndarray, cups: CupSet, camera_mm: np.ndarray) -> list[list[np.ndarray]]:
    """Every cup's cross-sections on a square: ``[colour][size - 1]``."""
    return [
        [
            cross_sections(
                centre_mm, cups.radii[colour][size - 1], cups.heights[colour][size - 1], cups.shape, camera_mm
            )
            for size in range(1, cups.max_piece + 1)
        ]
        for colour in (0, 1)
    ]


def frame_around(
    view: RectifiedView, centre_mm: np.ndarray, sections: list[np.ndarray]
) -> tuple[int, int, int, int]:
    """(top, left, height, width) of a square frame of the rectified view holding them all."""
    extent = max(float(np.max(np.hypot(*(sec[:, :2] - centre_mm).T) + sec[:, 2])) for sec in sections)
    u, v = view.to_pixels(np.asarray(centre_mm)[None, :])[0]
    half = math.ceil(extent * view.scale) + 2
    return int(v) - half, int(u) - half, 2 * half + 2, 2 * half + 2


def draw_at(view: RectifiedView, frame: tuple[int, int, int, int], sections: np.ndarray) -> np.ndarray:
    """Draw sections over a frame (top, left, height, width) of the rectified view."""
    top, left, h, w = frame
    x0, y1 = view.origin_mm
    origin = np.array([x0 + left / view.scale, y1 - top / view.scale])
    return draw_silhouette(sections, origin, view.scale, (h, w))


def build_bank(
    layout: BoardLayout,
    view: RectifiedView,
    camera_mm: np.ndarray,
    cups: CupSet,
    max_offset_mm: float = MAX_OFFSET_MM,
) -> TemplateBank:
    offset = math.ceil(max_offset_mm * view.scale)
    squares = []
    pad = 0
    rows, cols = view.shape
    for row in range(layout.size * layout.size):
        centre = np.array(layout.square_centre(row))
        sections = cup_sections(centre, cups, camera_mm)
        frame = frame_around(view, centre, [sec for per_colour in sections for sec in per_colour])
        top, left, h, w = frame
        pad = max(
            pad,
            offset + 1 - top,
            offset + 1 - left,
            top + h + offset + 1 - rows,
            left + w + offset + 1 - cols,
        )
        full = np.array(
            [[draw_at(view, frame, sec) for sec in per_colour] for per_colour in sections], dtype=np.float32
        )
        flat = np.ascontiguousarray(full.reshape(2, cups.max_piece, h * w).transpose(0, 2, 1))
        support = full[:, -1].max(axis=0)
        ys, xs = np.mgrid[0:h, 0:w]
        mass = float(support.sum())
        centre_px = (float((support * ys).sum() / mass), float((support * xs).sum() / mass))
        squares.append(
            SquareTemplates(
                top,
                left,
                full,
                flat,
                support,
                centre_px,
                np.arange(h, dtype=np.float32),
                np.arange(w, dtype=np.float32),
                np.where(full > 0.01, 255, 0).astype(np.uint8),
                full.sum(axis=(2, 3)),
            )
        )
    return TemplateBank(tuple(squares), offset, max(pad, 0))


def single_template(
    view: RectifiedView,
    camera_mm: np.ndarray,
    centre_mm: np.ndarray,
    radius: float,
    height: float,
    shape: float,
) -> tuple[int, int, np.ndarray]:
    """(top, left, mask) of one cup's silhouette in a frame just big enough for it."""
    sec = cross_sections(centre_mm, radius, height, shape, camera_mm)
    frame = frame_around(view, centre_mm, [sec])
    return frame[0], frame[1], draw_at(view, frame, sec)
