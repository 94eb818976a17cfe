"""A cup's outline along rays from where its base stands: the largest two sizes told apart.

The region cue sums a silhouette's evidence over its whole area, so a band of the cup that
reads as board (a pale wall in its own shade) or of wood that reads as cup (the light a
neighbour throws) moves the sum by its whole area, and the silhouette slides toward what is
left: the white 4s read as 3s and the 3s read as 4s that the fresh reader leaves on the seen
bench games (docs/vision-findings.md, "The misreads left, by kind"). Along rays the same band spoils
only the rays that cross it. Each size is judged from where its own base circle fits best
(``edges.base_fits``): along each of ``RAYS`` rays from there, the radius at which the
evidence turns from cup to board (the step that best splits the ray), against where that
size's silhouette ends along the same ray (the lean toward and away from the camera is the
silhouette's); the median of those distances over the rays that face no other cup says how
well that size's outline fits. It is read on two maps that fail differently: the
cup-against-board log-odds (colour and texture), and the texture alone (the empty board's
grain and lines, which a cup hides whatever its colour and a shadow keeps).

Weighed only for a turn: ``BoardReader`` turns a light cup (the lighter set's, as calibrated)
read as the larger or the smaller of the two largest sizes, under ``TURN_BELOW``, only where
both rays and both edges (base and rim) say the other size (``turned``), and never to the
larger where the lamp throws the cup's shadow toward the camera (``shadow_toward_camera``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import cv2
import numpy as np

from companion.vision.edges import FACING_MIN_MM

if TYPE_CHECKING:
    from companion.vision.calibration import Calibration
    from companion.vision.matching import Evidence, SquareMatch
    from companion.vision.templates import TemplateBank

RAYS = 32
"""Rays around a cup, evenly spaced."""
STEP_PX = 0.5
"""Sampling step along a ray (pixels of the board-plane view)."""
REACH_MM = 8.0
"""How far past the largest size's silhouette a ray's step is searched (the region cue's
search is 9 mm): a ray whose best step lies at either end of its search found none."""
OUTER_MM = (4.0, 8.0)
"""Where past the largest size's silhouette a ray's wood is taken from, to level the texture."""
FACING_MM = (3.0, 8.0)
"""A ray meeting another cup's silhouette this far inside the smaller size's edge to this far
past the larger's faces that cup, and is left out."""
MIN_RAYS = 6
"""Fewer rays left than this: no say."""
EVIDENCE_CLIP = 3.0
"""The log-odds clipped to this either way, so one glossy highlight does not move a step."""
TURN_BELOW = 0.9
"""Only a size held under this share is turned: a sure one is left as read."""


def ray_directions() -> np.ndarray:
    """(RAYS, 2): each ray's (row, column) step per pixel."""
    theta = np.arange(RAYS) * 2.0 * np.pi / RAYS
    return np.stack([np.sin(theta), np.cos(theta)], axis=1)


_DIRECTIONS = ray_directions()


