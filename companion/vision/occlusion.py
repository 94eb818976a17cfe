"""Is a hand or an arm over the board? Judged on "not board" evidence that no cup explains.

The cup matcher's evidence is tuned to read sizes: its board model expects a pixel's colour
ratio to the empty board to stay within the spread measured on the lit board of the reference
frame. Dark pixels carry several times that noise in log space (a fixed sensor noise over a
small value), so long shadows under a low lamp and dim, noisy rooms left large "not board"
areas that no cup explains, and a hand-free board read as covered. So did the margin
brightening where the empty board had shadows (of cups stood beside it) at calibration, once
the lamp moves.

So the occlusion test has its own evidence, on a map of a pixel per 2 mm (it is judged on 8 mm
and 32 mm averages anyway): a pixel's colour residual from the shadow line is scaled down by
the noise expected at its brightness now and at calibration, and on the margin brightening is
forgiven up to how much darker than the lit board that pixel was at calibration. Cup densities,
texture and clipping are those of the reading, so a hand (skin or sleeve: a colour of its own,
no wood grain, solid) still stands out.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from companion.vision.geometry import RectifiedView
from companion.vision.kept import Kept
from companion.vision.marks import HIDDEN_MM2, LABEL_ALIKE, Box, HiddenMarks
from companion.vision.matching import SquareMatch
from companion.vision.pixels import (
    CLIP_FG,
    TEXTURE_MM,
    Gaussian,
    PixelModel,
    blurred,
    chroma,
    grey,
    log_image,
    odd_window,
    texture_bin,
)
from companion.vision.scalars import at_least, at_most, compare_with
from companion.vision.shadows import CastingCup, ShadowModel
from companion.vision.templates import SquareTemplates

Light = tuple[ShadowModel, RectifiedView]
"""A shadow model and the view its shadows are drawn on."""
Shade = tuple[np.ndarray, ShadowModel]
"""Where the cups' shadows fall (uint8 map, 255) and the model that drew them."""

MAP_MM = 2.0
"""The occlusion map has a pixel per 2 mm of board (a half or a quarter of the board-plane view's
resolution per axis): a hand is judged on 8 mm and 32 mm averages."""
UNEXPLAINED_MM = 8.0
"""Occlusion is judged on the evidence no cup explains averaged over about 8 mm. A hand or an
arm is a solid blob of "not board"; a dim room's noisy wood and the ragged edges of long
cup shadows read as speckle, positive and negative, which the average cancels."""
NOISE_GREY = 0.6
"""Sensor noise (grey levels, after the 1 mm denoising and the 2 mm map) that sets
each pixel's colour spread: sqrt(mean over channels of 1/(1+I)², now plus at calibration) times
this. Chosen on the stress set (120 set-ups): 0.5 / 0.6 / 0.7 left 48 / 30 / 21 of the 132 hand-free
frames the former test flagged, while lone fists caught went 107 / 104 / 103 (of 118)."""
LIT_SMOOTH_MM = 4.0
LIT_PERCENTILE = 90.0
"""The lit board's brightness at calibration: this percentile of the empty board, smoothed over
about 4 mm so grain and grid lines do not count as shade."""
FAINT_GRAIN = 4.0
"""Inside a predicted shadow, the texture may not say "cup" where the board's grain (its grey
levels' spread over the texture window at calibration) darkened by the shadow falls under
this many grey levels: there sensor noise, not a cup, hides it (the bench's bench-14 margin). A
hand over well-grained wood in a cup's shadow still hides a grain that shows."""
MAX_FORGIVEN = 1.0
"""At most this much log brightening is forgiven, and only off the grid: over the grid, a
pale fist over dark wood must still count."""
BAND_FG_LOG_ODDS = 0.5
BAND_OCCLUDED_MM2 = 150.0
"""Unexplained non-board area on the margin band that means an arm: a forearm crossing the
17 mm strip covers over 800 mm²."""
GRID_FG_LOG_ODDS = 1.0
GRID_OCCLUDED_MM2 = 300.0
"""Unexplained, averaged non-board area over the grid that means a hand or a fist."""
FIST_MM = 32.0
FIST_LOG_ODDS = 0.0
"""A fist alone over the cups (no arm in view) is 80 mm across and mostly unexplained: some
32 mm patch of the grid then averages "not board", which noise and shadow edges, averaged
that widely, do not. On the stress set this caught 6 more of 118 fists for 1 more false flag
in 1062 hand-free frames."""
UNLIKE_DISTANCE2 = 16.0
"""A pixel more than 4 spreads from a colour's Gaussian (squared Mahalanobis distance over 16)
is unlike that colour: about 1 in 900 of the colour's own pixels, were they normal. A cup's
edge, a highlight or its shade in a changed light land there more often (up to half of a pale
cup's silhouette under a lamp moved since calibration); a hand, whatever the matcher made of it,
lands there nearly whole."""


