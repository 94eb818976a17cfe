"""From a frame to evidence maps, and from evidence to each square's best-fitting cup.

The evidence map holds, per board-plane pixel, the log-odds "cup rather than board". A cup
hypothesis's score is the sum of that map over its silhouette, maximised over small shifts:
the log-likelihood ratio of "this cup here" against "empty board here". Taking a larger
silhouette than the truth adds board pixels (negative) and a smaller one leaves cup pixels
out, so the best-scoring size is the one whose outline follows the evidence's edge.

Matching per square: the colour comes from the colour evidence where the evidence says
"cup"; the search starts at the centroid of that evidence, and where each size's base is found
(``edges.BaseFits``), and each size climbs, one pixel at a time, to its best-fitting shift. A
handful of small matrix products per square keeps a frame within budget. Cups side by side are
then matched again apart: each with the other cups found taken for no cup (``match_apart``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import cv2
import numpy as np

from companion.vision.geometry import Camera, RectifiedView
from companion.vision.pixels import Background, PixelModel, lit_unevenly
from companion.vision.scalars import at_least
from companion.vision.templates import SquareTemplates, TemplateBank

MAX_CLIMB = 24
CLIMBERS = 2
Seeds = Callable[[], Sequence[tuple[int, int] | None]]
"""Each size's own start on one square (a shift, or None for none), asked for only where the
square shows something cup-like: where the size's base circle fits (``edges.BaseFits``)."""
SIZE_SURENESS = 0.5
"""Mean log-odds over the ring between two sizes' silhouettes worth one unit of logit. Pixel
noise alone would allow far sharper odds, but a cup's shading biases whole rings at once, so
the confidence follows how clearly the ring reads, not how many pixels it has. Set on the
stress set (``vision_accuracy.py --synthetic 120 --stress``): at 0.25 eleven wrong sizes of
13,520 squares read at 0.9 or more, at 0.5 four, while 2.6 % of right readings fall under 0.9."""


@dataclass(frozen=True)
class Evidence:
    """Evidence maps of one frame, padded by the bank's ``pad`` on every side."""

    fg: np.ndarray  # float32, cup-versus-board log-odds
    colour: np.ndarray  # float32, light-versus-dark log-odds
    positive: np.ndarray  # max(fg, 0)
    pad: int
    features: np.ndarray  # unpadded (m, q1, q2) per pixel, for the occlusion test
    texture: np.ndarray  # unpadded texture correlation with the empty board
    light: np.ndarray  # the light's change on the margin the features were corrected for
    judged: np.ndarray  # that change judged on the margin's lit wood (``Background.light_judged``)


def rectify(image: np.ndarray, view: RectifiedView, camera: Camera) -> np.ndarray:
    """The frame on the board plane: what every comparison starts from."""
    return view.warp(image, camera)


def evidence(
    rectified: np.ndarray,
    background: Background,
    model: PixelModel,
    pad: int,
    within: tuple[slice, slice] | None = None,
    gray: np.ndarray | None = None,
) -> Evidence:
    """The frame's evidence maps; the colour's only ``within`` that part of the view where the
    model's colour vote is levelled (``PixelModel.log_odds``), all of it when None, and with
    the brightness of a cup's wall trusted less where the frame is lit unevenly since
    ``background`` (``lit_unevenly``: a lamp moved; ``LAMP_BRIGHTNESS_SPREAD``). ``gray``: the
    frame in grey, when the caller has it (``pixels.grey``)."""
    return evidence_seen(background.seen(rectified, gray), background, model, pad, within)


