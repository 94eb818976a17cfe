"""A hand at the board's corner: a marker's label partly covered flags the frame.

The margin band stops short of the markers, and a marker counts as covered only when its
picture stops correlating with the calibration's at all, so a sleeve over the board's corner
and a part of one marker (the vision bench's bench-17, 11a-hand) was read as hand-free. The
labels' patterns are compared in the hidden marks' log contrast (``marks.py``): light and
shadows multiply and leave a pattern as it was, a hand wipes out the part it covers.

Frames here are the committed bench-11's empty board (``tests/data/bench``, rendered; nothing
here renders), changed by hand: a sleeve painted over a corner, light and shade, a shift."""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np
import pytest

from companion.vision.markers import QUIET_MM
from companion.vision.marks import HIDDEN_MM2, LABEL_ALIKE, HiddenMarks
from companion.vision.occlusion import BAND_OCCLUDED_MM2, FIST_LOG_ODDS, GRID_OCCLUDED_MM2
from companion.vision.reader import STILL_SECONDS, BoardReader
from companion.vision.sources import read_image
from companion.vision.surround import ARM_MM2
from tests.shared_calibrations import BENCH, bench_calibration, bench_frame

SCENE = "bench-11"
SLEEVE_BGR = (110, 70, 50)  # a blue sleeve
CORNER_CUT_MM = -40.0
"""The sleeve covers the board where x + y < this (board mm, the grid's a1 corner at the
origin): the board's corner and a corner of the a1 marker's label 26.5 mm along each of its
edges, about a third of it (bench-17's sleeve covers nearly half of one). The margin band lies
wholly outside it; the marker still correlates as found (a cut at -30 mm is the first to turn
it "changed")."""
CLEAR_OF_BOARD_MM = -75.0
"""A cut that stops short of the board's corner (x + y = -70) by 3.5 mm."""


def sleeve_over_corner(image: np.ndarray, cut: float = CORNER_CUT_MM, reach: float = 200.0) -> np.ndarray:
    """``image`` with a flat sleeve-coloured shape over the a1 corner, reaching in from off the
    board (``reach`` mm beyond the grid's corner on each side: 200 crosses the picture's edge,
    as an arm does) to the line x + y = ``cut`` (board mm)."""
    c = bench_calibration(SCENE)
    k = image.shape[1] / c.camera.image_size[0]
    corners_mm = np.array([(-reach, cut + reach), (cut + reach, -reach), (-reach, -reach)])
    polygon = np.round(c.camera.to_image(corners_mm) * k).astype(np.int32)
    out = image.copy()
    cv2.fillConvexPoly(out, polygon, SLEEVE_BGR)
    return out


@cache
def marks() -> tuple[HiddenMarks, np.ndarray]:
    """bench-11's marks with its four labels (each marker's square and quiet zone), and its
    empty board's grey on the board plane."""
    c = bench_calibration(SCENE)
    labels = []
    for k in range(4):
        centre = c.layout.marker_corners(k).mean(axis=0)
        half = c.layout.marker_mm / 2 + QUIET_MM
        (x0, y0), (x1, y1) = np.sort(c.view.to_pixels(np.array([centre - half, centre + half])), axis=0)
        labels.append((int(y0), int(np.ceil(y1)), int(x0), int(np.ceil(x1))))
    gray = cv2.cvtColor(c.background, cv2.COLOR_BGR2GRAY)
    return HiddenMarks(gray, c.scale, tuple(labels)), gray


def all_free(gray: np.ndarray) -> np.ndarray:
    return np.full(gray.shape, 255, np.uint8)


def test_a_sleeve_over_a_corner_of_the_board_is_flagged() -> None:
    """No band crossed, no marks' patch hidden, the marker still correlating as found: only
    its label's pattern shows the sleeve."""
    reader = BoardReader(bench_calibration(SCENE))
    reading = reader.read_details(sleeve_over_corner(bench_frame(SCENE, "00-empty")))
    assert reading.markers_changed == 0
    assert reading.band_area_mm2 <= BAND_OCCLUDED_MM2
    assert reading.grid_area_mm2 <= GRID_OCCLUDED_MM2
    assert reading.fist_log_odds <= FIST_LOG_ODDS
    assert reading.hidden_area_mm2 <= HIDDEN_MM2
    assert reading.labels_alike < LABEL_ALIKE
    assert reading.observation.occluded


