"""The cups' cast shadows: learned from the reference frame, predicted for every read.

Under a low lamp each cup casts a long shadow across the grid and onto the margin: the board's
own wood, its hue and grain kept, only darker. The occlusion test took those dark strips
across the margin band for an arm. A shadow is predictable, though: with the lamp fixed, the
shadow of a point at height z above the board plane falls at ``foot + z * along`` on the plane,
so a cup of radius r and height h darkens (about) the capsule of radius r swept from its foot
to ``foot + h * along``. ``along`` (board millimetres per millimetre of height) is the light's
direction and slope; it is learned at calibration from the reference frame's cups, whose
positions and heights are known, against the empty frame (``learn_shadows``): the capsules that
cover the most newly darkened pixels and the fewest unchanged ones. A reference frame without
clear shadows (soft or overhead light) gives no model, and the reader behaves as without one.

At read time (``ShadowModel.draw``) the cups read on the board give the pixels their shadows
should cover. There, the occlusion test takes a darker board for board (``lift``): darkening
down to the deepest shadow learned is undone as a gain, with the hue shift shadows showed at
calibration, so what remains must still be the board's colour; a hand in that strip, its own
colour, still stands out, and anything outside the predicted shadows is judged as before.
A hand's own shadow is no cup's: it is never predicted.

How far a shadow reaches is what the reference frame tells least: its cups stand in rows, so
under a lamp along a row each shadow runs into the next cup or off the board, and only a few
ends show. The capsules fitted over the whole frame then come out short (a lamp 0.42 m up
at 0.9 m, bench-26: its shadows were predicted half as long as they fall). So the model also
keeps the longest shadow seen ending on bare board (``shadow_reach``): along the learned
direction, turned by up to ``TURN_DEG`` either way, the darkened run from each cup's edge to
the first lit board pixel, counted only where it ends on board, not under another cup or past
the view's edge. Predicted shadows reach that far.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.vision.cups import CupSet
from companion.vision.geometry import BoardLayout, RectifiedView
from companion.vision.matching import SquareMatch
from companion.vision.pixels import Background, blurred, lit_unevenly, log_image

SHADOW_VERSION = 1
"""Version of the shadow model's entry in the calibration file."""
DARK_LOG = -0.2
"""Log darkening of the reference frame against the empty board that counts as shadow."""
LEARN_MM = 2.0
"""The light is learned on a map of a pixel per 2 mm: shadows are tens of millimetres long."""
COARSE = (15.0, 0.5, 6.01, 0.5)
FINE = (5.0, 0.25)
"""Directions and slopes (mm of shadow per mm of height) tried: every 15° and 0.5 from 0.5 to 6
(a lamp 10° above the table casts shadows 5.7 times a cup's height), then 5° and 0.25 steps
around the best of those."""
MAX_SLOPE = 7.0
MIN_PRECISION = 0.6
"""The best capsules must lie on darkened pixels at least this often ..."""
MIN_RECALL = 0.4
"""... and cover at least this share of the pixels the reference cups darkened beside them
(within ``REACH_SLOPE`` heights), else the shadows are not clear enough to learn from."""
MIN_CUP_SHADOW_MM2 = 150.0
"""Shadowed area per reference cup (mm², outside the cups) below which the light is taken as
soft or overhead: short shadows hide under the cups, and there is nothing to predict."""
REACH_SLOPE = 6.5
TOP_SHARE = 0.5
"""A cup's top casts a disc about half as wide as its foot (the knob, the narrowed shoulder)."""
TURN_DEG = (-10.0, -5.0, 0.0, 5.0, 10.0)
"""A lamp a few board widths away throws each cup's shadow in its own direction: up to 10°
off the learned one across the board when it stands 0.6 m from the board's centre."""
SUBPIXEL = 4
_CIRCLE = np.stack([np.cos(np.arange(16) * np.pi / 8), np.sin(np.arange(16) * np.pi / 8)], axis=1)
PENUMBRA_MM = 4.0
"""Predicted shadows are widened by this much: soft edges, a cup read a millimetre off."""
PENUMBRA_SLOPE = 0.1
"""... and by this share of their length more toward the far end, where the penumbra widens."""
DEPTH_PERCENTILE = 2.0
DEPTH_MARGIN = 0.3
"""Darkening undone inside a predicted shadow goes this much beyond the deepest (2nd
percentile) darkening the reference shadows showed: a dimmer evening deepens them a little."""
MAX_HUE = 0.3
SLACK_PERCENTILE = 75.0
MIN_SLACK = 0.02
MAX_SLACK = 0.1
"""Inside a predicted shadow, colour within this (the 75th percentile of the reference
shadows' spread around their hue shift, clipped) of the shift is taken as the board's: a
sleeve or skin differs by several times that."""

