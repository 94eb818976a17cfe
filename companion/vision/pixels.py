"""Per-pixel evidence: is this board-plane pixel the empty board, a light cup or a dark cup?

Each pixel of the rectified frame is compared with the same pixel of the empty board seen at
calibration, as a log ratio per channel. That removes the board's own texture and grid lines,
and splits cleanly into a brightness part ``m`` (mean log ratio) and a colour part ``q`` (the
rest, two numbers). A global gain measured on the board margin takes out exposure and white
balance drift, so a room getting 20 % darker changes nothing.

The board model accepts shadows: a shadow darkens the wood and, because the light filling a
shadow is usually of another colour than the light casting it, tints it along a fixed
direction ``q = m * shadow_tint``; that direction is learned from the shadows the reference
cups cast. Cup colours are Gaussians learned from the reference cups, plus a small uniform
"anything else" share so that a sleeve or a hand also reads as "not board".

Colour alone cannot tell a pale cup's side wall (lit by light bounced off the wood, so it
looks like shaded wood) from a real shadow. Texture can: shaded wood still shows the grain
and grid lines it showed at calibration, a cup hides them. The local correlation with the
empty board adds learned log-odds to the colour evidence.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.vision.kept import Kept
from companion.vision.scalars import at_least, at_most

_CHROMA = np.array(
    [
        [1 / 3, 1 / 3, 1 / 3],
        [1 / np.sqrt(2), -1 / np.sqrt(2), 0.0],
        [1 / np.sqrt(6), 1 / np.sqrt(6), -2 / np.sqrt(6)],
    ],
    dtype=np.float64,
)
"""Rows: brightness (mean of the three log ratios) and two orthonormal colour axes."""

_LOG_TABLE = np.log(np.arange(256, dtype=np.float32) + 1.0).reshape(256, 1)
CLIP_FG = 4.0
CLIP_COLOUR = 6.0
OUTLIER_SHARE = 0.1
OUTLIER_DENSITY = 0.3
"""Uniform density of the "anything else" class over the feature space (about 3.3 units³)."""
STUDENT_NU = 4.0
BRIGHT_SIGMA = 0.08
MIN_CUP_SIGMA = (0.1, 0.03, 0.03)
BLUR_MM = 1.0
TABLE_M = (-2.6, 84, 0.04)
TABLE_Q = (-0.3, 97, 0.00625)
"""Lookup grids (first value, count, step) for brightness and the two colour axes: fine where
the board and its shadows lie (the board's colour spread is 0.012-0.05)."""
TABLE_Q_OUTER = (16, 0.075)
"""Beyond the colour axes' fine grid, this many more points on each side, this far apart (to
±1.5): strongly coloured cups lie there (the bench's yellow/red, orange/blue pairs: 0.4-0.9
off the wood on one axis), and a grid that stopped at ±0.3 read them as if they stood on its
edge, where both colours of a pair can meet: the light and dark models' log-odds at the edge
point, not at the cup's colour, said which colour a cup was, and a small step of learning
(bench-17's yellow model after its lamp changed) turned its red cups yellow. Only "light rather
than dark" is told there: "cup rather than board" takes the edge's value, as it always did (the
wood is over six of its spreads away either way, and the occlusion test's limits were set on it:
judged at each point, the margin of a hand-free frame of the bench's bench-19 read 156 mm² not
board instead of 144, over the 150 that means an arm). Brightness keeps its one grid: two cup
colours are never both beyond it on the same side."""
FINE_SPAN = slice(TABLE_Q_OUTER[0], TABLE_Q_OUTER[0] + TABLE_Q[1])
"""Where the fine grid lies on each colour axis of the lookup grids (``table_grid``)."""
GAIN_SAMPLES = 3000
GAIN_TERMS = 6
"""The light's change since calibration is fitted as a quadratic in x and y per channel (1, x, y,
x², xy, y²): a lamp moved, dimmed or re-aimed changes the light smoothly across the board, by
0.4 in log brightness from one side to the other on the bench's bench-03, which one gain for the
whole board left as a "not board" slope that read as a hand."""
GAIN_ROUNDS = 3
GAIN_TRIM = 3.0
"""Each round refits on the band pixels within this many robust spreads of the last fit: an
arm across the margin, a shadow that moved, a cup left beside the grid do not bend the field."""
GAIN_MIN_SPREAD = 0.03
RIDGE = np.eye(GAIN_TERMS) * 1e-6
UNEVEN = 0.2
"""The field's range over the view (log, any channel) beyond which the light counts as uneven.
Even light fits ranges of 0.01–0.05 (frames-dev, the bench's bench-08 and bench-11), a hand
on the margin bends it to 0.25 at most; bench-03's lamp moved gives 0.5–0.64."""
GAIN_GRID = 24
"""The field is evaluated on a 24 x 24 grid and resized: it is smooth, and a per-pixel
polynomial would cost a millisecond a frame."""
TEXTURE_MM = 7.0
TEXTURE_BINS = 10
NOISE_VAR = 1.0
TEXTURE_CLIP = (-2.5, 1.0)
PALE_TEXTURE_TOP = 2.0
"""The texture's "cup" log-odds may reach this (not ``TEXTURE_CLIP``'s 1.0) on a board whose
reference cups the colour cannot tell from the wood: pale cups on pale wood (the bench's
bench-18, natural cups on birch) look, pixel by pixel, like the wood in a cup's shadow, and
only their texture (a cup hides the board's grain and grid lines) says "cup". Kept at 1.0
elsewhere: raised for every board, hand-free frames of the bench's bench-08 were flagged
occluded 7 times instead of 3."""
LAMP_BRIGHTNESS_SPREAD = 0.2
"""The least brightness spread (log) each colour's Gaussian has in the colour vote on a frame
lit unevenly since the board in use (``lit_unevenly``: a lamp moved, dimmed or changed). How
bright a cup's wall is against the wood is the lamp's doing, which side of the cup it lights
and how steeply; the margin's light field, measured on the flat wood, says nothing of a wall,
while a surface's colour is its own (light multiplies it, and the field takes the lamp's tint
out). The calibration's spread is that of one lamp (the vision bench's bench-03, under a soft
light: white 0.14 around -0.08, black 0.19 around -0.81); with its lamp moved behind the cups,
the white 4 on b4 shows the camera its shaded wall, its mean brightness -0.41 to -0.45 (the
black 4s -0.90 to -1.17), its colour the white cups': brightness alone said black by 1.9-3.1
a pixel on average, the colour axes alone white by 1.1-2.0, and it read a black 4 on five
boards (0.51-0.57), c4's on 13b too (0.34). Light b's own calibration learns 0.33 and 0.52,
the first sure board under the lamp 0.30. Over bench-03's 56 cups under both lamps (a fresh
reader, the calibration's models) 0.16 leaves 3 read the wrong colour, 0.18-0.4 none, and the
least right colour share rises (white 0.35 -> 0.66 at 0.2, 0.74 at 0.33) while the black
cups' falls (0.98 -> 0.93, 0.89 at 0.33: their lit side nears the white cups' brightness)."""
WOOD_LIKE = -1.0
"""A cup colour whose Gaussian, at the unchanged wood (features 0: the empty board's own look),
comes within this (log) of the board's own density there has the wood's colour and brightness
(``PixelModel.wood_like``): "a cup of that colour" then explains the unchanged wood nearly as
well as "the wood" does, and the wood's own noise reads as that cup. The vision bench's bench-37
(natural cups on pale maple, dim warm light): its white cups -0.52; every other board of the
seen bench, the committed scenes and frames-dev -1.67 (bench-03's white cups) or less (bench-06,
bench-27 -1.9, bench-34 -2.2, the rest -2.3 to -20), and none of the stress set's 120 set-ups
(seeds 1000-1119) has such a colour."""
WOOD_LOOK_M = 0.06
WOOD_LOOK_SPREADS = 2.0
"""Within this much log brightness of the empty board, and this many of the board's colour
spreads (``chroma_sigma``) from its shadow line, a pixel has the wood's own look
(``PixelModel.wood_look``): the empty squares of the vision bench's bench-37 spread 0.016-0.032
in brightness. A cup the wood's colour (``WOOD_LIKE``) is seen only where it departs from that
look: its shading, its shaded side off the shadow line (``reader.WOOD_DEPARTURE``)."""
DEFAULT_TEXTURE = (-1.0, -1.0, -0.5, 0.0, 0.3, 0.4, 0.3, 0.1, -0.3, -1.0)
"""Log-odds "cup" by texture-correlation bin (-1..1) when no reference frame taught them:
a gentle version of what reference frames typically show."""


def log_image(image: np.ndarray) -> np.ndarray:
    """``log(1 + value)`` per channel as float32, through a lookup table (fast)."""
    return cv2.LUT(image, _LOG_TABLE)


def grey(rectified: np.ndarray) -> np.ndarray:
    """A frame on the board plane in grey (uint8). A read takes it once: the texture, the
    board's marks, the markers and the stillness clock all start from it (each converted
    the frame again, 3 % of a read)."""
    return cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY)


