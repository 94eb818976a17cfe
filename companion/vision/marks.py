"""The board's own marks a hand hides: a cue that does not need the hand's colour.

The occlusion test's other cues ask whether a pixel's colour is the wood's. A pale fist over
a pale board (skin close to birch or maple) passes that test: on the vision bench's bench-11
two fists over the board left almost no "not board" evidence. What such a hand cannot do is
show the board's marks through itself: the grid lines, the markers' edges and the stronger
grain the empty board showed at calibration vanish under it, while under a shadow, a dimmer or
re-tinted lamp, or an exposure change they stay (the marks are taken in log brightness, where
light multiplies and so cancels out of a mark's contrast).

So each frame's local contrast, in log brightness with the smooth light taken out, is compared
with the empty board's over the pixels near the board's marks: where the empty board's marks
were clear and the frame's contrast there is less than ``FADED`` of theirs over a ``WINDOW_MM``
patch, and no cup found explains the patch, the marks are hidden. The contrast is compared as
energy, not pixel by pixel, so a picture off by a pixel or two (a board nudged by less than the
reader relocates for) still shows its marks.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.pixels import odd_window
from companion.vision.scalars import compare_with

Box = tuple[int, int, int, int]
"""(top, bottom, left, right) pixels of a rectangle on a view."""

BLUR_MM = 1.2
"""The marks are compared after a blur of about this (Gaussian sigma): the grain's finest
detail and the sensor noise go, the grid lines and the markers' edges stay."""
LOCAL_MM = 7.0
"""Contrast is each pixel's log brightness less its mean over about this: the smooth part of
the light (a shadow's inside, a lamp's fall-off) goes."""
LOG_FLOOR = 4.0
"""Grey levels added before the log, so dark pixels' noise does not read as marks."""
MARK_CONTRAST = 0.06
"""A pixel of the empty board whose contrast exceeds this (log) is a mark: a grid line, a
marker edge, strong grain. About 17 % of a board's pixels on the bench and frames-dev."""
NEAR_MM = 3.0
"""Contrast is compared over pixels within about this of a mark, so a mark moved by a pixel
or two is still counted where it now lies."""
WINDOW_MM = 10.0
MIN_MARKS = 0.3
"""A patch of about ``WINDOW_MM`` is judged only where the empty board's mark energy over it
(squared log contrast times mm²) exceeds this: a few mm of grid line, not plain wood."""
SHADE_MM = 4.0
SHADE_LOG = 0.35
LIT_MM = 40.0
"""Where the empty board lay in a shadow (its log brightness, smoothed over about ``SHADE_MM``,
more than ``SHADE_LOG`` below the brightest within about ``LIT_MM`` around it), the shadow's
edges are no mark of the board: a frame whose light has moved them would read as hiding them
(on the stress set, the shadows of the cups stood beside the board at calibration). Marks
within ``LOCAL_MM`` of such shade are not used. The light's smooth fall-off across the board
(a low lamp on one side) is no shadow: it stays within ``SHADE_LOG`` of the brightest nearby."""
FADED = 0.4
"""Marks are hidden where the frame's contrast energy over a patch is below this squared times
the empty board's: the contrast amplitude lost by more than half."""
OWN_FADE = 1.0
"""When marks would be hidden over more than ``HIDDEN_MM2``, they are judged again against the
board's own fade: the median patch's energy ratio (now over the empty board's), when under this,
scales the empty board's energy before ``FADED`` is applied (``_hidden_mm2``)."""
HIDDEN_MM2 = 200.0
"""A connected patch of hidden marks larger than this (mm²) means a hand, whatever its colour.
The hands the colour tests miss hid 1,246 mm² (bench-11's pale fist) and 1,527 and 1,840 mm²
(two of the stress set's lone fists); no hand-free frame of the committed bench, frames-dev
or the stress set's first 60 set-ups hid more than 83 mm² (shadows, light changed after
calibration, 1280x960 views)."""
LABEL_SHIFT_PX = 1
"""A marker's label is compared at shifts of up to this many pixels of the marks' view (about
a millimetre) each way: a board nudged by less than the reader relocates for still shows it."""
LABEL_ALIKE = 0.9
"""A marker's label whose pattern correlates below this with the empty board's (log contrast,
``labels_alike``) is partly covered: a hand at the board's corner. Hand-free frames keep 0.99
or more on the rendered bench and frames-dev, shadows of cups across a label included, and 0.97
or more on the stress set (light changed since calibration); a sleeve over nearly half of one
label (the bench's bench-17, 11a-hand) gives 0.72 while the marker's own picture still
correlates 0.77 with the calibration's (found), and the stress set's dark fist over the board's
corner beside a marker (stress-25, frame 11), which every other cue missed, 0.75."""
MIN_LABEL_SHARE = 0.5
"""A label judged must have at least this share of its pixels uncovered by cups found (a tall
cup on a corner square leans over it in the picture)."""
PIXELS_PER_MM = 1.0
"""The marks are compared on a view of about a pixel per mm at least (a finer view is shrunk
by a whole factor): the blur takes finer detail out anyway."""