TINT_DEPTH = -0.4
TINT_MIN_PIXELS = 50
TINT_PERCENTILE = 90.0
"""The range of a shadow's tints (``tint_range``) is measured per pixel only this deep
(shallower, a pixel's noise divided by its darkening says little), on at least this many pixels,
its ends at this percentile and its complement."""

LIGHT_CHANGED = 0.1
"""The margin's gain (log, any channel) beyond which the light counts as changed since the board
in use was learned; a camera's exposure drifts by 0.01-0.05. Under the same light the board is
not relit: the bare board's change is then only the cups' shadows and the light they bounce
(up to 0.75 in log near them on the bench's bench-01), which a relit board took in and, once
the cups moved, read as a hand (bench-01: 14 of 27 boards never reached the referee)."""


class ShadowModelError(CompanionError):
    """A calibration file's shadow model is malformed."""


@dataclass(frozen=True)
class CastingCup:
    """A cup standing on the board: its foot's centre (board mm), radius and height (mm)."""

    x: float
    y: float
    radius: float
    height: float


@dataclass(frozen=True)
class ShadowModel:
    """Where the lamp throws the cups' shadows, and what a shadow does to the board's colour."""

    along: tuple[float, float]  # board-plane shift of a point's shadow per mm of its height
    depth: float  # log darkening undone inside predicted shadows (negative)
    hue: tuple[float, float]  # colour shift (q1, q2) per unit of log darkening in shadow
    slack: float  # colour spread around that shift the reference shadows showed
    reach: float = 0.0  # the longest shadow seen ending on board, mm per mm of height (>= |along|)
    tints: tuple[tuple[float, float], tuple[float, float]] | None = None
    """The two ends of the range of colour shifts per unit of darkening the reference shadows
    showed (``tint_range``), which the lift takes for the board's in place of ``hue``; None
    (files from before it, too little shade to measure): ``hue`` alone."""

    def draw(
        self,
        view: RectifiedView,
        cups: list[CastingCup],
        shape: tuple[int, int],
        widen_mm: float = PENUMBRA_MM,
    ) -> np.ndarray:
        """uint8 mask (255) of the pixels the cups' shadows cover, on a map of ``shape`` over
        the view (the view itself or a shrunk copy), each widened by ``widen_mm``."""
        mask = np.zeros(shape, np.uint8)
        for hull in self.hulls(view, cups, shape[1] / view.shape[1], widen_mm=widen_mm):
            cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_8, SUBPIXEL)
        return mask

    def hulls(
        self,
        view: RectifiedView,
        cups: list[CastingCup],
        k: float = 1.0,
        *,
        reaching: bool = True,
        widen_mm: float = PENUMBRA_MM,
    ) -> list[np.ndarray]:
        """Each cup's predicted shadow outline (``shadow_hulls``), ``k`` map pixels per view pixel:
        as far as shadows were seen to reach (``reach``), or, not ``reaching``, the capsules
        fitted (where a shadow surely falls, to explain a faint cup away as one)."""
        along = np.array(self.along)
        if reaching:
            along = along * max(self.reach / float(np.hypot(*along)), 1.0)
        return shadow_hulls(view, k, cups, along, widen_mm)

    def lift(self, f: np.ndarray, shadow: np.ndarray) -> np.ndarray:
        """Features (m, q1, q2) with the shadow's darkening undone where ``shadow`` (uint8,
        255) is set and the pixel is darker (``DARK_LOG``, as the reference shadows were): a gain
        down to ``depth``, with its hue shift (the nearest of the range ``tints``, where the
        model has one: light a lit cup bounces tints the shade beside it), and the colour's
        distance from that shift shrunk by the spread shadows showed at calibration (deep shade
        is noisy, and its fill light differs across the board); elsewhere unchanged."""
        inside = (shadow > 0) & (f[..., 0] < DARK_LOG)  # in a predicted shadow, and darker
        darkening = np.clip(f[..., 0], self.depth, 0.0) * inside
        q = self._off_shade(f[..., 1:], darkening)
        norm = np.sqrt((q * q).sum(axis=2))
        shrunk = np.where(inside, np.maximum(norm - self.slack, 0.0) / np.maximum(norm, 1e-6), 1.0)
        out = np.empty_like(f)
        out[..., 0] = f[..., 0] - darkening
        out[..., 1:] = q * shrunk[..., None].astype(np.float32)
        return out

    def _off_shade(self, q: np.ndarray, darkening: np.ndarray) -> np.ndarray:
        """The colour ``q`` less what a shade ``darkening`` deep explains: ``hue`` per unit of
        darkening, or where the model has ``tints`` the nearest shift of that range."""
        if self.tints is None:
            return q - darkening[..., None] * np.array(self.hue, np.float32)
        lo, hi = (np.array(t, np.float32) for t in self.tints)
        q = q - darkening[..., None] * lo
        span = darkening[..., None] * (hi - lo)
        length2 = np.maximum((span * span).sum(axis=2), np.float32(1e-12))
        share = np.clip((q * span).sum(axis=2) / length2, 0.0, 1.0)
        return q - share[..., None] * span

    def to_json(self) -> dict[str, object]:
        return {
            "version": SHADOW_VERSION,
            "along_mm_per_mm": list(self.along),
            "depth": self.depth,
            "hue": list(self.hue),
            "slack": self.slack,
            "reach_mm_per_mm": self.reach,
            **({} if self.tints is None else {"tints": [list(t) for t in self.tints]}),
        }

    @classmethod
    def from_json(cls, data: Any) -> ShadowModel:
        if not isinstance(data, dict) or data.get("version") != SHADOW_VERSION:
            version = data.get("version") if isinstance(data, dict) else None
            raise ShadowModelError(
                f"shadow model version {version!r}, this program reads version {SHADOW_VERSION}"
            )
        try:
            along = tuple(float(v) for v in data["along_mm_per_mm"])
            hue = tuple(float(v) for v in data["hue"])
            depth = float(data["depth"])
            slack = float(data["slack"])
            reach = float(data.get("reach_mm_per_mm", 0.0))  # files from before: no reach kept
            tints = [[float(v) for v in t] for t in data["tints"]] if "tints" in data else None
        except (KeyError, TypeError, ValueError) as error:
            raise ShadowModelError(f"the shadow model is corrupt ({type(error).__name__}: {error})") from None
        if (
            len(along) != 2
            or len(hue) != 2
            or not depth < 0
            or not 0 <= slack <= MAX_SLACK
            or float(np.hypot(*along)) > MAX_SLOPE
            or not 0 <= reach <= MAX_SLOPE
            or not _tints_valid(tints)
        ):
            raise ShadowModelError("the shadow model is corrupt (values out of range)")
        return cls(
            (along[0], along[1]),
            depth,
            (hue[0], hue[1]),
            slack,
            reach,
            None if tints is None else ((tints[0][0], tints[0][1]), (tints[1][0], tints[1][1])),
        )


