"""From a frame to evidence maps, and from evidence to each square's best-fitting cup.

The evidence map holds, per board-plane pixel, the log-odds "cup rather than board". A cup
hypothesis's score is the sum of that map over its silhouette, maximised over small shifts:
the log-likelihood ratio of "this cup here" against "empty board here". Taking a larger
silhouette than the truth adds board pixels (negative) and a smaller one leaves cup pixels
out, so the best-scoring size is the one whose outline follows the evidence's edge.

Matching per square: the colour comes from the colour evidence where the evidence says
"cup"; the search starts at the centroid of that evidence and each size climbs, one pixel
at a time, to its best-fitting shift. A handful of small matrix products per square keeps
a frame within budget.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.geometry import Camera, RectifiedView
from companion.vision.pixels import Background, Gaussian, PixelModel
from companion.vision.scalars import at_least
from companion.vision.templates import SquareTemplates, TemplateBank

MAX_CLIMB = 24
CLIMBERS = 2
UNLIKE_DISTANCE2 = 16.0
"""A pixel more than 4 spreads from a colour's Gaussian (squared Mahalanobis distance over 16)
is unlike that colour: about 1 in 900 of the colour's own pixels, were they normal. A cup's
edge, a highlight or its shade in a changed light land there more often (up to half of a pale
cup's silhouette under a lamp moved since calibration); a hand, whatever the matcher made of it,
lands there nearly whole."""


@dataclass(frozen=True)
class Evidence:
    """Evidence maps of one frame, padded by the bank's ``pad`` on every side."""

    fg: np.ndarray  # float32, cup-versus-board log-odds
    colour: np.ndarray  # float32, light-versus-dark log-odds
    positive: np.ndarray  # max(fg, 0)
    pad: int
    features: np.ndarray  # unpadded (m, q1, q2) per pixel, for the occlusion test
    texture: np.ndarray  # unpadded texture correlation with the empty board


def rectify(image: np.ndarray, view: RectifiedView, camera: Camera) -> np.ndarray:
    """The frame on the board plane: what every comparison starts from."""
    return view.warp(image, camera)


def evidence(rectified: np.ndarray, background: Background, model: PixelModel, pad: int) -> Evidence:
    f, ncc = background.features(rectified)
    fg, colour = model.log_odds(f, ncc)
    if pad:
        fg = cv2.copyMakeBorder(fg, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0.0)
        colour = cv2.copyMakeBorder(colour, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0.0)
    return Evidence(fg, colour, at_least(fg, 0.0), pad, f, ncc)


def best_shift(
    field: np.ndarray, template: np.ndarray, top: int, left: int, reach: int
) -> tuple[float, int, int]:
    """Best sum of ``field`` under ``template`` placed at (top+dy, left+dx), |dy|,|dx| <= reach.

    Returns (score, dy, dx).
    """
    h, w = template.shape
    window = field[top - reach : top + h + reach, left - reach : left + w + reach]
    result = cv2.matchTemplate(window, template, cv2.TM_CCORR)
    _, score, _, (x, y) = cv2.minMaxLoc(result)
    return float(score), y - reach, x - reach


@dataclass(frozen=True)
class SquareMatch:
    """How well each cup fits one square, and where."""

    sizes: np.ndarray  # (S,) full-resolution scores of the chosen colour's sizes
    colour_log_odds: float  # summed light-versus-dark evidence inside the best silhouette
    colour: int  # 0 light/white, 1 dark/black: the colour whose templates were scored
    size: int  # best size (1..S), meaningful when its score is positive
    dy: int  # full-resolution shift of the best silhouette
    dx: int


def neighbourhood_scores(field: np.ndarray, flat: np.ndarray, y: int, x: int, h: int, w: int) -> np.ndarray:
    """(9, S) scores of each size's template at the 3x3 shifts around (y, x), row-major.

    The nine windows are one strided view of ``field`` (C-contiguous float32), copied once
    into a matrix and multiplied by the stacked templates.
    """
    row = field.strides[0]
    windows = np.ndarray(
        (3, 3, h, w), np.float32, buffer=field, offset=(y - 1) * row + (x - 1) * 4, strides=(row, 4, row, 4)
    )
    return windows.reshape(9, h * w) @ flat


def climb(
    ev: Evidence, sq: SquareTemplates, colour: int, start: tuple[int, int], reach: int
) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Hill-climb each size's best-fitting shift from a common start.

    Sizes climb separately: a big cup's best position can sit several pixels from where a
    smaller silhouette fits best inside it. Returns each size's best score and shift.
    """
    h, w = sq.support.shape
    top, left = sq.top + ev.pad, sq.left + ev.pad
    sizes = sq.flat.shape[2]
    cache: dict[tuple[int, int], np.ndarray] = {}

    def around(pos: tuple[int, int]) -> np.ndarray:
        if pos not in cache:
            cache[pos] = neighbourhood_scores(ev.fg, sq.flat[colour], top + pos[0], left + pos[1], h, w)
        return cache[pos]

    positions = [start] * sizes
    first = around(start)
    if first.max() <= 0:
        return first[4], positions  # nothing cup-like around the evidence's centroid: empty
    # only the front runners climb: a size far behind at the start cannot catch up
    moving = set(np.argsort(first.max(axis=0))[-CLIMBERS:].tolist())
    for _ in range(MAX_CLIMB):
        for s in list(moving):
            k = int(np.argmax(around(positions[s])[:, s]))
            y, x = positions[s][0] + k // 3 - 1, positions[s][1] + k % 3 - 1
            if k == 4 or max(abs(y), abs(x)) > reach:
                moving.discard(s)
            else:
                positions[s] = (y, x)
        if not moving:
            break
    return np.array([around(positions[s])[4, s] for s in range(sizes)]), positions


def match_square(ev: Evidence, sq: SquareTemplates, reach: int) -> SquareMatch:
    """Score every size on one square, for the colour the evidence shows there."""
    h, w = sq.support.shape
    top, left = sq.top + ev.pad, sq.left + ev.pad
    weight = cv2.multiply(ev.positive[top : top + h, left : left + w], sq.support)
    mass = float(cv2.sumElems(weight)[0])
    colour = 0 if float(np.einsum("ij,ij->", weight, ev.colour[top : top + h, left : left + w])) > 0 else 1
    start = (0, 0)
    if mass > 0:
        ys = float(weight.sum(axis=1) @ sq.rows) / mass - sq.support_centre[0]
        xs = float(weight.sum(axis=0) @ sq.cols) / mass - sq.support_centre[1]
        start = (int(np.clip(round(ys), -reach, reach)), int(np.clip(round(xs), -reach, reach)))
    for _ in range(2):
        sizes, positions = climb(ev, sq, colour, start, reach)
        size = int(np.argmax(sizes))
        sy, sx = positions[size]
        region = ev.colour[top + sy : top + sy + h, left + sx : left + sx + w]
        colour_log_odds = float(np.einsum("ij,ij->", region, sq.full[colour, size]))
        if (colour_log_odds > 0) == (colour == 0) or sizes[size] <= 0:
            break
        colour, start = 1 - colour, (sy, sx)
    return SquareMatch(sizes, colour_log_odds, colour, size + 1, sy, sx)


def match_all(ev: Evidence, bank: TemplateBank) -> list[SquareMatch]:
    return [match_square(ev, sq, bank.offset) for sq in bank.squares]


def coverage(matches: list[SquareMatch], bank: TemplateBank, shape: tuple[int, int], pad: int) -> np.ndarray:
    """uint8 mask (unpadded view shape, 255 = covered) of pixels the cups found explain."""
    padded = np.zeros((shape[0] + 2 * pad, shape[1] + 2 * pad), np.uint8)
    for m, sq in zip(matches, bank.squares, strict=True):
        if m.sizes[m.size - 1] <= 0:
            continue
        mask = sq.masks[m.colour, m.size - 1]
        h, w = mask.shape
        y, x = sq.top + pad + m.dy, sq.left + pad + m.dx
        np.maximum(padded[y : y + h, x : x + w], mask, out=padded[y : y + h, x : x + w])
    return padded[pad : pad + shape[0], pad : pad + shape[1]]


def unlike_share(features: np.ndarray, match: SquareMatch, sq: SquareTemplates, model: Gaussian) -> float:
    """Share of the found cup's silhouette whose pixels are unlike its colour: more than
    ``UNLIKE_DISTANCE2`` (squared spreads) from ``model``, the colour's Gaussian. 0 for the part
    of a silhouette off the view, and for a square with no cup found."""
    if match.sizes[match.size - 1] <= 0:
        return 0.0
    mask = sq.masks[match.colour, match.size - 1]
    h, w = mask.shape
    y, x = sq.top + match.dy, sq.left + match.dx
    y0, x0 = max(y, 0), max(x, 0)
    y1, x1 = min(y + h, features.shape[0]), min(x + w, features.shape[1])
    inside = mask[y0 - y : y1 - y, x0 - x : x1 - x] > 0
    seen = features[y0:y1, x0:x1][inside]
    if not len(seen):
        return 0.0
    far = model.distance2(seen.reshape(-1, 1, 3)) > UNLIKE_DISTANCE2
    return float(np.count_nonzero(far)) / len(seen)
