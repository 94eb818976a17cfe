"""From a frame to evidence maps, and from evidence to each square's best-fitting cup.

The evidence map holds, per board-plane pixel, the log-odds "cup rather than board". A cup
hypothesis's score is the sum of that map over its silhouette, maximised over small shifts:
the log-likelihood ratio of "this cup here" against "empty board here". Taking a larger
silhouette than the truth adds board pixels (negative) and a smaller one leaves cup pixels
out, so the best-scoring size is the one whose outline follows the evidence's edge.

Matching runs coarse to fine: every (colour, size) at half resolution over all shifts picks
the position and the colour region; then the chosen colour's sizes are scored at full
resolution around that position.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.geometry import Camera, RectifiedView
from companion.vision.pixels import Background, PixelModel
from companion.vision.templates import SquareTemplates, TemplateBank

FINE_SEARCH = 1
"""Full-resolution pixels searched around the coarse position (it is 2 px apart)."""


@dataclass(frozen=True)
class Evidence:
    """Evidence maps of one frame, padded by the bank's ``pad`` on every side."""

    fg: np.ndarray  # float32, cup-versus-board log-odds
    fg_half: np.ndarray  # fg at half resolution (each pixel the mean of four)
    colour: np.ndarray  # float32, light-versus-dark log-odds
    pad: int


def rectify(image: np.ndarray, view: RectifiedView, camera: Camera) -> np.ndarray:
    """The frame on the board plane: what every comparison starts from."""
    return view.warp(image, camera)


def evidence(rectified: np.ndarray, background: Background, model: PixelModel, pad: int) -> Evidence:
    f, ncc = background.features(rectified)
    fg, colour = model.log_odds(f, ncc)
    if pad:
        fg = cv2.copyMakeBorder(fg, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0.0)
        colour = cv2.copyMakeBorder(colour, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0.0)
    h, w = fg.shape
    fg_half = cv2.resize(fg[: h - h % 2, : w - w % 2], (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    return Evidence(fg, fg_half, colour, pad)


def best_shift(field: np.ndarray, template: np.ndarray, top: int, left: int, reach: int) -> tuple[float, int, int]:
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


def match_square(ev: Evidence, sq: SquareTemplates, offset: int) -> SquareMatch:
    """Score every cup on one square: coarse position and colour, then fine sizes."""
    top, left = sq.top + ev.pad, sq.left + ev.pad
    colours, sizes = sq.half.shape[:2]
    best = (-np.inf, 0, 0, 0, 0)
    for c in range(colours):
        for s in range(sizes):
            score, dy, dx = best_shift(ev.fg_half, sq.half[c, s], top // 2, left // 2, offset // 2)
            if score > best[0]:
                best = (score, c, s, dy * 2, dx * 2)
    _, c_best, s_best, dy, dx = best
    h, w = sq.full.shape[2:]
    region = ev.colour[top + dy : top + dy + h, left + dx : left + dx + w]
    colour_log_odds = float(np.sum(region * sq.full[c_best, s_best]))
    colour = 0 if colour_log_odds > 0 else 1
    fine = np.empty(sizes)
    shifts = []
    for s in range(sizes):
        score, fy, fx = best_shift(ev.fg, sq.full[colour, s], top + dy, left + dx, FINE_SEARCH)
        fine[s] = score
        shifts.append((dy + fy, dx + fx))
    size = int(np.argmax(fine))
    return SquareMatch(fine, colour_log_odds, colour, size + 1, *shifts[size])


def match_all(ev: Evidence, bank: TemplateBank) -> list[SquareMatch]:
    return [match_square(ev, sq, bank.offset) for sq in bank.squares]


def coverage(matches: list[SquareMatch], bank: TemplateBank, shape: tuple[int, int], pad: int) -> np.ndarray:
    """Mask (unpadded view shape) of pixels explained by the cups the matches found."""
    padded = np.zeros((shape[0] + 2 * pad, shape[1] + 2 * pad), np.float32)
    for m, sq in zip(matches, bank.squares, strict=True):
        if m.sizes[m.size - 1] <= 0:
            continue
        t = sq.full[m.colour, m.size - 1]
        h, w = t.shape
        y, x = sq.top + pad + m.dy, sq.left + pad + m.dx
        np.maximum(padded[y : y + h, x : x + w], t, out=padded[y : y + h, x : x + w])
    return padded[pad : pad + shape[0], pad : pad + shape[1]]