def _tints_valid(tints: list[list[float]] | None) -> bool:
    """Whether a file's ``tints`` are none or two shifts (q1, q2) within ``MAX_HUE``."""
    return tints is None or (
        len(tints) == 2 and all(len(t) == 2 and max(abs(v) for v in t) <= MAX_HUE for t in tints)
    )


def shadow_hulls(
    view: RectifiedView, k: float, cups: list[CastingCup], along: np.ndarray, widen_mm: float
) -> list[np.ndarray]:
    """Each cup's shadow outline (int32 points, 4 sub-pixel bits) on a map of ``k`` pixels per
    view pixel: the hull of its foot's disc and of the smaller disc its top casts
    (``TOP_SHARE`` of the radius: cups narrow toward the knob), widened by ``widen_mm`` and,
    toward the far end, the penumbra."""
    if not cups:
        return []
    return [cv2.convexHull(p) for p in capsule_points(view, k, cups, np.asarray(along)[None], widen_mm)[0]]


def capsule_points(
    view: RectifiedView, k: float, cups: list[CastingCup], alongs: np.ndarray, widen_mm: float
) -> np.ndarray:
    """The points whose hull is each cup's shadow (``shadow_hulls``) for each light direction
    of ``alongs`` (C x 2): int32, C x cups x 32 x 2, 4 sub-pixel bits. All directions in one
    pass of array arithmetic: a fit tries some 300 of them. The arithmetic is the same, element
    by element, as one direction at a time (``to_pixels`` is a diagonal matrix: each coordinate
    one product, whatever the matrix product's kernel), so the outlines are the same to the bit."""
    s = view.scale * k
    feet = np.array([(cup.x, cup.y) for cup in cups])
    heights = np.array([cup.height for cup in cups])
    radii = np.array([cup.radius for cup in cups])
    n = len(alongs)
    near = view.to_pixels(feet) * k
    far = (view.to_pixels((feet + heights[:, None] * alongs[:, None, :]).reshape(-1, 2)) * k).reshape(
        n, -1, 2
    )
    lengths = heights * np.hypot(alongs[:, :1], alongs[:, 1:])
    r_near = (radii + widen_mm) * s
    r_far = (TOP_SHARE * radii + widen_mm + PENUMBRA_SLOPE * lengths) * s
    near_disc = near[:, None] + r_near[:, None, None] * _CIRCLE
    outlines = np.concatenate(
        [
            np.broadcast_to(near_disc, (n, *near_disc.shape)),
            far[:, :, None] + r_far[:, :, None, None] * _CIRCLE,
        ],
        axis=2,
    )
    return np.round(outlines * (1 << SUBPIXEL)).astype(np.int32)


