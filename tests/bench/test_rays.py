"""A light cup's outline along rays from each size's own foot (``benchmarks/rays.py``; measuring only).

The region cue sums a silhouette's evidence over its area: a band of the cup reading as board
(a pale wall in its own shade) counts against the larger size by its whole area. Along rays it
spoils only the rays that cross it, and the median over the rays does not follow them.
"""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.rays import extents, misfits, steps

SCALE = 1.0  # px per mm
SIZE = 121
CENTRE = (60.0, 60.0)
RADII = np.arange(0.0, 60.0, 0.5)
R2, R3, R4 = 15.0, 20.0, 25.0  # the outlines of sizes 2, 3 and 4 (mm; round, no lean)


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