def along(image: np.ndarray, centre: tuple[float, float], radii: np.ndarray) -> np.ndarray:
    """``image`` (float32, 2-D) sampled along each ray from ``centre`` (row, column) at
    ``radii`` (pixels; one row of radii for all rays, or one row per ray): (RAYS, n)."""
    per_ray = np.broadcast_to(radii, (RAYS, radii.shape[-1]))
    rows = (centre[0] + _DIRECTIONS[:, :1] * per_ray).astype(np.float32)
    cols = (centre[1] + _DIRECTIONS[:, 1:] * per_ray).astype(np.float32)
    return cv2.remap(image, cols, rows, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def extents(silhouette: np.ndarray, centre: tuple[float, float], radii: np.ndarray) -> np.ndarray:
    """Per ray, the last of ``radii`` at which a soft silhouette (float32, drawn about
    ``centre``, the foot's place on its own frame) shows half or more: where its outline is."""
    inside = along(silhouette, centre, radii) >= 0.5
    last = inside.shape[1] - 1 - np.argmax(inside[:, ::-1], axis=1)
    return np.where(inside.any(axis=1), radii[last], 0.0)


def steps(
    values: np.ndarray, radii: np.ndarray, low: np.ndarray, high: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per ray, the radius in [low, high] that best splits its values into cup inside
    (positive) and board outside (negative): the most of the values summed from ``low`` up to
    it. And whether it lies inside that search, not at either end (else the ray found none)."""
    window = (radii[None, :] >= low[:, None]) & (radii[None, :] <= high[:, None])
    summed = np.where(window, np.cumsum(np.where(window, values, 0.0), axis=1), -np.inf)
    best = np.argmax(summed, axis=1)
    first = np.argmax(window, axis=1)
    last = window.shape[1] - 1 - np.argmax(window[:, ::-1], axis=1)
    found = (best > first) & (best < last) & window.any(axis=1)
    return radii[np.minimum(best + 1, len(radii) - 1)], found


def levelled(
    profile: np.ndarray,
    radii: np.ndarray,
    inner: tuple[np.ndarray, np.ndarray],
    outer: tuple[np.ndarray, np.ndarray],
) -> np.ndarray:
    """Each ray's profile scaled to +1 at its median over ``inner`` (per-ray radii bounds: the
    cup's body) and -1 at its median over ``outer`` (the wood past it), clipped to that: a
    map with no sign of its own (the texture) read as the log-odds are."""
    out = np.empty_like(profile)
    for k in range(RAYS):
        body = profile[k, (radii >= inner[0][k]) & (radii <= inner[1][k])]
        wood = profile[k, (radii >= outer[0][k]) & (radii <= outer[1][k])]
        a = float(np.median(body)) if body.size else 0.0
        b = float(np.median(wood)) if wood.size else 0.0
        half = (a - b) / 2.0
        if abs(half) < 1e-3:
            half = 1e-3 if half >= 0 else -1e-3
        out[k] = np.clip((profile[k] - (a + b) / 2.0) / half, -1.0, 1.0)
    return out


Map = tuple[np.ndarray, tuple[int, int], bool]
"""A float32 view of the board plane, the (row, column) of the view's origin on it (its pad),
and whether it is levelled per ray (``levelled``: the texture) or clipped (the log-odds)."""


def misfits(
    maps: Sequence[Map],
    feet: Sequence[tuple[float, float]],
    outlines: np.ndarray,
    others: np.ndarray,
    scale: float,
) -> np.ndarray:
    """(maps, 2): for the smaller and the larger of two sizes, how far (mm, the median over the
    rays left) its outline lies from where each map's evidence turns to board along rays from
    its own foot; NaN where fewer than ``MIN_RAYS`` rays are left.

    ``feet``: each size's foot (row, column) on the view; ``outlines``: (3, RAYS) the
    silhouettes' extents along the rays (``extents``) of the size below the two, the smaller
    and the larger; ``others``: float32 view, 1 where another cup's silhouette lies (a ray
    meeting one near the outlines faces that cup, and is left out)."""
    below, small, large = outlines
    radii = np.arange(0.0, float(large.max()) + (REACH_MM + 1.0) * scale, STEP_PX)
    band = (radii[None, :] >= small[:, None] - FACING_MM[0] * scale) & (
        radii[None, :] <= large[:, None] + FACING_MM[1] * scale
    )
    out = np.full((len(maps), 2), np.nan)
    for k, foot in enumerate(feet):
        free = ~((along(others, foot, radii) > 0.5) & band).any(axis=1)
        for j, (image, (dy, dx), level) in enumerate(maps):
            profile = along(image, (foot[0] + dy, foot[1] + dx), radii)
            if level:
                wood = (large + OUTER_MM[0] * scale, large + OUTER_MM[1] * scale)
                profile = levelled(profile, radii, (0.3 * below, below), wood)
            else:
                profile = np.clip(profile, -EVIDENCE_CLIP, EVIDENCE_CLIP)
            edge, found = steps(profile, radii, below, large + REACH_MM * scale)
            kept = free & found
            if kept.sum() >= MIN_RAYS:
                out[j, k] = float(np.median(np.abs(edge - (small, large)[k])[kept])) / scale
    return out


def turned(misfit: np.ndarray, read_large: bool) -> bool:
    """Whether every map's rays fit the other of the two sizes better than the one read."""
    if np.isnan(misfit).any():
        return False
    read, other = (1, 0) if read_large else (0, 1)
    return bool((misfit[:, other] < misfit[:, read]).all())


def shadow_toward_camera(models: Calibration, row: int) -> bool:
    """Whether the lamp throws square ``row``'s cup's shadow toward the point under the camera,
    over more than half of the half of its foot the base is scored on (``edges.py``), by the
    shadow model in use (the calibration's, or one learned for a new lamp; without one, no).
    There the shadow's outer edge is a larger foot's to the base, the smaller size's foot is
    drawn into it, and the base, the rim and the rays from each foot all say the larger size
    of a cup the region cue reads right (the stress set's stress-45: a lamp 36 degrees up on
    the far side of its pale white 3s from the camera). A cup within ``FACING_MIN_MM`` of the
    point under the camera shows its whole foot to the base, shadow and all."""
    if models.shadows is None:
        return False
    toward = np.asarray(models.camera.centre[:2]) - np.asarray(models.layout.square_centre(row))
    if float(np.hypot(*toward)) < FACING_MIN_MM:
        return True
    return float(np.dot(models.shadows.along, toward)) > 0.0


def swapped(shares: np.ndarray, turn: np.ndarray) -> np.ndarray:
    """``shares`` (squares x sizes) with the two largest sizes' shares swapped on the squares
    ``turn`` marks: the size turned to held as sure as the one read was, no surer."""
    if not turn.any():
        return shares
    out = shares.copy()
    out[turn, -2:] = shares[turn, -2:][:, ::-1]
    return out


def cups_placed(bank: TemplateBank, matches: Sequence[SquareMatch], shape: tuple[int, int]) -> np.ndarray:
    """int16 view of ``shape``: on each pixel the row of the square whose cup, as matched (each
    square with a cup likelier than none, its best size at its best shift), shows there (the
    last drawn where two do), -1 where none does."""
    view = np.full(shape, -1, np.int16)
    for row, (m, sq) in enumerate(zip(matches, bank.squares, strict=True)):
        if m.sizes.max() <= 0:
            continue
        shown = sq.full[m.colour, m.size - 1] >= 0.5
        top, left = sq.top + m.dy, sq.left + m.dx
        h, w = shown.shape
        y0, x0 = max(top, 0), max(left, 0)
        y1, x1 = min(top + h, shape[0]), min(left + w, shape[1])
        if y1 > y0 and x1 > x0:
            view[y0:y1, x0:x1][shown[y0 - top : y1 - top, x0 - left : x1 - left]] = row
    return view


def square_misfits(
    ev: Evidence, bank: TemplateBank, models: Calibration, row: int, feet: np.ndarray, placed: np.ndarray
) -> np.ndarray:
    """``misfits`` of square ``row``'s light cup (the lighter set's, ``Calibration.lighter``) as
    the two largest sizes, each from where its own base fits (``feet``: every size's shift,
    ``edges.base_fits``), on the read's log-odds and texture, facing the other cups ``placed``
    (``cups_placed``). The light cups' outlines along the rays are worked out once a bank
    (``SquareTemplates.derived``)."""
    sq = bank.squares[row]
    u, v = models.view.to_pixels(np.array(models.layout.square_centre(row))[None, :])[0]
    key = ("ray outlines", models.lighter)
    outlines = sq.derived.get(key)
    if outlines is None:
        at = (float(v) - sq.top, float(u) - sq.left)
        radii = np.arange(0.0, float(max(sq.support.shape)), STEP_PX)
        sizes = range(models.max_piece - 3, models.max_piece)
        outlines = np.stack([extents(sq.full[models.lighter, s], at, radii) for s in sizes])
        sq.derived[key] = outlines
    feet_px = [(float(v) + dy, float(u) + dx) for dy, dx in feet[models.max_piece - 2 :].tolist()]
    others = ((placed >= 0) & (placed != row)).astype(np.float32)
    maps: list[Map] = [(ev.fg, (ev.pad, ev.pad), False), (ev.texture, (0, 0), True)]
    return misfits(maps, feet_px, outlines, others, models.scale)
