"""A size one camera angle keeps misreading is learned away, from what the referee is sure of
and nothing else (issue 11, point 3; ``companion.vision.learning``, ``device.vision_link``).

bench-26 (a lamp 0.42 m up at one side): its calibration made every black cup a little large,
so c1's black 3, placed at ply 6, read as a 2 on every board after it. Calibration no longer
does (the reference fits that found no edge are left out of the set's line), so these tests
give the reader the black radii it learned then (``large_blacks``): learning must still mend a
calibration that is off. The referee is unsure of other plies all game (ply 5's white cup on
b2, ply 7's on d4), and those doubts must neither stop c1 from teaching the reader nor let a
guess teach it."""

from __future__ import annotations

import dataclasses
from functools import cache

import numpy as np

from companion.device.vision_link import squares_in_doubt
from companion.rules.square import board_squares, square_name
from companion.vision.calibration import Calibration
from companion.vision.cups import CupSet
from companion.vision.learning import Learner, label
from companion.vision.observation import Observation, class_index
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from tests.shared_calibrations import LONG_SHADOWS, frame_truth, long_shadows_calibration

ORDER = [square_name(sq) for sq in board_squares(4)]
WHITE, BLACK = 0, 1
AFTER_PLY_9 = "10b-move"
"""b2-c2 just played: c1 holds the black 3 (ply 6), read as a 2; the referee doubts ply 5
(3b2 or 4b2, the cup now on c2) and ply 7 (3d4 or 4d4)."""
IN_DOUBT_AFTER_PLY_9 = frozenset({"b2", "c2", "d4"})
LATER = "17b-move"
"""Eight plies on: c1's black 3 still stands, black 4s on a2, c3, d1 and d3."""


LARGE_BLACK_RADII = (14.985, 19.945, 23.105, 30.465)
LARGE_BLACK_HEIGHTS = (31.413, 40.173, 45.786, 59.735)
"""bench-26's black cups as calibration learned them before the reference
fits at the top of the radius scan were left out of the set's line: its black 4 fitted the
scan's top (34.3 mm) and tilted the line, every black cup a little large (the game's black 3s
fit 21.7 mm, its 2s 18.0)."""


@cache
def large_blacks() -> Calibration:
    """bench-26's calibration with ``LARGE_BLACK_RADII`` (the white cups as calibrated)."""
    calibration = long_shadows_calibration()
    cups = calibration.cups
    black = CupSet((cups.radii[0], LARGE_BLACK_RADII), (cups.heights[0], LARGE_BLACK_HEIGHTS), cups.shape)
    return dataclasses.replace(calibration, cups=black)


def rows(names: frozenset[str]) -> frozenset[int]:
    return frozenset(ORDER.index(name) for name in names)


def learned_from(
    name: str, doubt: frozenset[str], held: dict[str, tuple[int, int]] | None = None
) -> BoardReader:
    """A fresh bench-26 reader after one step learned from frame ``name``, labelled with the
    truth (or what the referee ``held`` instead) and the squares in ``doubt`` left out."""
    reader = BoardReader(large_blacks())
    image = read_image(LONG_SHADOWS / f"{name}.jpg")
    tops = {ORDER.index(sq): top for sq, top in {**frame_truth(LONG_SHADOWS, name), **(held or {})}.items()}
    Learner(reader).learn(label(reader.rectified(image), tops, reader.read(image), rows(doubt)))
    return reader


def misread(reader: BoardReader, name: str) -> dict[str, object]:
    truth = frame_truth(LONG_SHADOWS, name)
    seen = reader.read(read_image(LONG_SHADOWS / f"{name}.jpg"))
    return {sq: seen.top(sq) for sq in ORDER if seen.top(sq) != truth.get(sq)}


def test_a_ply_in_doubt_leaves_the_cups_placed_after_it_sure() -> None:
    """bench-26 after ply 10: the referee doubts ply 5 (b2) and ply 10 (d1). Ply 6's black 3 on
    c1 and ply 7's cup on d4 came from the reserve, the same cups on every path: they are sure.
    b2-c2 at ply 9 carried ply 5's doubted cup on to c2."""
    moved = {5: ("b2",), 6: ("c1",), 7: ("d4",), 8: ("c3",), 9: ("b2", "c2"), 10: ("d1",)}
    unsure = {5: ["3b2", "4b2"], 10: ["2d1", "3d1", "4d1"]}
    assert squares_in_doubt(unsure, moved) == {"b2", "c2", "d1"}
    # a cup moved on to a square from one that is not in doubt is sure there too
    assert squares_in_doubt({5: ["3b2", "4b2"]}, {5: ("b2",), 6: ("c3", "a1")}) == {"b2"}