Seen = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""A frame's features, texture, the light's change they were corrected for and that change
judged on the lit wood (``Background.seen``)."""


def evidence_seen(
    seen: Seen,
    background: Background,
    model: PixelModel,
    pad: int,
    within: tuple[slice, slice] | None = None,
) -> Evidence:
    """``evidence`` of a frame ``background`` has ``seen`` already (``Background.seen``): a
    learning step works the frame's features out once, for its own steps and for the cups'
    evidence under the colours it learned (``learning._learned_cups``)."""
    f, ncc, light, judged = seen
    fg, colour = model.log_odds(f, ncc, background.level, within, lit_unevenly(light))
    if pad:
        fg = cv2.copyMakeBorder(fg, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0.0)
        colour = cv2.copyMakeBorder(colour, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0.0)
    return Evidence(fg, colour, at_least(fg, 0.0), pad, f, ncc, light, judged)


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


def neighbourhood_scores(
    field: np.ndarray, by_size: np.ndarray, y: int, x: int, h: int, w: int
) -> np.ndarray:
    """(9, S) scores of each size's template at the 3x3 shifts around (y, x), row-major.

    The nine windows are one strided view of ``field`` (C-contiguous float32), copied once
    into a matrix; the templates, a size a row (``SquareTemplates.by_size``: S x h*w), times
    its transpose give the scores transposed (a view of them returned), the windows times the
    templates as columns (h*w x S, ``SquareTemplates.flat``) at about four fifths of the CPU.
    The two sum each score in an order OpenBLAS picks per processor: on an Intel Xeon the
    same to the bit (every square, both colours and 25 shifts on frames-dev's dev-01: 2,400
    products), on an AMD EPYC within float32 rounding (7.7e-7 of the sum of the terms' sizes
    at most); with the columns' array transposed as a view instead, the sums differ more and
    cost more.
    """
    row = field.strides[0]
    windows = np.ndarray(
        (3, 3, h, w), np.float32, buffer=field, offset=(y - 1) * row + (x - 1) * 4, strides=(row, 4, row, 4)
    )
    return (by_size @ windows.reshape(9, h * w).T).T


def climb(
    ev: Evidence,
    sq: SquareTemplates,
    colour: int,
    start: tuple[int, int],
    reach: int,
    seeds: Seeds | None = None,
    reads: Reads | None = None,
) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Hill-climb each size's best-fitting shift from a common start, and from its own seed.

    Sizes climb separately: a big cup's best position can sit several pixels from where a
    smaller silhouette fits best inside it. Only the front runners at the start climb (a size
    far behind there rarely catches up). Then each size with a seed (``seeds()``, asked for
    only where the start shows something cup-like: where its base is found) that scores more
    there than where it is climbs again from it, its better shift kept. A pale cup on pale wood
    reads as a ring, its strongest part a crescent of shaded wall, and the evidence's centroid
    lies toward it: on the bench's bench-06 (pale cups on birch) b2's white 4 was never scored
    where it stands, the 2 climbing onto the crescent 10-11 mm from the square's centre
    (1.5-2.3 rings), though the 4 climbing from where its base is found scores 2.4-2.6 rings
    on 4 of its 7 boards. Every size climbing from the centroid found it too, at up to a
    quarter more CPU a read; climbing from every seed took 81 % more neighbourhoods
    (``neighbourhood_scores``) a read of frames-dev's dev-01 than none, from those that score
    more there 11 %, and bench-06 read the same.

    Then each size next to the leader climbs again from the leader's shift, its better shift
    kept, until the leader's neighbours have all climbed from where it stands. The reading
    turns on the leader against its neighbours, so each must be scored where it fits best: a
    neighbour left at the start, or stuck on a ridge of a one-pixel climb, is scored where it
    does not fit. On the bench's bench-09 (natural cups on maple) a white 4 whose lit wall
    reads as board scored 4.6 logits under its 3 that way and 0.5 under it from the 3's shift,
    and read a 3 at 0.95. Returns each size's best score and shift; ``reads``, when given,
    notes which windows of the evidence the climb read.
    """
    h, w = sq.support.shape
    top, left = sq.top + ev.pad, sq.left + ev.pad
    flat, by_size = sq.flat[colour], sq.by_size[colour]
    sizes = flat.shape[1]
    cache: dict[tuple[int, int], Around] = {}
    if reads is not None:
        reads.around.append(cache)  # (filled as the climb goes)

    def around(pos: tuple[int, int]) -> Around:
        got = cache.get(pos)
        if got is None:
            scores = neighbourhood_scores(ev.fg, by_size, top + pos[0], left + pos[1], h, w)
            got = cache[pos] = Around(scores, scores.argmax(axis=0).tolist(), scores[4].tolist())
        return got

    def at(pos: tuple[int, int], s: int) -> float:
        """Size ``s``'s score at ``pos`` alone: one product where ``around`` takes nine."""
        if reads is not None:
            reads.alone.append(pos)
        y, x = top + pos[0], left + pos[1]
        return float(ev.fg[y : y + h, x : x + w].reshape(h * w) @ flat[:, s])

    positions = [start] * sizes
    first = around(start).scores
    if first.max() <= 0:
        return first[4], positions  # nothing cup-like around the evidence's centroid: empty
    moving = np.argsort(first.max(axis=0))[-CLIMBERS:].tolist()
    tried = {(s, start) for s in moving}
    _climb_each(around, positions, set(moving), reach)
    for s, foot in enumerate(seeds() if seeds is not None else ()):
        if foot is not None and (s, foot) not in tried and at(foot, s) > around(positions[s]).centre[s]:
            _climb_from(around, positions, s, foot, reach, tried)
    while True:
        here = [around(positions[s]).centre[s] for s in range(sizes)]
        leader = here.index(max(here))  # the first of equals, as ``np.argmax``
        fresh = [
            s for s in (leader - 1, leader + 1) if 0 <= s < sizes and (s, positions[leader]) not in tried
        ]
        if not fresh:
            return np.array([cache[positions[s]].scores[4, s] for s in range(sizes)]), positions
        for s in fresh:
            _climb_from(around, positions, s, positions[leader], reach, tried)


