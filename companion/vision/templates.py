"""Each square's cup silhouettes, precomputed for fast matching.

For every square and every (colour, size) the bank holds the soft silhouette a cup standing
on that square's centre would have in the rectified view. They depend only on geometry
(camera centre, square, cup), so they are built once per calibration (or re-location) and
each frame only correlates them with the evidence map. Cups are rarely placed dead centre,
so matching searches shifts up to ``max_offset_mm``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np

from companion.vision.cups import (
    CIRCLE_BITS,
    SUPERSAMPLE,
    CupSet,
    cross_sections,
    draw_silhouette,
    fixed_point_circles,
)
from companion.vision.geometry import BoardLayout, RectifiedView
from companion.vision.kept import Kept

MAX_OFFSET_MM = 9.0


@dataclass(frozen=True)
class SquareTemplates:
    """One square's silhouettes over a frame of the rectified view at (top, left)."""

    top: int
    left: int
    full: np.ndarray  # (2, S, h, w) float32: colour, size - 1
    flat: np.ndarray  # (2, h*w, S) float32: the same, ready for a matrix product
    support: np.ndarray  # (h, w): where any cup on this square could show
    support_centre: tuple[float, float]  # (row, column) centroid of ``support``
    rows: np.ndarray  # 0..h-1 as float32, for centroids
    cols: np.ndarray  # 0..w-1
    masks: np.ndarray  # (2, S, h, w) uint8: 255 where a silhouette shows at all
    areas: np.ndarray  # (2, S) silhouette areas in pixels
    weight: np.ndarray  # (h, w) uint8: 1 where any silhouette (any colour, size) has weight
    """Where a match of this square can read the evidence at all, for ``matching.match_apart``
    to tell whether a change concerns it: made with the silhouettes (they change only with a
    new bank), where each square matched again apart took it from them again (6 a read)."""

    @cached_property
    def by_size(self) -> np.ndarray:
        """``flat`` transposed, (2, S, h*w) float32, contiguous: a size's template a row, for
        ``matching.neighbourhood_scores``. Made on first use, once a bank."""
        return np.ascontiguousarray(self.flat.transpose(0, 2, 1))

    @cached_property
    def derived(self) -> dict[tuple[object, ...], np.ndarray]:
        """Arrays made from the silhouettes by the reader's steps, by their own keys, each made
        once a bank on first use (``matching._explains``): the silhouettes never change, and
        each read made them again."""
        return {}

    @cached_property
    def shown(self) -> tuple[tuple[tuple[np.ndarray, np.ndarray], ...], ...]:
        """Per colour and size (``[colour][size - 1]``), the (rows, columns) of the pixels
        ``masks`` shows, in row-major order: the silhouette's pixels of a view gathered by
        their places (``occlusion.unlike_share``) rather than by a boolean mask, which
        copies them in the same order at a fifth of the cost. Made on first use, once a bank."""
        return tuple(tuple(_places(mask) for mask in per_colour) for per_colour in self.masks)


def _places(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns) of a 2-D mask's non-zero pixels, row by row."""
    rows, cols = np.nonzero(mask)
    return rows, cols


@dataclass(frozen=True)
class TemplateBank:
    """Silhouettes of every square, plus how far a cup may sit off centre (pixels)."""

    squares: tuple[SquareTemplates, ...]
    offset: int  # full-resolution pixels
    pad: int  # the evidence map must be padded by this many pixels on each side
    drawn: Silhouettes | None = field(default=None, repr=False, compare=False)
    """Its silhouettes by the cup each shows: what a bank built after a learning step that
    moved a size or two takes as drawn (``build_bank``'s ``before``)."""

    def reach(self) -> tuple[slice, slice]:
        """The part of the view any silhouette at any shift covers (rows, columns): all the
        matcher reads of the colour map."""
        reach = self.offset + 1
        top = max(min(sq.top for sq in self.squares) - reach, 0)
        left = max(min(sq.left for sq in self.squares) - reach, 0)
        bottom = max(sq.top + sq.support.shape[0] for sq in self.squares) + reach
        right = max(sq.left + sq.support.shape[1] for sq in self.squares) + reach
        return slice(top, bottom), slice(left, right)