PATTERN_NCC = 0.9
"""Where the frame's texture correlates with the empty board's this well (over the 7 mm texture
window, averaged on the 2 mm map) the board's own pattern (its grain, its lines) is in view, and
no hand is there: a hand shows its own surface, which correlates with the board's no better than
chance (a few tenths). Light multiplies each surface's colour by its own factors, not one per
camera channel: under a re-tinted lamp the ink of the grid lines changes colour unlike the wood
around it, and on the vision bench's bench-24 (a warm low lamp from frame 16 on) every line
reads as "not board" by its colour (m +0.09, q -0.07, -0.08 to -0.16 against the wood's -0.04,
-0.03) while its texture correlates at 0.99; between cups, where only a strip of board is left
unexplained, the lines decided the fist test (0.05-0.18 over its 0 on 20b, 21b, 24b, 25b, the
lamp fitted). At 0.95, 20b stays flagged; at 0.8, as at 0.9, it passes (-0.01). Used only on
frames judged again under a changed light (``OcclusionTest.under``)."""

SHADED_AT_CALIBRATION = 0.05
"""A pixel of the empty board more than this (log) below the lit board was in shade at
calibration (``OcclusionTest.was_shaded``), the grid included."""
LIT_LOOK_LOG = 0.1
LIT_LOOK_SPREADS = 3.0
"""Within this much log brightness, and this many of the board's colour spreads
(``chroma_sigma``), of this frame's margin lit at calibration, a pixel shows the lit board's look
(``OcclusionTest._lit_again``)."""

SHEEN_SMOOTH_MM = LIT_SMOOTH_MM
"""The empty board's colour, for its sheen (``OcclusionTest.sheen``), smoothed over about 4 mm as
the lit board is: the grain and the grid lines are no sheen."""

_INVERSE_SQUARE = (1.0 / (1.0 + np.arange(256, dtype=np.float32)) ** 2).reshape(256, 1)
"""1 / (1 + value)², the log ratio's noise variance per unit of sensor noise, by grey level."""


def unlike_share(features: np.ndarray, match: SquareMatch, sq: SquareTemplates, model: Gaussian) -> float:
    """Share of the found cup's silhouette whose pixels are unlike its colour: more than
    ``UNLIKE_DISTANCE2`` (squared spreads) from ``model``, the colour's Gaussian. ``features``
    is the frame's unpadded (m, q1, q2) view. 0 for the part of a silhouette off the view, and
    for a square with no cup found."""
    seen = silhouette_features(features, match, sq)
    if not len(seen):
        return 0.0
    far = model.distance2(seen.reshape(-1, 1, 3)) > UNLIKE_DISTANCE2
    return float(np.count_nonzero(far)) / len(seen)


def silhouette_features(features: np.ndarray, match: SquareMatch, sq: SquareTemplates) -> np.ndarray:
    """The (m, q1, q2) of ``features`` (the frame's unpadded view) under the found cup's
    silhouette, (n, 3), none off the view; none for a square with no cup found."""
    if match.sizes[match.size - 1] <= 0:
        return features[:0, 0]
    mask = sq.masks[match.colour, match.size - 1]
    h, w = mask.shape
    y, x = sq.top + match.dy, sq.left + match.dx
    y0, x0 = max(y, 0), max(x, 0)
    y1, x1 = min(y + h, features.shape[0]), min(x + w, features.shape[1])
    if (y0, x0, y1, x1) == (y, x, y + h, x + w):  # the whole silhouette on the view
        rows, cols = sq.shown[match.colour][match.size - 1]
        width = features.shape[1]
        return features.reshape(-1, 3).take((rows + y) * width + (cols + x), axis=0)
    return features[y0:y1, x0:x1][mask[y0 - y : y1 - y, x0 - x : x1 - x] > 0]