@dataclass
class Reads:
    """The windows of the evidence (shifts of a square's frame) one square's match read: around
    each shift a climb scored, its 3 x 3 neighbourhood (``around``: the climbs' caches), and
    the shifts scored alone (``alone``: the centroid's window and the seeds tried).

    Matched again apart from its neighbours (``match_apart``), a square whose evidence changed
    nowhere its templates have weight in any of these windows reads every score as before and
    climbs the same way to the same match: it is kept, not climbed again. Over frames-dev's
    game frames 446 of the 538 matches again are kept so (473 came out the same when every one
    was climbed again), about a tenth of a read's CPU."""

    around: list[dict[tuple[int, int], Around]] = field(default_factory=list)
    alone: list[tuple[int, int]] = field(default_factory=list)

    def span(self) -> tuple[int, int, int, int]:
        """(top, left, bottom, right): the least and greatest shift read, each way."""
        shifts = [(y + d, x + d) for cache in self.around for y, x in cache for d in (-1, 1)] + self.alone
        ys, xs = [y for y, _ in shifts], [x for _, x in shifts]
        return min(ys), min(xs), max(ys), max(xs)


class Around(NamedTuple):
    """One shift's ``neighbourhood_scores``, with what the climb reads of them as Python
    numbers (a climb asks for them several hundred times a frame: numpy's per-call cost on
    one element was a tenth of the read)."""

    scores: np.ndarray  # (9, S) float32
    best: list[int]  # per size, the first of the nine shifts that scores it best (row-major)
    centre: list[float]  # per size, its score at the shift itself (float32's value, exactly)


def _climb_from(
    around: Callable[[tuple[int, int]], Around],
    positions: list[tuple[int, int]],
    s: int,
    start: tuple[int, int],
    reach: int,
    tried: set[tuple[int, tuple[int, int]]],
) -> None:
    """Size ``s`` climbed again from ``start`` (noted in ``tried``), the better of that climb's
    shift and its own kept in ``positions`` (in place)."""
    tried.add((s, start))
    trial = list(positions)
    trial[s] = start
    _climb_each(around, trial, {s}, reach)
    if around(trial[s]).centre[s] > around(positions[s]).centre[s]:
        positions[s] = trial[s]