def draw_capsules(
    mask: np.ndarray,
    view: RectifiedView,
    k: float,
    cups: list[CastingCup],
    along: np.ndarray,
    widen_mm: float,
) -> None:
    """Fill (255) each cup's shadow (``shadow_hulls``) on ``mask``."""
    for hull in shadow_hulls(view, k, cups, along, widen_mm):
        cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_8, SUBPIXEL)


def in_shadow(hulls: list[np.ndarray], point: np.ndarray) -> bool:
    """Whether ``point`` (map pixels) lies inside any of ``hulls``."""
    scaled = (float(point[0]) * (1 << SUBPIXEL), float(point[1]) * (1 << SUBPIXEL))
    return any(cv2.pointPolygonTest(hull, scaled, False) >= 0 for hull in hulls)


def learn_shadows(
    f: np.ndarray, view: RectifiedView, cups: list[CastingCup], cup_pixels: np.ndarray
) -> ShadowModel | None:
    """The light, from the reference frame's features ``f`` (its log ratio to the empty board,
    full resolution) and its ``cups``; ``cup_pixels`` (bool) is where cups themselves are seen.

    None when the reference frame shows no clear cast shadows (``MIN_PRECISION``,
    ``MIN_RECALL``, ``MIN_CUP_SHADOW_MM2``)."""
    step, small, dark, valid = learning_map(f, view, cup_pixels)
    shape = dark.shape
    k = shape[1] / f.shape[1]
    along = best_along(view, k, cups, dark, valid)
    if along is None:
        return None
    mask = np.zeros(shape, np.uint8)
    draw_capsules(mask, view, k, cups, along, 0.0)
    inside = (mask > 0) & valid
    reach = np.zeros(shape, np.uint8)
    draw_capsules(reach, view, k, cups, along / np.hypot(*along) * REACH_SLOPE, PENUMBRA_MM)
    near_dark = dark & (reach > 0)
    covered = inside & dark
    area_mm2 = covered.sum() * (step / view.scale) ** 2
    if (
        covered.sum() < MIN_PRECISION * inside.sum()
        or covered.sum() < MIN_RECALL * near_dark.sum()
        or area_mm2 < MIN_CUP_SHADOW_MM2 * len(cups)
    ):
        return None
    shade = small[covered].astype(np.float64)
    depth = float(np.percentile(shade[:, 0], DEPTH_PERCENTILE)) - DEPTH_MARGIN
    hue = np.clip((shade[:, 1:] * shade[:, :1]).sum(0) / (shade[:, 0] ** 2).sum(), -MAX_HUE, MAX_HUE)
    spread = np.sqrt(((shade[:, 1:] - shade[:, :1] * hue) ** 2).sum(axis=1))
    slack = float(np.clip(np.percentile(spread, SLACK_PERCENTILE), MIN_SLACK, MAX_SLACK))
    farthest = shadow_reach(dark, valid, view, k, cups, along)
    return ShadowModel(
        (float(along[0]), float(along[1])),
        depth,
        (float(hue[0]), float(hue[1])),
        slack,
        farthest,
        tint_range(shade),
    )