def test_a_size_the_camera_keeps_misreading_is_learned_away() -> None:
    """One sure frame (c1 labelled, the squares in doubt left out) teaches the black 3 its
    apparent radius, and the black 2 it was read as moves a ring away from it: eight plies later
    the whole board reads right, c1 included. Before, nothing of the 2 moved and c1 still read
    as one, and the black 4 grew into the cups in doubt beside the one it was fitted on.
    (Unlearned, the reader also doubts a2's black 4, matched 11 mm from where its base stands
    and sized there as well: a 3 at 0.6.)"""
    calibrated = large_blacks().cups.radii[BLACK]
    before = BoardReader(large_blacks())
    wrong = misread(before, LATER)
    assert wrong["c1"] == (BLACK, 2) and set(wrong) <= {"c1", "a2"}
    reader = learned_from(AFTER_PLY_9, IN_DOUBT_AFTER_PLY_9)
    radii = reader.models.cups.radii[BLACK]
    assert radii[1] < calibrated[1] - 1.0 and radii[2] < calibrated[2]  # both toward what c1 showed
    assert np.all(np.diff(radii) > 0)
    assert misread(reader, LATER) == {}
    assert reader.read(read_image(LONG_SHADOWS / f"{LATER}.jpg")).confidence("c1") > 0.5


def test_a_cup_in_doubt_teaches_nothing_even_when_the_referee_holds_the_misread() -> None:
    """The same frame with c1 in doubt and the referee holding what the camera saw (a black 2):
    no black 2 or 3 is learned from it, and c1 reads as it did. A learned wrong size needs a
    referee sure of a wrong position, which learning never takes from a doubt."""
    calibrated = large_blacks().cups.radii[BLACK]
    held = {"c1": (BLACK, 2)}
    reader = learned_from(AFTER_PLY_9, IN_DOUBT_AFTER_PLY_9 | {"c1"}, held)
    assert reader.models.cups.radii[BLACK][1:3] == calibrated[1:3]
    assert misread(reader, LATER) == {"c1": (BLACK, 2)}


def test_a_cup_is_not_fitted_into_the_cups_in_doubt_beside_it() -> None:
    """bench-26 after ply 8: only d3's black 4 and b4's white 4 are sure. d3 stands beside c3
    (ply 8, 2c3 or 4c3) and d4 (ply 7): their cups, explained away as at calibration, are not
    part of d3's fit. Left in, they grew the black 4 to 1.17 times the calibration's in one step
    (its cups then fit about 0.96 of it), and later black 4s on a2 and d1 read as 3s."""
    calibrated = large_blacks().cups.radii[BLACK][3]
    reader = learned_from("09b-move", frozenset({"c1", "b2", "c3", "d4"}))
    assert reader.models.cups.radii[BLACK][3] < 1.08 * calibrated


def c1_read(black_2: float, black_3: float, rest: tuple[int, int] = (BLACK, 4)) -> Observation:
    """A board whose c1 (truth: a black 3) reads a black 2 at ``black_2``, a 3 at ``black_3``
    and the ``rest`` cup at what is left; every other square sure and empty."""
    seen = Observation.from_tops({})
    probabilities = seen.probabilities.copy()
    probabilities[ORDER.index("c1")] = 0.0
    for top, p in (((BLACK, 2), black_2), ((BLACK, 3), black_3), (rest, 1.0 - black_2 - black_3)):
        probabilities[ORDER.index("c1"), class_index(top, 4)] = p
    return dataclasses.replace(seen, probabilities=probabilities)


def test_a_cup_read_right_by_a_hair_was_taken_for_its_neighbour() -> None:
    """c1's black 3 on 10b, as the two releases read it with ``large_blacks``: OpenCV 5.0 a 2
    at 0.445 (the 3 at 0.363), 4.11 a 3 at 0.445 (the 2 at 0.413). Both took it for a 2, and
    learning pushes the 2 away on both (``test_a_size_the_camera_keeps_misreading_is_learned_away``
    failed on 4.11 before). A 3 read sure, or clearly likelier than the 2 (``NEAR_TIE``), or
    read second as a white cup, takes nothing."""
    c1 = ORDER.index("c1")
    blank = np.zeros((1, 1, 3), np.uint8)
    for black_2, black_3 in ((0.445, 0.363), (0.413, 0.445)):
        assert label(blank, {c1: (BLACK, 3)}, c1_read(black_2, black_3)).read_as == {c1: 2}
    assert label(blank, {c1: (BLACK, 3)}, c1_read(0.005, 0.992)).read_as == {}
    assert label(blank, {c1: (BLACK, 3)}, c1_read(0.3, 0.6)).read_as == {}
    assert label(blank, {c1: (BLACK, 3)}, c1_read(0.1, 0.6, rest=(WHITE, 3))).read_as == {}
