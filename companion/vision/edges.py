"""Size from the cups' edges: where each size's real outline lands, and whether the frame's
edges follow it.

The region cue (``matching.py``) sums colour evidence over a silhouette, so its size follows
where the colour model stops calling pixels "cup": a pale cup's shaded wall read as board
makes it a size too small, a long shadow read as cup a size too large. Edges are a second
opinion that light moves far less. Two of a cup's edges have a place fixed by geometry alone:

- **the base**, a circle of the cup's real radius on the board itself (height 0, so the
  board-plane view shows it exactly, whatever the camera pose). Only the half facing the point
  under the camera is an edge against the board: the rest hides behind the cup's body, which
  leans away from that point. Across it the frame goes from "unlike the empty board" (the cup)
  to "like it" (the board): the score is that signed step along the circle's normal.
- **the rim** of the cup's flat top, a circle at a fixed fraction of the cup's height and
  radius, seen whole from above, magnified and pushed away from the point under the camera
  by its height (the camera centre from the markers says by how much). Shading changes there
  (the top faces up, the wall sideways) but its sign depends on the light, so the score is the
  edge's strength along the circle's normal, whatever its sign.

Both are measured on the frame's own log ratio to the empty board (``Background.features``):
the wood's grain and grid lines cancel, and no colour model is involved. The set's real
radii are the reference set's (docs/board.md) times one scale, and the rim's radius and height
as fractions of the cup's; calibration fits those three numbers on the reference layout, where
every cup's size is known (``fit_outline``). Each size's two scores become logits (the best
size 0, the others down by their shortfall over the sizes' spread) that are added to the region
cue's; where the sum picks another size than the region cue did and both edges agree, it
reshares the square's cup probability between the sizes (``size_shares``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.vision.cups import CupSet, lifted
from companion.vision.geometry import RectifiedView
from companion.vision.matching import best_shift
from companion.vision.templates import MAX_OFFSET_MM, draw_at

BASE_REACH_MM = 6.0
"""The base circle is searched this far around the square's centre: a cup sits up to a few mm
off it. Further lets a smaller circle slide along one side of a larger cup's base."""
RIM_REACH_MM = 2.0
"""The rim is searched this far around where the region cue put the cup."""
BASE_WEIGHT = 2.0
RIM_WEIGHT = 1.0
"""Logits a size loses for falling short of the best size by the whole spread of the sizes'
scores, per cue. Set on the synthetic stress set and frames-dev (never on the vision bench's
renders): over 12 stress set-ups (1,021 cups, set-ups 1000-1011) 2 and 1 read the most sizes
right and moved none wrongly; frames-dev's readings are the same with any weights up to 3."""
SPREAD_FLOOR = 0.05
"""A spread of scores below this (log-ratio units per pixel) counts as this much: faint edges
(a pale cup on pale wood in shade) say little. On 12 stress set-ups 0.05 kept every size the
cues moved rightly and moved one fewer wrongly than no floor."""
EDGE_FLOOR = 0.02
"""Added to the gradient's magnitude before dividing the oriented strength by it: weaker
gradients (noise, log-ratio units per pixel) count for little."""
SCALE_SCAN = tuple(round(0.86 + 0.02 * k, 2) for k in range(15))
"""The set's real size tried at calibration, as a factor of the reference set's."""
RIM_RATIO_SCAN = tuple(round(0.5 + 0.05 * k, 2) for k in range(10))
RIM_HEIGHT_SCAN = (0.6, 0.7, 0.8, 0.9, 1.0)
"""The rim's radius (of the base's) and height (of the cup's) tried at calibration."""
FACING_MIN_MM = 2.0
"""A cup closer than this to the point under the camera shows its whole base circle."""


