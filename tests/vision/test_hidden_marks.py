"""The board's own marks a hand hides (``marks.py``): a cue for hands whatever their colour.

On the vision bench's committed frames (``tests/data/bench``, rendered; nothing here renders)
and on the empty board of one of them, changed by hand: light, shade and a picture a pixel off
leave the marks in view; a pale patch, the board's own colour, hides them."""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np
import pytest

from companion.vision.marks import HIDDEN_MM2, HiddenMarks
from companion.vision.occlusion import BAND_OCCLUDED_MM2, FIST_LOG_ODDS, GRID_OCCLUDED_MM2
from companion.vision.reader import STILL_SECONDS, BoardReader
from companion.vision.sources import read_image
from tests.shared_calibrations import BENCH, bench_calibration, bench_frame


@cache
def empty_board() -> tuple[HiddenMarks, np.ndarray, float]:
    """bench-11's marks, its empty board's grey on the board plane, and the view's px/mm."""
    c = bench_calibration("bench-11")
    gray = cv2.cvtColor(c.background, cv2.COLOR_BGR2GRAY)
    return HiddenMarks(gray, c.scale), gray, c.scale


def all_free(gray: np.ndarray) -> np.ndarray:
    return np.full(gray.shape, 255, np.uint8)


def crossing_disc() -> np.ndarray:
    """uint8 mask (255) of a disc 60 mm across over a grid crossing of bench-11's empty board."""
    _, gray, scale = empty_board()
    c = bench_calibration("bench-11")
    centre = np.round(c.view.to_pixels(np.array([c.layout.grid_corners()[0] + 60.0]))[0]).astype(int)
    disc = np.zeros(gray.shape, np.uint8)
    cv2.circle(disc, (int(centre[0]), int(centre[1])), round(30 * scale), 255, -1)
    return disc


def test_a_pale_fist_the_colour_of_the_board_is_flagged() -> None:
    """bench-11's fist over the d-file's edge (03a-hand): skin close to the birch board's colour, no
    arm across the margin. The colour evidence stays under every limit; the grid lines and
    the margin's grain it hides flag it."""
    reading = BoardReader(bench_calibration("bench-11")).read_details(bench_frame("bench-11", "03a-hand"))
    assert reading.band_area_mm2 <= BAND_OCCLUDED_MM2
    assert reading.grid_area_mm2 <= GRID_OCCLUDED_MM2
    assert reading.fist_log_odds <= FIST_LOG_ODDS
    assert reading.hidden_area_mm2 > 2 * HIDDEN_MM2
    assert reading.observation.occluded


def test_a_pale_fist_held_still_stays_flagged() -> None:
    """A picture held still lets moderate colour evidence pass (changed light looks like that);
    hidden marks never do: a shadow or a lamp leaves them in view, a hand does not."""
    reader = BoardReader(bench_calibration("bench-11"))
    fist = bench_frame("bench-11", "03a-hand")
    fps = 5.0
    assert all(reader.read(fist, k / fps).occluded for k in range(round((STILL_SECONDS + 1) * fps)))


@pytest.mark.parametrize(
    ("scene", "name"),
    [("bench-03", "13b-move"), pytest.param("bench-08", "12b-move", marks=pytest.mark.slow)],
)
def test_changed_light_and_long_shadows_hide_no_marks(scene: str, name: str) -> None:
    """bench-03 after its lamp moved and changed colour, bench-08 under a low lamp whose cups
    cast long shadows across lines: the marks stay in view (the colour test flags both on a
    single read; they pass once still)."""
    reading = BoardReader(bench_calibration(scene)).read_details(bench_frame(scene, name))
    assert reading.hidden_area_mm2 < HIDDEN_MM2 / 4


@pytest.mark.slow  # reads every frame of three scenes: a second or two
@pytest.mark.parametrize("scene", ["bench-03", "bench-08", "bench-11"])
def test_every_hand_free_frame_shows_its_marks(scene: str) -> None:
    """No hand-free frame of the committed scenes hides a hand's worth of marks."""
    reader = BoardReader(bench_calibration(scene))
    for path in sorted((BENCH / scene / "frames").glob("*b-move.jpg")):
        assert reader.read_details(read_image(path)).hidden_area_mm2 < HIDDEN_MM2 / 4, path.name


def test_light_changes_leave_the_marks_in_view() -> None:
    """Exposure, a dimmer lamp and shading that falls across the board multiply the light;
    in log brightness a mark's contrast does not change."""
    marks, gray, _ = empty_board()
    h, w = gray.shape
    ramp = (
        np.linspace(0.45, 1.1, w, dtype=np.float32)[None, :]
        * np.linspace(1.0, 0.7, h, dtype=np.float32)[:, None]
    )
    for changed in (gray * np.float32(0.6), gray * ramp):
        assert marks.hidden_mm2(np.clip(changed, 0, 255).astype(np.uint8), all_free(gray)) < 20


def test_a_picture_a_pixel_off_shows_its_marks() -> None:
    """The reader finds the board again only when its markers move by more than 1.5 px: up to
    that, the picture is compared as it is, a pixel or so off."""
    marks, gray, _ = empty_board()
    for dx, dy in ((1, 0), (0, 1), (1, 1)):
        shifted = np.roll(np.roll(gray, dx, axis=1), dy, axis=0)
        assert marks.hidden_mm2(shifted, all_free(gray)) < HIDDEN_MM2 / 4


def test_a_patch_of_the_boards_own_colour_hides_its_marks_unless_a_cup_explains_it() -> None:
    """A smooth disc 60 mm across in the board's median grey, over a grid crossing: the lines
    and grain under it read hidden (only patches that showed marks are judged: plain wood with
    faint grain is not, so about a third of the disc here). Where the cups found cover it
    (``free`` 0) nothing is."""
    marks, gray, _ = empty_board()
    disc = crossing_disc()
    covered = gray.copy()
    covered[disc > 0] = int(np.median(gray))
    assert 2 * HIDDEN_MM2 < marks.hidden_mm2(covered, all_free(gray)) < np.pi * 35.0**2
    assert marks.hidden_mm2(covered, cv2.bitwise_not(cv2.dilate(disc, np.ones((9, 9), np.uint8)))) == 0


def test_a_lamp_that_adds_light_leaves_the_marks_in_view_but_not_a_patch_over_them() -> None:
    """A lamp that adds light (half the board's light and 100 grey levels more, as bench-38's high
    warm lamp lifts its grid lines from 0.37 to about 0.7 of the wood's grey) lowers every mark's
    log contrast alike: all of the board's patches fell under ``FADED`` (22,375 mm² on main).
    Against the board's own fade (``own_fade``) none is hidden; a disc of the board's colour
    60 mm across under the same lamp still hides its marks."""
    marks, gray, _ = empty_board()
    lamp = np.clip(gray * np.float32(0.5) + np.float32(100), 0, 255).astype(np.uint8)
    assert marks.own_fade(lamp, all_free(gray)) < 0.3
    assert marks.hidden_mm2(lamp, all_free(gray)) < HIDDEN_MM2 / 4
    lamp[crossing_disc() > 0] = int(np.median(lamp))
    assert marks.hidden_mm2(lamp, all_free(gray)) > 2 * HIDDEN_MM2
