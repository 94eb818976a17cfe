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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.vision.cups import CupSet, lifted
from companion.vision.geometry import RectifiedView
from companion.vision.matching import best_shift
from companion.vision.templates import MAX_OFFSET_MM, draw_together

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
CLEAR_RIM_CAP = 2.0
"""For a colour whose rims calibration found clear (``CupOutline.clear_rims``), ``size_shares``
weighs a rim whose sizes' scores spread wider than ``SPREAD_FLOOR`` ``RIM_WEIGHT`` times its
spread over the floor, up to this: a rim twice as clear as the floor weighs as much as the base
(``BASE_WEIGHT``). The floor makes faint rims say little; a clear one said no more than a rim
at the floor. On the bench's bench-31 (natural cups on walnut, the lamp moved at 07b) the white
4s on a1 and d2 read as 3s on every board under the new lamp, their rims clear (spreads
0.086-0.12, the 4 ahead of the 3 by 0.6-0.95 of them) and their bases tied (a1: 0.128 for the 3
against 0.126): docs/vision-findings.md, "A clear rim"."""
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
TRUST_SCAN = tuple(round(0.05 * k, 2) for k in range(21))
"""The weights of the region cue's size logits tried at calibration (``region_trust``)."""


@dataclass(frozen=True)
class CupOutline:
    """The real cups' edges, as fractions of the reference set's dimensions (docs/board.md):
    the base radius is ``scale`` times the reference set's, the rim's radius ``rim_ratio`` of
    the base's at ``rim_height`` of the cup's height (also ``scale`` times the reference's)."""

    scale: float
    rim_ratio: float
    rim_height: float
    region_trust: tuple[float, float] = (1.0, 1.0)
    """Per colour (white, black), the weight of the region cue's size logits against these
    edges' (``region_trust``): 1 where the region cue reads the reference cups' sizes, less on
    a board where it misreads them."""
    clear_rims: tuple[bool, bool] = (False, False)
    """Per colour, whether its rims read every reference cup's size clearly (``clear_rims``),
    so that a clear rim may weigh more than a faint one in ``size_shares``."""
    departures: tuple[float, float] = (1.0, 1.0)
    """Per colour, the least share of a reference cup's silhouette that departs from the wood's
    own look (``occlusion.departing_share``), measured only for a colour with the wood's look
    (``PixelModel.wood_like``; 1 otherwise): how far this set's real cups stand out from this
    board, which the reader's test for the wood's noise read as a cup is scaled by."""

    def to_json(self) -> dict[str, Any]:
        return {
            "scale": self.scale,
            "rim_ratio": self.rim_ratio,
            "rim_height": self.rim_height,
            "region_trust": list(self.region_trust),
            "clear_rims": list(self.clear_rims),
            "departures": list(self.departures),
        }

    @classmethod
    def from_json(cls, data: Any) -> CupOutline:
        """The outline in a calibration file; one from before ``region_trust`` trusts both
        colours' region cue fully, one from before ``clear_rims`` weighs no rim more for being
        clear, and one from before ``departures`` tests the wood's noise by the fixed share, as
        the reader then did."""
        try:
            white, black = (float(v) for v in data.get("region_trust", (1.0, 1.0)))
            clear_white, clear_black = data.get("clear_rims", (False, False))
            depart_white, depart_black = (float(v) for v in data.get("departures", (1.0, 1.0)))
            outline = cls(
                float(data["scale"]),
                float(data["rim_ratio"]),
                float(data["rim_height"]),
                (white, black),
                (clear_white, clear_black),
                (depart_white, depart_black),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise CompanionError("calibration file: the cups' outline is malformed") from error
        if not (
            0.5 < outline.scale < 2
            and 0 < outline.rim_ratio <= 1
            and 0 < outline.rim_height <= 1
            and all(0 <= t <= 1 for t in outline.region_trust)
            and all(isinstance(clear, bool) for clear in outline.clear_rims)
            and all(0 <= d <= 1 for d in outline.departures)
        ):
            raise CompanionError("calibration file: the cups' outline is malformed")
        return outline


Placed = tuple[int, int, np.ndarray]
"""(top, left, template) in the rectified view."""

DIRECT_SHIFTS = 25
"""A correlator searching this many shifts or fewer scores them by one matrix product rather
than by DFTs (``ShiftCorrelator._direct``): the rims' 5 x 5 at 1 px/mm, the bases' 13 x 13 not.
Paired with the DFTs over frames-dev's reads (6 rims a read), edge scores took 1.24 ms a read
against 1.55, every score and shift the same to the bit; the bases so, a 1.8 MB copy of windows
a call, took match all from 4.90 to 6.23 ms (docs/vision-findings.md, on a read's time)."""


class ShiftCorrelator:
    """``best_placements`` of one square's templates (``placed``, every size) at every shift
    up to ``reach``, every size from one window of the field; made once per bank.

    ``matchTemplate`` (``matching.best_shift``) takes each size's window on its own and for
    each works out the template's spectrum, the window's and the product's inverse (float64
    DFTs, the sums rounded to float32). Here the window holding every size's is transformed
    once, each template's spectrum is kept, and each size costs a product and an inverse: the
    same float64 sums to within the DFTs' rounding (about 1e-16 of them), rounded to float32
    as OpenCV rounds them, so the two part only where an exact sum lies that near a float32
    step. Over every base and rim of frames-dev's reads (1,199 calls) and bench-03's boards
    (tests/vision/test_read_speed.py) every score and every shift came out the same to the
    bit, and every reading of the seen scenes with them (``benchmarks/vision_same.py``). A
    read's base fits cost 21 % less with it, its rims 17 % (frames-dev, measured when it was built).

    A search of at most ``DIRECT_SHIFTS`` shifts (the rims' at 1 px/mm) is scored directly
    instead (``_direct``): each shift's window of the field times every template, placed as
    at that shift, in one float32 matrix product that picks each template's best shift; that
    shift's score is summed again in float64 and rounded to float32, as the DFT's are. The
    scores are float64 sums of the same float32 products (exact in float64), within about
    1e-15 of the DFT's; the shifts could part from the DFT's only where two shifts' float32
    sums tie or cross, which none did on bench-03's boards (tests/vision/test_read_speed.py)
    nor in any reading of the seen scenes (``benchmarks/vision_same.py``)."""

    def __init__(self, placed: Sequence[Placed], reach: int) -> None:
        self.reach = reach
        self.top = min(top for top, _, _ in placed) - reach
        self.left = min(left for _, left, _ in placed) - reach
        bottom = max(top + t.shape[0] for top, _, t in placed) + reach
        right = max(left + t.shape[1] for _, left, t in placed) + reach
        self.shape = (bottom - self.top, right - self.left)
        self.offsets = [(top - reach - self.top, left - reach - self.left) for top, left, _ in placed]
        self._stack: tuple[np.ndarray, np.ndarray] | None = None
        if (2 * reach + 1) ** 2 <= DIRECT_SHIFTS:
            self._stack = self._stacked([t for _, _, t in placed])
            return
        self.size = (cv2.getOptimalDFTSize(self.shape[0]), cv2.getOptimalDFTSize(self.shape[1]))
        self.spectra = [cv2.dft(self._padded(t)) for _, _, t in placed]
        self._canvas = np.zeros(self.size, np.float64)
        """The DFT's canvas for ``best``'s window, zeros beyond it: each call writes its window
        over the same place (the same float64 numbers as a padded copy of it, which took a
        tenth of a call)."""

    def _padded(self, image: np.ndarray) -> np.ndarray:
        """``image`` in float64 on a canvas of the DFT's size, zeros beyond it."""
        h, w = image.shape
        return cv2.copyMakeBorder(
            image.astype(np.float64), 0, self.size[0] - h, 0, self.size[1] - w, cv2.BORDER_CONSTANT, value=0.0
        )

    def _stacked(self, templates: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The templates as the rows of one matrix (templates x pixels), each placed where it
        lies in the window at the search's first shift (``_direct``'s windows), in float32
        and in float64: a template a row, its product with the windows' transpose cost 12 %
        less within reads than the windows times the templates as columns."""
        side = 2 * self.reach
        h, w = self.shape[0] - side, self.shape[1] - side
        stack = np.zeros((len(templates), h, w), np.float64)
        for k, ((oy, ox), template) in enumerate(zip(self.offsets, templates, strict=True)):
            stack[k, oy : oy + template.shape[0], ox : ox + template.shape[1]] = template
        flat = stack.reshape(len(templates), h * w)
        return flat.astype(np.float32), flat

    def best(self, field: np.ndarray, down: int, right: int) -> tuple[np.ndarray, np.ndarray]:
        """``best_placements(field, placed, down, right, reach)``: each template's best score
        (float32's value) and the shift (dy, dx) it is first reached at, row by row (n x 2)."""
        y, x = self.top + down, self.left + right
        h, w = self.shape
        if self._stack is not None:
            return self._direct(field[y : y + h, x : x + w], self._stack)
        self._canvas[:h, :w] = field[y : y + h, x : x + w]
        spectrum = cv2.dft(self._canvas, nonzeroRows=h)
        side = 2 * self.reach + 1
        scores, shifts = [], []
        for (oy, ox), template in zip(self.offsets, self.spectra, strict=True):
            product = cv2.mulSpectrums(spectrum, template, 0, conjB=True)
            sums = cv2.idft(product, flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT, nonzeroRows=oy + side)
            found = sums[oy : oy + side, ox : ox + side].astype(np.float32)
            at = int(found.argmax())  # the first of equals, row by row, as ``cv2.minMaxLoc``
            scores.append(float(found.flat[at]))
            shifts.append((at // side - self.reach, at % side - self.reach))
        return np.array(scores), np.array(shifts).reshape(-1, 2)

    def _direct(
        self, window: np.ndarray, stack: tuple[np.ndarray, np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        """``best`` of ``window`` (the field under the search, float32) by one matrix product:
        the templates (``stack``: float32 and float64) times every shift's part of it (a
        strided view), transposed. The product in float32 finds each best shift; its score
        is then summed again in float64 there, as the DFT sums it, and rounded to float32."""
        side = 2 * self.reach + 1
        h, w = window.shape[0] - side + 1, window.shape[1] - side + 1
        rows, columns = window.strides
        parts = np.lib.stride_tricks.as_strided(window, (side, side, h, w), (rows, columns, rows, columns))
        at = (stack[0] @ parts.reshape(side * side, h * w).T).argmax(axis=1).tolist()  # (first of equals)
        scores = [
            float(np.float32(parts[k // side, k % side].astype(np.float64).reshape(h * w) @ stack[1][n]))
            for n, k in enumerate(at)
        ]
        return np.array(scores), np.array([(k // side - self.reach, k % side - self.reach) for k in at])


@dataclass(frozen=True)
class EdgeBank:
    """Each square's edge templates by size: the base arc and the rim circle."""

    base: tuple[tuple[Placed, ...], ...]  # for ``EdgeMaps.distance``
    rims: tuple[SquareRims, ...]  # for ``EdgeMaps.strength``
    base_reach: int
    rim_reach: int
    pad: int
    radii: tuple[float, ...]  # each size's base radius, pixels

    @cached_property
    def reads(self) -> tuple[int, int, int, int]:
        """(top, bottom, left, right) of the view around every window the templates read: each
        base at every shift of its search, each square's rim region (``SquareRims``); the edge
        maps are needed there alone (``edge_maps``' ``within``: over a quarter of the view, the
        margin and the markers' corners, lies outside it)."""
        windows = [
            (
                top - self.base_reach,
                top + t.shape[0] + self.base_reach,
                left - self.base_reach,
                left + t.shape[1] + self.base_reach,
            )
            for base in self.base
            for top, left, t in base
        ]
        windows += [
            (r.top, r.top + r.directions.shape[0], r.left, r.left + r.directions.shape[1]) for r in self.rims
        ]
        tops, bottoms, lefts, rights = zip(*windows, strict=True)
        return min(tops), max(bottoms), min(lefts), max(rights)

    @cached_property
    def _base_correlators(self) -> dict[int, ShiftCorrelator]:
        return {}

    def base_correlator(self, row: int) -> ShiftCorrelator:
        """Square ``row``'s bases' ``ShiftCorrelator`` (shifts up to ``base_reach``), made on
        first use: the bank's templates never change (a new calibration, learning or a board
        found moved makes a new bank)."""
        if row not in self._base_correlators:
            self._base_correlators[row] = ShiftCorrelator(self.base[row], self.base_reach)
        return self._base_correlators[row]

    def found(self, foot: Sequence[int] | np.ndarray) -> bool:
        """Whether a base's best shift (dy, dx) lies inside its search: one stopped at the
        search's edge is no fit found (a cup stands within a few mm of its square's centre)."""
        return max(abs(int(foot[0])), abs(int(foot[1]))) < self.base_reach

    def inside(
        self, size: int, foot: Sequence[int] | np.ndarray, larger: int, around: Sequence[int] | np.ndarray
    ) -> bool:
        """Whether size ``size``'s base circle at shift ``foot`` lies within size ``larger``'s
        at shift ``around`` (sizes 0-based). (The shifts' differences as Python floats: the same
        float64 numbers numpy's arrays of them gave, at a fifth of the cost.)"""
        gap = float(np.hypot(float(foot[0]) - float(around[0]), float(foot[1]) - float(around[1])))
        return gap + self.radii[size] <= self.radii[larger]


def real_cups(square_mm: float, max_piece: int, outline: CupOutline) -> CupSet:
    """The set's real radii and heights: the reference set's times the outline's scale."""
    ref = CupSet.default(square_mm, max_piece)
    radii = tuple(r * outline.scale for r in ref.radii[0])
    heights = tuple(h * outline.scale for h in ref.heights[0])
    return CupSet((radii, radii), (heights, heights), ref.shape)


def _frames(
    view: RectifiedView, centres: np.ndarray, radii: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tops, lefts, sides) of the square frames just around discs of ``radii`` mm at board
    points ``centres`` (n x 2): three pixels clear of each disc, so the frame's border is zero."""
    u, v = view.to_pixels(centres).T
    half = np.ceil(np.asarray(radii) * view.scale).astype(int) + 3
    return np.trunc(v).astype(int) - half, np.trunc(u).astype(int) - half, 2 * half + 2


def soft_discs(
    view: RectifiedView, centres: np.ndarray, radii: np.ndarray
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Soft discs of ``radii`` mm at board points ``centres`` (n x 2), each in its frame
    (``_frames``), by frame side: the discs' indices, their frames' tops and lefts, and the
    discs (m x side x side, float32), drawn together (``templates.draw_together``)."""
    tops, lefts, sides = _frames(view, centres, radii)
    frames = list(zip(tops.tolist(), lefts.tolist(), sides.tolist(), sides.tolist(), strict=True))
    sections = [
        np.array([[x, y, r, 0.0]])
        for (x, y), r in zip(centres.tolist(), np.asarray(radii).tolist(), strict=True)
    ]
    for index, discs in draw_together(view, frames, sections):
        yield index, tops[index], lefts[index], discs


def _strength(disc: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(weight, gx, gy): the disc edge's strength and the disc's gradient, per pixel (of a stack
    of discs too, m x side x side: their frames' zero borders keep them apart)."""
    flat = disc.reshape(-1, disc.shape[-1])
    gx = cv2.Sobel(flat, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(flat, cv2.CV_32F, 0, 1, ksize=3) / 8
    return np.sqrt(gx * gx + gy * gy).reshape(disc.shape), gx.reshape(disc.shape), gy.reshape(disc.shape)


def _normals(disc: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(weight, nx, ny): the disc edge's strength and its outward normal, per pixel."""
    weight, gx, gy = _strength(disc)
    safe = np.maximum(weight, 1e-9)
    return weight, -gx / safe, -gy / safe


def _per_disc_sums(values: np.ndarray) -> np.ndarray:
    """Each disc's sum over its frame (m x 1 x 1), as ``values[i].sum()`` adds it up."""
    return values.reshape(len(values), -1).sum(axis=1)[:, None, None]


def base_templates(
    view: RectifiedView, centres: np.ndarray, radii: np.ndarray, camera_mm: np.ndarray
) -> list[Placed]:
    """Base circles of ``radii`` mm about ``centres`` (n x 2), each the half facing the point
    under the camera, as templates for the distance map: correlated with it, one gives the
    signed step (inside minus outside) along the circle's normal, summed with the gradient's
    adjoint so one channel does."""
    placed: list[Placed] = [(0, 0, np.empty((0, 0), np.float32))] * len(radii)
    for index, tops, lefts, discs in soft_discs(view, centres, radii):
        weight, nx, ny = _normals(discs)
        foot = np.asarray(camera_mm[:2]) - centres[index]
        length = np.hypot(foot[:, 0], foot[:, 1])
        facing = length >= FACING_MIN_MM
        ux, uy = (foot / np.where(facing, length, 1.0)[:, None]).T[:, :, None, None]
        half = weight * np.maximum(0.0, nx * ux - ny * uy)  # view rows run toward -y
        for kept, w in ((facing, half), (~facing, weight)):
            if not kept.any():
                continue
            w = w[kept]
            w = w / np.maximum(_per_disc_sums(w), 1e-9)
            # sum of gradient(distance) . (-weight * normal) == sum of distance * divergence(weight * normal)
            vx, vy = (w * nx[kept]).astype(np.float32), (w * ny[kept]).astype(np.float32)
            dx = cv2.Sobel(vx.reshape(-1, vx.shape[-1]), cv2.CV_32F, 1, 0, ksize=3)
            dy = cv2.Sobel(vy.reshape(-1, vy.shape[-1]), cv2.CV_32F, 0, 1, ksize=3)
            divergence = ((dx + dy) / 8).reshape(vx.shape)
            for i, template in _cropped(index[kept], tops[kept], lefts[kept], divergence):
                placed[i] = template
    return placed


def _cropped(
    index: np.ndarray, tops: np.ndarray, lefts: np.ndarray, templates: np.ndarray
) -> Iterator[tuple[int, Placed]]:
    """Each template (of a stack, m x h x w) cut to where it is not zero (fewer pixels to
    correlate), with its disc's index."""
    mask = np.abs(templates) > 1e-7
    rows, cols = mask.any(axis=2), mask.any(axis=1)
    y0, x0 = rows.argmax(axis=1), cols.argmax(axis=1)
    y1, x1 = rows.shape[1] - rows[:, ::-1].argmax(axis=1), cols.shape[1] - cols[:, ::-1].argmax(axis=1)
    for k, i in enumerate(index.tolist()):
        cut = np.ascontiguousarray(templates[k, y0[k] : y1[k], x0[k] : x1[k]])
        yield i, (int(tops[k] + y0[k]), int(lefts[k] + x0[k]), cut)


def rim_discs(
    centre: np.ndarray, radii: np.ndarray, heights: np.ndarray, camera_mm: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(centres, radii): where rims of ``radii`` mm at ``heights`` mm above the square centred
    at ``centre`` land on the board plane, seen from the camera (n x 2, n)."""
    xy, grow = lifted(centre, np.asarray(heights, dtype=np.float64), camera_mm)
    return xy, np.asarray(radii, dtype=np.float64) * grow


def rim_templates(view: RectifiedView, centres: np.ndarray, radii: np.ndarray) -> list[Placed]:
    """Rim circles as seen on the board plane (``rim_discs``): each pixel's weight on them."""
    placed: list[Placed] = [(0, 0, np.empty((0, 0), np.float32))] * len(radii)
    for index, tops, lefts, discs in soft_discs(view, centres, radii):
        weight = _strength(discs)[0]
        rings = (weight / np.maximum(_per_disc_sums(weight), 1e-9)).astype(np.float32)
        for i, ring in _cropped(index, tops, lefts, rings):
            placed[i] = ring
    return placed


@dataclass(frozen=True)
class SquareRims:
    """One square's rim templates by size, and the region around them where the frame's edge
    strength is taken along the normal of a circle about ``centre`` (the rims' middle: the
    sizes' rims, nearly concentric, share it)."""

    rings: tuple[Placed, ...]
    top: int
    left: int
    directions: np.ndarray  # (h, w, 3) float32: nx², 2 nx ny, ny² of the normal about the centre

    @cached_property
    def _correlators(self) -> dict[int, ShiftCorrelator]:
        return {}

    def correlator(self, reach: int) -> ShiftCorrelator:
        """The rings' ``ShiftCorrelator`` for shifts up to ``reach``, made on first use."""
        if reach not in self._correlators:
            self._correlators[reach] = ShiftCorrelator(self.rings, reach)
        return self._correlators[reach]


def _directions(top: int, left: int, bottom: int, right: int, centre_px: tuple[float, float]) -> np.ndarray:
    """(nx², 2 nx ny, ny²) of the normal about ``centre_px`` over rows top..bottom and columns
    left..right of the view: each pixel's value depends on where it is, not on the region."""
    ys, xs = np.mgrid[top:bottom, left:right].astype(np.float64)
    dy, dx = ys - centre_px[1], xs - centre_px[0]
    length = np.maximum(np.hypot(dx, dy), 1e-9)
    nx, ny = dx / length, dy / length
    return np.dstack([nx * nx, 2 * nx * ny, ny * ny]).astype(np.float32)


def square_rims(view: RectifiedView, rings: list[Placed], centre_px: tuple[float, float]) -> SquareRims:
    """The rims of one square with the region any shift of them can reach."""
    grow = math.ceil(MAX_OFFSET_MM * view.scale) + reaches(view)[1] + 1
    top, left, bottom, right = _extent(rings)
    top, left, bottom, right = top - grow, left - grow, bottom + grow, right + grow
    return SquareRims(tuple(rings), top, left, _directions(top, left, bottom, right, centre_px))


def rims_middle(
    view: RectifiedView, centre: np.ndarray, height: float, camera_mm: np.ndarray
) -> tuple[float, float]:
    """Where (view pixels) the middle of a square's rims at ``height`` mm lands."""
    middle, _ = lifted(centre, height, camera_mm)
    u, v = view.to_pixels(middle[None, :])[0]
    return float(u), float(v)


def build_edge_bank(
    view: RectifiedView, centres: list[np.ndarray], camera_mm: np.ndarray, outline: CupOutline, max_piece: int
) -> EdgeBank:
    """Every square's templates for every size (``centres``: each square's centre, board mm)."""
    cups = real_cups(view.layout.square_mm, max_piece, outline)
    radii, heights = np.array(cups.radii[0]), np.array(cups.heights[0])
    sizes = len(radii)
    base = base_templates(view, np.repeat(centres, sizes, axis=0), np.tile(radii, len(centres)), camera_mm)
    discs = [
        rim_discs(c, radii * outline.rim_ratio, heights * outline.rim_height, camera_mm) for c in centres
    ]
    rings = rim_templates(
        view, np.concatenate([xy for xy, _ in discs]), np.concatenate([r for _, r in discs])
    )
    middle = outline.rim_height * float(np.mean(heights))
    rims = tuple(
        square_rims(view, rings[k * sizes : (k + 1) * sizes], rims_middle(view, c, middle, camera_mm))
        for k, c in enumerate(centres)
    )
    base_reach, rim_reach = reaches(view)
    return EdgeBank(
        tuple(tuple(base[k * sizes : (k + 1) * sizes]) for k in range(len(centres))),
        rims,
        base_reach,
        rim_reach,
        edge_pad(view),
        tuple(float(r) * view.scale for r in radii),
    )


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


ROW_TAIL = 12
"""Pixels worked out beyond the right of ``edge_maps``' ``within``, and thrown away. OpenCV's
filters work along a row some vectors at a time and its last few values on their own, which
round differently: ``Sobel``'s smoothing of the y derivative, worked out on a part of the view
ending a pixel past it, came out a float32 step off on its last 2 columns (frames-dev's dev-01,
2.98e-8). Twelve pixels (36 values) hold the longest such tail (two vectors of 16 values, less
one); where they would pass the view's edge the whole width is worked out, whose rows then end
as the whole view's do."""

_CHANNEL_SUM = np.ones((1, 3), np.float32)
"""``cv2.transform`` by this adds up a pixel's three channels."""


def edge_maps(features: np.ndarray, pad: int, within: tuple[int, int, int, int] | None = None) -> EdgeMaps:
    """The edge maps of a frame's features (``Background.features``), padded by ``pad``; only
    ``within`` (top, bottom, left, right) of the view when given (``EdgeBank.reads``), 0
    elsewhere.

    The x derivative takes its 1/8 inside ``Sobel`` (a power of two scaling its smoothing
    kernel: the same numbers), the y one in place afterwards (scaling its smoothing kernel
    there rounds differently). Each channel of the strength is divided on its own (the same
    quotients as the three at once) and the maps are written straight into their padded
    arrays: every new or copied array is a pass over memory, a tenth of the maps' time.

    ``within`` is worked out with a pixel of the features around it, all the 3 x 3
    derivatives reach, and ``ROW_TAIL`` more on its right, so each of its pixels comes out
    as from the whole view: the same numbers. The rest of the view, which no template reads,
    is not worked out (28 % of it on frames-dev)."""
    h, w = features.shape[:2]
    y0, y1, x0, x1 = (0, h, 0, w) if within is None else _clipped(within, h, w)
    ay0, ay1, ax0, ax1 = max(y0 - 1, 0), min(y1 + 1, h), max(x0 - 1, 0), x1 + ROW_TAIL
    if ax1 > w:  # the row's end as the whole view's: its last few pixels as they are there
        ax0, ax1 = 0, w
    inner = (slice(pad + y0, pad + y1), slice(pad + x0, pad + x1))
    apron = (slice(y0 - ay0, y1 - ay0), slice(x0 - ax0, x1 - ax0))  # ``within`` in the part worked out
    features = features[ay0:ay1, ax0:ax1]
    gx = cv2.Sobel(features, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
    gy = cv2.Sobel(features, cv2.CV_32F, 0, 1, ksize=3)
    np.multiply(gy, np.float32(0.125), out=gy)
    product = cv2.multiply(gx, gx)  # (one array for the four products, each summed at once)
    jxx = cv2.transform(product, _CHANNEL_SUM)
    jxy = cv2.transform(cv2.multiply(gx, gy, dst=product), _CHANNEL_SUM)
    jyy = cv2.transform(cv2.multiply(gy, gy, dst=product), _CHANNEL_SUM)
    magnitude = cv2.sqrt(np.add(jxx, jyy))
    np.add(magnitude, np.float32(EDGE_FLOOR), out=magnitude)
    distance = np.zeros((h + 2 * pad, w + 2 * pad), np.float32)
    distance[inner] = cv2.sqrt(cv2.transform(cv2.multiply(features, features, dst=product), _CHANNEL_SUM))[
        apron
    ]
    for j in (jxx, jxy, jyy):
        np.divide(j, magnitude, out=j)
    strength = np.zeros((h + 2 * pad, w + 2 * pad, 3), np.float32)
    cv2.merge([j[apron] for j in (jxx, jxy, jyy)], dst=strength[inner])
    return EdgeMaps(distance, strength, pad)


def _clipped(box: tuple[int, int, int, int], h: int, w: int) -> tuple[int, int, int, int]:
    """(top, bottom, left, right) of ``box`` on an h x w view."""
    top, bottom, left, right = box
    return max(top, 0), min(max(bottom, 0), h), max(left, 0), min(max(right, 0), w)


def rim_scores(strength: np.ndarray, pad: int, rims: SquareRims, dy: int, dx: int, reach: int) -> np.ndarray:
    """Each size's rim score around shift (dy, dx): the edge strength along the rim's normal."""
    h, w = rims.directions.shape[:2]
    y, x = rims.top + pad, rims.left + pad
    patch = strength[y : y + h, x : x + w] * rims.directions
    oriented = cv2.transform(patch, _CHANNEL_SUM)
    return rims.correlator(reach).best(oriented, dy - rims.top, dx - rims.left)[0]


def edge_scores(maps: EdgeMaps, bank: EdgeBank, row: int, dy: int, dx: int) -> tuple[np.ndarray, np.ndarray]:
    """(base, rim) scores of every size on square ``row``; the rim around shift (dy, dx)."""
    return base_fits(maps, bank, row)[0], rim_scores(
        maps.strength, maps.pad, bank.rims[row], dy, dx, bank.rim_reach
    )


def base_fits(maps: EdgeMaps, bank: EdgeBank, row: int) -> tuple[np.ndarray, np.ndarray]:
    """Each size's base score on square ``row`` and the shift (dy, dx) it scores best at (S x 2):
    where a cup of that size stands, from its outline on the board alone, which no lamp moves."""
    return bank.base_correlator(row).best(maps.distance, maps.pad, maps.pad)


def standing_edges(maps: EdgeMaps, bank: EdgeBank, row: int) -> np.ndarray:
    """(2, S): each size's base score on square ``row`` where that base fits best
    (``base_fits``), and its rim's score around that foot: how much of a cup of that size
    standing there its outline shows, whatever its colour."""
    base, feet = base_fits(maps, bank, row)
    rims = [
        rim_scores(maps.strength, maps.pad, bank.rims[row], dy, dx, bank.rim_reach)[k]
        for k, (dy, dx) in enumerate(feet.tolist())
    ]
    return np.array([base, rims])


class BaseFits:
    """A frame's base fits (``base_fits``), each square's computed once, when first asked for.

    ``rectified`` and ``board`` (the reader's ``Background``), when given, are the frame on
    the board plane and the empty board its edge maps were measured against: learning from
    the same frame later takes these fits instead of measuring them again (``serves``)."""

    def __init__(
        self, maps: EdgeMaps, bank: EdgeBank, rectified: np.ndarray | None = None, board: object = None
    ) -> None:
        self.maps, self.bank = maps, bank
        self.rectified, self.board = rectified, board
        self._fits: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def serves(self, rectified: np.ndarray, board: object, bank: EdgeBank) -> bool:
        """Whether these are the fits of frame ``rectified`` against ``board`` with ``bank``'s
        templates: the same empty board and templates (learning replaces the board, a board
        found moved the templates), and a frame the same to the pixel."""
        return (
            self.bank is bank
            and self.board is not None
            and self.board is board
            and self.rectified is not None
            and np.array_equal(self.rectified, rectified)
        )

    def fits(self, row: int) -> tuple[np.ndarray, np.ndarray]:
        """``base_fits`` of square ``row``."""
        if row not in self._fits:
            self._fits[row] = base_fits(self.maps, self.bank, row)
        return self._fits[row]

    def seeds(self, row: int) -> Callable[[], list[tuple[int, int] | None]]:
        """Where each size's base is found on square ``row`` (None where its best shift is
        stopped at its search's edge, ``EdgeBank.found``), for ``matching.climb``."""

        def found() -> list[tuple[int, int] | None]:  # (``EdgeBank.found`` on Python ints)
            reach = self.bank.base_reach
            return [(y, x) if max(abs(y), abs(x)) < reach else None for y, x in self.fits(row)[1].tolist()]

        return found

    def footless(self, row: int) -> bool:
        """Whether no size's base circle is found on square ``row`` (every best shift stopped at
        its search's edge, ``EdgeBank.found``): whatever the region cue sees there stands on no
        foot, as a shadow across an empty square does."""
        return not any(self.bank.found(foot) for foot in self.fits(row)[1].tolist())


def shortfall(scores: np.ndarray) -> np.ndarray:
    """Each size's score below the best, over the sizes' spread (at least ``SPREAD_FLOOR``),
    per row: 0 for the best, -1 for the worst when the spread is wide."""
    scores = np.atleast_2d(scores)
    spread = np.maximum(scores.max(axis=1) - scores.min(axis=1), SPREAD_FLOOR)
    return (scores - scores.max(axis=1, keepdims=True)) / spread[:, None]


def edge_logits(base: np.ndarray, rim: np.ndarray, clear: np.ndarray | None = None) -> np.ndarray:
    """The edge cue's logits per size (rows: squares), to add to the region cue's; where
    ``clear`` (per row) the rim weighed by its spread (``rim_weights``)."""
    rim_weight = RIM_WEIGHT if clear is None else np.where(clear, rim_weights(rim), RIM_WEIGHT)[:, None]
    return BASE_WEIGHT * shortfall(base) + rim_weight * shortfall(rim)


def rim_spreads(rim: np.ndarray) -> np.ndarray:
    """How far apart each row's rim scores lie, best less worst."""
    rim = np.atleast_2d(rim)
    return rim.max(axis=1) - rim.min(axis=1)


def rim_weights(rim: np.ndarray) -> np.ndarray:
    """Each row's rim weight where its colour's rims are clear (``CupOutline.clear_rims``):
    ``RIM_WEIGHT`` times its spread over ``SPREAD_FLOOR``, from 1 (at or under the floor) up
    to ``CLEAR_RIM_CAP``."""
    return RIM_WEIGHT * np.clip(rim_spreads(rim) / SPREAD_FLOOR, 1.0, CLEAR_RIM_CAP)


def size_shares(
    region: np.ndarray,
    base: np.ndarray,
    rim: np.ndarray,
    softening: float = 1.0,
    trust: np.ndarray | None = None,
    clear: np.ndarray | None = None,
) -> np.ndarray:
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

    ``trust`` (per row, 0..1; 1 when None) weighs the region cue's logits in that sum: the
    calibration's ``CupOutline.region_trust`` of the colour read. Where it is below 1 the
    calibration saw the region cue misread this colour's sizes on the reference cups, and a rim
    too faint to tell sizes apart (its spread under ``SPREAD_FLOOR``) does not stop the base
    from moving a size.

    ``clear`` (per row; none when None): the calibration saw this colour's rims read every
    reference cup's size by ``SPREAD_FLOOR`` or more (``CupOutline.clear_rims``). There a rim
    whose own spread is over the floor weighs by it (``rim_weights``), and the base need not
    score the size moved to above the region cue's where the edges' logits together do: a pale
    cup's foot can be no edge at all (docs/vision-findings.md, "A clear rim"), its base circles tied.
    """
    trust = np.ones(len(region)) if trust is None else np.asarray(trust, dtype=np.float64)
    clear_rim = rim_spreads(rim) >= SPREAD_FLOOR
    if clear is not None:
        clear = np.asarray(clear, dtype=bool) & clear_rim
    alone = _softmax(region)
    edges = edge_logits(base, rim, clear)
    both = _softmax(trust[:, None] * region + edges / softening)
    rows = np.arange(len(both))
    best, was = both.argmax(axis=1), alone.argmax(axis=1)
    rim_agrees = (rim[rows, best] > rim[rows, was]) | ((trust < 1.0) & ~clear_rim)
    base_agrees = base[rows, best] > base[rows, was]
    if clear is not None:
        base_agrees |= clear & (edges[rows, best] > edges[rows, was])
    moved = (best != was) & base_agrees & rim_agrees
    return np.where(moved[:, None], _capped(both, alone.max(axis=1)), alone)


def _capped(shares: np.ndarray, top: np.ndarray) -> np.ndarray:
    """``shares`` (rows sum to 1) with each row's largest share brought down to at most ``top``
    by mixing the row with the uniform share, so the order of the sizes stays as it was (taking
    the rest in proportion let a size the sum ranked second read above the one it picked)."""
    uniform = 1.0 / shares.shape[1]
    high = shares.max(axis=1)
    mix = np.clip((np.minimum(high, top) - uniform) / np.maximum(high - uniform, 1e-12), 0.0, 1.0)
    return mix[:, None] * shares + (1.0 - mix[:, None]) * uniform


def _softmax(logits: np.ndarray) -> np.ndarray:
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


def region_trust(cups: Sequence[tuple[int, int, np.ndarray, np.ndarray]]) -> tuple[float, float]:
    """Per colour (white, black), how far the region cue's size logits can be trusted on this
    board, from the reference cups: (colour, size, region logits, edge logits) each.

    The weight (``TRUST_SCAN``) whose sum with the edges reads the colour's reference cups by
    the widest margin, the worst cup's margin counting (the largest of equals). Where the
    region cue reads every reference cup's size, that is 1 and nothing changes; where it reads
    some wrong (pale cups on pale wood: only the shaded crescent of a large cup's wall reads as
    cup, so the white 4 fits smaller than the white 3), its say shrinks until the edges, which
    read those cups right, carry the sum. A colour with no reference cups keeps 1.
    """
    weights = []
    for colour in (0, 1):
        own = [(size, region, edge) for c, size, region, edge in cups if c == colour]
        if not own:
            weights.append(1.0)
            continue
        worst = [min(size_lead(w * region + edge, size) for size, region, edge in own) for w in TRUST_SCAN]
        best = max(worst)
        weights.append(max(w for w, m in zip(TRUST_SCAN, worst, strict=True) if m == best))
    return weights[0], weights[1]


def clear_rims(cups: Sequence[tuple[int, int, np.ndarray]]) -> tuple[bool, bool]:
    """Per colour (white, black), whether its rims read the reference cups clearly: (colour,
    size, rim scores) each, every cup of the colour with its own size's rim leading every other
    size's by ``SPREAD_FLOOR`` or more. A colour with no reference cups has no clear rims.

    Where a colour's rims are not to be taken at their word, they lean the same way on the
    reference cups as in the game: the stress set's stress-1081 (dark cups, dim rough light)
    has its black rims misread the reference black 1 and 2 (leads -0.043 and -0.015) and say 4
    for its black 3s in the game as clearly as bench-31's white rims say 4 (spreads 0.11-0.14);
    weighed by their clarity they read 16 of its squares a size large (docs/vision-findings.md, "A clear
    rim")."""
    clear = []
    for colour in (0, 1):
        leads = [size_lead(rim, size) for c, size, rim in cups if c == colour]
        clear.append(bool(leads) and min(leads) >= SPREAD_FLOOR)
    return clear[0], clear[1]


def size_lead(logits: np.ndarray, size: int) -> float:
    """How far size ``size``'s logit leads the best other size's (negative where another leads).
    Public: calibration's margins are measured with it (benchmarks/reference_margins.py)."""
    return float(logits[size - 1] - np.delete(logits, size - 1).max())


def _margins(scores: np.ndarray, size: int) -> np.ndarray:
    """How far the true size's score leads the best other size, over the sizes' spread, for
    each row of ``scores`` (candidates x sizes)."""
    spread = scores.max(axis=1) - scores.min(axis=1)
    lead = scores[:, size - 1] - np.delete(scores, size - 1, axis=1).max(axis=1)
    return np.where(spread > 0, lead / np.where(spread > 0, spread, 1.0), 0.0)


def _extent(placed: list[Placed]) -> tuple[int, int, int, int]:
    """(top, left, bottom, right) of the view around every template of ``placed``."""
    return (
        min(t for t, _, _ in placed),
        min(lt for _, lt, _ in placed),
        max(t + r.shape[0] for t, _, r in placed),
        max(lt + r.shape[1] for _, lt, r in placed),
    )


def best_scores(field: np.ndarray, placed: Sequence[Placed], down: int, right: int, reach: int) -> np.ndarray:
    """Each template's best correlation with ``field`` placed at (top + down + dy, left + right +
    dx), |dy|, |dx| <= reach (``matching.best_shift``'s score)."""
    return best_placements(field, placed, down, right, reach)[0]


def best_placements(
    field: np.ndarray, placed: Sequence[Placed], down: int, right: int, reach: int
) -> tuple[np.ndarray, np.ndarray]:
    """``best_scores`` and the shift (dy, dx) each is reached at (n x 2)."""
    found = [best_shift(field, t, top + down, left + right, reach) for top, left, t in placed]
    return np.array([score for score, _, _ in found]), np.array([(dy, dx) for _, dy, dx in found]).reshape(
        -1, 2
    )


def _oriented(
    maps: EdgeMaps, placed: list[Placed], dy: int, dx: int, reach: int, centre_px: tuple[float, float]
) -> tuple[np.ndarray, int, int]:
    """The edge strength along the normal about ``centre_px`` (as ``rim_scores`` takes it) over
    the region the templates reach around shift (dy, dx), and where they sit in it (down, right)."""
    top, left, bottom, right = _extent(placed)
    top, left, bottom, right = top + dy - reach, left + dx - reach, bottom + dy + reach, right + dx + reach
    patch = maps.strength[top + maps.pad : bottom + maps.pad, left + maps.pad : right + maps.pad]
    directions = _directions(top, left, bottom, right, centre_px)
    return cv2.transform(patch * directions, np.ones((1, 3), np.float32)), dy - top, dx - left


def _first_best(margins: list[np.ndarray]) -> int:
    """The candidate with the largest mean margin over the reference cups (the first of equals),
    each mean taken over that candidate's margins alone, as one candidate at a time took it."""
    return int(np.argmax([np.mean(column) for column in np.array(margins).T]))


def _base_margins(
    view: RectifiedView,
    maps: EdgeMaps,
    cups_at: dict[int, tuple[int, tuple[int, int]]],
    camera_mm: np.ndarray,
    radii: np.ndarray,
) -> list[np.ndarray]:
    """Per reference cup, the true size's margin from the base circles for each row of
    ``radii`` (candidates x sizes, mm)."""
    centres = np.array([view.layout.square_centre(row) for row in cups_at])
    base = base_templates(
        view, np.repeat(centres, radii.size, axis=0), np.tile(radii.ravel(), len(centres)), camera_mm
    )
    reach = reaches(view)[0]
    return [
        _margins(
            best_scores(
                maps.distance, base[k * radii.size : (k + 1) * radii.size], maps.pad, maps.pad, reach
            ).reshape(radii.shape),
            size,
        )
        for k, (size, _) in enumerate(cups_at.values())
    ]


def _rim_margins(
    view: RectifiedView,
    maps: EdgeMaps,
    cups_at: dict[int, tuple[int, tuple[int, int]]],
    camera_mm: np.ndarray,
    cups: CupSet,
    candidates: list[CupOutline],
) -> list[np.ndarray]:
    """Per reference cup, the true size's margin from the rims for each candidate outline (all
    of ``cups``' scale). The rims of one height share the oriented edge strength about their
    middle: it is taken once per cup and height."""
    radii, heights = np.array(cups.radii[0]), np.array(cups.heights[0])
    rim_radii = np.array([radii * c.rim_ratio for c in candidates])  # candidate x size
    rim_heights = np.array([heights * c.rim_height for c in candidates])
    centres = np.array([view.layout.square_centre(row) for row in cups_at])
    discs = [rim_discs(c, rim_radii.ravel(), rim_heights.ravel(), camera_mm) for c in centres]
    rings = rim_templates(
        view, np.concatenate([xy for xy, _ in discs]), np.concatenate([r for _, r in discs])
    )
    reach = reaches(view)[1]
    margins = []
    for k, (size, (dy, dx)) in enumerate(cups_at.values()):
        scores = np.zeros(rim_radii.shape)
        for height in sorted({c.rim_height for c in candidates}):
            chosen = [j for j, c in enumerate(candidates) if c.rim_height == height]
            placed = [
                rings[(k * len(candidates) + j) * len(radii) + s] for j in chosen for s in range(len(radii))
            ]
            middle = rims_middle(view, centres[k], height * float(np.mean(heights)), camera_mm)
            field, down, right = _oriented(maps, placed, dy, dx, reach, middle)
            scores[chosen] = best_scores(field, placed, down, right, reach).reshape(len(chosen), len(radii))
        margins.append(_margins(scores, size))
    return margins


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

    Every candidate's templates are drawn together (``soft_discs``) and scored together
    (``best_scores``): one at a time, the 15 scales and 50 rims cost a calibration twice what
    the rest of it did.
    """
    reference = np.array(real_cups(view.layout.square_mm, max_piece, CupOutline(1.0, 1.0, 1.0)).radii[0])
    radii = np.multiply.outer(SCALE_SCAN, reference)  # scale x size
    scale = SCALE_SCAN[_first_best(_base_margins(view, maps, cups_at, camera_mm, radii))]
    cups = real_cups(view.layout.square_mm, max_piece, CupOutline(scale, 1.0, 1.0))
    candidates = [CupOutline(scale, ratio, height) for ratio in RIM_RATIO_SCAN for height in RIM_HEIGHT_SCAN]
    return candidates[_first_best(_rim_margins(view, maps, cups_at, camera_mm, cups, candidates))]