def cup_sections(centre_mm: np.ndarray, cups: CupSet, camera_mm: np.ndarray) -> list[list[np.ndarray]]:
    """Every cup's cross-sections on a square: ``[colour][size - 1]``."""
    return [
        [
            cross_sections(
                centre_mm, cups.radii[colour][size - 1], cups.heights[colour][size - 1], cups.shape, camera_mm
            )
            for size in range(1, cups.max_piece + 1)
        ]
        for colour in (0, 1)
    ]


def frame_around(
    view: RectifiedView, centre_mm: np.ndarray, sections: list[np.ndarray]
) -> tuple[int, int, int, int]:
    """(top, left, height, width) of a square frame of the rectified view holding them all."""
    extent = max(float(np.max(np.hypot(*(sec[:, :2] - centre_mm).T) + sec[:, 2])) for sec in sections)
    u, v = view.to_pixels(np.asarray(centre_mm)[None, :])[0]
    half = math.ceil(extent * view.scale) + 2
    return int(v) - half, int(u) - half, 2 * half + 2, 2 * half + 2


def _origin(view: RectifiedView, top: int, left: int) -> np.ndarray:
    """The board point (mm) at the view's pixel (top, left)."""
    x0, y1 = view.origin_mm
    return np.array([x0 + left / view.scale, y1 - top / view.scale])


def draw_at(view: RectifiedView, frame: tuple[int, int, int, int], sections: np.ndarray) -> np.ndarray:
    """Draw sections over a frame (top, left, height, width) of the rectified view."""
    top, left, h, w = frame
    return draw_silhouette(sections, _origin(view, top, left), view.scale, (h, w))


