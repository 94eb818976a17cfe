"""A light cup's outline along rays from each size's own foot (``rays.py``), and the reader
turning a light cup between the two largest sizes where the rays and both edges agree
(``BoardReader._turned``), never to the larger where its shadow falls toward the camera.

The region cue sums a silhouette's evidence over its area: a band of the cup reading as board
(a pale wall in its own shade) counts against the larger size by its whole area. Along rays it
spoils only the rays that cross it, and the median over the rays does not follow them.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.calibration import calibrate
from companion.vision.rays import extents, misfits, shadow_toward_camera, steps, turned
from companion.vision.reader import BoardReader
from companion.vision.synth import SceneRenderer
from tests.shared_calibrations import PALE_SHADOWS, frame_read, frame_truth, square_row

SCALE = 1.0  # px per mm
SIZE = 121
CENTRE = (60.0, 60.0)
RADII = np.arange(0.0, 60.0, 0.5)
R2, R3, R4 = 15.0, 20.0, 25.0  # the outlines of sizes 2, 3 and 4 (mm; round, no lean)
W1, W2, W3, W4, B1, B2, B4 = (0, 1), (0, 2), (0, 3), (0, 4), (1, 1), (1, 2), (1, 4)


def disc(radius: float, inside: float = 2.0, outside: float = -2.0) -> np.ndarray:
    """A log-odds map: ``inside`` within ``radius`` of the centre, ``outside`` beyond."""
    rows, cols = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    near = np.hypot(rows - CENTRE[0], cols - CENTRE[1]) <= radius
    return np.where(near, inside, outside).astype(np.float32)


def outlines() -> np.ndarray:
    """(3, RAYS): the 2's, 3's and 4's outlines along the rays, as ``extents`` finds them."""
    return np.stack([extents((disc(r) > 0).astype(np.float32), CENTRE, RADII) for r in (R2, R3, R4)])


def ray_misfits(evidence: np.ndarray, others: np.ndarray | None = None) -> np.ndarray:
    """The log-odds map's (1, 2) misfits of a 3 and a 4 standing on the centre."""
    blocked = np.zeros((SIZE, SIZE), np.float32) if others is None else others
    return misfits([(evidence, (0, 0), False)], [CENTRE, CENTRE], outlines(), blocked, SCALE)


def test_a_ray_steps_where_its_evidence_turns_to_board() -> None:
    """The step that best splits a ray lies where its values turn from cup to board; a ray
    whose cup runs on to the end of its search found no step."""
    values = np.where(RADII <= 22.0, 1.0, -1.0)[None, :]
    at, found = steps(values, RADII, np.array([10.0]), np.array([40.0]))
    assert found[0] and at[0] == pytest.approx(22.5)
    _, found = steps(np.ones((1, len(RADII))), RADII, np.array([10.0]), np.array([40.0]))
    assert not found[0]


def test_a_whole_4_fits_the_4_and_a_whole_3_the_3() -> None:
    four, three = ray_misfits(disc(R4))[0], ray_misfits(disc(R3))[0]
    assert four[1] < four[0]
    assert three[0] < three[1]


def test_a_4_with_a_band_of_its_wall_reading_board_still_fits_the_4() -> None:
    """A quarter of the 4's outline, from the 3's edge out, reads as board (its wall in its
    own shade): the region cue's sum loses that band's whole area against the 4, the rays'
    median only the quarter of the rays that cross it."""
    evidence = disc(R4)
    rows, cols = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    shaded = (cols - CENTRE[1] > 0) & (rows - CENTRE[0] > 0) & (np.hypot(rows - 60, cols - 60) > R3 - 1)
    evidence[shaded] = -2.0
    fit = ray_misfits(evidence)[0]
    assert fit[1] < fit[0]