def _climb_each(
    around: Callable[[tuple[int, int]], Around],
    positions: list[tuple[int, int]],
    moving: set[int],
    reach: int,
) -> None:
    """Move each size of ``moving`` (in ``positions``, in place) one pixel at a time to the
    neighbouring shift that scores it best, until none improves or ``MAX_CLIMB`` steps."""
    moving = set(moving)
    for _ in range(MAX_CLIMB):
        for s in list(moving):
            k = around(positions[s]).best[s]
            y, x = positions[s][0] + k // 3 - 1, positions[s][1] + k % 3 - 1
            if k == 4 or max(abs(y), abs(x)) > reach:
                moving.discard(s)
            else:
                positions[s] = (y, x)
        if not moving:
            break


def match_square(
    ev: Evidence, sq: SquareTemplates, reach: int, seeds: Seeds | None = None, reads: Reads | None = None
) -> SquareMatch:
    """Score every size on one square, for the colour the evidence shows there (``reads``:
    noting the windows of the evidence read)."""
    if reads is not None:
        reads.alone.append((0, 0))  # the centroid's
    h, w = sq.support.shape
    top, left = sq.top + ev.pad, sq.left + ev.pad
    weight = cv2.multiply(ev.positive[top : top + h, left : left + w], sq.support)
    mass = float(cv2.sumElems(weight)[0])
    colour = 0 if float(np.einsum("ij,ij->", weight, ev.colour[top : top + h, left : left + w])) > 0 else 1
    start = (0, 0)
    if mass > 0:
        ys = float(weight.sum(axis=1) @ sq.rows) / mass - sq.support_centre[0]
        xs = float(weight.sum(axis=0) @ sq.cols) / mass - sq.support_centre[1]
        start = (min(max(round(ys), -reach), reach), min(max(round(xs), -reach), reach))
    for _ in range(2):
        sizes, positions = climb(ev, sq, colour, start, reach, seeds, reads)
        size = int(sizes.argmax())
        sy, sx = positions[size]
        region = ev.colour[top + sy : top + sy + h, left + sx : left + sx + w]
        colour_log_odds = float(np.einsum("ij,ij->", region, sq.full[colour, size]))
        if (colour_log_odds > 0) == (colour == 0) or sizes[size] <= 0:
            break
        colour, start = 1 - colour, (sy, sx)
    return SquareMatch(sizes, colour_log_odds, colour, size + 1, sy, sx)


def match_at(ev: Evidence, sq: SquareTemplates, colour: int, dy: int, dx: int) -> SquareMatch:
    """Every size of ``colour`` on one square scored with its silhouette at shift (dy, dx)
    alone: no search, where something else says the cup stands."""
    h, w = sq.support.shape
    top, left = sq.top + ev.pad + dy, sq.left + ev.pad + dx
    sizes = ev.fg[top : top + h, left : left + w].reshape(1, h * w) @ sq.flat[colour]
    size = int(np.argmax(sizes[0]))
    region = ev.colour[top : top + h, left : left + w]
    colour_log_odds = float(np.einsum("ij,ij->", region, sq.full[colour, size]))
    return SquareMatch(sizes[0], colour_log_odds, colour, size + 1, dy, dx)


def match_all(
    ev: Evidence,
    bank: TemplateBank,
    seeds: Callable[[int], Seeds] | None = None,
    reads: list[Reads] | None = None,
) -> list[SquareMatch]:
    """Every square matched (``match_square``), ``seeds(row)`` giving each square's seeds;
    ``reads``, when given, gets each square's ``Reads``."""
    if reads is not None:
        reads[:] = [Reads() for _ in bank.squares]
    return [
        match_square(
            ev, sq, bank.offset, None if seeds is None else seeds(row), None if reads is None else reads[row]
        )
        for row, sq in enumerate(bank.squares)
    ]


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


