"""Learning during the game: frames the referee is sure of label themselves.

Once the referee is sure of a position, every square's top is known, so the frame that showed
it teaches the reader how this board, these cups and tonight's light look: each colour's
pixels (its Gaussian), each size's apparent radius, and the empty board itself under the
light of now. That is how light that changes during an evening, or a size a calibration
misjudged, is learned away, from the user's own board and nothing else.

Four rules keep it safe:

- **Only sure frames.** A position is taken as a label only when the referee announced it
  with nothing but moves (and a result) and then announced the next move from it the same way:
  any other event (needs attention, an illegal action, a lift, a takeback, a correction, a
  resync, a request for help, a kind this module does not know) means "not sure", forgets the
  frame waiting for its confirmation and needs two clean moves again. A referee that resynced
  to a misread would otherwise teach the misread. A frame read too far from its label
  (``MAX_DISAGREEMENT`` squares) is not used either.
- **Bounded.** Each step moves a model part of the way (the board's look by ``RATE``, less
  while the calibration still weighs more; a radius by its share of the fits it took in,
  ``RADIUS_PRIOR_FITS``), radii stay within ``RADIUS_BOUNDS`` of the calibration's and in size
  order, and a colour's mean within ``MEAN_BOUND`` of the calibration's.
- **Reversible.** The calibration's own models are never changed: what is learned is kept
  beside them (``Calibration.learned``) and ``forget`` drops it.
- **Checked.** Each position the referee announces sure is read with the calibration's own
  models too; when what was learned reads it worse, it is dropped (``LearningCheck``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, fields, replace
from typing import Protocol

import cv2
import numpy as np

from companion.rules.square import Piece, Square, board_squares, square_name
from companion.vision.calibration import (
    FIT_PAD_MM,
    STANDING_REACH_MM,
    Adaptation,
    BoardScene,
    Calibration,
    at_scan_end,
    explained_away,
    scanned_radii,
)
from companion.vision.cups import CupSet
from companion.vision.edges import BaseFits, edge_maps, real_cups
from companion.vision.marks import HIDDEN_MM2
from companion.vision.marks import shade as marks_shade
from companion.vision.matching import Seen, best_shift, evidence_seen
from companion.vision.observation import Observation, class_index, class_top
from companion.vision.pixels import (
    MIN_CUP_SIGMA,
    Background,
    Gaussian,
    PixelModel,
    blurred,
    log_image,
    odd_window,
)
from companion.vision.reader import STILL_SECONDS, BoardReader, Reading, moderate
from companion.vision.shadows import (
    ShadowModel,
    casting_cups,
    light_changed,
    lit_otherwise,
)
from companion.vision.templates import MAX_OFFSET_MM

SURE_KINDS = frozenset({"move", "win", "loss", "draw", "settled"})
"""Event kinds of a batch the referee is sure of; a batch needs a move to count as a label.
Not ``cleared`` (a request to confirm what the camera reads closed, nothing put right): the
plies it asked about may still be in doubt, and it ends a stretch the referee asked for help
in, as ``restored`` does (the ``help`` that opened it had already dropped the waiting frame)."""
UNSURE = "unsure"
"""The kind of a report of plies in doubt whose squares the caller named (``ObserverLearning.
judged``'s ``doubt``): the frame is still a label, on every other square."""
CONFIRMING_MOVES = 2
"""Clean moves in a row (since the start or the last doubt) before a frame is learned from:
the frame of the first is learned when the second confirms the position it showed."""
MAX_DISAGREEMENT = 3
"""A labelled frame whose reading disagrees with its label on more squares than this is not
learned from: a referee that sure and a reading that far apart means something else is wrong."""
RATE = 0.35
"""How far one sure frame moves the board's look toward what it shows, once learning has
settled (``1 / (frames + 2)`` before: the calibration counts as two frames)."""
RADIUS_PRIOR_FITS = 1
"""A size's radius in use counts as this many fits when a frame's fit is averaged in: the
first fit since calibration moves it half way (as before), the n-th by ``1 / (n + 1)``, so the
radius converges to the mean of its fits (a frame that showed the size read right counting as a
fit at the radius in use, ``_learned_cups``). Fits differ from frame to frame, one cup's from the
next one's (the bench's bench-19: a white 4 of 26.0 mm fitted 24.5-27.9 mm over ten frames);
moved 35 % of the way toward each, as before, the radius followed the last fit (26.7, 26.2,
26.3, 26.0, 26.7, 26.2, 25.6 mm); averaged, it stays within 26.1-26.7."""
RADIUS_MIN_RATE = 0.1
"""... but never by less than this: over many games a radius still follows a cup set that
wears or a camera moved a little, the last ten fits or so weighing most."""
FIT_SCATTER = 0.04
"""How far one sure frame's fit of a size strays from the next frame's, as a fraction of its
radius: the bench's bench-19, whose white 4 read right all game, fitted it 24.6-27.5 mm on ten
sure frames, 1.03 mm (0.040 of 26.0) about their mean. A frame's fit counts as one fit of that
scatter, less where the frame's own cups of the size disagree (``fit_weight``)."""
CALIBRATION_WEIGHT = 2
"""The colour models are the running mixture of the calibration's (worth this many frames) and
every sure frame's: a mixture widens to cover each colour's looks across the board (a cup's
lit top and its shaded wall, near the lamp and far from it), where following the latest frames
narrowed it to them and lost the shaded edges that tell a size."""
RADIUS_SCAN = (0.86, 1.16, 0.5)
"""Radii tried for a labelled cup: from/to as a fraction of the radius in use, step mm."""
FIT_SECTORS = 8
"""A fitted cup's silhouette is split into this many angular sectors about its base, opposite
sectors paired into diameters (``_own_radii``): four diameters, so that the median leaves out the
one or two that a cup's shaded wall, its shadow or a neighbour's light pulls off its edge."""
RADIUS_BOUNDS = (0.8, 1.25)
"""Learned radii stay within these fractions of the calibration's."""
MEAN_BOUND = np.array([0.6, 0.15, 0.15])
"""Learned colour means stay within this of the calibration's (log brightness, two chroma)."""
MIN_CORE_PIXELS = 60
"""Fewer sure pixels of a colour than this teach nothing about it."""
SHADE_LIMIT = -0.08
"""The light's change is measured only on bare board no darker than that change by more than
this (log): a cup's shadow today is not the board tomorrow, a brighter or re-tinted board is."""
LOOK_SMOOTHING_MM = 3.0
"""Under the same light, the wood's own look is learned where the bare board, averaged over
this much (a Gaussian over bare pixels only), is no darker than ``SHADE_LIMIT``: a cup's shadow
spreads over millimetres, a dim frame's noise does not. Judged on each pixel alone, the cut kept
the brighter half of the noise: on the bench's bench-19 (dim warm light) the pixels learned
were 0.02-0.03 brighter in log than the bare board as a whole (0.00), a third of that learned
at every step, and the board so brightened made a white 4 on b2 read as a 3 (0.53) at ply 9:
the referee followed the 3 and was lost 11 s (never, not learning). Judged on 3 mm, the pixels
learned are within 0.01 of the bare board's mean and the game is never lost (on 1.5 mm: lost
2.3 s)."""
SHADE_EDGE_MM = 2.0
"""The board's own shade (``board_shade``) is grown by this much: its penumbra, beyond where
the smoothed brightness crosses the shade's limit, is neither lit wood nor a light to measure.
Not grown, bench-38's 13b hid 82 mm² of marks along the shade's old edges (6 grown)."""
LIGHT_SMOOTHING_MM = 12.0
"""Spread of the Gaussian that turns the bare board's change into the light's change under the
cups: a lamp's fall-off varies over tens of millimetres, a cup's contact shadow over a few."""
LIGHT_UNDER_CUPS_MM = 40.0
"""Spread of the Gaussian that carries the light's change under the labelled cups themselves
(each one's silhouette and the ``KEEP_CLEAR_MM`` around it). At ``LIGHT_SMOOTHING_MM`` the only
bare board within reach of a cup's middle is the ring just outside that hole, which holds the
cup's own doing: the penumbra of its shadow beyond where the lamp's model draws it (the bench's
bench-24, its soft low lamp: -0.057 in log within 3 mm of the drawn shadows, -0.02 at 3-6 mm)
and the light its lit wall throws on the wood. Carried in, they relit the board under the cup
with its own shading, dark on its shadow's side and light on its lamp's: a larger cup put
there later matched that shading and read as bare board (c4's white 4 on bench-24's 24b).
Under those cups the board seen once they left (bench-24's first board under its lamp learned,
against the eight after it, 15 mm clear of their cups and shadows) was then 0.016 darker in log
than relit (median; 0.040 off at the 90th percentile); carried in over 40 mm, 0.000 (0.022), as
close as where the board had been seen (0.007, 0.035); over 30 mm, 0.003 (0.024)."""
UNDER_CUPS_EASE_MM = 4.0
"""The two spreads' changes meet over this much (a Gaussian over the cups' holes): a step
between them would be an edge in the board, which the edge cue and the texture would see."""
LIGHT_SHRINK = 4
"""The 40 mm average is taken on a map this many times coarser (it varies over tens of mm, and
a Gaussian that wide at full resolution is a 321-tap filter): 4.6 ms a step on the 2-core Xeon,
beside the 12 mm one's 36 ms."""
LIGHT_MIN_WEIGHT = 0.02
"""Below this weight of bare pixels within the Gaussian's reach (bare board ending some 25 mm
away, at 12 mm), the light's change leans on the margin's light field instead."""
LIGHT_ROUNDS = 3
"""Fits of the light's change, each without the shadows and highlights the last one showed."""
LIGHT_BOUND = 1.5
"""One step relights the board by at most this (log, per channel: 4.5 times brighter or darker)."""
REFIT_DISTANCE = 2.0
"""A colour model is moved only when a frame's cups of that colour sit, on average, further
than this many of its spreads from it (the light changed; after ``relit``, always): within it,
the calibration's model, taken from cups on known squares, reads sizes better than any mixture
with game frames (on the bench's low-side scene, mixing in game frames turned 1 wrong square of
128 into 8)."""
REFIT_DIVERGENCE = 0.35
"""... or further than this apart as distributions (``_divergence``): the bench's frames under
their calibration's light keep within 0.27 of it, bench-03's cups under its moved lamp reach
0.39-0.62 (their brightness spread three times the calibration's about much the same mean)."""
SURE_READING = 0.99
"""A reading below this confidence counts as doubted (its size may be learned from). With 0.9,
the bench's bench-01 calibrated with a black 3 in the 4's place learned too little (referee's
view 414/432, lost 77 s); with 0.99, 432/432 and lost 22 s, still 0 wrong moves held."""
CORE_MM = 3.0
"""A cup's sure pixels are its silhouette eroded by this much (its edge may be board)."""
KEEP_CLEAR_MM = 6.0
"""Board pixels this close to a cup's silhouette are not learned (its halo, its contact shadow)."""


class ShowsTops(Protocol):
    """Anything that says which cup tops each square (the referee's position): vision does not
    import the rules' ``Position``, whose own text protocol is ``rules.fen.PositionLike``."""

    def top(self, sq: Square) -> Piece | None: ...


@dataclass
class LabelledFrame:
    """A frame on the board plane with every square's top, as the referee holds it."""

    rectified: np.ndarray
    tops: dict[int, tuple[int, int]]  # row (board_squares order) -> (colour, size); empty rows left out
    misread: frozenset[int] | None = None
    """Rows the reader got wrong or doubted in this frame (None: not known, all count). Radii
    are fitted on these only: a size read right and sure needs no correcting, and moving it
    anyway (toward how cups fit in the game rather than at calibration) narrowed the gap to a
    misjudged neighbour until a white 3 read as a 4 (bench-08 with White's 3 misjudged). Such a
    size counts as served by its radius in use instead (``_learned_cups``)."""
    unknown: frozenset[int] = frozenset()
    """Rows whose top the referee is not sure of (left out of ``tops``): nothing is learned
    there, not even that they are bare board."""
    read_as: dict[int, int] = field(default_factory=dict)
    """Labelled rows the reader read as another size of the same colour: row -> that size."""
    beside: dict[int, tuple[int, int]] = field(default_factory=dict)
    """The cups that may stand on the ``unknown`` rows (the referee's guess, or the reader's
    where it saw a larger one): never learned, only explained away when a labelled cup beside
    them is fitted, so that its radius does not grow into a neighbour nobody vouched for."""
    sizes_seen: dict[int, np.ndarray] = field(default_factory=dict)
    """Labelled cups the reader took for a cup of their colour: row -> how it split that
    colour's probability between the sizes (summing to 1), what the square's size lean is
    learned from (``learned_leans``)."""
    fits: BaseFits | None = None
    """The reader's base fits of this frame (``Reading.fits``), taken for where the cups stand
    (``where_cups_stand``) while they still serve: the same frame against the same empty board and edge
    templates (``BaseFits.serves``); measured again otherwise."""

    def without(self, rows: frozenset[int]) -> LabelledFrame:
        """The same label with ``rows`` unknown as well (their tops kept in ``beside``)."""
        if rows <= self.unknown:
            return self
        tops = {row: top for row, top in self.tops.items() if row not in rows}
        moved = {row: top for row, top in self.tops.items() if row in rows}
        read_as = {row: size for row, size in self.read_as.items() if row not in rows}
        sizes_seen = {row: shares for row, shares in self.sizes_seen.items() if row not in rows}
        return replace(
            self,
            tops=tops,
            unknown=self.unknown | rows,
            read_as=read_as,
            sizes_seen=sizes_seen,
            beside={**self.beside, **moved},
        )


def label(
    rectified: np.ndarray,
    tops: dict[int, tuple[int, int]],
    seen: Observation,
    unknown: frozenset[int] = frozenset(),
    fits: BaseFits | None = None,
) -> LabelledFrame:
    """A labelled frame, with the rows ``seen`` (the reading of it) got wrong or doubted; the
    ``unknown`` rows (the referee's doubt) are left out; ``fits``, the reading's base fits."""
    misread = frozenset(
        row
        for row in range(seen.probabilities.shape[0])
        if seen.top(row) != tops.get(row) or seen.confidence(row) < SURE_READING
    )
    read_as = {row: size for row, top in tops.items() if (size := taken_for(seen, row, top)) is not None}
    sizes_seen = {row: s for row, top in tops.items() if (s := sizes_read(seen, row, top)) is not None}
    frame = LabelledFrame(rectified, tops, misread, read_as=read_as, sizes_seen=sizes_seen, fits=fits)
    frame = frame.without(unknown)
    for row in unknown:  # the reader's cup where it saw a larger one than the referee's guess
        seen_top = seen.top(row)
        if seen_top is not None and seen_top[1] > frame.beside.get(row, (0, 0))[1]:
            frame.beside[row] = seen_top
    return frame


NEAR_TIE = 0.8
"""A cup read right whose second reading, its colour at a neighbouring size, is this share of
the first's probability at least was all but read as that size (``taken_for``): bench-26's c1
black 3 on 10b, 0.413 / 0.445 = 0.93 on OpenCV 4.11. Taking any second reading of a cup under
``SURE_READING`` pushed sizes read clearly right: bench-03's black 4 on a3 at 0.963 (its 3 at
0.019) after the lamp moved pushed the black 3 down, away from the lamp's scale."""


def taken_for(seen: Observation, row: int, top: tuple[int, int]) -> int | None:
    """The other size of ``top``'s colour the reading ``seen`` took the cup on ``row`` for: the
    size it read there, or, where it read the cup right by a hair (its second reading the
    cup's colour at a neighbouring size, ``NEAR_TIE`` as likely at least), that size; None
    otherwise.

    A cup read right by a hair was all but read as its neighbour: bench-26's c1 black 3,
    with the black sizes calibration once made too large, read as a 2 at 0.445 on OpenCV
    5.0 (0.363 for the 3) and as a 3 at 0.445 on 4.11 (0.413 for the 2), on the same frame.
    Taken only when read wrong, the 2 was pushed a ring away on one release and not on the
    other, and eight plies on c1 read right on one and as a 2 on the other."""
    seen_top = seen.top(row)
    if seen_top is not None and seen_top[0] == top[0] and seen_top[1] != top[1]:
        return seen_top[1]
    if seen_top != top:
        return None
    others = seen.probabilities[row].copy()
    others[class_index(top, seen.max_piece)] = -np.inf
    second = int(np.argmax(others))
    if others[second] < NEAR_TIE * seen.confidence(row):
        return None
    near = class_top(second, seen.max_piece)
    return near[1] if near is not None and near[0] == top[0] and abs(near[1] - top[1]) == 1 else None


def sizes_read(seen: Observation, row: int, top: tuple[int, int]) -> np.ndarray | None:
    """How the reading ``seen`` split ``top``'s colour's probability between its sizes on
    ``row`` (summing to 1), when it took the square for a cup of that colour; None otherwise
    (an empty square or the other colour read there says nothing about the sizes' lean)."""
    seen_top = seen.top(row)
    if seen_top is None or seen_top[0] != top[0]:
        return None
    first = class_index((top[0], 1), seen.max_piece)
    shares = seen.probabilities[row, first : first + seen.max_piece].astype(np.float64)
    return shares / shares.sum()


LEAN_RATE = 1.0
"""How far one sure frame moves a square's size lean: by this times the gap between the size
labelled there and the size the reading expected (``learned_leans``). One frame can take a
lean to ``LEAN_BOUND``; the bound, not the rate, keeps it a prior. At 0.5 (and 0.3) the
vision bench's bench-18 lost what the lean mends (c2's white 3, read a 4 at 0.75 on 10b:
11 / 0 / 0 moves, exact, back to 9 / 2 / 0); bench-10 saved its one confirm request but its
referee's view lost a square, as bench-34's did; the 16 seen games 231 / 19 / 0 -> 229 / 21 / 0.
At 0.75 bench-10 and 18 played as at 1."""
LEAN_BOUND = 1.0
"""A square's size lean stays within this (log-odds per size step): a prior shift with a cap,
not a lock. A size changed on that square (a gobble) whose evidence is clear still reads."""


def learned_leans(leans: np.ndarray | None, frame: LabelledFrame, squares: int) -> np.ndarray | None:
    """The squares' size leans (``Adaptation.size_leans``) one step toward what ``frame``
    shows: on the square of each labelled cup the reader took for its neighbour (read as
    another size of its colour, or right by a hair, ``LabelledFrame.read_as``), its colour's
    lean moved by ``LEAN_RATE`` times the labelled size less the size the reading expected
    there (the mean of ``sizes_seen``), within ``LEAN_BOUND``; None while none was learned and
    the frame teaches none. A cup read right teaches nothing: learned from every cup read below
    ``SURE_READING``, the vision bench's bench-38 leant a4 and d3, whose white 4s read right at
    0.48-0.91, to the cap toward the larger, and a largest cup's reading, which can only fall
    short of its size, leans its square toward the larger on every frame.

    The step is the gradient, in the lean, of the log-probability the reading gave the
    labelled size (a per-square bias fitted by likelihood): a square whose cups keep reading as
    a neighbouring size (a camera angle, a neighbour's light) is leant back toward the size the
    referee was sure of, the more the further the reading was off."""
    moved = np.zeros((squares, 2)) if leans is None else leans.copy()
    doubted = {row: shares for row, shares in frame.sizes_seen.items() if row in frame.read_as}
    for row, shares in doubted.items():
        colour, size = frame.tops[row]
        expected = float(np.dot(shares, np.arange(1, len(shares) + 1)))
        step = LEAN_RATE * (size - expected)
        moved[row, colour] = np.clip(moved[row, colour] + step, -LEAN_BOUND, LEAN_BOUND)
    return None if leans is None and not doubted else moved


def tops_of(position: ShowsTops, size: int) -> dict[int, tuple[int, int]]:
    """Row -> visible (colour, size) of a position."""
    tops: dict[int, tuple[int, int]] = {}
    for row, sq in enumerate(board_squares(size)):
        top = position.top(sq)
        if top is not None:
            tops[row] = (int(top[0]), int(top[1]))
    return tops


def disagreement(
    observation: Observation, tops: dict[int, tuple[int, int]], unknown: frozenset[int] = frozenset()
) -> int:
    """Squares (of those the label knows) whose most probable reading is not the label."""
    best = np.argmax(observation.probabilities, axis=1)
    label = [class_index(tops.get(row), observation.max_piece) for row in range(len(best))]
    return sum(int(b != t) for row, (b, t) in enumerate(zip(best, label, strict=True)) if row not in unknown)


def announced_sure(kinds: Collection[str]) -> bool:
    """Whether a batch of events announces a position the referee is sure of (moves, a result,
    plies in doubt whose squares are named): the frame it was about shows that position."""
    return "move" in kinds and set(kinds) <= SURE_KINDS | {UNSURE}


def label_log_likelihood(
    observation: Observation, tops: dict[int, tuple[int, int]], unknown: frozenset[int] = frozenset()
) -> float:
    """How likely ``observation`` holds the label (the log of each known square's probability of
    its labelled top, summed; a probability of nothing counted as one in a million)."""
    probabilities = observation.probabilities
    return sum(
        float(np.log(max(float(probabilities[row, class_index(tops.get(row), observation.max_piece)]), 1e-6)))
        for row in range(probabilities.shape[0])
        if row not in unknown
    )


class SureFrames:
    """Decides which stable frames are labels: the referee's events after each, in order."""

    def __init__(self) -> None:
        self.clean = 0
        self.pending: LabelledFrame | None = None
        self.refused = 0  # labelled frames left out for reading too far from their label

    def doubted(self) -> None:
        """Forget the frame waiting for confirmation: two clean moves are needed again."""
        self.clean, self.pending = 0, None

    def judged(
        self, kinds: Iterable[str], frame: LabelledFrame | None, observation: Observation | None
    ) -> LabelledFrame | None:
        """The frame confirmed as a label by this batch of events, if any.

        ``frame`` is the stable frame the batch was about, already labelled with the referee's
        position after it; an empty batch (the same position seen again) changes nothing."""
        kinds = set(kinds)
        if not kinds:
            return None
        if not announced_sure(kinds):
            self.doubted()
            return None
        self.clean += 1
        confirmed = self.pending if self.clean >= CONFIRMING_MOVES else None
        self.pending = None
        if frame is not None and observation is not None:
            if disagreement(observation, frame.tops, frame.unknown) <= MAX_DISAGREEMENT:
                self.pending = frame
            else:
                self.refused += 1
        return confirmed


class Learner:
    """Adapts a reader's models from labelled frames (bounded, reversible)."""

    def __init__(self, reader: BoardReader) -> None:
        self.reader = reader

    @property
    def calibration(self) -> Calibration:
        """The calibration with what was learned so far: what the device saves."""
        return self.reader.calibration

    def forget(self) -> None:
        """Back to the calibration's own models."""
        self.reader.adopt(replace(self.reader.calibration, learned=None))

    def learn(self, frame: LabelledFrame) -> None:
        """One bounded step toward what ``frame`` shows."""
        reader = self.reader
        base, now = reader.calibration, reader.models
        done = base.learned.frames if base.learned is not None else 0
        rate = max(RATE, 1.0 / (done + 2))
        scene = BoardScene(now.layout, now.view, reader.camera, reader.background)
        seen = reader.background.seen(frame.rectified)
        f, ncc, _, _ = seen
        mean_rate = 1.0 / (done + 1 + CALIBRATION_WEIGHT)
        feet = where_cups_stand(reader, frame, f)
        relearned = base.learned is not None and base.learned.shadows is not None  # a new lamp
        cores = _cores(reader, frame, f, ncc, feet)
        pixels = _learned_pixels(now, f, cores, base.pixels, mean_rate, relearned, reader.background.level)
        cups, fits = _learned_cups(
            scene, now, frame, seen, pixels, base.cups, _fit_counts(base.learned, now.cups), feet, relearned
        )
        background = _learned_board(scene, now, frame, seen, cups, rate, feet)
        shadows = None if base.learned is None else base.learned.shadows
        leans = learned_leans(None if base.learned is None else base.learned.size_leans, frame, now.size**2)
        learned = Adaptation(cups, pixels, background, done + 1, shadows, fits, leans)
        reader.adopt(replace(base, learned=learned))


def _fit_counts(learned: Adaptation | None, cups: CupSet) -> list[list[float]]:
    """How many fits each (colour, size)'s radius in use has taken in, to count on from."""
    return [
        [0.0 if learned is None else learned.fit_count(colour, size) for size in range(1, len(r) + 1)]
        for colour, r in enumerate(cups.radii)
    ]


def where_cups_stand(reader: BoardReader, frame: LabelledFrame, f: np.ndarray) -> dict[int, tuple[int, int]]:
    """Where each labelled cup stands: row -> the shift (dy, dx) from its square's centre where
    its base fits best (``edges.base_fits``, as the reader places what cups explain), for the
    cups whose base fit lies inside its search (``EdgeBank.found``); none without an outline.
    Public with ``what_cups_may_cover``: where learning holds a cup to be is checked on frames."""
    edges = reader.edges
    if edges is None:
        return {}
    fits = frame.fits
    if fits is None or not fits.serves(frame.rectified, reader.background, edges):
        fits = BaseFits(edge_maps(f, edges.pad, edges.reads), edges)
    feet = {}
    for row, (_, size) in frame.tops.items():
        foot = fits.fits(row)[1][size - 1]
        if edges.found(foot):
            feet[row] = (int(foot[0]), int(foot[1]))
    return feet


def _cores(
    reader: BoardReader,
    frame: LabelledFrame,
    f: np.ndarray,
    ncc: np.ndarray,
    feet: dict[int, tuple[int, int]],
) -> list[np.ndarray]:
    """Sure pixels of the light and of the dark cups: each labelled cup's silhouette where it
    stands (cups stand off their squares' centres), eroded by a margin. Where it stands is
    where its base fits best (``feet``), or, without an outline or a base fit inside its
    search, where its silhouette fits the evidence best. A new low lamp moves the latter for a
    pale cup toward its lit side (the bench's bench-24: 12 mm from its base), and its core then
    took in the shaded board beside it (18 of bench-24's 24 moves right, not 20)."""
    bank, pad = reader.bank, reader.bank.pad
    fg, _ = reader.models.pixels.log_odds(f, ncc)
    fg = cv2.copyMakeBorder(fg, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0.0)
    h, w = reader.models.view.shape
    cores = [np.zeros((h + 2 * pad, w + 2 * pad), np.uint8) for _ in range(2)]
    erode = np.ones((int(2 * CORE_MM * reader.models.scale) + 1,) * 2, np.uint8)
    for row, (colour, size) in frame.tops.items():
        sq = bank.squares[row]
        template = sq.full[colour, size - 1]
        if row in feet:
            dy, dx = feet[row]
        else:
            _, dy, dx = best_shift(fg, template, sq.top + pad, sq.left + pad, bank.offset)
        core = cv2.erode((template > 0.99).astype(np.uint8), erode)
        _paste(cores[colour], core, sq.top + pad + dy, sq.left + pad + dx)
    return [c[pad : pad + h, pad : pad + w].astype(bool) for c in cores]


def _learned_pixels(
    now: Calibration,
    f: np.ndarray,
    cores: list[np.ndarray],
    calibrated: PixelModel,
    rate: float,
    relearned: bool = False,
    level: np.ndarray | None = None,
) -> PixelModel:
    """Each colour's Gaussian moved toward its sure pixels in this frame, within bounds, and
    its ``levelled`` one alike (over the features levelled by ``level``, ``Background.level``).

    Only where the light changed: the cups sit far from it (``REFIT_DISTANCE``,
    ``REFIT_DIVERGENCE``), or the lamp was learned again (``relearned``, ``relit``). Where
    neither colour moved, the model in use itself: a copy of it made its lookup tables again
    (``PixelModel._tables``) for the same Gaussians, a third of a learning step's CPU."""
    models = [now.pixels.light, now.pixels.dark]
    levelled = now.pixels.levelled
    both = (  # (the levelled pair in use, the calibration's, the level): all three, or none
        None
        if levelled is None or calibrated.levelled is None or level is None
        else (list(levelled), calibrated.levelled, level)
    )
    for colour, anchor in enumerate((calibrated.light, calibrated.dark)):
        core = cores[colour]
        if int(core.sum()) < MIN_CORE_PIXELS:
            continue
        seen = Gaussian.fit(f[core], MIN_CUP_SIGMA)
        model = models[colour]
        if (
            relearned
            or _mean_distance(model, seen) > REFIT_DISTANCE
            or _divergence(model, seen) > REFIT_DIVERGENCE
        ):
            models[colour] = _blend(model, seen, rate, anchor)
            if both is not None:
                pairs, anchors, at = both
                seen_level = Gaussian.fit((f + at)[core], MIN_CUP_SIGMA)
                pairs[colour] = _blend(pairs[colour], seen_level, rate, anchors[colour])
    if not in_calibrated_order(models[0], models[1], calibrated):
        return now.pixels
    if models[0] is now.pixels.light and models[1] is now.pixels.dark:
        return now.pixels  # nothing moved (nor the levelled pair, moved only with its colour)
    if both is not None and in_calibrated_order(both[0][0], both[0][1], calibrated):
        levelled = (both[0][0], both[0][1])
    return replace(now.pixels, light=models[0], dark=models[1], levelled=levelled)


def in_calibrated_order(light: Gaussian, dark: Gaussian, calibrated: PixelModel) -> bool:
    """Whether a learned pair of colour models keeps the brightness order the calibration found
    (White's cups the lighter, as nearly every set has them, or the darker): a step that would
    swap them learned from the wrong pixels, and is not taken.

    Not "the light cups stay the lighter ones": a colour pair need not be, against the wood it
    stands on (orange and blue cups on grey-washed wood measure the orange 0.08 darker, in log
    brightness against the empty board), and there that rule would stop every step."""
    lighter = calibrated.light.mean[0] >= calibrated.dark.mean[0]
    gap = light.mean[0] - dark.mean[0]
    return bool(gap > 0) if lighter else bool(gap < 0)


def _mean_distance(model: Gaussian, seen: Gaussian) -> float:
    """How far the seen mean lies from the model's, in the model's spreads (Mahalanobis)."""
    d = seen.mean - model.mean
    return float(np.sqrt(d @ np.linalg.solve(model.cov, d)))


def _divergence(model: Gaussian, seen: Gaussian) -> float:
    """The Bhattacharyya distance between two Gaussians: like the mean's distance, but it also
    grows when the spreads differ (a lamp moved to the side shades each cup's wall far more
    than at calibration, around much the same mean)."""
    both = (model.cov + seen.cov) / 2
    d = seen.mean - model.mean
    _, log_both = np.linalg.slogdet(both)
    _, log_model = np.linalg.slogdet(model.cov)
    _, log_seen = np.linalg.slogdet(seen.cov)
    return float(d @ np.linalg.solve(both, d) / 8 + (log_both - (log_model + log_seen) / 2) / 2)


def _blend(old: Gaussian, seen: Gaussian, rate: float, anchor: Gaussian) -> Gaussian:
    """Mixture moments of ``old`` and ``seen`` (weights 1 - rate, rate), the mean kept within
    ``MEAN_BOUND`` of the calibration's."""
    mean = (1 - rate) * old.mean + rate * seen.mean
    mean = anchor.mean + np.clip(mean - anchor.mean, -MEAN_BOUND, MEAN_BOUND)
    spread = (1 - rate) * (old.cov + np.outer(old.mean - mean, old.mean - mean)) + rate * (
        seen.cov + np.outer(seen.mean - mean, seen.mean - mean)
    )
    return Gaussian(mean, spread)


def _learned_cups(
    scene: BoardScene,
    now: Calibration,
    frame: LabelledFrame,
    seen: Seen,
    pixels: PixelModel,
    calibrated: CupSet,
    fits: list[list[float]],
    feet: dict[int, tuple[int, int]],
    relearned: bool = False,
) -> tuple[CupSet, tuple[tuple[float, ...], ...]]:
    """Each (colour, size) on the board: its apparent radius fitted on each of its cups the
    reader got wrong or doubted (beside the other cups' shadows where the calibration knows the
    lamp, as calibration fits them), the median of those fits averaged in, worth as many fits as
    they agree (``fits_averaged_in``), with the fits it took in before (``fits``, counted on and
    returned: the
    radius converges to their mean, ``RADIUS_PRIOR_FITS``), within ``RADIUS_BOUNDS`` of the
    calibration's and in size order.

    Each cup's fit is the median of its diameters' (``_own_radii``; where the calibration
    knows the lamp, calibration's fit beside the other cups' shadows), and a fit that found no
    edge teaches nothing (``_stopped``). A size is fitted only on the cups the reader got wrong
    or doubted (``_to_fit``), on all of them: fitted on the first square's alone, one cup's odd
    fit moved the size (the bench's bench-24, 22b: its white 4 on b1, on the board's edge beside
    a black 4 under the new lamp, fits 34.7 mm, their shadows over the margin reading as cup,
    where the white 4s on b2 and c4 fit 28.7 and 25.7; the radius in use, 27.5, went to 28.9
    and c4's white 4 read as a 3 on the next two boards, the referee lost 6.9 s). A size the
    frame shows read right and sure counts as one more fit at its radius in use (the radius
    served it), so a fit moves a size by its share of every sure frame that showed it. A cup's
    fit depends on where it stands (frames-dev's dev-02: white 4s fit 22.6-23.6 mm on a4, c2
    and c3, 24.3-25.8 on a1, a3 and b1; 24.5 at calibration); counting only the fits, the white
    4, read right on a4 and c3 for twelve frames, took c2's lone 22.6 mm fit at ply 13 as its
    first and moved half way, to 23.6, where it stood all game (its cups then read right
    again): ply 29's white 3 on a2 lay between the sizes, left in doubt (29 of 30 moves).
    Counted with the twelve, that fit moves it a tenth of the way (24.3), and the game is
    exact. Fitting every size seen instead also made dev-02 exact, but moved sizes the reader
    had no trouble with toward how cups fit in the game (bench-24's white 4, 26.7 mm at
    calibration, to 27.5 in thirteen frames before its lamp changed): 18 or 19 of bench-24's
    24 moves right, not 24.

    Every cup that may stand on the board is explained away in the fit, those on the squares
    in doubt too (``LabelledFrame.beside``): left in, a neighbour nobody vouched for grew the
    fit (bench-26's black 4 to the bound, 1.25 times the calibration's, when its cups fit
    about 0.96 of it, and then read as 3s).

    A cup read as a neighbouring size of its colour (``LabelledFrame.read_as``) also moves
    that size a mean ring (the colour's in use) away from the radius it fitted (the median of
    the fits of the cups read as that size, ``_read_instead``), when that size
    lies nearer: fitting its own size alone left the two within a hair (bench-26's black 3 on
    c1, read as a 2 all game: learned 23.1 -> 21.7 mm from three sure frames, it still read as
    a 2 on 4 of the 6 boards after, where the base's outline also says 2). Only a sure label
    pushes it, and only away from that cup, so no cup read as itself pushes a size and the push
    stops once the cup reads as itself.

    ``relearned``: the lamp was learned again (``relit``) and the fits are counted afresh under
    it; then the sizes of a colour not yet fitted nor seen sure under it follow the sizes of
    that colour fitted on this frame (``_followed``). ``seen``: the frame as the board in use
    sees it (``Background.seen``), worked out once a step."""
    groups = _to_fit(frame, fits)
    cups_at = {row: top for top, rows in groups.items() for row in rows}
    if not cups_at:
        return now.cups, tuple(tuple(counts) for counts in fits)
    pad = int(np.ceil(FIT_PAD_MM * scene.view.scale))
    fg = evidence_seen(seen, scene.background, pixels, pad).fg
    standing = {**frame.beside, **frame.tops}  # every cup that may stand there is explained away
    stands = {row: foot for row, foot in feet.items() if row in cups_at}
    if now.shadows is None:
        raw = _own_radii(scene, fg, pad, now.cups, cups_at, standing, stands)
    else:  # as calibration fits them
        beside = scene.radii_beside_shadows(fg, pad, now.cups, cups_at, standing, now.shadows, feet=stands)
        raw = _stopped(beside, cups_at, now.cups)
    cups = now.cups
    for (colour, size), rows in groups.items():
        fitted = [raw[row] for row in rows if row in raw]  # (no edge found: the fit teaches nothing)
        if not fitted:
            continue
        cups = fits_averaged_in(cups, calibrated, fits, colour, size, fitted)
        for other, shown in _read_instead(frame, rows, raw).items():  # a ring away from what they showed
            cups = pushed_a_ring_away(cups, calibrated, fits, (colour, size), other, shown)
    if relearned:
        cups = _followed(cups, now.cups, calibrated, fits, groups)
    return cups, tuple(tuple(counts) for counts in fits)


def pushed_a_ring_away(
    cups: CupSet,
    calibrated: CupSet,
    fits: list[list[float]],
    top: tuple[int, int],
    other: int,
    shown: list[float],
) -> CupSet:
    """``cups`` with the size ``other`` of ``top``'s colour moved toward a mean ring (the
    colour's in use) beyond ``shown``, the fits of cups of ``top`` read as ``other`` (their
    median), when ``other`` lies nearer than that (``_learned_cups``); worth as many fits as
    they agree (``fit_weight``) against the scatter of a fit of ``top``'s size: the fits are of
    cups of that size, and the same fits weigh the same whichever size they move. Public: the
    push is checked on given fits."""
    colour, size = top
    ring = float(np.mean(np.diff(cups.radii[colour])))
    away = float(np.median(shown)) + (other - size) * ring
    if (away - cups.radii[colour][other - 1]) * (other - size) <= 0:
        return cups
    weight = fit_weight(shown, cups.radii[colour][size - 1])
    return radius_averaged_in(cups, calibrated, fits, colour, other, away, weight)


def _followed(
    cups: CupSet,
    before: CupSet,
    calibrated: CupSet,
    fits: list[list[float]],
    groups: dict[tuple[int, int], list[int]],
) -> CupSet:
    """``cups`` with each size no fit has moved under the lamp learned again (its count in
    ``fits`` still 0: neither fitted nor shown read right and sure since) scaled as its
    colour's sizes fitted on this frame moved from ``before`` (the median of their ratios),
    within ``RADIUS_BOUNDS`` of the calibration's and in size order.

    Where the colour model stops calling pixels cup is the lamp's doing, for every size of a
    colour alike (a pale cup's lower wall read as the wood, a dark cup's foot shade), and a size
    is fitted only on a sure cup of it. On the vision bench's bench-31 (its lamp moved from 07b)
    the first sure frame under the new lamp took the white 4 from 25.7 to 24.4 mm, the white 3
    from 22.2 to 20.6 and the black 4 from 27.2 to 25.9, while the black 3, on b1 and left in
    doubt from its ply on, kept the first lamp's 21.8: the referee never became sure of it, so
    it was never fitted, and the black 3 and 4 on b1, c4 and b4 stayed in doubt to the end
    (8 / 3 / 0). Followed, the black 3 is 20.7 mm (b1's cup, once settled, fits 20.7-21.0
    there) and the game 9 / 2 / 0, the referee's view 191/192 (190); over 14 timelines of the
    replay the moves are the same in total and the view one square better on 11
    (docs/vision-findings.md, "What learning does under the moved lamp")."""
    for colour in (0, 1):
        ratios = [
            cups.radii[colour][size - 1] / before.radii[colour][size - 1]
            for c, size in groups
            if c == colour and cups.radii[colour][size - 1] != before.radii[colour][size - 1]
        ]
        if not ratios:
            continue
        ratio = float(np.median(ratios))
        for size in range(1, cups.max_piece + 1):
            if fits[colour][size - 1] == 0:
                radius = cups.radii[colour][size - 1] * ratio
                cups = _moved(cups, calibrated, colour, size, radius, 1.0)
    return cups


def _stopped(raw: dict[int, float], cups_at: dict[int, tuple[int, int]], cups: CupSet) -> dict[int, float]:
    """The fits (row -> mm) of calibration's scan (``BoardScene.radii_beside_shadows``) that
    stopped inside it: a fit at the scan's first or last radius found no edge (the evidence
    runs on past the largest silhouette tried, or stops short of the least), and teaches
    nothing, as ``_own_radii``'s diameters. On the bench's bench-26 frame 10b, d3's black 4
    fits the scan's top, 40.8 mm (c3's black 4 27.8, the radius in use 30.5)."""
    return {
        row: radius
        for row, radius in raw.items()
        if not at_scan_end(radius, cups.radii[cups_at[row][0]][cups_at[row][1] - 1])
    }


def _read_instead(frame: LabelledFrame, rows: list[int], raw: dict[int, float]) -> dict[int, list[float]]:
    """Each other size that cups of one size (``rows``) were read as (``LabelledFrame.read_as``)
    -> those cups' fits (``raw``; cups with no fit left out)."""
    shown: dict[int, list[float]] = {}
    for row in rows:
        other = frame.read_as.get(row)
        if other is not None and row in raw:
            shown.setdefault(other, []).append(raw[row])
    return shown


def _own_radii(
    scene: BoardScene,
    fg: np.ndarray,
    pad: int,
    cups: CupSet,
    cups_at: dict[int, tuple[int, int]],
    standing: dict[int, tuple[int, int]],
    feet: dict[int, tuple[int, int]],
) -> dict[int, float]:
    """Each cup's apparent radius (row -> mm) in ``cups_at``: the median of the radii its
    diameters fit best at (opposite ``FIT_SECTORS`` of its silhouettes, their scores summed),
    every silhouette placed where the one at its radius in use fits best (where its base
    stands, ``feet``, within ``STANDING_REACH_MM``), the other cups in ``standing`` explained
    away (``placed``). None (left out) where most diameters found no edge in the scan (their
    best at its first or last radius): such a fit teaches nothing.

    Fitted as one silhouette, the best radius is where the evidence summed over the whole
    outline stops gaining, and a side that reads as cup beyond the cup's edge (its own shadow
    on pale wood, the light a neighbour throws) or as board inside it (a pale cup's shaded
    wall) moves it: frames-dev's dev-02 white 4s, each fitted with the calibration's models
    on every frame that shows it, came out 22.8-23.4 mm on average on a4, c2, c3 and c4 and
    24.5-25.3 on a1, a3 and b1 (24.52 at calibration; 24.19 +- 0.96 mm over the 44 cups), the
    score curve often two-peaked where the two kinds of side disagree. Per diameter, a
    silhouette placed off the cup's centre gains on one side what it loses on the other, and
    the median leaves out the diameters that one side pulls: the same cups fit 24.42 +- 0.53
    mm (23.4-25.0 on average per square); bench-18's white 4s 24.12 +- 0.55 (24.33 +- 0.65 as
    one silhouette). It does not mend a cup whose evidence grows on half its outline: bench-18's
    white 3 on c2 fits 20.8-21.5 mm until a white 4 and a black 4 stand beside it (plies 9
    and 10), then 22.8-23.3 as one silhouette and 23.0 by its diameters: the board from its
    south to its north-west side, toward them, then reads more like a cup (at 22 mm from its
    centre, +1.0 to +3.0 in log-odds more), and every diameter has one end there."""
    spots = scene.placed(fg, pad, cups, standing)
    radii = {}
    for row, (colour, size) in cups_at.items():
        own = explained_away(fg, [spot for other, spot in spots.items() if other != row])
        in_use = cups.radii[colour][size - 1]
        tried = np.array(scanned_radii(in_use, RADIUS_SCAN))
        radius = fitted_by_diameters(
            tried, diameter_fits(scene, own, pad, cups, (row, colour, in_use), tried, feet.get(row))
        )
        if radius is not None:
            radii[row] = radius
    return radii


def fitted_by_diameters(tried: np.ndarray, best: np.ndarray) -> float | None:
    """The median of the radii ``tried`` that a cup's diameters fit best at (``best``, indices:
    ``diameter_fits``), or None where most of them found no edge (their best at the scan's first
    or last radius): such a fit teaches nothing."""
    ranked = np.sort(best)
    n = len(ranked)
    if ranked[n // 2] > 0 and ranked[(n - 1) // 2] < len(tried) - 1:  # the middle ones found an edge
        return float(np.median(tried[ranked]))
    return None


def diameter_fits(
    scene: BoardScene,
    own: np.ndarray,
    pad: int,
    cups: CupSet,
    cup: tuple[int, int, float],
    tried: np.ndarray,
    foot: tuple[int, int] | None,
) -> np.ndarray:
    """Which of the radii ``tried`` (mm) each of a cup's diameters fits best at (indices, one
    per pair of opposite ``FIT_SECTORS``): ``cup`` is (row, colour, radius in use), every
    silhouette placed where the one at the radius in use fits best on ``own`` (the evidence with
    the other cups explained away, padded by ``pad``), within ``STANDING_REACH_MM`` of where its
    base stands (``foot``, a shift from the square's centre) or ``MAX_OFFSET_MM`` without one.
    Public: ``_own_radii`` scans about the radius in use; a probe scans every size of a colour
    with the same fit (benchmarks/diameter_census.py)."""
    row, colour, in_use = cup
    dy, dx = foot if foot is not None else (0, 0)
    around = int(np.ceil((STANDING_REACH_MM if foot is not None else MAX_OFFSET_MM) * scene.view.scale))
    top, left, t = scene.silhouettes([(row, colour, in_use)], cups)[0]
    _, sy, sx = best_shift(own, t, top + pad + dy, left + pad + dx, around)
    dy, dx = dy + sy, dx + sx
    u, v = scene.view.to_pixels(np.array([scene.layout.square_centre(row)]))[0]
    placed = [
        (top + pad + dy, left + pad + dx, t)
        for top, left, t in scene.silhouettes([(row, colour, float(r)) for r in tried], cups)
    ]
    sectors = _sectors(placed, (v + pad + dy, u + pad + dx))
    sums = np.array([_sector_sums(own, top, left, t, sectors) for top, left, t in placed])
    half = FIT_SECTORS // 2
    return np.argmax(sums[:, :half] + sums[:, half:], axis=0)


Sectors = tuple[int, int, np.ndarray]
"""(top, left, sector map): each pixel's ``FIT_SECTORS`` angular sector about a cup's centre,
over a box of ``fg`` from (top, left) (``_sectors``)."""


def _sectors(placed: list[tuple[int, int, np.ndarray]], centre: tuple[float, float]) -> Sectors:
    """The angular sector about ``centre`` (y, x in ``fg``) of every pixel under any of the
    templates ``placed`` at (top, left): the same sectors for every radius scanned, worked out
    once (each radius worked them out again over its own frame: a fifth of a learning step's
    radius fits)."""
    top, left = min(y for y, _, _ in placed), min(x for _, x, _ in placed)
    bottom = max(y + t.shape[0] for y, _, t in placed)
    right = max(x + t.shape[1] for _, x, t in placed)
    ys, xs = np.mgrid[top:bottom, left:right]
    angle = np.arctan2(ys - centre[0], xs - centre[1])
    return top, left, (np.floor((angle + np.pi) / (2 * np.pi) * FIT_SECTORS).astype(int)) % FIT_SECTORS


def _sector_sums(fg: np.ndarray, top: int, left: int, template: np.ndarray, sectors: Sectors) -> np.ndarray:
    """The sum of ``fg`` under ``template`` placed at (top, left), per ``FIT_SECTORS`` angular
    sector (``sectors``, over a box holding the template)."""
    h, w = template.shape
    y0, x0, sector = sectors
    return np.bincount(
        sector[top - y0 : top - y0 + h, left - x0 : left - x0 + w].ravel(),
        weights=(fg[top : top + h, left : left + w] * template).ravel(),
        minlength=FIT_SECTORS,
    )


def _to_fit(frame: LabelledFrame, fits: list[list[float]]) -> dict[tuple[int, int], list[int]]:
    """The labelled cups of each (colour, size) to fit its size on ((colour, size) -> rows):
    those the reader got wrong or doubted (``LabelledFrame.misread``); each size the frame
    shows read right and sure only is counted in ``fits`` as one more fit at its radius in use."""
    wrong = frame.misread
    shown: dict[tuple[int, int], list[int]] = {}
    for row, top in sorted(frame.tops.items()):
        shown.setdefault(top, []).append(row)
    fitted = {}
    for (colour, size), rows in shown.items():
        doubted = [row for row in rows if wrong is None or row in wrong]
        if doubted:
            fitted[(colour, size)] = doubted
        else:  # read right and sure wherever it stands: its radius served
            fits[colour][size - 1] += 1
    return fitted


def radius_averaged_in(
    cups: CupSet,
    calibrated: CupSet,
    fits: list[list[float]],
    colour: int,
    size: int,
    radius: float,
    weight: float = 1.0,
) -> CupSet:
    """``cups`` with one size's radius averaged with a new fit ``radius`` worth ``weight`` fits
    (``fit_weight``) among the ``fits[colour][size - 1]`` it took in (``RADIUS_PRIOR_FITS``,
    ``RADIUS_MIN_RATE`` times the weight), that count raised by the weight when the step is
    taken (``_moved``). Public: the rule a radius learns by, checked on a run of given fits."""
    n = fits[colour][size - 1]
    rate = max(weight / (n + RADIUS_PRIOR_FITS + weight), RADIUS_MIN_RATE * weight)
    moved = _moved(cups, calibrated, colour, size, radius, rate)
    if moved is not cups:
        fits[colour][size - 1] = n + weight
    return moved


def fits_averaged_in(
    cups: CupSet, calibrated: CupSet, fits: list[list[float]], colour: int, size: int, fitted: list[float]
) -> CupSet:
    """``cups`` with one size's radius averaged with one frame's fits of it (``fitted``, one per
    cup): their median, worth as many fits as they agree (``fit_weight``). Public: the rule a
    radius learns a frame by, checked on given fits."""
    weight = fit_weight(fitted, cups.radii[colour][size - 1])
    return radius_averaged_in(cups, calibrated, fits, colour, size, float(np.median(fitted)), weight)


def fit_weight(fitted: list[float], radius: float) -> float:
    """How many fits one frame's fits of a size (``fitted``, one per cup, their median taken
    in) count for, at most one: a fit's scatter (``FIT_SCATTER`` of ``radius``, the radius in
    use) against that scatter plus the squared standard error of the frame's own fits (their
    spread over the root of their number; one cup shows no spread and counts as one fit).

    This is how sure the frame is of where the size lies, so that a step moves a radius only as
    far as its evidence holds. Two cups of a size that disagree by far more than frames do say
    that at least one of them is fitted on something else (a shadow, a neighbour's light), and
    their median, for two their mean, lies between: the vision bench's bench-24, its lamp
    learned again at 16b, fitted its white 4 on b1 and b2 at 34.42 and 27.92 mm after ply 18
    (b1 on the board's edge beside a black 4, their shadows over the margin read as cup), and
    34.50 and 28.50 after ply 19; each counted as a whole fit, the radius went 27.03 -> 27.86
    -> 28.47 mm and c4's white 4 read 0.61 after ply 21 (the referee lost 3.8 s / 1 ply).
    Weighed (standard errors of 3.25 and 3.0 mm against a scatter of 1.1: 0.09 and 0.12 fits),
    they took it 27.11 -> 27.21 -> 27.36 mm, and the referee took d3-c4 at once (lost 1.2 s /
    0 plies). Cups that agree as frames do (standard errors up to 0.75 mm) count for 0.6-1
    fits; bench-26, 32 and 38 have frames whose cups disagree as much (seven sizes at 0.09-0.19
    fits), and play as before."""
    if len(fitted) < 2:
        return 1.0
    scatter = max(FIT_SCATTER * radius, 1e-9)  # (a radius of 0 would make it 0 / 0)
    error = float(np.std(fitted, ddof=1)) / np.sqrt(len(fitted))
    return float(scatter**2 / (scatter**2 + error**2))


def _moved(cups: CupSet, calibrated: CupSet, colour: int, size: int, radius: float, rate: float) -> CupSet:
    """``cups`` with one size's radius moved ``rate`` of the way toward ``radius``, within
    ``RADIUS_BOUNDS`` of the calibration's; ``cups`` itself if that would break the order of
    sizes."""
    lo, hi = (k * calibrated.radii[colour][size - 1] for k in RADIUS_BOUNDS)
    old = cups.radii[colour][size - 1]
    moved = cups.with_radius(colour, size, float(np.clip(old + rate * (radius - old), lo, hi)))
    return moved if _disorder(moved) <= _disorder(cups) else cups  # sizes keep their order (or mend it)


def _disorder(cups: CupSet) -> int:
    """Pairs of neighbouring sizes whose radii are not in increasing order."""
    return sum(int(np.sum(np.diff(r) <= 0)) for r in cups.radii)


def _learned_board(
    scene: BoardScene,
    now: Calibration,
    frame: LabelledFrame,
    seen: Seen,
    cups: CupSet,
    rate: float,
    feet: dict[int, tuple[int, int]],
) -> np.ndarray:
    """The empty board in use, relit to the light this frame shows when that light changed
    (the margin's light field ``seen`` with the frame's features says so, ``Background.seen``).

    The light's change is measured where the frame shows bare board (the margin and the
    squares the label has empty, away from the cups, not in a new shadow) and carried
    smoothly under the cups (``light_change``; under the cups themselves over a wider reach,
    ``LIGHT_UNDER_CUPS_MM``); the whole board moves by it, so it stays
    one board under one light. Taking the frame's own pixels wherever it showed bare board
    (as learning once did) left the board under and around the cups at the old light: after a
    lamp moved, that patchwork read as cups on squares that had been covered (bench-03's light
    change, learned from its true labels: 100 of 112 squares right before, 74 after three
    frames)."""
    covered = what_cups_may_cover(scene, now, frame, cups, feet)
    clear = int(2 * KEEP_CLEAR_MM * scene.view.scale) + 1
    holes = cv2.dilate(covered, np.ones((clear, clear), np.uint8))
    bare = holes == 0
    f, _, field, _ = seen
    board = now.background.astype(np.float32)
    if light_changed(field):
        diff = cv2.subtract(log_image(blurred(frame.rectified, scene.view.scale)), scene.background.log)
        if now.shadows is not None:  # the lamp in use: learned again under it (``relit``)
            bare &= _shadowed(scene, now.shadows, frame, cups) == 0
        shaded = board_shade(now.background, scene.view.scale)
        lit_wood = bare & ~shaded  # (the board's own shade is no measure of the light)
        change, lit = light_change(diff, field, lit_wood, LIGHT_SMOOTHING_MM * scene.view.scale)
        wide = _wide_change(diff, field, lit_wood, scene.view.scale)  # under the cups themselves
        change = _under_cups(change, wide, holes, scene.view.scale)
        change = lifted_shade(change, diff, bare & shaded, shaded, scene.view.scale)
        gain = cv2.exp(np.clip(change, -LIGHT_BOUND, LIGHT_BOUND).astype(np.float32))
        np.multiply(board, gain, out=board)
    else:  # the same light: cups' shadows and bounced light would only leak into a relit board
        near = _bare_average(f[..., 0], bare, LOOK_SMOOTHING_MM * scene.view.scale)
        lit = bare & (near > SHADE_LIMIT)
    return _toward(board, frame.rectified, lit, rate)


def _toward(board: np.ndarray, seen: np.ndarray, lit: np.ndarray, rate: float) -> np.ndarray:
    """``board`` (float32, changed) moved ``rate`` of the way toward ``seen`` (the frame) where
    ``lit``, to the nearest grey level: the wood's own look, part of the way. (Added where
    ``lit`` says, not gathered and scattered by it: the same numbers in a quarter of the time.)"""
    step = np.subtract(seen, board, dtype=np.float32)
    step *= np.float32(rate)
    np.add(board, step, out=board, where=lit[..., None])
    return np.clip(np.rint(board), 0, 255).astype(np.uint8)


def board_shade(board: np.ndarray, scale: float) -> np.ndarray:
    """Where the board in use (``board``, BGR on the board plane) lies in its own shade (bool):
    the shadows the hidden marks leave out (``marks.shade``), grown by ``SHADE_EDGE_MM``.

    The light's change is measured on the lit wood beside that shade, not in it, and the shade
    itself follows the frame only where it shows lifted (``lifted_shade``). A shadow at
    calibration (the reserve cups' standing beside the board) is the calibration lamp's, and a
    new lamp may leave it anywhere from as deep to gone: on the vision bench's bench-38 (a low
    lamp at one side, then a high warm one from 11b on) the reserves' shade on the margin rose
    1.22 in log on 11b (median; 0.60-1.46 from the 10th to the 90th percentile), the lit margin
    0.43 (0.25-0.50). Averaged together over ``LIGHT_SMOOTHING_MM`` they relit the lit wood
    beside the shade too bright (by 0.31, 0.23 and 0.13 in blue, green and red, the median over
    a 16 by 96 mm strip of the right margin; all three channels at the 255 ceiling over 44 % of
    it, 1.9 % of the view) and left dark smudges in the shade, and the boards learned so read
    the margin as an arm (13b 876 mm², 14b 860; 88 and 100 with the calibration's board)."""
    grey = cv2.cvtColor(board, cv2.COLOR_BGR2GRAY)
    edge = odd_window(2 * SHADE_EDGE_MM * scale)
    return cv2.dilate(marks_shade(grey, scale), np.ones((edge, edge), np.uint8)) > 0


def lifted_shade(
    change: np.ndarray, diff: np.ndarray, seen: np.ndarray, shaded: np.ndarray, scale: float
) -> np.ndarray:
    """The light's ``change`` where the board in use lies in its own shade (``shaded``) taken
    from the frame's own ``diff`` there (averaged over the ``seen`` pixels, its bare shade,
    within about ``LOOK_SMOOTHING_MM``) wherever that lifts the shade more than the lit wood's
    change does: a shadow at calibration gone, or fainter, is light the frame shows on the
    board itself. Never deeper: a cup's shadow falling into the old shade is the cup's doing,
    and leaves with it. Where no bare shade lies within reach (under a cup), the lit wood's
    change stands.

    Kept at the lit wood's change, bench-38's shade stayed in the board learned from its first
    frame under the new lamp (11b), whose texture the frame's lit maple does not show, and 13b
    read 132 mm² of the margin, under the 150 by little (0 lifted). What the lift shows may be
    marks the shade hid at calibration (docs/vision-findings.md, "The board learned under the added
    lamp")."""
    sums, weight = _gaussian_sums(diff, seen, LOOK_SMOOTHING_MM * scale)
    own = sums / np.maximum(weight, np.float32(1e-3))[..., None]
    lifted = shaded & (weight > LIGHT_MIN_WEIGHT) & (own.mean(axis=2) > change.mean(axis=2))
    return np.where(lifted[..., None], own, change).astype(np.float32)


def what_cups_may_cover(
    scene: BoardScene, now: Calibration, frame: LabelledFrame, cups: CupSet, feet: dict[int, tuple[int, int]]
) -> np.ndarray:
    """uint8 mask (1) of what the frame's cups may cover: each labelled cup's silhouette at its
    apparent radius in ``cups`` and, with an outline, at its real one, where it stands
    (``feet``; else at its square's centre), and on each square in doubt the largest cup of
    either colour. Drawn at the square's centre at the apparent radius alone, a cup standing
    off it, or a pale cup whose apparent radius learning had shrunk under a low lamp (the
    bench's bench-24: its white radii 0.8 times the calibration's), left part of its wall
    outside, to be learned as bare wood, and a cup put there later read as board. Public:
    what learning leaves out of the board it learns is checked on the mask itself."""
    covered = np.zeros(scene.view.shape, np.uint8)
    largest = [(row, colour, len(cups.radii[colour])) for row in frame.unknown for colour in (0, 1)]
    shown = [(row, colour, size) for row, (colour, size) in frame.tops.items()]
    for drawn in _sizes_drawn(now, cups):
        wanted = [(row, colour, drawn.radii[colour][size - 1]) for row, colour, size in shown + largest]
        for (row, _, _), (top, left, t) in zip(wanted, scene.silhouettes(wanted, drawn), strict=True):
            dy, dx = feet.get(row, (0, 0))
            _paste(covered, (t > 0.01).astype(np.uint8), top + dy, left + dx)
    return covered


def _sizes_drawn(now: Calibration, cups: CupSet) -> list[CupSet]:
    """The cup sizes a cup's place is drawn at: the apparent ones in use (``cups``: a dark
    cup's contact shadow is in it) and, with an outline, the real ones (a pale cup's shaded
    wall, which its apparent radius may leave out)."""
    if now.outline is None:
        return [cups]
    return [cups, real_cups(now.layout.square_mm, now.max_piece, now.outline)]


def _paste(mask: np.ndarray, part: np.ndarray, top: int, left: int) -> None:
    """``mask`` raised to ``part`` (placed with its corner at ``top``, ``left``) where they
    overlap; whatever falls outside ``mask`` is left out."""
    h, w = part.shape
    y0, x0 = max(top, 0), max(left, 0)
    y1, x1 = min(top + h, mask.shape[0]), min(left + w, mask.shape[1])
    if y1 > y0 and x1 > x0:
        region = mask[y0:y1, x0:x1]
        np.maximum(region, part[y0 - top : y1 - top, x0 - left : x1 - left], out=region)


def _shadowed(scene: BoardScene, shadows: ShadowModel, frame: LabelledFrame, cups: CupSet) -> np.ndarray:
    """uint8 mask (255) of where the labelled cups' shadows can fall under the lamp in use
    (``shadows``), each widened by ``KEEP_CLEAR_MM``, and where the tallest cup on a square
    in doubt would cast its own. A low lamp's long shadows and the cups' lit walls lie on bare
    board beside the cups; averaged into the light's change and carried under the cups, they
    relit the board with a dark smudge where a cup's shadow had been (the vision bench's
    bench-24: a white 3 on c4 then read as bare board, and the boards after it as covered)."""
    placed = {row: (colour, size, 0, 0) for row, (colour, size) in frame.tops.items()}
    tallest = max((0, 1), key=lambda c: cups.height_for(c, cups.radii[c][-1]))
    for row in frame.unknown:
        placed[row] = (tallest, len(cups.radii[tallest]), 0, 0)
    casting = casting_cups(placed, scene.layout, scene.view.scale, cups)
    return shadows.draw(scene.view, casting, scene.view.shape, KEEP_CLEAR_MM)


def light_change(
    diff: np.ndarray, field: np.ndarray, bare: np.ndarray, spread_px: float
) -> tuple[np.ndarray, np.ndarray]:
    """The light's change (log ratio per pixel and channel) over the whole view, from
    ``diff`` (the frame's log ratio to the board in use) where ``bare`` says the frame shows
    the board: a Gaussian average of the bare pixels only (normalised convolution), which
    carries the change smoothly under the cups. Twice more without the pixels darker than it
    by more than ``-SHADE_LIMIT`` (a cup's shadow is not the light) or brighter by twice that
    (a highlight, a cup's edge missed). Where the bare pixels within reach weigh less than
    ``LIGHT_MIN_WEIGHT`` (under two tall cups whose long shadows join, left out of ``bare``),
    the margin's light ``field`` (``Background.light_field``) makes up the missing weight: the
    average of a few far pixels there, or nothing (the board in use's old light), relit the
    board in blotches that read as covered. Returns the change and the bare pixels last used."""
    prior = np.broadcast_to(field.astype(np.float32), diff.shape)
    use = bare
    change = diff
    for _ in range(LIGHT_ROUNDS):
        spread, weight = _gaussian_sums(diff, use, spread_px)
        missing = np.maximum(LIGHT_MIN_WEIGHT - weight, 0.0)[..., None]
        change = (spread + missing * prior) / np.maximum(weight, LIGHT_MIN_WEIGHT)[..., None]
        off = cv2.subtract(diff, change).mean(axis=2)
        use = bare & (off > SHADE_LIMIT) & (off < -2 * SHADE_LIMIT)
    return change, use


def _wide_change(diff: np.ndarray, field: np.ndarray, bare: np.ndarray, scale: float) -> np.ndarray:
    """The light's change averaged over ``LIGHT_UNDER_CUPS_MM`` (``light_change``, on a map
    ``LIGHT_SHRINK`` times coarser), at full resolution."""
    h, w = bare.shape
    size = (max(w // LIGHT_SHRINK, 1), max(h // LIGHT_SHRINK, 1))
    shrunk = [cv2.resize(a, size, interpolation=cv2.INTER_AREA) for a in (diff, bare.astype(np.float32))]
    coarse = field if field.ndim == 1 else cv2.resize(field, size, interpolation=cv2.INTER_AREA)
    spread = LIGHT_UNDER_CUPS_MM * scale * size[0] / w
    wide, _ = light_change(shrunk[0], coarse, shrunk[1] > 0.5, spread)
    return cv2.resize(wide, (w, h), interpolation=cv2.INTER_LINEAR)


def _under_cups(change: np.ndarray, wide: np.ndarray, holes: np.ndarray, scale: float) -> np.ndarray:
    """``change`` with the cups' ``holes`` (uint8, 1: a cup's silhouette or the board kept clear
    around it) taken from ``wide``, the two eased into each other over ``UNDER_CUPS_EASE_MM``."""
    under = cv2.GaussianBlur(holes.astype(np.float32), (0, 0), UNDER_CUPS_EASE_MM * scale)
    return change + under[..., None] * (wide - change)


def _gaussian_sums(values: np.ndarray, mask: np.ndarray, spread_px: float) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian sums of ``values`` (one channel or several) over the pixels ``mask`` keeps, and
    of their weight: their ratio is the normalised convolution, an average of those pixels
    only that reaches over the others."""
    weight = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), spread_px)
    keep = mask.astype(np.float32) if values.ndim == 2 else mask[..., None].astype(np.float32)
    return cv2.GaussianBlur(values * keep, (0, 0), spread_px), weight


def _bare_average(values: np.ndarray, bare: np.ndarray, spread_px: float) -> np.ndarray:
    """A Gaussian average of one channel's ``values`` over the ``bare`` pixels only."""
    spread, weight = _gaussian_sums(values, bare, spread_px)
    return spread / np.maximum(weight, np.float32(1e-3))


def relit(reader: BoardReader, rectified: np.ndarray, reading: Reading) -> Calibration | None:
    """The reader's calibration with the cups' shadows learned again under the light
    ``rectified`` shows, or None when that light is the board's in use (the margin says so,
    ``light_changed``) or its cups cast no clear shadows.

    This needs no referee: the lamp is learned as calibration learns it (``learn_shadows``),
    from where the cups ``reading`` found stand and the board around them darkened, never from
    the cups' own pixels; the colour models and the cups' sizes are left alone. After a lamp is
    changed for a low one, every board can read as covered at first sight (the cups' new long
    shadows over the grid and the margin), the referee is then never sure, and learning from
    sure frames alone never starts again (the vision bench's held-out bench-24). The caller
    decides that the frame shows light and not a hand (``ObserverLearning.seen``).

    The sizes' fits counted so far were taken under the old light, and are not counted on
    (``Adaptation.fits`` emptied): each radius in use counts as one fit again, and the first
    fit under the new lamp moves it half way. Counted on, every size seen on the 13 sure frames
    before bench-24's lamp changed had counted 13 or so (each read right), and a fit under the
    lamp moved it a tenth of the way: its pale sizes did not follow the lamp (18 of 24 moves
    right and never back on track, not 24 of 24). So are the frames learned (``Adaptation.frames``):
    the next sure frame moves the colour models a third of the way, and every one under the new
    lamp moves them, near or not (``_learned_pixels``). The squares' size leans are dropped
    (``Adaptation.size_leans``): learned against the radii the old light fitted, they would
    lean a square by an error the radii fitted afresh may not make.

    The lamp is fitted to this settled frame, not taken from the reader's ``frame_lamp``: that
    was fitted to an earlier frame of the board (the first the last lamp did not clear), if any."""
    background = reader.background
    if not lit_otherwise(background, rectified):
        return None
    f, _ = background.features(rectified)
    shadows = reader.lamp_seen(f, reading.matches, reading.standing)
    if shadows is None:
        return None
    base = reader.calibration
    learned = base.learned or Adaptation(base.cups, base.pixels, base.background, 0)
    return replace(base, learned=replace(learned, shadows=shadows, fits=(), frames=0, size_leans=None))


_OWN = [f for f in fields(Calibration) if f.name != "learned"]
"""A calibration's own parts: what learning never changes."""


def free(reading: Reading) -> bool:
    """Whether ``reading`` sees the board free of a hand: every marker in view and no cover
    beyond what a still shadow or a changed light gives (``moderate``), as the reader takes a
    board held still for ``STILL_SECONDS``."""
    return not reading.markers_changed and moderate(reading.cover)


def _settled_at(reading: Reading) -> float:
    """When the picture ``reading`` shows last settled (held still since; to the millisecond):
    what ``ObserverLearning`` asks each of its questions once for."""
    return round(reading.observation.timestamp - reading.still_seconds, 3)


def learned_less(now: Calibration) -> list[Calibration]:
    """What a reader that learned (``now``) can go back to, the least taken away first: what
    was learned with the board's look, the colour models or the cups' sizes back to the
    calibration's (a lamp learned again is kept: ``relit``), then the calibration's own.
    Public: going back is checked on what each part keeps.

    The squares' size leans go with the sizes: each lean was learned against the radii in use
    when its cups misread (``learned_leans``), and corrects their error on that square, not
    the calibration's."""
    learned = now.learned
    if learned is None:
        return []
    parts = [
        replace(learned, background=now.background),
        replace(learned, pixels=now.pixels),
        replace(learned, cups=now.cups, size_leans=None),
    ]
    return [*(replace(now, learned=part) for part in parts), replace(now, learned=None)]


class LearningCheck:
    """Whether what was learned reads a sure frame worse than the calibration alone does.

    Learning is checked on frames it has not learned from: each frame the referee announces
    sure is read again with the calibration's own models (a reader of its own, made once), and
    its labelled squares' tops compared with what the reader in use read there. When the
    learned models get more of them wrong, what was learned is dropped (``Learner.forget``).
    Each step is bounded and checked on the frames it learned from, and still a step can tip a
    cup nobody taught it about: on the vision bench's bench-39 the board learned from two
    frames on which c2 was bare (0.003 in log on average over the square) made c2's pale white
    4 on a black 2, a near tie for the calibration too (0.26-0.42), read as a 1 or a 2 from
    15b on, and the careful player could not accept a request that lit it. The referee was
    sure of c2 there; asking whether the calibration reads it better is what tells. One read
    of a frame a move costs little beside a step (about a tenth of it), and nothing on the
    reads the referee waits for."""

    def __init__(self) -> None:
        self._reader: BoardReader | None = None
        self.went_back = 0  # times what was learned was dropped for reading worse

    def reads_worse(
        self, reader: BoardReader, frame: np.ndarray, seen: Observation, sure: LabelledFrame
    ) -> bool:
        """Whether ``seen`` (``frame`` read with the models in use, which learned) gets more of
        ``sure``'s labelled squares wrong than the calibration's models do on ``frame``, and
        holds the label as a whole less likely (``label_log_likelihood``). More squares wrong
        alone can be one square's near tie going the other way: on bench-24, seven boards after
        its lamp changed, the learned models read 23b's white 4 on b2 as a 3 (0.36) where the
        calibration read it a 4, and held the label as a whole more likely (-3.06 in log
        against -3.23); going back on that dropped the lamp learned (a request more)."""
        alone = self._calibrated(reader).read(frame, seen.timestamp)
        tops, unknown = sure.tops, sure.unknown
        return disagreement(seen, tops, unknown) > disagreement(
            alone, tops, unknown
        ) and label_log_likelihood(seen, tops, unknown) < label_log_likelihood(alone, tops, unknown)

    def _calibrated(self, reader: BoardReader) -> BoardReader:
        """A reader of the calibration's own models (made again when the calibration is another)."""
        now = reader.calibration
        kept = self._reader
        if kept is None or any(getattr(kept.calibration, f.name) is not getattr(now, f.name) for f in _OWN):
            self._reader = kept = BoardReader(replace(now, learned=None))
        return kept


class ObserverLearning:
    """The device observer's side of learning: keeps the last stable frame, labels it with the
    referee's position and learns once it is confirmed."""

    def __init__(self, reader: BoardReader) -> None:
        self.learner = Learner(reader)
        self.sure = SureFrames()
        self.check = LearningCheck()
        self._frame: np.ndarray | None = None
        self._observation: Observation | None = None
        self._seen_with: Calibration | None = None  # the models the last frame seen was read with
        self._read_with: Calibration | None = None  # ... and the last stable frame
        self._fits: BaseFits | None = None  # the last stable frame's, as the reader found them
        self._relit_since: float | None = None  # when the picture last learned from settled
        self._relit = False  # relearned since the last verdict: the calibration to save changed
        self._covered_since: float | None = None  # when the picture last found covered settled

    def seen(self, frame: np.ndarray, reading: Reading) -> Reading:
        """Every frame read (``reading``, with the models in use): the reading the frame stands
        as, read again when learning went back on what kept it covered (``_covered_for_good``)
        or learned the lamp again (``_relearn_lamp``).

        The gate takes that one: it is the frame as the models kept read it, and the board's
        stable period starts with it, not a frame later. On the vision bench's bench-38 the
        board 14b is shown 2.8 s (14 frames); learning goes back on its 9th (still 1.6 s), and
        the gate's second of agreeing frames, begun on the 10th, would have ended on the next
        board's first (14b was never seen stable); begun on the 9th it ends on 14b's last.

        Otherwise, when the picture has held still (``STILL_SECONDS``: a hand moves, light
        does not), every marker is in view and the board's marks are (a hand held still
        hides them, light does not), the cups' shadows are learned again under the light it
        shows, if that changed (``relit``): once each time the picture settles. A frame that
        shows more than light can (``reader.moderate``: a patch over the margin or the grid
        as large as a hand's) keeps the new lamp only if, read again with it, it no longer
        does: a low lamp's long shadows can look like a hand at first sight (the vision
        bench's bench-10), and refusing them would leave the board covered for good; a hand
        the new shadows do not explain gives the lamp back."""
        again = self._covered_for_good(frame, reading) or self._relearn_lamp(frame, reading)
        self._seen_with = self.learner.reader.calibration  # what the reading returned was read with
        return reading if again is None else again

    def _relearn_lamp(self, frame: np.ndarray, reading: Reading) -> Reading | None:
        """``seen``'s lamp learned again under a changed light (``relit``), when it applies: the
        frame read again with the lamp kept, or None when nothing was learned. The frame is
        always read again once the lamp is learned (it decides whether the lamp explains what
        covered the board, and it is the reading the gate starts from, as ``seen`` says): an
        extra read only when the frame already read moderate, once each time the picture
        settles under a changed light."""
        if reading.still_seconds < STILL_SECONDS or reading.markers_changed:
            return None
        if reading.hidden_area_mm2 > HIDDEN_MM2:  # a hand held still hides the marks; light does not
            return None
        since = _settled_at(reading)
        if since == self._relit_since:  # once for each time the picture settles
            return None
        self._relit_since = since
        reader = self.learner.reader
        calibration = relit(reader, reader.rectified(frame), reading)
        if calibration is None:
            return None
        before, lit = reader.calibration, reader.background
        reader.adopt(calibration)
        again = reader.read_details(frame, reading.observation.timestamp)
        if not moderate(reading.cover) and not moderate(again.cover):
            reader.adopt(before)  # the new lamp does not explain what covered the board: a hand
            return None
        self._forget_old_light(lit)
        self._relit = True
        return again

    def _covered_for_good(self, frame: np.ndarray, reading: Reading) -> Reading | None:
        """Go back on what was learned when it keeps a still board covered (flagged once the
        picture has held still ``STILL_SECONDS``: a hand moves, and from then on the reader
        takes a shadow's or a light's evidence for board) where models learned less see it
        free: the referee never sees that board, and no sure frame comes to check learning on
        (``LearningCheck`` compares only frames announced sure). Asked once each time the
        picture settles, of the learned models with one part of them back to the
        calibration's (``learned_less``), the least taken away first. On the vision bench's
        bench-38, sure from 04b on, the board learned from 11b and 12b under the warm lamp
        added at 11b read the margin at 872-900 mm² and a fist of +0.92-0.95 on 14b-17b, and
        its last four boards never reached the referee; with the calibration's board and the
        rest learned, 14b reads a margin of 284 mm², a fist of +0.12 and 4 mm² of marks hidden
        (the calibration's own models hide 202-206 mm² of marks on 14b-16b, over
        ``HIDDEN_MM2``). A hand held still is a hand to every one of them (its marks hidden,
        its fist: bench-38's 12a reads a margin of 2,300-2,700 mm² with each) and stays
        flagged; a frame flagged though its cover reads free (an arm beside the board) is not
        asked. When learning went back (the calibration to save changed): the frame read with
        the models kept; else None."""
        reader = self.learner.reader
        if reader.calibration.learned is None or not reading.observation.occluded:
            return None
        if reading.markers_changed or reading.still_seconds < STILL_SECONDS or free(reading):
            return None  # (an arm beside the board flags it too, whatever was learned)
        since = _settled_at(reading)
        if since == self._covered_since:  # once for each time the picture settles
            return None
        self._covered_since = since
        before = reader.calibration
        for back in learned_less(before):
            reader.adopt(back)
            again = reader.read_details(frame, reading.observation.timestamp)
            if free(again):
                self.sure.doubted()
                self.check.went_back += 1
                self._relit = True
                return again
        reader.adopt(before)
        return None

    def _forget_old_light(self, lit: Background) -> None:
        """Drop the frame waiting for its confirmation if it shows the light of ``lit``, the
        board in use before the lamp was learned again: it was seen under the lamp just
        replaced. Confirmed by the next move, it was learned as the first sure frame under the
        new lamp, which moves the colour models a third of the way (``relit``) and starts the
        sizes' fits afresh: toward the old light's look. On the vision bench's bench-03 (its
        lamp moved at frame 07) the board before the change was so learned right after the
        lamp, and the white 4 on c1 read as a 3 on five of the seven boards under the lamp, up
        to 12b (the referee's view 200/208); dropped, it reads as a 4 from 10b on (203/208). A
        frame that already shows the new light (the board the lamp was learned from, passed by
        the gate before it had held still long enough) is kept."""
        pending = self.sure.pending
        if pending is not None and not lit_otherwise(lit, pending.rectified):
            self.sure.pending = None

    def stable(self, frame: np.ndarray, observation: Observation, fits: BaseFits | None = None) -> None:
        """The frame that completed a stable period, what the gate passed for it, and the
        frame's base fits as the reader found them (``Reading.fits``)."""
        self._frame, self._observation, self._fits = frame, observation, fits
        self._read_with = self._seen_with

    def judged(self, kinds: Iterable[str], position: ShowsTops, doubt: Collection[str] = ()) -> bool:
        """The referee's verdict on the last stable frame; True when something was learned
        (from this frame, or from the light since the last verdict, ``seen``).

        ``doubt`` names the squares whose top the referee is not sure of now (plies in doubt,
        and where their cups went since): the frame is learned from everywhere else. A batch
        may then report plies in doubt (kind ``UNSURE``); any other doubt drops the frame."""
        frame, observation, fits = self._frame, self._observation, self._fits
        self._frame = self._observation = self._fits = None
        labelled = None
        reader = self.learner.reader
        doubted = set(doubt)
        names = [square_name(sq) for sq in board_squares(reader.models.size)]
        unknown = frozenset(row for row, name in enumerate(names) if name in doubted)
        if frame is not None and observation is not None:
            tops = tops_of(position, reader.models.size)
            labelled = label(reader.rectified(frame), tops, observation, unknown, fits)
        kinds = list(kinds)
        relit, self._relit = self._relit, False
        if self._went_back(kinds, frame, observation, labelled):
            self.sure.doubted()
            return True
        confirmed = self.sure.judged(kinds, labelled, observation)
        if confirmed is None:
            return relit
        self.learner.learn(confirmed.without(unknown))  # doubt that came up since counts too
        return True

    def _went_back(
        self,
        kinds: list[str],
        frame: np.ndarray | None,
        observation: Observation | None,
        labelled: LabelledFrame | None,
    ) -> bool:
        """Drop what was learned when it reads the frame just announced sure worse than the
        calibration does (``LearningCheck``). Checked as soon as the referee announces the
        position, not a move later when the frame is confirmed for learning: going back
        teaches nothing, and a move later the board the misread showed is gone. Going back is
        taken as doubt (``SureFrames.doubted``): the frame waiting for confirmation is dropped
        and learning starts again after two clean moves, each step then checked on the frame
        announced after it. Learning the frame confirmed in the same breath, from the
        calibration, left that step unchecked, and on bench-39 it tipped c2 again before the
        next position the referee was sure of (the referee lost 12.6 s, not 5.4)."""
        reader = self.learner.reader
        if frame is None or observation is None or labelled is None or not announced_sure(kinds):
            return False
        if reader.calibration.learned is None or self._read_with is not reader.calibration:
            return False  # nothing learned, or the frame was read before the last of it
        if not self.check.reads_worse(reader, frame, observation, labelled):
            return False
        self.learner.forget()
        self.check.went_back += 1
        return True