def test_a_sleeve_beside_the_board_leaves_every_label_whole() -> None:
    """The same sleeve stopping 3.5 mm short of the board's corner leaves every label whole: the
    empty board reads hand-free, the sleeve is flagged only as an arm beside the board, crossing
    the picture's edge (``surround.py``)."""
    reader = BoardReader(bench_calibration(SCENE))
    empty = reader.read_details(bench_frame(SCENE, "00-empty"))
    assert empty.labels_alike > 0.97
    assert empty.beside_mm2 < ARM_MM2
    assert not empty.observation.occluded
    sleeve = reader.read_details(sleeve_over_corner(bench_frame(SCENE, "00-empty"), CLEAR_OF_BOARD_MM))
    assert sleeve.labels_alike > 0.97
    assert sleeve.beside_mm2 >= ARM_MM2
    assert sleeve.observation.occluded


def test_light_and_a_shadow_across_a_label_leave_it_alike() -> None:
    """A dimmer lamp, light falling off across the board and a shadow's edge across the a1
    label (half of it at 45 % of the light) multiply the light: in log contrast the pattern
    stays."""
    labels, gray = marks()
    h, w = gray.shape
    ramp = np.linspace(0.5, 1.1, w, dtype=np.float32)[None, :] * np.ones((h, 1), np.float32)
    shade = np.ones((h, w), np.float32)
    _, _, x0, x1 = labels.labels[0]
    shade[:, : (x0 + x1) // 2 * labels.step] = 0.45
    shade = cv2.GaussianBlur(shade, (0, 0), 2.0)
    for factor in (np.float32(0.6), ramp, shade):
        changed = np.clip(gray * factor, 0, 255).astype(np.uint8)
        assert labels.labels_alike(changed, all_free(gray)) > 0.97


def test_a_picture_a_pixel_off_leaves_the_labels_alike() -> None:
    """Up to 1.5 px the reader does not find the board again: the labels are compared at the
    best of small shifts."""
    labels, gray = marks()
    for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
        shifted = np.roll(np.roll(gray, dx, axis=1), dy, axis=0)
        assert labels.labels_alike(shifted, all_free(gray)) > 0.97


def test_a_label_a_cup_found_covers_is_not_judged() -> None:
    """A tall cup on a corner square leans over the marker beside it in the picture: where the
    cups found cover most of a label, it is left out, wiped or not."""
    labels, gray = marks()
    y0, y1, x0, x1 = (v * labels.step for v in labels.labels[0])
    wiped = gray.copy()
    wiped[y0:y1, x0:x1] = int(np.median(gray))
    assert labels.labels_alike(wiped, all_free(gray)) < LABEL_ALIKE
    free = all_free(gray)
    free[y0:y1, x0:x1] = 0
    assert labels.labels_alike(wiped, free) > 0.97


def test_a_board_without_markers_has_no_labels_to_judge() -> None:
    _, gray = marks()
    bare = HiddenMarks(gray, bench_calibration(SCENE).scale)
    assert bare.labels_alike(np.zeros_like(gray), all_free(gray)) == 1.0


def test_a_sleeve_held_still_at_the_corner_passes_as_a_still_board() -> None:
    """A partly covered label is moderate evidence: every square is in view, and a still
    picture with it reaches the referee after ``STILL_SECONDS`` like a lamp's shadows do (a
    label's pattern changed some other way, a stain or a cup stood against the corner, must
    not keep the board from the referee for good). The patch here stops 80 mm off the corner,
    short of the picture's edge: a sleeve crossing it is an arm (``surround.py``), which the
    board's stillness does not release."""
    reader = BoardReader(bench_calibration(SCENE))
    frame = sleeve_over_corner(bench_frame(SCENE, "00-empty"), reach=80.0)
    fps = 5.0
    flags = [reader.read(frame, k / fps).occluded for k in range(round((STILL_SECONDS + 0.6) * fps))]
    assert flags[0] and not flags[-1]


@pytest.mark.slow  # reads every frame of three scenes: a second or two
@pytest.mark.parametrize("scene", ["bench-03", "bench-08", "bench-11"])
def test_every_hand_free_frame_keeps_its_labels(scene: str) -> None:
    """Moved lamps (bench-03), long cup shadows (bench-08): no hand-free frame of the committed
    scenes comes near the limit."""
    reader = BoardReader(bench_calibration(scene))
    for path in sorted((BENCH / scene / "frames").glob("*b-move.jpg")):
        assert reader.read_details(read_image(path)).labels_alike > 0.97, path.name