def departing_share(
    features: np.ndarray, match: SquareMatch, sq: SquareTemplates, pixels: PixelModel
) -> float:
    """Share of the found cup's silhouette whose pixels depart from the wood's own look
    (``PixelModel.wood_look``); 1 for a square with no cup found, or one off the view."""
    seen = silhouette_features(features, match, sq)
    if not len(seen):
        return 1.0
    return 1.0 - float(np.count_nonzero(pixels.wood_look(seen))) / len(seen)


def shrink(image: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The mean of each block of the image over a map pixel (edge blocks: area-weighted).

    For an exact halving, linear interpolation samples the middle of each 2x2 block, which is
    its mean: the same numbers as area interpolation at half the cost."""
    exact = image.shape[0] == shape[0] * 2 and image.shape[1] == shape[1] * 2
    return cv2.resize(
        image, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR if exact else cv2.INTER_AREA
    )


@dataclass
class _Seen:
    """One frame on the occlusion map (``OcclusionTest._frame``): each pixel's noise unit
    (``evidence``), the features and the texture shrunk; and the maps of the cups' ``free``
    pixels last judged with (``_frame_free``: the mask given, then ``_free``'s three)."""

    unit: np.ndarray
    f: np.ndarray
    ncc: np.ndarray
    lit_again: np.ndarray
    free: tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None


@dataclass(frozen=True)
class Occlusion:
    """How much unexplained non-board there is on the margin band and over the grid (mm²)."""

    band_mm2: float
    grid_mm2: float
    fist_log_odds: float  # the highest FIST_MM average over the grid
    rough: bool  # the reading's own evidence leaves as much unexplained as a hand would
    hidden_mm2: float = 0.0  # the board's marks hidden, unexplained by cups
    labels_alike: float = 1.0  # the least alike marker label's pattern (``HiddenMarks.labels_alike``)

    @property
    def occluded(self) -> bool:
        return (
            self.band_mm2 > BAND_OCCLUDED_MM2
            or self.grid_mm2 > GRID_OCCLUDED_MM2
            or self.fist_log_odds > FIST_LOG_ODDS
            or self.hidden_mm2 > HIDDEN_MM2
            or self.labels_alike < LABEL_ALIKE
        )


class OcclusionTest:
    """Per calibration: the masks and the shade the empty board had, at the map's resolution."""

    def __init__(
        self,
        background: np.ndarray,
        scale: float,
        pixels: PixelModel,
        band: np.ndarray,
        grid: np.ndarray,
        light: Light | None = None,
        labels: tuple[Box, ...] = (),
        wood_like: tuple[bool, bool] | None = None,
        calibrated: PixelModel | None = None,
        kept: Kept[bytes, PixelModel] | None = None,
        log: np.ndarray | None = None,
    ) -> None:
        """``labels``: the markers' labels on the view (``HiddenMarks``), none without markers;
        ``wood_like``: ``pixels.wood_like()`` where the caller has it already (the reader),
        worked out again on the colours judged with when any went back to the calibration's;
        ``calibrated``: the calibration's own pixel model, when ``pixels`` was learned since;
        ``kept``: the models the caller's tests judged with lately, one of which this test's
        may be (its tables made already); ``log``: the empty board's log, denoised
        (``Background.log``), where the caller has it."""
        judged = pixels if calibrated is None else pixels.no_nearer_wood(calibrated)
        own = judged.for_occlusion(wood_like if judged is pixels else None)
        self.pixels = own if kept is None else own.kept_in(kept)
        """The pixel model less the cup colours that have the wood's look (``for_occlusion``),
        none learned nearer the wood than the calibration's (``no_nearer_wood``)."""
        self.light = light
        h, w = background.shape[:2]
        step = max(1, round(MAP_MM * scale))
        self.shape = ((h + step - 1) // step, (w + step - 1) // step)
        self.scale = scale / step
        self.band = shrink(band, self.shape)
        self.grid = shrink(grid, self.shape)
        self._on_band = compare_with(self.band, 127, cv2.CMP_GT)
        self._on_grid = compare_with(self.grid, 127, cv2.CMP_GT)
        """The map's pixels on the margin band and on the grid (uint8, 255): the same every
        frame, where each judgement compared the maps again."""
        self._seen: tuple[tuple[np.ndarray, ...], _Seen] | None = None  # (``_frame``)
        level, lit = self._lit_board(background, cv2.bitwise_or(band, grid))
        self.forgiven = np.clip(lit - level, 0.0, MAX_FORGIVEN).astype(np.float32)
        """Log darkness of each pixel of the empty board below the lit board, 0..MAX_FORGIVEN:
        brightening by up to that much is a shadow at calibration gone, not something new."""
        self.brighter = level > lit
        """Where the empty board was brighter than its lit board: where a highlight may lie."""
        self.forgiven[self.grid > 0] = 0.0
        self.was_shaded = lit - level > SHADED_AT_CALIBRATION
        """Where the empty board lay in shade at calibration, the grid included: where a shadow
        gone may show the lit board (``_lit_again``)."""
        self._lit_margin = (self._on_band > 0) & ~self.was_shaded
        empty_log = log_image(blurred(background, scale)) if log is None else log
        self._empty_look = chroma(shrink(empty_log, self.shape))
        """The empty board's (m, q1, q2) per map pixel, as the frames' features see it."""
        self.bg_unit = cv2.LUT(shrink(background, self.shape), _INVERSE_SQUARE).mean(axis=2)
        self.window = odd_window(UNEXPLAINED_MM * self.scale)
        self.fist_window = odd_window(FIST_MM * self.scale)
        self.texture_lut = pixels.texture_lut
        grey = cv2.cvtColor(background, cv2.COLOR_BGR2GRAY).astype(np.float32)
        window = odd_window(TEXTURE_MM * scale)
        mean = cv2.boxFilter(grey, cv2.CV_32F, (window, window))
        spread = cv2.boxFilter(grey * grey, cv2.CV_32F, (window, window)) - mean * mean
        self.grain = shrink(cv2.sqrt(at_least(spread, 0.0)), self.shape)
        self.marks = HiddenMarks(cv2.cvtColor(background, cv2.COLOR_BGR2GRAY), scale, labels)

    def _lit_board(self, background: np.ndarray, board: np.ndarray) -> tuple[np.ndarray, float]:
        """The empty board's log brightness per map pixel (smoothed over ``LIT_SMOOTH_MM``)
        and the lit board's (its ``LIT_PERCENTILE`` over ``board``)."""
        small = shrink(background, self.shape)
        level = np.log1p(small.astype(np.float32)).mean(axis=2)
        level = cv2.GaussianBlur(level, (0, 0), LIT_SMOOTH_MM * self.scale)
        return level, float(np.percentile(level[shrink(board, self.shape) > 0], LIT_PERCENTILE))

    @cached_property
    def sheen(self) -> np.ndarray:
        """Each map pixel's colour (q1, q2) at calibration off the board's own (its median over
        the margin and the grid) where the wood was brighter than the lit board (``brighter``),
        0 elsewhere: where a lamp's highlight lay on the empty board, the lamp's colour mixed
        into the wood's, toward the lamp's (on the bench's bench-03, up to 0.08 toward white on
        the left margin). A stain or the grain is off the board's colour too, but no brighter:
        taken for a sheen, a stain's 0.019 let a lone fist through on the stress set (stress-12,
        frame 11: 160 -> 144 mm² of the margin, 0.028 darker than the lit board there). A
        highlight gone under another lamp takes the pixel back toward the board's colour by as
        much (``_sheen_gone``). Worked out on the first frame judged under a changed light, from
        the empty board's look (``_empty_look``): frames under the calibration's light never need it."""
        colour = cv2.GaussianBlur(self._empty_look[..., 1:], (0, 0), SHEEN_SMOOTH_MM * self.scale)
        wood = np.median(colour[cv2.bitwise_or(self._on_band, self._on_grid) > 0], axis=0)
        sheen = (colour - wood.astype(np.float32)).astype(np.float32)
        sheen[~self.brighter] = 0.0
        return sheen

    def _sheen_gone(self, q1: np.ndarray, q2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The colour residuals (q1, q2) with a highlight at calibration gone undone: the part of
        each pixel's residual that runs opposite its ``sheen``, up to the sheen's length.

        A lamp's highlight on the wood adds the lamp's own colour to the wood's, whatever the
        lamp: where one lay at calibration and the light that made it is gone, the wood shows
        its own colour again, off the empty board's by the sheen reversed (bench-03's left
        margin under its moved lamp, where it read as an arm: the residual at a median cosine of
        0.95-1.00 with the sheen reversed, 0.030-0.037 of its 0.065-0.074, the rest taken in by
        the margin's light field, against a colour spread of 0.012). A hand's colour is its own,
        and only the share of it that lies along the sheen, no further than the sheen went, is
        taken back; where the empty board had its own colour (no highlight) nothing is. (The
        grid lines' ink and the markers, smoothed in, give a sheen beside them too: a few
        millimetres wide, and only their colour's difference from the wood's.)"""
        h1, h2 = cv2.split(self.sheen)
        length = cv2.sqrt(h1 * h1 + h2 * h2)
        floored = at_least(length, 1e-6)
        back = -(q1 * h1 + q2 * h2) / floored  # toward the board's colour
        gone = cv2.min(at_least(back, 0.0), length) / floored
        return q1 + gone * h1, q2 + gone * h2

    def shadow(self, cups: list[CastingCup], light: Light | None = None) -> Shade | None:
        """Where ``cups`` cast their shadows under ``light`` (the calibration's lamp when
        None): a uint8 map (255) and the model that drew it; None without a shadow model."""
        light = light or self.light
        if light is None:
            return None
        model, view = light
        return model.draw(view, cups, self.shape), model

    def evidence(
        self,
        f: np.ndarray,
        ncc: np.ndarray,
        rect: np.ndarray,
        cast: Shade | None = None,
        relit: bool = False,
    ) -> np.ndarray:
        """Not-board log-odds per map pixel from the full-resolution features and texture.

        Inside ``cast`` (the cups' predicted shadows and their model, ``shadows.py``) a darker
        board is board: its darkening is undone as a gain before the colour is judged, and the
        texture, faint in deep shade, may say "board" but not "cup". With ``relit`` (a light
        changed in colour since the board in use, ``under``), a highlight the empty board had
        is taken as gone where the colour says so (``_sheen_gone``), and where the board's own
        pattern shows as it did (``PATTERN_NCC``) the colour may not say "not board" either."""
        seen = self._frame(f, ncc, rect)
        unit, f, ncc = seen.unit, seen.f, seen.ncc
        shadow = None if cast is None else cast[0]
        if cast is not None:
            f = cast[1].lift(f, cast[0])
        m, q1, q2 = cv2.split(f)
        tint = self.pixels.shadow_tint.astype(np.float32)
        gone = cv2.min(at_least(m, 0.0), self.forgiven)  # a shadow at calibration, gone: undone
        m, q1, q2 = m - gone, q1 - gone * tint[0], q2 - gone * tint[1]  # along the shadow line
        if relit:
            q1, q2 = self._sheen_gone(q1, q2)
        shade = at_most(m, 0.0)
        line1, line2 = shade * tint[0], shade * tint[1]
        sigma = np.float32(self.pixels.chroma_sigma)
        keep = sigma / cv2.sqrt(at_least(unit * np.float32(NOISE_GREY**2), float(sigma * sigma)))
        calm = cv2.merge([m, line1 + (q1 - line1) * keep, line2 + (q2 - line2) * keep])
        fg = self.pixels.colour_fg(calm)
        fg = np.where(seen.lit_again, at_most(fg, 0.0), fg)
        texture = cv2.LUT(texture_bin(ncc), self.texture_lut)
        if shadow is not None:  # where the shade drowns the grain, texture cannot say "cup"
            faint = cv2.multiply(self.grain, cv2.exp(at_most(f[..., 0], 0.0))) < FAINT_GRAIN
            texture = np.where((shadow > 0) & faint, at_most(texture, 0.0), texture)
        fg = cv2.add(fg, texture, dst=fg)
        if relit:
            fg = np.where(ncc >= PATTERN_NCC, at_most(fg, 0.0), fg)
        return at_most(at_least(fg, -CLIP_FG, out=fg), CLIP_FG, out=fg)

    def judge(
        self,
        f: np.ndarray,
        ncc: np.ndarray,
        rect: np.ndarray,
        free: np.ndarray,
        fg: np.ndarray,
        cups: list[CastingCup] | None = None,
        gray: np.ndarray | None = None,
    ) -> Occlusion:
        """``free``: full-resolution uint8 mask (255) of pixels no cup found explains; ``fg``:
        the reading's own (unpadded) evidence, to tell how rough this frame reads; ``cups``:
        the cups found, whose shadows are board; ``gray``: ``rect`` in grey, when the caller
        has it (``pixels.grey``)."""
        full_free = free
        free, band_free, grid_free = self._frame_free(f, ncc, rect, free)
        band_mm2, grid_mm2, fist_log_odds = self._cues(
            self.evidence(f, ncc, rect, self.shadow(cups or [])), free, band_free, grid_free
        )
        own = shrink(fg, self.shape)
        own_band, own_grid = self._areas(
            self._averaged(self._unexplained(own, free), self.window), band_free, grid_free
        )
        rough = own_band > BAND_OCCLUDED_MM2 or own_grid > GRID_OCCLUDED_MM2
        hidden, alike = self.marks.seen(grey(rect) if gray is None else gray, full_free)
        return Occlusion(band_mm2, grid_mm2, fist_log_odds, rough, hidden, alike)

    def under(
        self,
        light: Light | None,
        cover: Occlusion,
        f: np.ndarray,
        ncc: np.ndarray,
        rect: np.ndarray,
        free: np.ndarray,
        cups: list[CastingCup],
    ) -> Occlusion:
        """``cover`` (``judge``'s, same frame and cups) judged again under a light changed
        since the board in use: the cups' shadows cast by ``light`` (the calibration's lamp
        when None), a highlight at calibration gone and the board's own pattern in view taken
        for board (``evidence``'s ``relit``); the margin, the grid and the fist test only. The
        board's marks and the markers' labels depend on none of these, and stay as judged: a
        hand hides the marks whatever light explains the wood around it."""
        free, band_free, grid_free = self._frame_free(f, ncc, rect, free)
        evidence = self.evidence(f, ncc, rect, self.shadow(cups, light), relit=True)
        band_mm2, grid_mm2, fist_log_odds = self._cues(evidence, free, band_free, grid_free)
        return dataclasses.replace(cover, band_mm2=band_mm2, grid_mm2=grid_mm2, fist_log_odds=fist_log_odds)

    def _frame(self, f: np.ndarray, ncc: np.ndarray, rect: np.ndarray) -> _Seen:
        """A frame's maps (``_Seen``) from its features ``f``, texture ``ncc`` and picture
        ``rect``, worked out once per frame: ``judge`` and each ``under`` of the same frame
        (up to two under a changed light) share them. Kept with the very arrays they came
        from, which the reader never changes in place; any other array is a new frame."""
        key = (f, ncc, rect)
        if self._seen is not None and all(a is b for a, b in zip(self._seen[0], key, strict=True)):
            return self._seen[1]
        now = cv2.LUT(shrink(rect, self.shape), _INVERSE_SQUARE)
        unit = cv2.transform(now, np.full((1, 3), 1 / 3, np.float32)) + self.bg_unit
        small = shrink(f, self.shape)
        seen = _Seen(unit, small, shrink(ncc, self.shape), self._lit_again(small))
        self._seen = (key, seen)
        return seen

    def lit_again(self, f: np.ndarray, ncc: np.ndarray, rect: np.ndarray) -> np.ndarray:
        """Where the board shaded at calibration shows the lit board's look in the frame of
        features ``f``, texture ``ncc`` and picture ``rect`` (``_lit_again``), on the map:
        worked out once a frame, with the judgement of that frame (``_frame``)."""
        return self._frame(f, ncc, rect).lit_again

    def _lit_again(self, f: np.ndarray) -> np.ndarray:
        """Where the board, shaded at calibration (``was_shaded``), now shows the lit board's
        look: within ``LIT_LOOK_LOG`` in brightness and ``LIT_LOOK_SPREADS`` colour spreads of
        this frame's margin lit at calibration (its median), on the map ``f`` (the features).

        The brightening a shadow gone leaves is forgiven only along the shadow line (``evidence``),
        but a shade's hue is about the same at 0.3 deep as at 1.3: on the vision bench's bench-38
        (the reserve stacks' shadows across the margin and the d-file's edge at calibration, then
        gone as Black plays from them) the margin there shows the lit margin's own colour (BGR
        139, 160, 176 against 138, 160, 176 lit at calibration) while 5.3-5.8 spreads are left
        off the line, and the boards read as an arm. A hand shows its own look, not the lit
        board's, wherever it lies."""
        if not self._lit_margin.any():
            return np.zeros(self.shape, bool)
        look = self._empty_look + f
        off = look - np.median(look[self._lit_margin], axis=0).astype(np.float32)
        spread = np.float32(LIT_LOOK_SPREADS * self.pixels.chroma_sigma)
        near = (np.abs(off[..., 0]) <= LIT_LOOK_LOG) & (off[..., 1] ** 2 + off[..., 2] ** 2 <= spread**2)
        return near & self.was_shaded

    def _frame_free(
        self, f: np.ndarray, ncc: np.ndarray, rect: np.ndarray, free: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``_free`` of the frame (``_frame``) and ``free``, kept with the frame's maps."""
        seen = self._frame(f, ncc, rect)
        if seen.free is None or seen.free[0] is not free:
            seen.free = (free, self._free(free))
        return seen.free[1]

    def _free(self, free: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The map's pixels no cup explains (``free``: full resolution), on the band, on the grid."""
        free = compare_with(shrink(free, self.shape), 255, cv2.CMP_EQ)
        band_free = cv2.bitwise_and(free, self._on_band)
        grid_free = cv2.bitwise_and(free, self._on_grid)
        return free, band_free, grid_free

    def _cues(
        self, evidence: np.ndarray, free: np.ndarray, band_free: np.ndarray, grid_free: np.ndarray
    ) -> tuple[float, float, float]:
        """(band mm², grid mm², fist log-odds) of the not-board ``evidence`` no cup explains."""
        unexplained = self._unexplained(evidence, free)
        band_mm2, grid_mm2 = self._areas(self._averaged(unexplained, self.window), band_free, grid_free)
        fist = self._averaged(unexplained, self.fist_window)
        fist_log_odds = cv2.minMaxLoc(fist, grid_free)[1] if cv2.countNonZero(grid_free) else -np.inf
        return band_mm2, grid_mm2, float(fist_log_odds)

    @staticmethod
    def _averaged(unexplained: np.ndarray, window: int) -> np.ndarray:
        return cv2.boxFilter(unexplained, cv2.CV_32F, (window, window))

    @staticmethod
    def _unexplained(evidence: np.ndarray, free: np.ndarray) -> np.ndarray:
        return cv2.multiply(evidence, free, scale=1.0 / 255, dtype=cv2.CV_32F)

    def _areas(
        self, averaged: np.ndarray, band_free: np.ndarray, grid_free: np.ndarray
    ) -> tuple[float, float]:
        """Areas (mm²) of the band and of the grid where the averaged evidence means a hand."""
        band = cv2.bitwise_and(compare_with(averaged, BAND_FG_LOG_ODDS, cv2.CMP_GT), band_free)
        grid = cv2.bitwise_and(compare_with(averaged, GRID_FG_LOG_ODDS, cv2.CMP_GT), grid_free)
        return cv2.countNonZero(band) / self.scale**2, cv2.countNonZero(grid) / self.scale**2