def tint_range(shade: np.ndarray) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """The range of the colour shifts per unit of darkening that ``shade`` (features of the
    reference shadows' pixels, N x 3) shows: its two ends, along the way the shifts spread most,
    at ``TINT_PERCENTILE`` and its complement; None where fewer than ``TINT_MIN_PIXELS`` are
    ``TINT_DEPTH`` deep.

    A shadow's colour is not one shift in proportion to its darkening: a lit pale cup throws its
    own warm light into the shade beside it. On the bench's bench-44 (natural cups on birch, a
    low lamp at one side) the reference frame's deep shade on the margin, far from any lit cup,
    shifts about 0.01 per unit of darkening, and on the grid beside the lit white rank 0.05 (its
    median; a tenth beyond 0.10). One shift through both (``hue``, 0.025) left the shade beside
    the lit cups on the game's boards (medians 0.07-0.11) off the shadow by nearly twice the
    slack, where it looks like a natural cup's shaded wall: empty squares read as white cups. The
    range holds both; a hand's colour lies off it as it lay off the one shift."""
    deep = shade[shade[:, 0] < TINT_DEPTH]
    if len(deep) < TINT_MIN_PIXELS:
        return None
    tints = deep[:, 1:] / deep[:, :1]
    centre = np.median(tints, axis=0)
    way = np.linalg.eigh(np.cov((tints - centre).T))[1][:, -1]
    ends = np.percentile((tints - centre) @ way, [100 - TINT_PERCENTILE, TINT_PERCENTILE])
    lo, hi = (np.clip(centre + end * way, -MAX_HUE, MAX_HUE) for end in ends)
    return (float(lo[0]), float(lo[1])), (float(hi[0]), float(hi[1]))