def _faded(now: np.ndarray, before: np.ndarray, judged: np.ndarray, fade: float = 1.0) -> np.ndarray:
    """uint8 mask (255) of the patches ``judged`` whose energy ``now`` is below ``FADED`` squared
    times ``before``, that times ``fade`` (``HiddenMarks._energies``; none of them changed)."""
    faded = cv2.compare(now, np.multiply(before, np.float32(FADED**2 * fade)), cv2.CMP_LT)
    return cv2.bitwise_and(judged, faded, dst=faded)


def _median_fade(now: np.ndarray, before: np.ndarray, judged: np.ndarray) -> float:
    """The median over the patches ``judged`` of their energy ``now`` over ``before`` (1.0 when
    none is judged): ``HiddenMarks.own_fade``."""
    inside = judged > 0
    if not inside.any():
        return 1.0
    return float(np.median(now[inside] / before[inside]))


def shade(gray: np.ndarray, scale: float) -> np.ndarray:
    """uint8 mask (255) of where a picture of the board (``gray``: grey levels on the board
    plane, ``scale`` pixels per mm) lies in a shadow: its log brightness, smoothed over about
    ``SHADE_MM``, more than ``SHADE_LOG`` below the brightest within about ``LIT_MM`` around it
    (a lamp's smooth fall-off across the board is no shadow)."""
    level = cv2.log(gray.astype(np.float32) + np.float32(LOG_FLOOR))
    level = cv2.GaussianBlur(level, (0, 0), SHADE_MM * scale)
    reach = odd_window(LIT_MM * scale)
    lit = cv2.GaussianBlur(cv2.dilate(level, np.ones((reach, reach), np.uint8)), (0, 0), reach / 4)
    return cv2.compare(level, lit - np.float32(SHADE_LOG), cv2.CMP_LT)