def test_rays_facing_another_cup_are_left_out() -> None:
    """A 3 beside a neighbour whose evidence runs into it reads the 3 once the rays facing
    that neighbour are left out; with them every ray there finds the neighbour's far edge or
    none, and too few rays are left when most of them face it."""
    evidence = disc(R3)
    neighbour = np.zeros((SIZE, SIZE), np.float32)
    neighbour[:, 60 + int(R3) + 1 :] = 1.0
    evidence[:, 60 + int(R3) + 1 :] = 2.0
    fit = ray_misfits(evidence, neighbour)[0]
    assert fit[0] < fit[1]
    everywhere = np.ones((SIZE, SIZE), np.float32)
    assert np.isnan(ray_misfits(disc(R3), everywhere)).all()


def test_a_size_is_turned_only_where_every_map_says_the_other() -> None:
    both_say_3 = np.array([[1.0, 2.0], [1.5, 3.0]])
    one_says_4 = np.array([[1.0, 2.0], [3.0, 1.5]])
    assert turned(both_say_3, read_large=True)
    assert not turned(both_say_3, read_large=False)
    assert not turned(one_says_4, read_large=True)
    assert not turned(np.array([[1.0, np.nan], [1.0, 2.0]]), read_large=True)


@pytest.mark.slow  # a calibration and a read: about 1 s of CPU
def test_a_white_3_beside_a_lit_neighbour_reads_a_3() -> None:
    """The bench's bench-32 (``tests/data/shadows/bench-32``: natural cups on pale maple, a lamp
    low beyond the far side), 06b: c2's white 3 read a 4 at 0.59 before the rays; its base and
    rim say 3, and so do the rays from each size's foot on the log-odds and on the texture."""
    _, observation = frame_read(PALE_SHADOWS, "06b-move")
    truth = frame_truth(PALE_SHADOWS, "06b-move")
    assert truth["c2"] == (0, 3)
    assert observation.top("c2") == (0, 3)
    assert observation.confidence("c2") < 0.9  # (turned, it is held no surer than it was read)
    for square, top in truth.items():
        assert observation.top(square) == top, square


@pytest.mark.slow  # a calibration and two reads: about 2 s of CPU
def test_no_turn_to_the_larger_size_where_the_shadow_falls_toward_the_camera() -> None:
    """The synthetic stress set's stress-45 (pale cups on light wood, a lamp 36 degrees up on the
    far side of the cups from the camera): its white 3s on d2 (frame 00) and d4 (frame 06) throw
    their shadows over the half of their foot the base is scored on. The base, the rim and the
    rays from each size's foot (the 3's foot drawn into the shadow's edge) all say 4 of them,
    and the region cue alone reads the 3 it is."""
    renderer = SceneRenderer(1045, stress=True)
    reader = BoardReader(calibrate(renderer.empty(), renderer.reference()))
    boards = (  # (the renderer's frame: the empty board and the reference are its first two)
        (
            3,
            "d2",
            {
                "a1": W2,
                "b1": W2,
                "d1": B1,
                "a2": B2,
                "d2": W3,
                "a3": B1,
                "d3": B4,
                "a4": B4,
                "c4": B1,
                "d4": B2,
            },
        ),
        (
            9,
            "d4",
            {
                "a1": B1,
                "b1": W2,
                "c1": W4,
                "d1": W1,
                "a2": B4,
                "b2": B2,
                "c2": W1,
                "a3": B4,
                "d3": B4,
                "a4": B4,
                "c4": B1,
                "d4": W3,
            },
        ),
    )
    for frame, square, tops in boards:
        reading, trace = reader.read_traced(renderer.render(tops, frame=frame))
        cues = trace.squares[square_row(square)]
        assert cues.base is not None and cues.rim is not None
        assert cues.base[3] > cues.base[2] and cues.rim[3] > cues.rim[2]  # the edges say 4
        assert shadow_toward_camera(reader.models, square_row(square))
        assert not cues.turned
        assert reading.observation.top(square) == (0, 3)