def size_logits(matches: list[SquareMatch], ring_px: float, softening: float = 1.0) -> np.ndarray:
    """The matches' size scores (N x S) as logits against empty: in units of ``SIZE_SURENESS``
    times ``ring_px``, the mean ring between adjacent sizes (``CupSet.ring_px``), each widened
    by ``softening``. The one scale the reader's probabilities, its sizing for occlusion and
    calibration's region trust all read sizes on."""
    return np.array([m.sizes for m in matches]) / (softening * SIZE_SURENESS * ring_px)


EXPLAINED = 0.5
"""A neighbour's soft silhouette explains a pixel where it covers more than this share of it
(calibration's reference cups and the cups a frame shows alike)."""


class Spot(NamedTuple):
    """A cup found, as ``match_apart`` explains it away: where its silhouette lies in the
    padded evidence maps and the pixels it explains (``EXPLAINED``)."""

    top: int
    left: int
    floor: np.ndarray  # float32: 0 where it explains the pixel, +inf elsewhere
    changed: np.ndarray  # bool: where it explains a pixel whose evidence says "cup" (> 0)


Saved = list[tuple[tuple[slice, slice], np.ndarray, np.ndarray, np.ndarray]]
"""Windows of the evidence maps as they were before cups were explained away there, and
where in each the evidence changed (a mask)."""


def match_apart(
    ev: Evidence,
    bank: TemplateBank,
    matches: list[SquareMatch],
    seeds: Callable[[int], Seeds] | None = None,
    reads: list[Reads] | None = None,
) -> list[SquareMatch]:
    """The matches, each cup found matched again with the other cups found (their silhouettes
    as matched, over ``EXPLAINED``) taken for no cup, where one of them reaches into its search
    with evidence of a cup. With the windows each match read (``reads``, from ``match_all``),
    one whose evidence changed nowhere they weigh keeps its match (``Reads``). The cups are
    explained away in ``ev``'s own maps and each window put back as it was (the saved copy,
    byte for byte) before the next square, and whatever happens: a copy of both maps for the
    purpose cost more than the windows.

    The evidence says "cup" for any cup, so a square's larger silhouettes also score the cups
    beside it where those lean or crowd into its search: calibration explains the reference
    cups' neighbours away for the same reason (``BoardScene.raw_radii``). On the bench's
    bench-05 (yellow and red cups on cherry, 1280x960) the yellow 3 on b4, with a yellow 4
    leaning in from b3 and a red 4 from a4, had its 4 silhouette slide 9 mm onto them and read
    as a 4 at 0.98; apart from them it reads a 3."""
    found = [row for row, m in enumerate(matches) if m.sizes[m.size - 1] > 0]
    if len(found) < 2:
        return matches
    spots = {row: _spot(ev, bank.squares[row], matches[row]) for row in found}
    spots = {row: spot for row, spot in spots.items() if spot.changed.any()}  # the rest change nothing
    out = list(matches)
    for row in found:  # (explained away in ``ev``'s own maps, each window put back as it was)
        others = [spot for other, spot in spots.items() if other != row]
        saved = _explain_away(ev, _search_box(ev, bank, row), others)
        try:
            if saved and (reads is None or _weighs(ev, bank.squares[row], reads[row], saved)):
                seeded = None if seeds is None else seeds(row)
                out[row] = match_square(ev, bank.squares[row], bank.offset, seeded)
        finally:
            for window, fg, positive, _ in reversed(saved):
                ev.fg[window], ev.positive[window] = fg, positive
    return out