def learning_map(
    f: np.ndarray, view: RectifiedView, cup_pixels: np.ndarray
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """The map a fit learns on (``LEARN_MM``): its step (view pixels), ``f`` shrunk to it, where
    the board darkened into shadow (``DARK_LOG``) and where it shows (no cup's pixels)."""
    step = max(1, round(LEARN_MM * view.scale))
    shape = ((f.shape[0] + step - 1) // step, (f.shape[1] + step - 1) // step)
    small = cv2.resize(f, (shape[1], shape[0]), interpolation=cv2.INTER_AREA)
    valid = cv2.resize(cup_pixels.astype(np.uint8), (shape[1], shape[0]), interpolation=cv2.INTER_AREA) == 0
    return step, small, (small[..., 0] < DARK_LOG) & valid, valid


def best_along(
    view: RectifiedView, k: float, cups: list[CastingCup], dark: np.ndarray, valid: np.ndarray
) -> np.ndarray | None:
    """The light direction whose capsules explain the darkening best (``capsule_scores``): the
    best of ``COARSE``'s, then of ``FINE``'s around it, the first tried on a tie; None when none
    scores above 0."""
    best = (0.0, np.zeros(2))
    scores = capsule_scores(view, k, cups, _COARSE_ALONGS, dark, valid)
    if scores.max() > best[0]:
        best = (float(scores.max()), _COARSE_ALONGS[int(np.argmax(scores))])
    if best[0] > 0:  # refine around the best coarse guess
        fine = fine_alongs(best[1])
        scores = capsule_scores(view, k, cups, fine, dark, valid)
        if scores.max() > best[0]:
            best = (float(scores.max()), fine[int(np.argmax(scores))])
    return best[1] if best[0] > 0 else None


def _along(angle: float, slope: float) -> np.ndarray:
    """A light direction (``along``): shadows ``slope`` mm long per mm of height, cast toward
    ``angle`` degrees on the board."""
    a = np.radians(angle)
    return slope * np.array([np.cos(a), np.sin(a)])


def _coarse_alongs() -> np.ndarray:
    """The light directions (``along``) a fit tries first: ``COARSE``'s angles and slopes."""
    grid = itertools.product(np.arange(0, 360, COARSE[0]), np.arange(*COARSE[1:]))
    return np.array([_along(angle, slope) for angle, slope in grid])


_COARSE_ALONGS = _coarse_alongs()


def fine_alongs(coarse: np.ndarray) -> np.ndarray:
    """The light directions tried around the best coarse one: ``FINE``'s steps, slopes > 0."""
    angle = float(np.degrees(np.arctan2(coarse[1], coarse[0])))
    slope = float(np.hypot(*coarse))
    steps = itertools.product(np.arange(-2, 3) * FINE[0], np.arange(-2, 3) * FINE[1])
    return np.array([_along(angle + da, slope + ds) for da, ds in steps if slope + ds > 0])


def capsule_scores(
    view: RectifiedView,
    k: float,
    cups: list[CastingCup],
    alongs: np.ndarray,
    dark: np.ndarray,
    valid: np.ndarray,
) -> np.ndarray:
    """How well each light direction of ``alongs`` explains the darkening: over the union of
    the cups' capsules (``shadow_hulls``, unwidened) on the learning map, the mean of +0.5 on
    ``dark`` pixels and -0.5 on other ``valid`` ones, times their count (0 for an empty union).

    The mean is taken as ``cv2.mean`` takes it (the sum times the count's reciprocal): the sum
    of halves is exact in any order, so each score is the same to the bit as a weighted
    ``cv2.mean`` over the mask, and the best direction the same. Counted with two masked
    pixel counts instead: ``cv2.mean`` under a mask walks the map a pixel at a time, and a
    fit's 300 masks spent 40 % of its time there."""
    dark_u8 = dark.astype(np.uint8)
    valid_u8 = valid.astype(np.uint8)
    mask = np.zeros(dark.shape, np.uint8)
    both = np.empty_like(mask)
    out = np.zeros(len(alongs))
    for i, points in enumerate(capsule_points(view, k, cups, alongs, 0.0)):
        mask[:] = 0
        for p in points:
            cv2.fillConvexPoly(mask, cv2.convexHull(p), 255, cv2.LINE_8, SUBPIXEL)
        count = cv2.countNonZero(mask)
        if count:
            on_dark = cv2.countNonZero(cv2.bitwise_and(mask, dark_u8, both))
            on_valid = cv2.countNonZero(cv2.bitwise_and(mask, valid_u8, both))
            out[i] = 0.5 * (on_dark - (on_valid - on_dark)) * (1.0 / count) * count
    return out


def shadow_reach(
    dark: np.ndarray,
    valid: np.ndarray,
    view: RectifiedView,
    k: float,
    cups: list[CastingCup],
    along: np.ndarray,
) -> float:
    """How far the cups' shadows reach (mm per mm of height, at least ``|along|``): the median,
    over the cups whose shadow's end shows, of each one's longest darkened run from its edge along
    ``along`` turned by ``TURN_DEG`` (on the map of ``k`` pixels per view pixel) to lit board.
    A run that meets another cup (not ``valid``) or the map's edge first is no measure: its end
    is hidden. The median, since a run turned along a neighbour's shadow can go on far."""
    slope = float(np.hypot(*along))
    angle = float(np.arctan2(along[1], along[0]))
    turned = np.array([(np.cos(angle + turn), np.sin(angle + turn)) for turn in np.radians(TURN_DEG)])
    seen = []
    for cup in cups:
        ts = np.arange(cup.radius, cup.height * MAX_SLOPE, LEARN_MM / 2)
        points = view.to_pixels(np.array([cup.x, cup.y]) + ts[None, :, None] * turned[:, None, :]) * k
        ends = run_ends(dark, valid, np.round(points).astype(int).reshape(len(turned), len(ts), 2))
        if (ends >= 0).any():
            seen.append(float(ts[ends.max()]) / cup.height)
    return float(np.clip(np.median(seen), slope, MAX_SLOPE)) if seen else slope


def run_ends(dark: np.ndarray, valid: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Per run of map ``points`` (runs x steps x 2, int (x, y)) the step where it first meets lit
    board after leaving the cup's own silhouette (the first ``valid`` step), or -1 where its end
    is hidden: past the map's edge, or under another cup (not ``valid``) first. All the turns
    of a cup at once, as one of them at a time did it."""
    height, width = dark.shape
    inside = (points >= 0).all(axis=2) & (points[..., 0] < width) & (points[..., 1] < height)
    steps = np.arange(points.shape[1])
    stop = np.where(inside.all(axis=1), points.shape[1], np.argmin(inside, axis=1))
    x = np.clip(points[..., 0], 0, width - 1)
    y = np.clip(points[..., 1], 0, height - 1)
    open_ = valid[y, x] & (steps < stop[:, None])
    first = np.where(open_.any(axis=1), np.argmax(open_, axis=1), stop)
    lit = ~dark[y, x] & open_ & (steps >= first[:, None])
    end = np.argmax(lit, axis=1)
    hidden = (~open_ & (steps >= first[:, None]) & (steps < end[:, None])).any(axis=1)
    return np.where(lit.any(axis=1) & ~hidden, end, -1)


Placed = dict[int, tuple[int, int, int, int]]
"""Row (``board_squares`` order) -> (colour, size, dy, dx): a cup and its silhouette's shift
(view pixels) from the square's centre, as the matcher found it."""


def found_cups(matches: list[SquareMatch]) -> Placed:
    """The cups the matches found (a positive score for their best size)."""
    return {row: (m.colour, m.size, m.dy, m.dx) for row, m in enumerate(matches) if m.sizes[m.size - 1] > 0}


def casting_cups(placed: Placed, layout: BoardLayout, scale: float, cups: CupSet) -> list[CastingCup]:
    """Each placed cup's foot (board mm), radius and height."""
    found = []
    for row, (colour, size, dy, dx) in placed.items():
        x, y = layout.square_centre(row)
        radius = cups.radii[colour][size - 1]
        found.append(CastingCup(x + dx / scale, y - dy / scale, radius, cups.height_for(colour, radius)))
    return found


def light_changed(field: np.ndarray) -> bool:
    """Whether the margin's light field (``Background.light_field`` against the board in use)
    says the light changed: uneven, or one gain beyond ``LIGHT_CHANGED`` on some channel."""
    return lit_unevenly(field) or float(np.abs(field).max()) > LIGHT_CHANGED


def lit_otherwise(background: Background, rectified: np.ndarray) -> bool:
    """Whether ``rectified`` (a frame on the board plane) shows another light than the board
    ``background`` was learned under (``light_changed``, on its margin)."""
    return light_changed(light_seen(background, rectified))


def light_seen(background: Background, rectified: np.ndarray) -> np.ndarray:
    """The light's change ``rectified`` (a frame on the board plane) shows on its margin since
    the board ``background`` was learned, judged on its lit wood (``Background.light_judged``)."""
    diff = cv2.subtract(log_image(blurred(rectified, background.scale)), background.log)
    return background.light_judged(diff)


def same_light(field: np.ndarray, other: np.ndarray) -> bool:
    """Whether two of the margin's light fields (``light_seen``, against the same board) show
    the same light: within ``LIGHT_CHANGED`` of each other everywhere."""
    return float(np.abs(field - other).max()) <= LIGHT_CHANGED