class HiddenMarks:
    """Per calibration: the empty board's marks and their contrast energy."""

    def __init__(self, background_gray: np.ndarray, scale: float, labels: tuple[Box, ...] = ()) -> None:
        """``labels``: the markers' labels (black square and quiet zone) on the board-plane
        view, (top, bottom, left, right) pixels, for ``labels_alike``; none without markers."""
        self.step = max(1, int(scale / PIXELS_PER_MM))
        self.scale = scale / self.step
        background_gray = self._shrunk(background_gray)
        self.blur = BLUR_MM * self.scale
        self.local = odd_window(LOCAL_MM * self.scale)
        self.window = odd_window(WINDOW_MM * self.scale)
        contrast = self.contrast(background_gray)
        marks = compare_with(np.abs(contrast), MARK_CONTRAST, cv2.CMP_GT)
        marks = cv2.bitwise_and(marks, cv2.bitwise_not(self._shade(background_gray)))
        near = cv2.dilate(marks, np.ones((odd_window(NEAR_MM * self.scale),) * 2, np.uint8))
        self.near = (near > 0).astype(np.float32)
        self.energy = cv2.multiply(cv2.multiply(contrast, contrast), self.near)
        self.labels = tuple(self._inside(box, contrast.shape) for box in labels)
        self.label_patterns = tuple(contrast[y0:y1, x0:x1].copy() for y0, y1, x0, x1 in self.labels)

    def _shade(self, gray: np.ndarray) -> np.ndarray:
        """uint8 mask (255) of the empty board's shade at calibration, grown by ``LOCAL_MM``."""
        return cv2.dilate(shade(gray, self.scale), np.ones((self.local, self.local), np.uint8))

    def contrast(self, gray: np.ndarray) -> np.ndarray:
        """Log brightness, blurred, less its local mean (float32)."""
        smooth = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), self.blur)
        level = cv2.log(np.add(smooth, np.float32(LOG_FLOOR), out=smooth), dst=smooth)
        return cv2.subtract(level, cv2.blur(level, (self.local, self.local)), dst=level)

    def _inside(self, box: Box, shape: tuple[int, ...]) -> Box:
        """A label's box on the shrunk view, pulled in by ``LABEL_SHIFT_PX`` on each side so
        that every shift tried stays on the view."""
        y0, y1, x0, x1 = (round(v / self.step) for v in box)
        k = LABEL_SHIFT_PX
        return max(y0, k), min(y1, shape[0] - k), max(x0, k), min(x1, shape[1] - k)

    def hidden(self, gray: np.ndarray, free: np.ndarray) -> np.ndarray:
        """uint8 mask (255) of the view (shrunk by ``step``) where the board's marks are hidden
        and no cup found explains it. ``gray``: the frame on the board plane; ``free``: uint8,
        255 where no cup found covers the pixel."""
        return self._hidden(self.contrast(self._shrunk(gray)), self._free(free))

    def _free(self, free: np.ndarray) -> np.ndarray:
        return compare_with(self._shrunk(free), 255, cv2.CMP_EQ)

    def _hidden(self, contrast: np.ndarray, free: np.ndarray) -> np.ndarray:
        """uint8 mask (255) of the patches judged whose contrast energy is below ``FADED``
        squared times the empty board's."""
        return _faded(*self._energies(contrast, free))

    def _energies(self, contrast: np.ndarray, free: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The contrast energy over each ``WINDOW_MM`` patch of the marks no cup found covers,
        now and on the empty board, and where a patch is judged (uint8, 255)."""
        open_ = cv2.multiply(self.near, free, scale=1.0 / 255, dtype=cv2.CV_32F)
        now = cv2.multiply(contrast, contrast)
        now = cv2.multiply(now, open_, dst=now)
        before = cv2.multiply(self.energy, open_, dst=open_)
        size = (self.window, self.window)
        now = cv2.boxFilter(now, cv2.CV_32F, size, normalize=False)
        before = cv2.boxFilter(before, cv2.CV_32F, size, normalize=False)
        return now, before, compare_with(before, MIN_MARKS * self.scale**2, cv2.CMP_GT)

    def _hidden_mm2(self, contrast: np.ndarray, free: np.ndarray) -> float:
        """``hidden_mm2`` of a frame's contrast: over ``HIDDEN_MM2``, judged again against the
        board's own fade (``own_fade``).

        A lamp that adds light (not only multiplies it) lowers every mark's log contrast alike:
        under the vision bench's bench-38's high warm lamp the grid lines are 0.63-0.73 of the
        wood's grey against 0.37-0.39 at calibration, every judged patch's amplitude ratio has a
        median of 0.43-0.44 (5th percentile 0.34), and a third of the board's patches fell under
        ``FADED`` in one piece (4,402-5,811 mm²). A hand hides the marks under it against the
        rest of the board, which keeps the board's own fade."""
        energies = self._energies(contrast, free)
        largest = self._largest(_faded(*energies))
        if largest <= HIDDEN_MM2:
            return largest
        fade = _median_fade(*energies)
        return largest if fade >= OWN_FADE else self._largest(_faded(*energies, fade))

    def own_fade(self, gray: np.ndarray, free: np.ndarray) -> float:
        """The board's own fade in a frame (``gray`` and ``free`` as ``hidden_mm2`` takes
        them): the median over the judged patches of their contrast energy now over the empty
        board's (1.0 when no patch is judged)."""
        return _median_fade(*self._energies(self.contrast(self._shrunk(gray)), self._free(free)))

    def _shrunk(self, image: np.ndarray) -> np.ndarray:
        if self.step == 1:
            return image
        h, w = image.shape[:2]
        size = ((w + self.step - 1) // self.step, (h + self.step - 1) // self.step)
        return cv2.resize(image, size, interpolation=cv2.INTER_AREA)

    def hidden_mm2(self, gray: np.ndarray, free: np.ndarray) -> float:
        """Area (mm²) of the largest connected patch where the board's marks are hidden,
        unexplained by cups (the total of all patches when that is at most ``HIDDEN_MM2``).
        A hand hides them in one piece; what else hides them (a grid line's stretch between
        two dark cups in deep shade, just outside their silhouettes) comes in scraps."""
        return self._hidden_mm2(self.contrast(self._shrunk(gray)), self._free(free))

    def seen(self, gray: np.ndarray, free: np.ndarray) -> tuple[float, float]:
        """``hidden_mm2`` and ``labels_alike`` of one frame, its contrast taken once."""
        contrast, free = self.contrast(self._shrunk(gray)), self._free(free)
        return self._hidden_mm2(contrast, free), self._alike(contrast, free)

    def labels_alike(self, gray: np.ndarray, free: np.ndarray) -> float:
        """How much the least alike of the markers' labels still shows its pattern: the
        correlation of its contrast now with the empty board's, over the pixels no cup found
        covers, at the best of the shifts up to ``LABEL_SHIFT_PX``; 1.0 without markers.

        A hand reaching in at a corner of the board crosses no margin band (the band stops
        short of the markers) and may leave a marker correlating well enough to be found, yet
        it wipes out the part of the pattern it covers. Light multiplies, so in log contrast a
        lamp, a dimmer or a cup's shadow over a label leave its pattern as it was."""
        return self._alike(self.contrast(self._shrunk(gray)), self._free(free))

    def _alike(self, contrast: np.ndarray, free: np.ndarray) -> float:
        k = LABEL_SHIFT_PX
        least = 1.0
        for (y0, y1, x0, x1), pattern in zip(self.labels, self.label_patterns, strict=True):
            open_ = free[y0:y1, x0:x1] > 0
            if np.count_nonzero(open_) < MIN_LABEL_SHARE * open_.size:
                continue  # cups found cover most of it: nothing left to judge
            ref = pattern[open_]
            ref_energy = float(np.dot(ref, ref))
            best = -1.0
            for dy in range(-k, k + 1):
                for dx in range(-k, k + 1):
                    now = contrast[y0 + dy : y1 + dy, x0 + dx : x1 + dx][open_]
                    denom = np.sqrt(float(np.dot(now, now)) * ref_energy)
                    best = max(best, float(np.dot(now, ref)) / denom if denom > 0 else 0.0)
            least = min(least, best)
        return least

    def _largest(self, hidden: np.ndarray) -> float:
        total = cv2.countNonZero(hidden) / self.scale**2
        if total <= HIDDEN_MM2:
            return total  # no patch can be a hand's: spare the labelling
        stats = cv2.connectedComponentsWithStats(hidden, connectivity=8)[2]
        return int(stats[1:, cv2.CC_STAT_AREA].max()) / self.scale**2