def chroma(log: np.ndarray) -> np.ndarray:
    """(m, q1, q2) of a log image (``log_image``): its brightness and two colour axes."""
    return cv2.transform(log, _CHROMA.astype(np.float32))


def blurred(rectified: np.ndarray, scale: float) -> np.ndarray:
    """Denoise before comparing: JPEG blocks and sensor noise, not cup edges, are finer than 1 mm."""
    return cv2.GaussianBlur(rectified, (0, 0), BLUR_MM * scale)


def _box(image: np.ndarray, window: int) -> np.ndarray:
    return cv2.boxFilter(image, cv2.CV_32F, (window, window), borderType=cv2.BORDER_REFLECT)


def integer_box(image: np.ndarray, window: int, squared: bool = False) -> np.ndarray:
    """``_box`` of an integer image (uint8, or uint16 up to 255²; of its squares with
    ``squared``, uint8 only), to the bit, from whole sums.

    On a float32 image OpenCV sums a box in doubles, exact for whole numbers, and rounds the
    sum ``S`` times ``1/window²`` (a double) to float32. Here it sums the integers and gives
    ``S`` as float32 (exact below 2^24), and ``S / window²`` is divided in float32: IEEE
    division rounds the exact quotient, and so does the double product (within 2^-52 of it)
    rounded to float32, as a quotient by an odd square that is no whole number lies at least
    2^-33 (relatively, for windows up to 15) from where float32 rounding turns: the same
    numbers (every sum a window up to 15 can take, tests/vision/test_read_speed.py). The
    integer sums cost less than float ones and no float copy of the image is made (a 310 x
    310 box: 151 µs against 197, measured when it was built). A window whose sums could reach 2^24
    is summed as floats."""
    top = 255**2 if squared or image.dtype == np.uint16 else 255
    if window * window * top >= 2**24:
        plain = image.astype(np.float32)
        return _box(cv2.multiply(plain, plain) if squared else plain, window)
    size = (window, window)
    if squared:
        sums = cv2.sqrBoxFilter(image, cv2.CV_32F, size, normalize=False, borderType=cv2.BORDER_REFLECT)
    else:
        sums = cv2.boxFilter(image, cv2.CV_32F, size, normalize=False, borderType=cv2.BORDER_REFLECT)
    return np.divide(sums, np.float32(window * window), out=sums)