@dataclass(frozen=True)
class CupOutline:
    """The real cups' edges, as fractions of the reference set's dimensions (docs/board.md):
    the base radius is ``scale`` times the reference set's, the rim's radius ``rim_ratio`` of
    the base's at ``rim_height`` of the cup's height (also ``scale`` times the reference's)."""

    scale: float
    rim_ratio: float
    rim_height: float

    def to_json(self) -> dict[str, float]:
        return {"scale": self.scale, "rim_ratio": self.rim_ratio, "rim_height": self.rim_height}

    @classmethod
    def from_json(cls, data: Any) -> CupOutline:
        try:
            outline = cls(float(data["scale"]), float(data["rim_ratio"]), float(data["rim_height"]))
        except (KeyError, TypeError, ValueError) as error:
            raise CompanionError("calibration file: the cups' outline is malformed") from error
        if not (0.5 < outline.scale < 2 and 0 < outline.rim_ratio <= 1 and 0 < outline.rim_height <= 1):
            raise CompanionError("calibration file: the cups' outline is malformed")
        return outline


Placed = tuple[int, int, np.ndarray]
"""(top, left, template) in the rectified view."""


@dataclass(frozen=True)
class EdgeBank:
    """Each square's edge templates by size: the base arc and the rim circle."""

    base: tuple[tuple[Placed, ...], ...]  # for ``EdgeMaps.distance``
    rims: tuple[SquareRims, ...]  # for ``EdgeMaps.strength``
    base_reach: int
    rim_reach: int
    pad: int


def real_cups(square_mm: float, max_piece: int, outline: CupOutline) -> CupSet:
    """The set's real radii and heights: the reference set's times the outline's scale."""
    ref = CupSet.default(square_mm, max_piece)
    radii = tuple(r * outline.scale for r in ref.radii[0])
    heights = tuple(h * outline.scale for h in ref.heights[0])
    return CupSet((radii, radii), (heights, heights), ref.shape)


def _disc(view: RectifiedView, xy: np.ndarray, radius: float) -> tuple[int, int, np.ndarray]:
    """A soft disc of ``radius`` mm at board point ``xy``, in a frame just around it."""
    u, v = view.to_pixels(np.asarray(xy)[None, :])[0]
    half = math.ceil(radius * view.scale) + 3
    frame = (int(v) - half, int(u) - half, 2 * half + 2, 2 * half + 2)
    disc = draw_at(view, frame, np.array([[xy[0], xy[1], radius, 0.0]]))
    return frame[0], frame[1], disc