def draw_together(
    view: RectifiedView, frames: Sequence[tuple[int, int, int, int]], sections: Sequence[np.ndarray]
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``draw_at`` for many frames, by shape: the frames' indices and their masks (m x h x w).

    A calibration draws thousands of silhouettes; one at a time each paid for its own
    supersampled canvas and resize. Here the frames of one shape are drawn one under another on
    one canvas and take one resize. Each mask is ``draw_at``'s to the bit: every frame starts
    on a whole pixel, each pixel averages its own block, and a frame holds its discs (the
    frames here are made around them), so none reaches into the next."""
    one = 1 << CIRCLE_BITS
    shapes: dict[tuple[int, int], list[int]] = {}
    for i, (_, _, h, w) in enumerate(frames):
        shapes.setdefault((h, w), []).append(i)
    for (h, w), index in shapes.items():
        big = np.zeros((len(index) * h * SUPERSAMPLE, w * SUPERSAMPLE), np.uint8)
        for j, i in enumerate(index):
            down = j * h * SUPERSAMPLE * one  # the frame's place on the canvas
            top, left = frames[i][:2]
            for u, v, r in fixed_point_circles(sections[i], _origin(view, top, left), view.scale):
                cv2.circle(big, (u, v + down), r, 255, -1, cv2.LINE_8, CIRCLE_BITS)
        small = cv2.resize(big, (w, len(index) * h), interpolation=cv2.INTER_AREA)
        yield np.array(index), (small.astype(np.float32) / 255.0).reshape(len(index), h, w)


def draw_many(
    view: RectifiedView, frames: Sequence[tuple[int, int, int, int]], sections: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """``draw_at`` for each frame (``draw_together``), in their order."""
    masks: list[np.ndarray] = [np.empty((0, 0), np.float32)] * len(frames)
    for index, drawn in draw_together(view, frames, sections):
        for i, mask in zip(index.tolist(), drawn, strict=True):
            masks[i] = mask
    return masks


Frame = tuple[int, int, int, int]
"""(top, left, height, width) of a part of the rectified view."""
Silhouette = tuple[int, int, np.ndarray]
"""(top, left, mask) of a cup's silhouette on the rectified view."""
SCENE_SILHOUETTES = 1024
"""The most silhouettes a scene keeps (``calibration.BoardScene``: calibration's, a learning
step's). Calibration drew 216-224 on bench-05, 08 and 24; their first three steps 56-387 each;
each silhouette 14-50 kB (640x480 to 1280x960), so at most some 50 MB for a step's life."""


DrawnCup = tuple[int, float, float, float, Frame | None]
"""A cup's silhouette as ``Silhouettes`` keeps it: the cup on the square of row ``row``
(``board_squares`` order) with that apparent radius, height and shape (``CupSet``), over
``frame`` of the view, None: the frame just big enough for it (``frame_around``). A plain
tuple: a learning step asks for hundreds, and a named one took twice as long to make."""


class Silhouettes:
    """Cups' silhouettes on one view seen from one camera centre, each drawn once, by the cup
    it shows (``DrawnCup``), at most ``bound`` kept (the least lately asked for dropped).

    Drawn again, a silhouette is the same to the bit (``draw_together``), so what is kept only
    spares the drawing. A learning step (a scene of its own, ``calibration.BoardScene``) asked
    for half of its silhouettes twice or more: the cups it fits again beside the other cups'
    shadows, and each cup at its radius in use among its scan of radii. The reader's bank,
    built again when a step moved a size or two, takes the cups that did not move from the bank
    before (``build_bank``: the bank's store, bound to the cups of one bank)."""

    def __init__(self, layout: BoardLayout, view: RectifiedView, camera_mm: np.ndarray, bound: int) -> None:
        self.layout, self.view, self.bound = layout, view, bound
        self.camera_mm = np.array(camera_mm)  # (a copy: the key of all it keeps)
        self._kept: Kept[DrawnCup, Silhouette] = Kept(bound)

    @classmethod
    def reused(
        cls,
        store: Silhouettes | None,
        layout: BoardLayout,
        view: RectifiedView,
        camera_mm: np.ndarray,
        bound: int,
    ) -> Silhouettes:
        """``store`` when it draws on that layout and view from that camera centre with that
        bound, else a new one. Reused, the store is the new bank's as well as the old one's,
        and ``keep`` puts the new bank's masks in it: safe because the reader drops the old
        bank when it builds the new one, and both banks' masks are the same numbers."""
        if store is not None and store._on(layout, view, camera_mm) and store.bound == bound:
            return store
        return cls(layout, view, camera_mm, bound)

    def _on(self, layout: BoardLayout, view: RectifiedView, camera_mm: np.ndarray) -> bool:
        return (layout, view) == (self.layout, self.view) and np.array_equal(camera_mm, self.camera_mm)

    def drawn(
        self, cups: Sequence[DrawnCup], sections: Sequence[np.ndarray] | None = None
    ) -> list[Silhouette]:
        """Each cup's silhouette (read-only), those not kept drawn together. ``sections``:
        each cup's ``cross_sections``, where the caller worked them out already (the bank
        does, to find its frames); else those of the cups drawn are worked out here."""
        return self._kept.get_all(
            cups,
            lambda new: self._draw(new, {} if sections is None else dict(zip(cups, sections, strict=True))),
        )

    def keep(self, cups: Sequence[DrawnCup], silhouettes: Sequence[Silhouette]) -> None:
        """Keep each cup's silhouette as given (the same numbers as drawn; read-only from now
        on) in place of the one drawn: the bank's store keeps views of the bank's own arrays,
        so one bank's silhouettes are kept once, not twice."""
        for _, _, mask in silhouettes:
            mask.setflags(write=False)
        self._kept.put(zip(cups, silhouettes, strict=True))

    def __len__(self) -> int:
        """How many it keeps."""
        return len(self._kept)

    def _draw(self, cups: list[DrawnCup], given: dict[DrawnCup, np.ndarray]) -> list[Silhouette]:
        """The cups' silhouettes drawn together (``draw_many``), each over its frame, or one
        found around it."""
        sections, frames = [], []
        for cup in cups:
            row, radius, height, shape, frame = cup
            centre = np.array(self.layout.square_centre(row))
            sec = (
                given[cup] if cup in given else cross_sections(centre, radius, height, shape, self.camera_mm)
            )
            sections.append(sec)
            frames.append(frame_around(self.view, centre, [sec]) if frame is None else frame)
        masks = draw_many(self.view, frames, sections)
        for mask in masks:
            mask.setflags(write=False)  # shared by every caller that asks for it
        return [(top, left, mask) for (top, left, _, _), mask in zip(frames, masks, strict=True)]


def build_bank(
    layout: BoardLayout,
    view: RectifiedView,
    camera_mm: np.ndarray,
    cups: CupSet,
    max_offset_mm: float = MAX_OFFSET_MM,
    before: TemplateBank | None = None,
) -> TemplateBank:
    """Every square's silhouettes of every cup in ``cups``, and how far the matcher shifts
    them. Those ``before`` (a bank built earlier) drew already, for the same cup over the same
    frame, are taken from it: a learning step moves a size or two, and the reader's bank was
    drawn again whole, 15-19 ms of CPU on bench-08's board (the EPYC); 6-8 ms with one white
    size moved, 12-15 with the largest black cup, whose frames grow."""
    offset = math.ceil(max_offset_mm * view.scale)
    squares = []
    pad = 0
    rows, cols = view.shape
    squares_sections = [
        [
            sec
            for per_colour in cup_sections(np.array(layout.square_centre(row)), cups, camera_mm)
            for sec in per_colour
        ]
        for row in range(layout.size * layout.size)
    ]
    frames = [
        frame_around(view, np.array(layout.square_centre(row)), sections)
        for row, sections in enumerate(squares_sections)
    ]
    cups_drawn = [
        (row, radius, cups.heights[colour][size], cups.shape, frames[row])
        for row in range(len(frames))
        for colour, radii in enumerate(cups.radii)
        for size, radius in enumerate(radii)
    ]
    store = Silhouettes.reused(
        None if before is None else before.drawn, layout, view, camera_mm, len(cups_drawn)
    )
    sections = [sec for per_square in squares_sections for sec in per_square]
    drawn = [mask for _, _, mask in store.drawn(cups_drawn, sections)]
    per_square = len(squares_sections[0])
    views: list[Silhouette] = []  # the bank's own arrays, for the store to keep
    for row, frame in enumerate(frames):
        top, left, h, w = frame
        pad = max(
            pad,
            offset + 1 - top,
            offset + 1 - left,
            top + h + offset + 1 - rows,
            left + w + offset + 1 - cols,
        )
        full = np.array(drawn[row * per_square : (row + 1) * per_square], dtype=np.float32).reshape(
            2, cups.max_piece, h, w
        )
        views.extend((top, left, mask) for mask in full.reshape(-1, h, w))
        flat = np.ascontiguousarray(full.reshape(2, cups.max_piece, h * w).transpose(0, 2, 1))
        support = full[:, -1].max(axis=0)
        ys, xs = np.mgrid[0:h, 0:w]
        mass = float(support.sum())
        centre_px = (float((support * ys).sum() / mass), float((support * xs).sum() / mass))
        squares.append(
            SquareTemplates(
                top,
                left,
                full,
                flat,
                support,
                centre_px,
                np.arange(h, dtype=np.float32),
                np.arange(w, dtype=np.float32),
                np.where(full > 0.01, 255, 0).astype(np.uint8),
                full.sum(axis=(2, 3)),
                np.asarray(full.any(axis=(0, 1)), dtype=np.uint8),
            )
        )
    store.keep(cups_drawn, views)
    return TemplateBank(tuple(squares), offset, max(pad, 0), store)
