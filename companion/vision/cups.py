"""What a cup looks like from the camera: sizes, shape, and its silhouette on the board plane.

A cup stands on the board, so its base circle lands exactly where the board-plane view says;
everything above the base is closer to the camera and, projected onto the board plane from
the camera centre, is magnified and pushed away from the point under the camera. The
silhouette is therefore the union of the cup's horizontal cross-sections, each shifted and
scaled that way. Sizes and the height/shape factors are learned from the reference layout
when there is one; the reference set of docs/board.md gives the defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from companion.errors import CompanionError

REFERENCE_DIAMETERS = (24.0, 33.0, 42.0, 51.0)
REFERENCE_HEIGHTS = (26.0, 34.0, 42.0, 50.0)
REFERENCE_SQUARE = 60.0
SECTIONS = 12
SUPERSAMPLE = 4
CIRCLE_BITS = 4
"""Fractional bits of the circles' centres and radii as a silhouette's discs are drawn."""
KNOB = 0.3
"""Radius of the knob on top as a fraction of the base radius: the profile never narrows
below it, so the top of the silhouette keeps its width."""


@dataclass(frozen=True)
class CupSet:
    """Base radius and height (mm) of each colour's cups, by size, and the profile's fullness.

    ``radii[colour][size - 1]``. The radii are the *apparent* ones the reader matches
    against: learned from the reference layout they absorb a set's real size and any
    consistent halo (a pale cup's shaded rim, a dark cup's contact shadow). The profile is
    ``r(t) = R * sqrt(1 - t**shape)`` for height fraction ``t``: a large ``shape`` is a
    straight-sided cup, a small one a cone-like dome.
    """

    radii: tuple[tuple[float, ...], tuple[float, ...]]
    heights: tuple[tuple[float, ...], tuple[float, ...]]
    shape: float = 3.0

    @property
    def max_piece(self) -> int:
        return len(self.radii[0])

    @classmethod
    def default(cls, square_mm: float, max_piece: int = 4) -> CupSet:
        """The reference set (docs/board.md) scaled to the square, or evenly spaced sizes for other counts."""
        k = square_mm / REFERENCE_SQUARE
        if max_piece == len(REFERENCE_DIAMETERS):
            radii = tuple(d / 2 * k for d in REFERENCE_DIAMETERS)
            heights = tuple(h * k for h in REFERENCE_HEIGHTS)
        elif 1 <= max_piece <= 8:
            diameters = np.linspace(0.40, 0.85, max_piece) * square_mm
            radii = tuple(float(d) / 2 for d in diameters)
            heights = tuple(float(d) for d in diameters)
        else:
            raise CompanionError(f"{max_piece} cup sizes is not supported (1 to 8)")
        return cls((radii, radii), (heights, heights))

    def first_not_growing(self) -> tuple[int, int] | None:
        """The first ``(colour, size)`` whose apparent radius is not larger than the size below
        it, None when each colour's cups grow with their size.

        Cups nest, so a set whose sizes do not grow is no set: ``calibrate`` refuses a reference
        layout that reads so and learning never moves a size past its neighbour. A reader given
        one anyway cannot be honest about the sizes in between: with a white 3 taken larger
        than the white 4, a real 3 has no model near it and reads a 2 or a 4 at up to 0.84,
        and the referee held such readings as moves (bench-08, ``--misjudge white:3:1.2``)."""
        for colour, radii in enumerate(self.radii):
            for size in range(1, len(radii)):
                if not radii[size] > radii[size - 1]:
                    return colour, size + 1
        return None

    def height_for(self, colour: int, radius: float) -> float:
        """Height of a cup of this colour with the given apparent radius (same proportions)."""
        ratios = np.array(self.heights[colour]) / np.array(self.radii[colour])
        return float(radius * np.interp(radius, self.radii[colour], ratios))

    def with_radius(self, colour: int, size: int, radius: float) -> CupSet:
        """A copy with one cup's apparent radius changed (its height kept in proportion)."""
        radii = [list(r) for r in self.radii]
        heights = [list(h) for h in self.heights]
        heights[colour][size - 1] = self.height_for(colour, radius)
        radii[colour][size - 1] = radius
        return replace(
            self,
            radii=(tuple(radii[0]), tuple(radii[1])),
            heights=(tuple(heights[0]), tuple(heights[1])),
        )

    def ring_px(self, scale: float) -> float:
        """The mean area (pixels at ``scale`` px/mm) of the ring between one size's base and the
        next one's: the region cue's unit of how clearly a size reads."""
        radii = np.array(self.radii)
        rings = np.diff(np.concatenate([np.zeros((2, 1)), radii], axis=1) ** 2, axis=1)
        return float(np.pi * rings.mean() * scale**2)

    def to_json(self) -> dict[str, object]:
        return {
            "radii_mm": [list(r) for r in self.radii],
            "heights_mm": [list(h) for h in self.heights],
            "shape": self.shape,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CupSet:
        try:
            radii = tuple(tuple(float(v) for v in row) for row in data["radii_mm"])
            heights = tuple(tuple(float(v) for v in row) for row in data["heights_mm"])
        except (TypeError, ValueError) as error:
            raise CompanionError("calibration file: cup sizes are malformed") from error
        if (
            len(radii) != 2
            or len(heights) != 2
            or len({len(r) for r in radii + heights}) != 1
            or min(min(r) for r in radii) <= 0
        ):
            raise CompanionError("calibration file: cup sizes are malformed")
        return cls((radii[0], radii[1]), (heights[0], heights[1]), float(data.get("shape", 3.0)))


_SECTION_HEIGHTS = np.linspace(0.0, 1.0, SECTIONS + 1)
"""Each cross-section's height, a fraction of the cup's (``cross_sections``), read-only: made
once, where each cup's sections made it again (a learning step draws hundreds)."""
_SECTION_HEIGHTS.setflags(write=False)


def cross_sections(
    centre_mm: np.ndarray, radius: float, height: float, shape: float, camera_mm: np.ndarray
) -> np.ndarray:
    """(SECTIONS+1) x 4 array of (x, y, r, t): each cross-section as it lands on the board
    plane, bottom (t = 0) to top (t = 1)."""
    t = _SECTION_HEIGHTS
    r = radius * np.maximum(np.sqrt(np.clip(1.0 - t**shape, 0.0, 1.0)), KNOB)
    xy, grow = lifted(centre_mm, t * height, camera_mm)
    return np.column_stack([xy, r * grow, t])  # (as np.c_ does, in 2.8 µs against 10.5)


def lifted(
    centre_mm: np.ndarray, z: np.ndarray | float, camera_mm: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Where a horizontal circle centred above ``centre_mm`` at height ``z`` lands on the board
    plane, seen from the camera centre: its centre (N x 2, or 2 for one height) and how much it
    is magnified. Central projection onto a parallel plane keeps a circle a circle."""
    cz = float(camera_mm[2])
    grow = cz / np.maximum(cz - np.asarray(z, dtype=np.float64), 1.0)
    xy = camera_mm[:2] + (np.asarray(centre_mm)[None, :] - camera_mm[:2]) * np.reshape(grow, (-1, 1))
    return (xy if np.ndim(z) else xy[0]), grow


def fixed_point_circles(
    sections: np.ndarray, origin_px: np.ndarray, scale: float, flip_y: bool = True
) -> list[list[int]]:
    """Each section's circle [u, v, radius] on the supersampled canvas of a mask whose pixel
    (0, 0) is board point ``origin_px`` (mm), in ``cv2.circle``'s fixed point (``CIRCLE_BITS``
    fractional bits); rows grow toward rank 1 when ``flip_y``."""
    k = scale * SUPERSAMPLE
    one = 1 << CIRCLE_BITS
    x, y, r = sections[:, 0], sections[:, 1], sections[:, 2]
    u = (x - origin_px[0]) * k + (SUPERSAMPLE - 1) / 2
    v = ((origin_px[1] - y) if flip_y else (y - origin_px[1])) * k + (SUPERSAMPLE - 1) / 2
    circles: list[list[int]] = (
        np.rint(np.column_stack([u * one, v * one, r * k * one])).astype(np.int64).tolist()
    )
    return circles


def draw_silhouette(
    sections: np.ndarray,
    origin_px: np.ndarray,
    scale: float,
    shape: tuple[int, int],
    flip_y: bool = True,
) -> np.ndarray:
    """Soft mask (float32 0..1, ``shape``) of the union of discs, antialiased by supersampling.

    ``origin_px`` is the board point (mm) at the mask's pixel (0, 0); rows grow toward rank 1
    when ``flip_y`` (the rectified view's orientation).
    """
    h, w = shape
    big = np.zeros((h * SUPERSAMPLE, w * SUPERSAMPLE), np.uint8)
    for u, v, r in fixed_point_circles(sections, origin_px, scale, flip_y):
        cv2.circle(big, (u, v), r, 255, -1, cv2.LINE_8, CIRCLE_BITS)
    small = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    return small.astype(np.float32) / 255.0