@dataclass(frozen=True)
class Background:
    """The empty board on the board plane, with what every frame is compared against.

    Besides the colour (log of the denoised image), it keeps the local texture statistics of
    the wood: a board pixel, lit or shaded, still shows the grain and grid lines it showed at
    calibration (high local correlation), while a cup hides them. That tells a cup's shaded
    side wall from a shadow on the wood, which colour alone cannot.
    """

    image: np.ndarray  # rectified empty board, uint8 BGR, not denoised
    scale: float
    band: np.ndarray  # margin pixels for the exposure correction
    band_sample: np.ndarray  # flat indices of up to GAIN_SAMPLES band pixels, spread evenly
    log: np.ndarray
    gray: np.ndarray
    gray_mean: np.ndarray
    gray_dev: np.ndarray  # local standard deviation, floored at the noise level
    band_basis: np.ndarray  # (samples, GAIN_TERMS): the field's terms at each band sample
    band_basis_t: np.ndarray  # its transpose, contiguous
    grid_basis: np.ndarray  # (GAIN_GRID², GAIN_TERMS): the same on the coarse grid
    lit_rows: np.ndarray | None = None
    """Which band samples show the wood lit (``lit_wood``), the rows of ``band_sample`` the
    light is judged on (``light_judged``); None when all do."""
    level: np.ndarray | None = None
    """What levels a pixel's features for the colour vote (``PixelModel.levelled``), (h, w, 3)
    float32: the empty board's own colour there less its mean over the grid (``board_level``);
    None where no layout was given."""

    @classmethod
    def of(cls, image: np.ndarray, scale: float, band: np.ndarray) -> Background:
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
        window = texture_window(scale)
        mean = _box(gray, window)
        var = _box(gray * gray, window) - mean * mean
        dev = np.sqrt(np.maximum(var, NOISE_VAR))
        flat = np.flatnonzero(band)
        sample = flat[:: max(1, len(flat) // GAIN_SAMPLES)]
        h, w = band.shape
        log = log_image(blurred(image, scale))
        ys, xs = np.divmod(sample, w)
        terms = _field_terms(xs / w * 2 - 1, ys / h * 2 - 1)
        lit = lit_wood(log.reshape(-1, 3).take(sample, axis=0).astype(np.float64), terms)
        grid = (np.arange(GAIN_GRID) + 0.5) / GAIN_GRID
        gy, gx = np.meshgrid(grid * h, grid * w, indexing="ij")
        return cls(
            image,
            scale,
            band,
            sample,
            log,
            gray,
            mean,
            dev,
            terms,
            np.ascontiguousarray(terms.T),
            _field_terms(gx.ravel() / w * 2 - 1, gy.ravel() / h * 2 - 1),
            None if lit.all() else np.flatnonzero(lit),
        )

    def light_field(self, diff: np.ndarray) -> np.ndarray:
        """The light's change since calibration: one gain per channel (3,) when it is even
        across the board, else a log ratio per pixel and channel (float32, the view's shape).

        The gain is the band's median (the margin, where only a hand or an arm can be); the
        field a quadratic fitted to the band by least squares, refitted on the pixels that
        agree with it, evaluated on a coarse grid and resized. The field is used only where it
        varies by more than ``UNEVEN`` over the board: under even light the median is the more
        robust estimate (a shadow or a sleeve on the margin bends a quadratic a little)."""
        return self._field(self.band_values(diff), self.band_basis, self.band_basis_t)

    def light_judged(self, diff: np.ndarray, field: np.ndarray | None = None) -> np.ndarray:
        """The light's change, as ``light_field``, judged on the band samples that showed the wood
        lit on this board (``lit_wood``): what says whether the light changed
        (``shadows.light_changed``). ``field``: ``light_field`` of the same ``diff`` when the
        caller has it, which it is where no sample lay in shade.

        The features are still corrected by the field of every sample (``light_field``): where
        the calibration's shade lifts, the margin there and the squares it fell on read
        brighter, and a field bent towards them takes some of that in as light. Left out of the
        correction too (tried), bench-26's last board was flagged (612 mm² of the
        margin, the lifted reserve shade) and bench-38 flagged two boards more
        (docs/vision-findings.md, "The calibration's own shade out of the light field")."""
        if self.lit_rows is None:
            return self.light_field(diff) if field is None else field
        basis, basis_t = self._lit_basis
        return self._field(self.band_values(diff)[self.lit_rows], basis, basis_t)

    @cached_property
    def _lit_basis(self) -> tuple[np.ndarray, np.ndarray]:
        """The field's terms at the lit band samples (``lit_rows``) and their transpose,
        contiguous: ``band_basis`` and ``band_basis_t`` for ``light_judged``."""
        basis = self.band_basis[self.lit_rows]
        return basis, np.ascontiguousarray(basis.T)

    def _field(self, values: np.ndarray, basis: np.ndarray, basis_t: np.ndarray) -> np.ndarray:
        """``light_field`` of the band samples' ``values`` with the field's terms there."""
        gain = median_rows(values.T.copy())  # each channel's median, its samples side by side
        coef = band_fit(values, basis, basis_t, gain)
        field = (self.grid_basis @ coef).astype(np.float32).reshape(GAIN_GRID, GAIN_GRID, 3)
        if float(np.ptp(field, axis=(0, 1)).max()) <= UNEVEN:
            return gain
        h, w = self.band.shape
        return cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)

    def band_values(self, diff: np.ndarray) -> np.ndarray:
        """``diff``'s (a frame's log less the empty board's) sampled band pixels, (samples, 3)
        float64: what ``light_field`` fits. ``take`` gathers the same rows as indexing with
        ``band_sample`` does, in a third of the time (12 µs where indexing took 38)."""
        return diff.reshape(-1, 3).take(self.band_sample, axis=0).astype(np.float64)

    def own_colour(self, window: tuple[slice, slice]) -> np.ndarray:
        """The empty board's own colour over ``window`` of the view, as (m, q1, q2) of its log
        (the median: grid lines and grain left out). A cup's features are its log ratio to
        the board behind it: where the board's own colour differs by what does not light the
        cups too (a varnish's sheen), the same cup's features differ by as much."""
        values = self.log[window].reshape(-1, 3).astype(np.float64)
        return np.asarray(_CHROMA @ np.median(values, axis=0))

    def level_at(self, window: tuple[slice, slice]) -> np.ndarray | None:
        """``level`` over ``window`` of the view, None without one."""
        return None if self.level is None else self.level[window]

    def features(self, rectified: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(m, q1, q2) per pixel after the gain correction, and the texture correlation."""
        f, ncc, _, _ = self.seen(rectified)
        return f, ncc

    def seen(
        self, rectified: np.ndarray, gray: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``features``, the light's change they were corrected for, and that change judged on
        the lit wood (``light_judged``).

        ``band`` pixels (board margin, where no cup stands) give the light's change since
        calibration, a smooth field over the board (``light_field``): exposure, white balance,
        and a lamp moved or dimmed. The reader asks of the change judged whether the light
        changed (``shadows.light_changed``), so it is returned rather than measured twice.
        ``gray``: ``rectified`` in grey (uint8), when the caller has it already (``grey``).
        """
        logged = log_image(blurred(rectified, self.scale))
        diff = cv2.subtract(logged, self.log, dst=logged)
        change = self.light_field(diff)
        judged = self.light_judged(diff, change)
        if change.ndim == 1:  # one gain for the whole board
            f = cv2.transform(diff, np.c_[_CHROMA, -_CHROMA @ change].astype(np.float32))
        else:
            f = chroma(cv2.subtract(diff, change, dst=diff))
        return f, self._texture(grey(rectified) if gray is None else gray), change, judged

    @cached_property
    def gray_levels(self) -> np.ndarray:
        """``gray`` as the uint8 grey levels it holds, for ``_texture``'s integer sums."""
        return self.gray.astype(np.uint8)

    def _texture(self, gray: np.ndarray) -> np.ndarray:
        """The local correlation of a frame's grey (uint8, ``grey``) with the empty board's.
        Its three box sums (the grey, its square, its product with the empty board's) are
        taken of whole numbers (``integer_box``: the same numbers as of their float copies).
        (Each later step writes over an array the steps before are done with: the same
        numbers as new arrays, which cost a third of the time.)"""
        window = texture_window(self.scale)
        mean = integer_box(gray, window)
        var = integer_box(gray, window, squared=True)
        var = cv2.subtract(var, cv2.multiply(mean, mean), dst=var)
        cross = integer_box(np.multiply(gray, self.gray_levels, dtype=np.uint16), window)
        cross = cv2.subtract(cross, cv2.multiply(mean, self.gray_mean, dst=mean), dst=cross)
        dev = cv2.multiply(cv2.sqrt(at_least(var, NOISE_VAR, out=var), dst=var), self.gray_dev, dst=var)
        return cv2.divide(cross, dev, dst=cross)


def lit_unevenly(field: np.ndarray) -> bool:
    """Whether the margin's light field (``Background.light_field``) says the light changed
    unevenly over the board (a lamp moved, dimmed or changed), not by one gain per channel: an
    even change (exposure, white balance) scales the cups and the wood alike, and the log ratio
    between them stays; an uneven one changes how each cup is shaded against the wood."""
    return field.ndim == 3


def median_rows(rows: np.ndarray) -> np.ndarray:
    """``np.median(rows, axis=1)`` to the bit (the mean of the middle two of an even count, in
    ``rows``' own dtype), partitioned in place: each median of the light field's fit took a
    third of its time sorting a copy with numpy's general median (as did the table's colour
    around the board, ``surround.Surround.arm_mm2``). Of an even count, the lower middle value is
    the largest below the upper one once that is in place: partitioned at both (``kth`` a
    pair) the same values came at six times the cost."""
    n = rows.shape[1]
    half = n // 2
    rows.partition(half, axis=1)
    if n % 2:
        return rows[:, half].copy()
    return (rows[:, :half].max(axis=1) + rows[:, half]) / 2


def band_fit(values: np.ndarray, basis: np.ndarray, basis_t: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """The light field's coefficients (``GAIN_TERMS``, 3) fitted to the band's ``values``
    (samples, 3) with the field's terms at each sample (``basis`` and its transpose): from one
    gain per channel, refitted ``GAIN_ROUNDS`` times on the samples within ``GAIN_TRIM`` robust
    spreads of the last fit (``Background.light_field``)."""
    coef = np.zeros((GAIN_TERMS, 3))
    coef[0] = gain  # the first round: one gain, as robust as can be
    for _ in range(GAIN_ROUNDS):
        resid, limit = _fit_residual(values, basis, coef)
        keep = resid <= limit
        if keep.sum() < 4 * GAIN_TERMS:
            break
        weighted = basis_t * keep  # the normal equations, 6 x 6: lstsq costs more
        coef = np.linalg.solve(weighted @ basis + RIDGE, weighted @ values)
    return coef


def _fit_residual(values: np.ndarray, basis: np.ndarray, coef: np.ndarray) -> tuple[np.ndarray, float]:
    """Each sample's residual from the field ``coef`` (summed over the channels, absolute) and
    the trim's limit on it: ``GAIN_TRIM`` robust spreads, at least ``GAIN_MIN_SPREAD``'s."""
    error = np.abs(values - basis @ coef)
    resid = error[:, 0] + error[:, 1] + error[:, 2]
    spread = float(median_rows(resid[None, :].copy())[0])
    return resid, GAIN_TRIM * max(1.4826 * spread, GAIN_MIN_SPREAD)


def lit_wood(log: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """Which of the empty board's band samples (their ``log``, (samples, 3), and the light
    field's ``terms`` there) show the wood lit, as the light falls smoothly over the board: all
    but those darker than the board's own field (``band_fit``) by more than its trim allows,
    the shade something beside the board threw on the margin when it was taken.

    A shade that was there and is gone reads as light come since. On the vision bench's
    bench-26 (a lamp low at one side) the reserve cups stood beside the board at calibration
    and threw three long shadows across one margin; once the big ones were played those strips
    read brighter, the cups on the board threw theirs over a third of the margin, and the field
    bent to a range of 0.50 in log: the light changed, where it had not, and the region cue was
    trusted less (docs/vision-findings.md, "The calibration's own shade out of the light field"). A lit
    margin's samples lie close to its own field (the 1st percentile 0.04 to 0.07 below, summed
    over the channels, on the seen scenes; 0.57 on the dim walnut of bench-19); shade lies 0.7
    to 3.9 below. All are kept when fewer than a field's worth would be left."""
    gain = median_rows(log.T.copy())
    basis_t = np.ascontiguousarray(terms.T)
    coef = band_fit(log, terms, basis_t, gain)
    error = log - terms @ coef
    _, limit = _fit_residual(log, terms, coef)
    lit = error.sum(axis=1) >= -limit
    return lit if lit.sum() >= 4 * GAIN_TERMS else np.ones(len(log), bool)


def _field_terms(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The light field's terms (1, x, y, x², xy, y²) at points in -1..1 across the view."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)


@cache
def table_grid() -> np.ndarray:
    """Every (m, q1, q2) point of the lookup tables, (N, 1, 3) float32, read-only.

    The same for every model: made once, where each model's tables took a quarter of their
    time making it again (a calibration learns two models)."""
    m = TABLE_M[0] + TABLE_M[2] * np.arange(TABLE_M[1])
    (q0, nq, dq), (outer, step) = TABLE_Q, TABLE_Q_OUTER
    beyond = step * np.arange(1, outer + 1)
    q = np.concatenate([q0 - beyond[::-1], q0 + dq * np.arange(nq), q0 + dq * (nq - 1) + beyond])
    grid = np.stack(np.meshgrid(m, q, q, indexing="ij"), axis=-1).astype(np.float32).reshape(-1, 1, 3)
    grid.setflags(write=False)
    return grid


@cache
def fine_grid_points() -> np.ndarray:
    """The points of ``table_grid`` on the colour axes' fine grid, in its order, (N, 1, 3)
    float32, read-only, followed by copies of its last point up to a whole ``FINE_BLOCK``."""
    shape = table_shape()
    points = table_grid().reshape(*shape, 3)[:, FINE_SPAN, FINE_SPAN].reshape(-1, 1, 3)
    spare = -len(points) % FINE_BLOCK
    out = np.concatenate([points, np.repeat(points[-1:], spare, axis=0)])
    out.setflags(write=False)
    return out


FINE_BLOCK = 64
"""``fine_grid_points`` holds a whole number of blocks of this many points: ``cv2.transform``
works out the last few points of an array (fewer than its vector's width) on their own, which
rounds differently. Padded, each point on the fine grid is worked out in a vector as it is
over the whole grid (whose own last points lie outside the fine grid)."""


def _on_fine_grid(colour: Gaussian) -> np.ndarray:
    """``colour``'s log density over the tables' fine grid, as the view ``[:, FINE_SPAN, FINE_SPAN]`` of
    the whole grid's (84 x 129 x 129 x 1, the rest never written): the same numbers at the same
    places, for 57 % of the work. (Cup versus board reads these views as before: numpy's
    loops then run over the same rows, and round as they did.)"""
    shape = table_shape()
    out = np.empty((*shape, 1), np.float32)
    points = fine_grid_points()
    n = shape[0] * TABLE_Q[1] * TABLE_Q[1]
    out[:, FINE_SPAN, FINE_SPAN] = colour.log_density(points)[:n].reshape(shape[0], TABLE_Q[1], TABLE_Q[1], 1)
    return out[:, FINE_SPAN, FINE_SPAN]


def table_shape() -> tuple[int, int, int]:
    """The lookup tables' grid: brightness steps by colour steps by colour steps."""
    q = TABLE_Q[1] + 2 * TABLE_Q_OUTER[0]
    return TABLE_M[1], q, q


_INDEX_MATRIX = np.array(
    [
        [1 / TABLE_M[2], 0, 0, -TABLE_M[0] / TABLE_M[2]],
        [0, 1 / TABLE_Q[2], 0, TABLE_Q_OUTER[0] - TABLE_Q[0] / TABLE_Q[2]],
        [0, 0, 1 / TABLE_Q[2], TABLE_Q_OUTER[0] - TABLE_Q[0] / TABLE_Q[2]],
    ],
    np.float32,
)
"""``table_index``'s first step: features to steps of the grids, the fine one's first point at
``TABLE_Q_OUTER[0]`` on the colour axes."""


_FINE_Q = np.clip(np.arange(table_shape()[1]), TABLE_Q_OUTER[0], TABLE_Q_OUTER[0] + TABLE_Q[1] - 1)
"""Each colour step's nearest step on the fine grid."""


def table_index(f: np.ndarray) -> np.ndarray:
    """Flat index of each pixel's nearest (m, q1, q2) grid point in the lookup tables: on the
    colour axes, in steps of the fine grid within it and of the outer one beyond it.

    Three of these a read: each step after the first works in place (the same numbers), as a
    new array for each step cost a quarter of the index's time."""
    (_, nm, _), (_, nq, dq), (outer, step) = TABLE_M, TABLE_Q, TABLE_Q_OUTER
    u = cv2.transform(f, _INDEX_MATRIX)
    top = outer + nq - 1.0
    fine = at_least(u, (-np.inf, outer, outer, 0.0))
    at_most(fine, (np.inf, top, top, 0.0), out=fine)
    u = cv2.addWeighted(
        u, dq / step, fine, 1.0 - dq / step, 0.0, dst=fine
    )  # beyond the fine grid: outer steps
    last = outer * 2 + nq - 1.0
    u = at_most(at_least(np.rint(u, out=u), 0.0, out=u), (nm - 1.0, last, last, 0.0), out=u)
    flat = cv2.transform(u, np.array([[(last + 1) ** 2, last + 1, 1]], np.float32))
    return flat.astype(np.intp)  # numpy's own index type: ``take`` would convert int32 each time


def look_up(table: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``table``'s values at ``index`` (``table_index``'s), the index's shape.

    Every index ``table_index`` gives lies in the table (it clamps each step to its grid), so
    ``take`` may wrap indices rather than check them (``mode="wrap"`` changes none that lie
    inside): the same values, without the bounds check its default makes of each pixel, which
    took a third of the lookup (a 310 x 310 index: 70 µs where checked it took 114)."""
    return table.take(index, mode="wrap")


def on_view(values: np.ndarray, part: tuple[slice, slice], shape: tuple[int, ...]) -> np.ndarray:
    """``values`` (a map of ``part`` of a view, float32) on the whole view of ``shape``, 0
    elsewhere: one pass (``copyMakeBorder``) where a map of zeros and a copy into it took
    two."""
    (top, bottom, _), (left, right, _) = (s.indices(n) for s, n in zip(part, shape[:2], strict=True))
    return cv2.copyMakeBorder(
        values, top, shape[0] - bottom, left, shape[1] - right, cv2.BORDER_CONSTANT, value=0.0
    )


def odd_window(pixels: float) -> int:
    """The odd window size (pixels) nearest ``pixels``, at least 1: OpenCV's filters centre on
    odd windows."""
    return round(pixels) // 2 * 2 + 1


def texture_window(scale: float) -> int:
    """Odd window of about ``TEXTURE_MM`` for the texture correlation."""
    return odd_window(TEXTURE_MM * scale)


def texture_bin(ncc: np.ndarray) -> np.ndarray:
    """Bin 0..TEXTURE_BINS-1 of each correlation in -1..1 (uint8)."""
    half = TEXTURE_BINS / 2
    bins = cv2.convertScaleAbs(at_least(ncc, -1.0), alpha=half, beta=half - 0.5)
    return at_most(bins, TEXTURE_BINS - 1, out=bins)


@dataclass(frozen=True)
class Gaussian:
    """A 3-D normal density over (m, q1, q2)."""

    mean: np.ndarray
    cov: np.ndarray

    @cached_property
    def _whitening(self) -> np.ndarray:
        """The affine map (3x4) taking a feature to its offset from the mean in spreads."""
        chol = np.linalg.cholesky(np.linalg.inv(self.cov))  # inv(cov) = chol @ chol.T
        w = chol.T
        return np.c_[w, -w @ self.mean].astype(np.float32)

    def distance2(self, f: np.ndarray) -> np.ndarray:
        """Squared Mahalanobis distance of each (m, q1, q2) of ``f`` (..., 3) from the mean."""
        z = cv2.transform(f, self._whitening)
        return cv2.transform(cv2.multiply(z, z), np.ones((1, 3), np.float32))

    def log_density(self, f: np.ndarray) -> np.ndarray:
        const = -0.5 * np.log(np.linalg.det(self.cov)) - 1.5 * np.log(2 * np.pi)
        return self.distance2(f) * np.float32(-0.5) + np.float32(const)

    @classmethod
    def fit(cls, samples: np.ndarray, floor: tuple[float, float, float]) -> Gaussian:
        if len(samples) < 20:
            raise CompanionError("too few cup pixels to learn a colour; is the reference layout right?")
        x = samples.astype(np.float64)
        cov = np.cov(x.T) + np.diag(np.square(floor))
        mean = x.mean(axis=0)
        return cls(mean, cov)

    def to_json(self) -> dict[str, object]:
        return {"mean": self.mean.tolist(), "cov": self.cov.tolist()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Gaussian:
        mean = np.array(data["mean"], dtype=np.float64)
        cov = np.array(data["cov"], dtype=np.float64)
        if mean.shape != (3,) or cov.shape != (3, 3) or np.any(np.linalg.eigvalsh(cov) <= 0):
            raise CompanionError("calibration file: a colour model is malformed")
        return cls(mean, cov)


@dataclass(frozen=True, eq=False)
class PixelModel:
    """Board (with shadows) versus light and dark cups, over (m, q1, q2) features. ``light`` is
    White's cups' model and ``dark`` Black's, whichever set is the lighter
    (``Calibration.lighter``): the names are those of the sets most players have."""

    shadow_tint: np.ndarray  # (2,) colour shift per unit of log darkening
    chroma_sigma: float  # spread of the board's colour ratio (noise, JPEG)
    dark_limit: float  # darkest log ratio still taken for board in shadow
    bright_limit: float  # brightest log ratio still taken for board
    light: Gaussian
    dark: Gaussian
    texture: np.ndarray  # (TEXTURE_BINS,) log-odds cup-vs-board by texture correlation
    levelled: tuple[Gaussian, Gaussian] | None = None
    """The light and the dark cups' Gaussians over levelled features (``Background.level``
    added: each pixel's log ratio to the grid's mean colour rather than to the board behind
    it), which the colour vote alone uses; None (files from before it, no reference frame):
    the vote uses ``light`` and ``dark``. A glossy board's sheen brightens the wood and not
    the cups, so a cup's ratio to the wood behind it falls where the sheen lies: on the
    bench's bench-28 (glossy cups on walnut) the empty board is 0.43 brighter (log) on a4 than
    on d1, and a white 4 on a4 was 0.45 darker, its shaded side at the black cups' mean; it
    read as a black 4 (0.86). Levelled, every colour decision of the seen scenes but those
    under a lamp moved since calibration was right (bench-28's three wrong cups right, and 25
    within 2 logits before the reader's softening down to 12, on the matches of the time)."""
    left_out: tuple[bool, bool] = (False, False)
    """The light and the dark cups' colours the cup-versus-board vote leaves out (``for_occlusion``):
    the occlusion test's own model on a board whose cups have the wood's colour (``wood_like``).
    Not saved: worked out from the models whenever the test is built."""

    @property
    def colours(self) -> tuple[Gaussian, Gaussian]:
        """The Gaussians the colour vote uses: the levelled ones, else the plain ones."""
        return self.levelled if self.levelled is not None else (self.light, self.dark)

    @classmethod
    def default(cls, white_darker: bool = False) -> PixelModel:
        """Without a reference layout: White's cups are brighter than Black's, or with
        ``white_darker`` the darker, and that is all."""
        spread = np.diag(np.square([0.35, 0.1, 0.1]))
        brighter, darker = (
            Gaussian(np.array([0.1, 0.0, 0.0]), spread),
            Gaussian(np.array([-0.9, 0.0, 0.0]), spread),
        )
        return cls(
            shadow_tint=np.zeros(2),
            chroma_sigma=0.02,
            dark_limit=float(np.log(0.5)),
            bright_limit=float(np.log(1.2)),
            light=darker if white_darker else brighter,
            dark=brighter if white_darker else darker,
            texture=np.array(DEFAULT_TEXTURE),
        )

    def kept_in(self, kept: Kept[bytes, PixelModel]) -> PixelModel:
        """The model ``kept`` holds with this one's values (``values``), with the lookup tables
        it made, else this one, kept from now on.

        The occlusion test judges with a model of its own, the one in use with each colour
        learned nearer the wood back at the calibration's (``no_nearer_wood``): a new model at
        each ``BoardReader.adopt``, which made its tables again at every learning step, though
        its colours were those of the step before."""
        return kept.get(self.values(), lambda: self)

    def values(self) -> bytes:
        """Every value of the model, as bytes: two models with the same values read alike, and
        one may stand for the other with the tables it made (``kept_in``)."""
        colours = (self.light, self.dark, *(self.levelled or ()))
        numbers = [
            [self.chroma_sigma, self.dark_limit, self.bright_limit, self.levelled is None, *self.left_out],
            self.shadow_tint,
            self.texture,
            *(part for colour in colours for part in (colour.mean, colour.cov)),
        ]
        return b"".join(np.asarray(n, np.float64).tobytes() for n in numbers)

    def wood_likeness(self) -> tuple[float, float]:
        """How near the light and the dark cups' colours lie to the wood's own look: their
        Gaussians' log density at the unchanged wood (features 0) less the board's there."""
        origin = np.zeros((1, 1, 3), np.float32)
        board = float(self.board_log_density(origin)[0, 0])
        light, dark = (float(g.log_density(origin)[0, 0]) - board for g in (self.light, self.dark))
        return light, dark

    def wood_like(self) -> tuple[bool, bool]:
        """Whether the light and the dark cups' colours have the wood's own look (``WOOD_LIKE``),
        measured on this model (the reader's models in use, learned or not): their Gaussians'
        density at the unchanged wood against the board's. Always false for the default models."""
        light, dark = (likeness > WOOD_LIKE for likeness in self.wood_likeness())
        return light, dark

    def no_nearer_wood(self, calibrated: PixelModel) -> PixelModel:
        """This model with each cup colour that lies nearer the wood's own look than the
        ``calibrated`` model's (``wood_likeness``) back at the calibration's: the occlusion
        test's colours.

        Learning moves a cup colour toward its cups as this light shows them; the occlusion
        test judges only what no cup found explains, where a colour nearer the wood's look says
        "cup" of more of the wood. On the vision bench's bench-38 the pale cups, learned under
        a warm lamp added at 11b, came 3.85 -> 3.18 (log) of the board's density at the wood
        (their brightness -0.64 -> -0.42 against the board), and the margin where the reserve
        stacks' shade lay read as an arm on 15b-17b (208, 272 and 300 mm² over the 150); with
        the calibration's pale colour, 84, 128 and 72. A colour learned away from the wood keeps
        what it learned."""
        now, then = self.wood_likeness(), calibrated.wood_likeness()
        light = calibrated.light if now[0] > then[0] else self.light
        dark = calibrated.dark if now[1] > then[1] else self.dark
        if light is self.light and dark is self.dark:
            return self
        return dataclasses.replace(self, light=light, dark=dark)

    def for_occlusion(self, wood_like: tuple[bool, bool] | None = None) -> PixelModel:
        """The model the occlusion test judges "board or not" with: this one, less the colours
        that have the wood's look (``wood_like``). Where a cup's colour is the wood's, its
        likeness says nothing about whether a pixel is still the board: on the vision bench's
        bench-37 the unchanged wood scored -1.32 cup-versus-board (other boards -2.9 to -3.9)
        and the margin's noise read as 420-896 mm² of an arm on every hand-free board. Left out,
        what is not board must depart from the board's own look (its colour along the shadow
        line, its brightness within the limits, its texture) or look like the other colour or
        like nothing learned; a hand of the cups' colour is left to the cues the colour does not
        decide (the marks hidden, the markers' labels, ``surround.Surround``'s ``bright``).
        ``wood_like``: this model's ``wood_like()`` where the caller has worked it out (the
        reader, for its own uses): worked out here otherwise."""
        left_out = self.wood_like() if wood_like is None else wood_like
        return self if not any(left_out) else dataclasses.replace(self, left_out=left_out)

    def wood_look(self, f: np.ndarray) -> np.ndarray:
        """Which of the features ``f`` (..., 3) have the wood's own look (bool): within
        ``WOOD_LOOK_M`` of the empty board's brightness and ``WOOD_LOOK_SPREADS`` of its colour
        spreads from the shadow line."""
        m = f[..., 0]
        shade = np.minimum(m, 0.0)
        r1 = f[..., 1] - shade * np.float32(self.shadow_tint[0])
        r2 = f[..., 2] - shade * np.float32(self.shadow_tint[1])
        near = np.float32((WOOD_LOOK_SPREADS * self.chroma_sigma) ** 2)
        return (np.abs(m) <= WOOD_LOOK_M) & (r1 * r1 + r2 * r2 <= near)

    def as_wood(self, fg: np.ndarray, f: np.ndarray, ncc: np.ndarray) -> np.ndarray:
        """``fg`` (this model's cup-versus-board evidence at the features ``f`` and the texture
        ``ncc``) no more "cup" than the unchanged wood's where ``f`` has the wood's own look
        (``wood_look``): its colour's part taken as at features 0, its texture's as it is."""
        origin = np.zeros((1, 1, 3), np.float32)
        wood = np.float32(self.colour_log_odds(origin)[0][0, 0])
        floor = np.clip(cv2.LUT(texture_bin(ncc), self.texture_lut) + wood, -CLIP_FG, CLIP_FG)
        return np.where(self.wood_look(f), np.minimum(fg, floor), fg).astype(np.float32)

    def board_log_density(self, f: np.ndarray) -> np.ndarray:
        """Heavy-tailed around "unchanged or shadowed": flat in brightness between the limits."""
        m = f[..., 0]
        over = m - np.clip(m, self.dark_limit, self.bright_limit)
        shade = np.minimum(m, 0.0)
        r1 = f[..., 1] - shade * np.float32(self.shadow_tint[0])
        r2 = f[..., 2] - shade * np.float32(self.shadow_tint[1])
        d2 = (r1 * r1 + r2 * r2) * np.float32(1.0 / (STUDENT_NU * self.chroma_sigma**2))
        # a 2-D Student t with nu = 4 normalises like a 2-D normal: 1 / (2 pi sigma^2)
        width = self.bright_limit - self.dark_limit + np.sqrt(2 * np.pi) * BRIGHT_SIGMA
        const = -np.log(2 * np.pi * self.chroma_sigma**2) - np.log(width)
        return (
            over * over * np.float32(-0.5 / BRIGHT_SIGMA**2)
            - np.float32((STUDENT_NU + 2) / 2) * np.log1p(d2)
            + np.float32(const)
        )

    def colour_log_odds(self, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Exact (cup versus board by colour alone, light versus dark) log-odds; slow. The
        colour vote here is the plain models' (features not levelled)."""
        light = self.light.log_density(f)
        dark = self.dark.log_density(f)
        return self._cup_versus_board(light, dark, f), light - dark

    def _cup_versus_board(self, light: np.ndarray, dark: np.ndarray, f: np.ndarray) -> np.ndarray:
        """Cup (either colour not ``left_out``, or anything else) versus board log-odds, from
        the two colours' log densities at ``f``."""
        share = np.float32(np.log((1 - OUTLIER_SHARE) / 2))
        anything = np.float32(np.log(OUTLIER_SHARE * OUTLIER_DENSITY))
        kept = [density for density, out in zip((light, dark), self.left_out, strict=True) if not out]
        if not kept:
            cup = np.full_like(light, anything)
        else:
            cup = np.logaddexp((np.logaddexp(*kept) if len(kept) == 2 else kept[0]) + share, anything)
        return cup - self.board_log_density(f)

    @cached_property
    def _tables(self) -> tuple[np.ndarray, np.ndarray]:
        """The colour log-odds tabulated over a grid of (m, q1, q2): a lookup per pixel is
        several times faster than evaluating four densities. Cup versus board
        (``_cup_table``) and the colour vote, light versus dark."""
        grid = table_grid()
        if self.levelled is not None:
            light, dark = (g.log_density(grid) for g in self.levelled)
            return self._cup_table, _colour_vote(light, dark)
        light, dark = (g.log_density(grid) for g in (self.light, self.dark))
        on_fine = [a.reshape(*table_shape(), -1)[:, FINE_SPAN, FINE_SPAN] for a in (light, dark)]
        return self._stretched_cup_table(on_fine[0], on_fine[1]), _colour_vote(light, dark)

    @cached_property
    def _cup_table(self) -> np.ndarray:
        """Cup versus board by colour alone, tabulated (``_tables``' first): made on its own
        where the colour vote has Gaussians of its own (``levelled``), the plain colours then
        serving it alone, on the fine grid. The occlusion test looks up nothing else
        (``colour_fg``), and its model, whose colours learning may have moved, made the vote's
        table too, for nothing."""
        if self.levelled is None:
            return self._tables[0]  # the plain colours' densities serve both tables: made once
        return self._stretched_cup_table(_on_fine_grid(self.light), _on_fine_grid(self.dark))

    def _stretched_cup_table(self, light: np.ndarray, dark: np.ndarray) -> np.ndarray:
        """Cup versus board from the colours' log densities on the fine grid (its view of the
        whole grid's, (m, q, q, 1)), worked out there and stretched to the rest
        (``TABLE_Q_OUTER``), clipped wider than its sum with the texture."""
        grid_fine = table_grid().reshape(*table_shape(), -1)[:, FINE_SPAN, FINE_SPAN]
        fg = self._cup_versus_board(light[..., 0], dark[..., 0], grid_fine)
        stretch = _FINE_Q - FINE_SPAN.start
        fg = fg[:, stretch][:, :, stretch]  # beyond the fine grid: its edge's
        wide = CLIP_FG - TEXTURE_CLIP[0]
        return np.clip(fg.ravel(), -wide, wide).astype(np.float32)

    @cached_property
    def _lamp_colour_table(self) -> np.ndarray:
        """The colour vote's table under a lamp moved since the board in use: both colours'
        brightness spread widened to at least ``LAMP_BRIGHTNESS_SPREAD`` (``under_a_moved_lamp``)."""
        light, dark = (under_a_moved_lamp(g).log_density(table_grid()) for g in self.colours)
        return _colour_vote(light, dark)

    def colour_fg(self, f: np.ndarray) -> np.ndarray:
        """Cup-versus-board log-odds by colour alone, looked up (clipped wider than the sum)."""
        return look_up(self._cup_table, table_index(f))

    def log_odds(
        self,
        f: np.ndarray,
        ncc: np.ndarray,
        level: np.ndarray | None = None,
        within: tuple[slice, slice] | None = None,
        lamp_moved: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(cup versus board, light versus dark) log-odds per pixel, clipped for robustness.

        Colour and texture evidence are added as if independent (naive Bayes). The colour vote
        takes the features levelled by ``level`` (``Background.level`` over ``f``'s pixels)
        when the model has ``levelled`` Gaussians (without ``level`` it is not to be used),
        and then only ``within`` that part of the view (``TemplateBank.reach``: all the matcher
        reads), 0 elsewhere: a second table index over the whole view cost 5-7 % of a read.
        ``lamp_moved`` (the frame lit unevenly since the board in use, ``lit_unevenly``): the
        colour vote widens each colour's brightness spread to ``LAMP_BRIGHTNESS_SPREAD``.
        """
        fg_table, colour_table = self._tables
        index = table_index(f)
        if lamp_moved:
            colour_table = self._lamp_colour_table
        fg = look_up(fg_table, index)
        fg = cv2.add(fg, cv2.LUT(texture_bin(ncc), self.texture_lut), dst=fg)
        fg = at_most(at_least(fg, -CLIP_FG, out=fg), CLIP_FG, out=fg)
        if self.levelled is None or level is None:
            return fg, look_up(colour_table, index)
        part = within or (slice(None), slice(None))
        colour = look_up(colour_table, table_index(cv2.add(f[part], level[part])))
        return fg, on_view(colour, part, fg.shape)

    @cached_property
    def texture_lut(self) -> np.ndarray:
        """``texture`` as a ``cv2.LUT`` table by texture bin (``texture_bin``), 0 beyond."""
        lut = np.zeros((256, 1), np.float32)
        lut[:TEXTURE_BINS, 0] = self.texture
        return lut

    @classmethod
    def learn(
        cls,
        f: np.ndarray,
        ncc: np.ndarray,
        light: np.ndarray,
        dark: np.ndarray,
        board: np.ndarray,
        texture_top: float = TEXTURE_CLIP[1],
        level: np.ndarray | None = None,
    ) -> PixelModel:
        """Fit to a reference frame: masks of sure light-cup, dark-cup and board pixels.

        ``texture_top`` caps the texture's "cup" log-odds (``PALE_TEXTURE_TOP`` for cups the
        colour cannot tell from the board); ``level`` (``Background.level``) gives the colour
        vote its ``levelled`` Gaussians."""
        base = cls.default()
        b = f[board].astype(np.float64)
        shaded = b[:, 0] < -0.05
        tint = np.zeros(2)
        if shaded.sum() > 50:
            tint = (b[shaded, 1:] * b[shaded, :1]).sum(0) / (b[shaded, 0] ** 2).sum()
            tint = np.clip(tint, -0.3, 0.3)
        resid = b[:, 1:] - np.minimum(b[:, :1], 0.0) * tint
        sigma = float(np.sqrt(np.median((resid**2).sum(1)) / np.log(4.0)))
        return cls(
            shadow_tint=tint,
            chroma_sigma=float(np.clip(sigma, 0.012, 0.05)),
            dark_limit=float(np.clip(np.percentile(b[:, 0], 0.5) - 0.1, np.log(0.25), base.dark_limit)),
            bright_limit=base.bright_limit,
            light=Gaussian.fit(f[light], MIN_CUP_SIGMA),
            dark=Gaussian.fit(f[dark], MIN_CUP_SIGMA),
            texture=_texture_table(ncc[light | dark], ncc[board], texture_top),
            levelled=None if level is None else levelled_pair(f + level, light, dark),
        )

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "shadow_tint": self.shadow_tint.tolist(),
            "chroma_sigma": self.chroma_sigma,
            "dark_limit": self.dark_limit,
            "bright_limit": self.bright_limit,
            "light": self.light.to_json(),
            "dark": self.dark.to_json(),
            "texture": self.texture.tolist(),
        }
        if self.levelled is not None:
            data["levelled"] = {"light": self.levelled[0].to_json(), "dark": self.levelled[1].to_json()}
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PixelModel:
        tint = np.array(data["shadow_tint"], dtype=np.float64)
        texture = np.array(data["texture"], dtype=np.float64)
        if tint.shape != (2,) or texture.shape != (TEXTURE_BINS,):
            raise CompanionError("calibration file: the pixel model is malformed")
        return cls(
            shadow_tint=tint,
            chroma_sigma=float(data["chroma_sigma"]),
            dark_limit=float(data["dark_limit"]),
            bright_limit=float(data["bright_limit"]),
            light=Gaussian.from_json(data["light"]),
            dark=Gaussian.from_json(data["dark"]),
            texture=texture,
            levelled=None if "levelled" not in data else _levelled_from_json(data["levelled"]),
        )


MODELS_KEPT = 2
"""How many pixel models a reader keeps by their values (``PixelModel.kept_in``): the occlusion
test's model in use and one more, for a reader that tries models learned less and goes back
(``learning.ObserverLearning._covered_for_good``: the calibration's model, then the learned one
again). Each model's tables take 5.6 MB apiece (a table's 84 x 129 x 129 grid of float32)."""


def _colour_vote(light: np.ndarray, dark: np.ndarray) -> np.ndarray:
    """The colour vote's table from the light and the dark cups' log densities over the grid
    (``table_grid``): light versus dark, clipped to ``CLIP_COLOUR``."""
    return np.clip((light - dark).ravel(), -CLIP_COLOUR, CLIP_COLOUR).astype(np.float32)


def under_a_moved_lamp(colour: Gaussian) -> Gaussian:
    """``colour`` with its brightness spread widened to at least ``LAMP_BRIGHTNESS_SPREAD``."""
    extra = max(LAMP_BRIGHTNESS_SPREAD**2 - float(colour.cov[0, 0]), 0.0)
    return Gaussian(colour.mean, colour.cov + np.diag([extra, 0.0, 0.0]))


def levelled_pair(levelled: np.ndarray, light: np.ndarray, dark: np.ndarray) -> tuple[Gaussian, Gaussian]:
    """The light and the dark cups' Gaussians over ``levelled`` features (masks of sure pixels)."""
    return Gaussian.fit(levelled[light], MIN_CUP_SIGMA), Gaussian.fit(levelled[dark], MIN_CUP_SIGMA)


def _levelled_from_json(data: Any) -> tuple[Gaussian, Gaussian]:
    if not isinstance(data, dict):
        raise CompanionError("calibration file: the levelled colour models are malformed")
    return Gaussian.from_json(data["light"]), Gaussian.from_json(data["dark"])


def _texture_table(cup: np.ndarray, board: np.ndarray, top: float) -> np.ndarray:
    """Log-odds per texture bin from cup and board samples (add-one smoothed, clipped to
    ``TEXTURE_CLIP``'s floor and ``top``)."""
    hc = np.bincount(texture_bin(cup).ravel(), minlength=TEXTURE_BINS) + 1.0
    hb = np.bincount(texture_bin(board).ravel(), minlength=TEXTURE_BINS) + 1.0
    return np.clip(np.log(hc / hc.sum()) - np.log(hb / hb.sum()), TEXTURE_CLIP[0], top)