def _weighs(ev: Evidence, sq: SquareTemplates, reads: Reads, saved: Saved) -> bool:
    """Whether any change in ``saved`` lies where one of the square's templates (any colour,
    any size) has weight in a window ``reads`` noted: the union of the templates' support
    placed at every shift between the least and greatest read (a box of shifts holding them,
    so a little more than was read: never less)."""
    lo_y, lo_x, hi_y, hi_x = reads.span()
    weight = sq.weight
    h, w = weight.shape
    dy, dx = hi_y - lo_y, hi_x - lo_x
    canvas = cv2.copyMakeBorder(weight, dy, 0, dx, 0, cv2.BORDER_CONSTANT, value=0)
    reached = cv2.dilate(
        canvas,
        np.ones((dy + 1, dx + 1), np.uint8),
        anchor=(0, 0),
        borderType=cv2.BORDER_CONSTANT,
        borderValue=0,
    )  # reached[u] = weight at u - t for some t in [0, span]: shift lo + t
    top, left = sq.top + ev.pad + lo_y, sq.left + ev.pad + lo_x
    for (ys, xs), _, _, changed in saved:
        y0, y1 = max(ys.start, top), min(ys.stop, top + h + dy)
        x0, x1 = max(xs.start, left), min(xs.stop, left + w + dx)
        if (
            y0 < y1
            and x0 < x1
            and (
                changed[y0 - ys.start : y1 - ys.start, x0 - xs.start : x1 - xs.start]
                & (reached[y0 - top : y1 - top, x0 - left : x1 - left] > 0)
            ).any()
        ):
            return True
    return False


def _explains(sq: SquareTemplates, colour: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Where a silhouette explains a pixel (over ``EXPLAINED``), and its floor there (0 where it
    does, +inf elsewhere): made once a bank (``SquareTemplates.derived``)."""
    key = ("explains", colour, size)
    if key not in sq.derived:
        mask = sq.full[colour, size - 1] > EXPLAINED
        sq.derived[key] = _kept(mask)
        sq.derived[("floor", colour, size)] = _kept(np.where(mask, np.float32(0.0), np.float32(np.inf)))
    return sq.derived[key], sq.derived[("floor", colour, size)]


def _kept(array: np.ndarray) -> np.ndarray:
    """``array`` made read-only, to be kept and shared (``SquareTemplates.derived``)."""
    array.setflags(write=False)
    return array


def _spot(ev: Evidence, sq: SquareTemplates, m: SquareMatch) -> Spot:
    """Where a match's silhouette lies in the padded evidence, the pixels it explains, and
    those of them where ``ev`` says "cup"."""
    top, left = sq.top + ev.pad + m.dy, sq.left + ev.pad + m.dx
    mask, floor = _explains(sq, m.colour, m.size)
    h, w = mask.shape
    return Spot(top, left, floor, mask & (ev.fg[top : top + h, left : left + w] > 0))


def _search_box(ev: Evidence, bank: TemplateBank, row: int) -> tuple[int, int, int, int]:
    """(top, left, bottom, right) in the padded evidence of every pixel a square's silhouettes
    can reach from any shift of its search."""
    sq = bank.squares[row]
    h, w = sq.support.shape
    reach = bank.offset + 1
    top, left = sq.top + ev.pad - reach, sq.left + ev.pad - reach
    return top, left, top + h + 2 * reach, left + w + 2 * reach


def _explain_away(ev: Evidence, box: tuple[int, int, int, int], spots: list[Spot]) -> Saved:
    """No "cup" left in ``ev`` (in place) inside each of ``spots`` that reaches into ``box``;
    the windows as they were, to put back, each with the spot's ``changed``.

    Each spot's evidence is capped at its ``floor`` (``min(fg, 0)`` where it explains a pixel,
    the value itself elsewhere: ``np.minimum`` with the mask as its ``where`` gave the same
    numbers at half the speed on a silhouette). ``changed`` was taken on the evidence before
    any spot was explained away: where spots overlap, a pixel the first already took to 0 is
    noted by both, which leaves their union, all ``_weighs`` asks of them, as it was."""
    y0, x0, y1, x1 = box
    saved: Saved = []
    for y, x, floor, changed in spots:
        if y >= y1 or x >= x1 or y + floor.shape[0] <= y0 or x + floor.shape[1] <= x0:
            continue
        window = (slice(y, y + floor.shape[0]), slice(x, x + floor.shape[1]))
        saved.append((window, ev.fg[window].copy(), ev.positive[window].copy(), changed))
        np.minimum(ev.fg[window], floor, out=ev.fg[window])
        np.minimum(ev.positive[window], floor, out=ev.positive[window])
    return saved