def _normals(disc: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(weight, nx, ny): the disc edge's strength and its outward normal, per pixel."""
    gx = cv2.Sobel(disc, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(disc, cv2.CV_32F, 0, 1, ksize=3) / 8
    weight = np.sqrt(gx * gx + gy * gy)
    safe = np.maximum(weight, 1e-9)
    return weight, -gx / safe, -gy / safe


def base_template(view: RectifiedView, centre: np.ndarray, radius: float, camera_mm: np.ndarray) -> Placed:
    """The base circle's half facing the point under the camera, as a template for the
    distance map: correlated with it, it gives the signed step (inside minus outside) along
    the circle's normal, summed with the gradient's adjoint so one channel does."""
    top, left, disc = _disc(view, centre, radius)
    weight, nx, ny = _normals(disc)
    foot = np.asarray(camera_mm[:2]) - centre
    if float(np.hypot(*foot)) >= FACING_MIN_MM:
        ux, uy = foot / float(np.hypot(*foot))
        weight = weight * np.maximum(0.0, nx * ux - ny * uy)  # view rows run toward -y
    weight = weight / max(float(weight.sum()), 1e-9)
    # sum of gradient(distance) . (-weight * normal) == sum of distance * divergence(weight * normal)
    vx, vy = (weight * nx).astype(np.float32), (weight * ny).astype(np.float32)
    divergence = (cv2.Sobel(vx, cv2.CV_32F, 1, 0, ksize=3) + cv2.Sobel(vy, cv2.CV_32F, 0, 1, ksize=3)) / 8
    return _cropped(top, left, divergence)


def _cropped(top: int, left: int, template: np.ndarray) -> Placed:
    """The template cut to where it is not zero (fewer pixels to correlate)."""
    mask = np.abs(template).reshape(template.shape[0], template.shape[1], -1).max(axis=2) > 1e-7
    ys, xs = np.nonzero(mask)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    return top + int(y0), left + int(x0), np.ascontiguousarray(template[y0:y1, x0:x1])


def rim_template(
    view: RectifiedView, centre: np.ndarray, radius: float, height: float, camera_mm: np.ndarray
) -> Placed:
    """The rim circle at its height, as seen on the board plane: each pixel's weight on it."""
    xy, grow = lifted(centre, height, camera_mm)
    top, left, disc = _disc(view, xy, radius * float(grow))
    weight = _normals(disc)[0]
    return _cropped(top, left, (weight / max(float(weight.sum()), 1e-9)).astype(np.float32))


@dataclass(frozen=True)
class SquareRims:
    """One square's rim templates by size, and the region around them where the frame's edge
    strength is taken along the normal of a circle about ``centre`` (the rims' middle: the
    sizes' rims, nearly concentric, share it)."""

    rings: tuple[Placed, ...]
    top: int
    left: int
    directions: np.ndarray  # (h, w, 3) float32: nx², 2 nx ny, ny² of the normal about the centre


def square_rims(view: RectifiedView, rings: list[Placed], centre_px: tuple[float, float]) -> SquareRims:
    """The rims of one square with the region any shift of them can reach."""
    grow = math.ceil(MAX_OFFSET_MM * view.scale) + reaches(view)[1] + 1
    top = min(t for t, _, _ in rings) - grow
    left = min(lt for _, lt, _ in rings) - grow
    bottom = max(t + r.shape[0] for t, _, r in rings) + grow
    right = max(lt + r.shape[1] for _, lt, r in rings) + grow
    ys, xs = np.mgrid[top:bottom, left:right].astype(np.float64)
    dy, dx = ys - centre_px[1], xs - centre_px[0]
    length = np.maximum(np.hypot(dx, dy), 1e-9)
    nx, ny = dx / length, dy / length
    directions = np.dstack([nx * nx, 2 * nx * ny, ny * ny]).astype(np.float32)
    return SquareRims(tuple(rings), top, left, directions)


def rims_for(
    view: RectifiedView, centre: np.ndarray, cups: CupSet, outline: CupOutline, camera_mm: np.ndarray
) -> SquareRims:
    """The rims of every size of ``cups`` on the square centred at ``centre`` (board mm)."""
    radii, heights = cups.radii[0], cups.heights[0]
    rings = [
        rim_template(view, centre, r * outline.rim_ratio, h * outline.rim_height, camera_mm)
        for r, h in zip(radii, heights, strict=True)
    ]
    middle, _ = lifted(centre, outline.rim_height * float(np.mean(heights)), camera_mm)
    u, v = view.to_pixels(middle[None, :])[0]
    return square_rims(view, rings, (float(u), float(v)))


def build_edge_bank(
    view: RectifiedView, centres: list[np.ndarray], camera_mm: np.ndarray, outline: CupOutline, max_piece: int
) -> EdgeBank:
    """Every square's templates for every size (``centres``: each square's centre, board mm)."""
    cups = real_cups(view.layout.square_mm, max_piece, outline)
    base = tuple(tuple(base_template(view, c, r, camera_mm) for r in cups.radii[0]) for c in centres)
    rims = tuple(rims_for(view, c, cups, outline, camera_mm) for c in centres)
    base_reach, rim_reach = reaches(view)
    return EdgeBank(base, rims, base_reach, rim_reach, edge_pad(view))


def reaches(view: RectifiedView) -> tuple[int, int]:
    """How far (pixels) the base and the rim are searched."""
    return math.ceil(BASE_REACH_MM * view.scale), math.ceil(RIM_REACH_MM * view.scale)


def edge_pad(view: RectifiedView) -> int:
    """Padding the edge maps need for every search to stay inside them."""
    base_reach, rim_reach = reaches(view)
    return max(base_reach, math.ceil(MAX_OFFSET_MM * view.scale) + rim_reach) + 2


@dataclass(frozen=True)
class EdgeMaps:
    """A frame's edges, padded by the bank's ``pad``: how far each pixel is from the empty
    board (the features' length; the base templates take its gradient), and the oriented edge
    strength (3 channels: the structure tensor over the three features, divided by the
    gradient's magnitude)."""

    distance: np.ndarray
    strength: np.ndarray
    pad: int


def edge_maps(features: np.ndarray, pad: int) -> EdgeMaps:
    """The edge maps of a frame's features (``Background.features``), padded by ``pad``."""
    gx = cv2.Sobel(features, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(features, cv2.CV_32F, 0, 1, ksize=3) / 8
    jxx = cv2.transform(gx * gx, np.ones((1, 3), np.float32))
    jxy = cv2.transform(gx * gy, np.ones((1, 3), np.float32))
    jyy = cv2.transform(gy * gy, np.ones((1, 3), np.float32))
    magnitude = cv2.sqrt(jxx + jyy) + np.float32(EDGE_FLOOR)
    distance = cv2.sqrt(cv2.transform(features * features, np.ones((1, 3), np.float32)))
    strength = np.dstack([jxx / magnitude, jxy / magnitude, jyy / magnitude])
    border = (pad, pad, pad, pad, cv2.BORDER_CONSTANT)
    return EdgeMaps(
        cv2.copyMakeBorder(distance, *border, value=0), cv2.copyMakeBorder(strength, *border, value=0), pad
    )


def _best(field: np.ndarray, placed: Placed, pad: int, dy: int, dx: int, reach: int) -> float:
    """The template's best correlation with ``field`` within ``reach`` of shift (dy, dx)."""
    top, left, template = placed
    return best_shift(field, template, top + pad + dy, left + pad + dx, reach)[0]


def rim_scores(strength: np.ndarray, pad: int, rims: SquareRims, dy: int, dx: int, reach: int) -> np.ndarray:
    """Each size's rim score around shift (dy, dx): the edge strength along the rim's normal."""
    h, w = rims.directions.shape[:2]
    y, x = rims.top + pad, rims.left + pad
    patch = strength[y : y + h, x : x + w] * rims.directions
    oriented = cv2.transform(patch, np.ones((1, 3), np.float32))
    return np.array(
        [
            _best(oriented, (t - rims.top, lt - rims.left, ring), 0, dy, dx, reach)
            for t, lt, ring in rims.rings
        ]
    )


def edge_scores(maps: EdgeMaps, bank: EdgeBank, row: int, dy: int, dx: int) -> tuple[np.ndarray, np.ndarray]:
    """(base, rim) scores of every size on square ``row``; the rim around shift (dy, dx)."""
    base = np.array([_best(maps.distance, p, maps.pad, 0, 0, bank.base_reach) for p in bank.base[row]])
    return base, rim_scores(maps.strength, maps.pad, bank.rims[row], dy, dx, bank.rim_reach)


def shortfall(scores: np.ndarray) -> np.ndarray:
    """Each size's score below the best, over the sizes' spread (at least ``SPREAD_FLOOR``),
    per row: 0 for the best, -1 for the worst when the spread is wide."""
    scores = np.atleast_2d(scores)
    spread = np.maximum(scores.max(axis=1) - scores.min(axis=1), SPREAD_FLOOR)
    return (scores - scores.max(axis=1, keepdims=True)) / spread[:, None]


def edge_logits(base: np.ndarray, rim: np.ndarray) -> np.ndarray:
    """The edge cue's logits per size (rows: squares), to add to the region cue's."""
    return BASE_WEIGHT * shortfall(base) + RIM_WEIGHT * shortfall(rim)


def size_shares(region: np.ndarray, base: np.ndarray, rim: np.ndarray, softening: float = 1.0) -> np.ndarray:
    """How each square's cup probability splits between sizes (rows sum to 1), from the
    region cue's logits and the edge scores (all N x S); ``softening`` divides the edges'
    logits as it divides the region cue's.

    The edges settle sizes the region cue reads wrong by a little; they are no more than that.
    Each cue alone misreads sizes now and then: added as if independent they made wrong sizes
    sure (12 stress set-ups: 4 wrong sizes at 0.9 or more where the region cue alone had
    none), and taking the region cue's confidence down wherever the edges merely disagreed
    made right readings unsure (frames-dev: 7 fewer right squares at 0.9 or more, and one
    game's referee, asking for help over it, no longer exact). So the region cue's shares stand
    unless the sum of the cues picks another size and both the base and the rim score that
    size above the region cue's; then the sum's shares are used, the size it picks keeping at
    most the region cue's own top share.
    """
    alone = _softmax(region)
    both = _softmax(region + edge_logits(base, rim) / softening)
    rows = np.arange(len(both))
    best, was = both.argmax(axis=1), alone.argmax(axis=1)
    moved = (best != was) & (base[rows, best] > base[rows, was]) & (rim[rows, best] > rim[rows, was])
    top = np.minimum(both[rows, best], alone.max(axis=1))
    rest = (1.0 - top) / np.maximum(1.0 - both[rows, best], 1e-12)
    shares = both * rest[:, None]
    shares[rows, best] = top
    return np.where(moved[:, None], shares, alone)


def _softmax(logits: np.ndarray) -> np.ndarray:
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


def _margin(scores: np.ndarray, size: int) -> float:
    """How far the true size's score leads the best other size, over the sizes' spread."""
    spread = float(scores.max() - scores.min())
    if spread <= 0:
        return 0.0
    others = np.delete(scores, size - 1)
    return float(scores[size - 1] - others.max()) / spread


def fit_outline(
    view: RectifiedView,
    maps: EdgeMaps,
    cups_at: dict[int, tuple[int, tuple[int, int]]],
    camera_mm: np.ndarray,
    max_piece: int,
) -> CupOutline:
    """The outline that best tells the reference cups' sizes apart.

    ``cups_at``: row -> (size, (dy, dx)), each reference cup's size and where the region cue
    found it. The scale comes from the base circles alone (they depend on nothing else), then
    the rim's radius and height from the rims. Each is chosen for the largest mean margin of
    the true size over the others, so an edge that every size's circle crosses (a knob, a
    shadow's edge) does not pull it.
    """
    centres = {row: np.array(view.layout.square_centre(row)) for row in cups_at}
    base_reach, rim_reach = reaches(view)

    def base_margin(scale: float) -> float:
        radii = real_cups(view.layout.square_mm, max_piece, CupOutline(scale, 1.0, 1.0)).radii[0]
        return float(
            np.mean(
                [
                    _margin(
                        np.array(
                            [
                                _best(
                                    maps.distance,
                                    base_template(view, centres[row], r, camera_mm),
                                    maps.pad,
                                    0,
                                    0,
                                    base_reach,
                                )
                                for r in radii
                            ]
                        ),
                        size,
                    )
                    for row, (size, _) in cups_at.items()
                ]
            )
        )

    scale = max(SCALE_SCAN, key=base_margin)
    cups = real_cups(view.layout.square_mm, max_piece, CupOutline(scale, 1.0, 1.0))

    def rim_margin(outline: CupOutline) -> float:
        return float(
            np.mean(
                [
                    _margin(
                        rim_scores(
                            maps.strength,
                            maps.pad,
                            rims_for(view, centres[row], cups, outline, camera_mm),
                            dy,
                            dx,
                            rim_reach,
                        ),
                        size,
                    )
                    for row, (size, (dy, dx)) in cups_at.items()
                ]
            )
        )

    candidates = [CupOutline(scale, ratio, height) for ratio in RIM_RATIO_SCAN for height in RIM_HEIGHT_SCAN]
    return max(candidates, key=rim_margin)
