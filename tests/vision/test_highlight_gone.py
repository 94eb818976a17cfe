"""A highlight the empty board had at calibration, gone under a moved lamp, is no hand.

The vision bench's bench-03 (``tests/data/bench/bench-03``: pale cups on maple, 640x480) is
calibrated under a lamp that left a highlight on its left margin, the lamp's own colour mixed
into the wood's. From frame 07 on the lamp has moved and the highlight is gone: the wood there
shows its own colour again, off the empty board's by the highlight reversed, and the margin read
as an arm across it (144-396 mm² of the margin even judged under the lamp fitted to each frame).
Judged again under the changed light, the reader now takes the colour back toward the board's
by as much as the highlight had taken it away (``OcclusionTest._sheen_gone``).
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.reader import BoardReader
from tests.shared_calibrations import bench_calibration, bench_frame

pytestmark = pytest.mark.slow  # a calibration and a few reads: about 3 s (loaded machine)


@pytest.mark.parametrize("name", ["07b-move", "09b-move"])
def test_a_board_under_the_moved_lamp_reads_hand_free_at_first_sight(name: str) -> None:
    """07b (the first board under the moved lamp: 356 mm² of the margin on main, the grid
    clear, the fist test -0.07) and 09b (360 mm², fist -0.11), each read once by a fresh
    reader, no time to hold still: flagged by the margin alone on main."""
    reading = BoardReader(bench_calibration("bench-03")).read_details(bench_frame("bench-03", name))
    assert not reading.observation.occluded
    assert reading.still_seconds == 0.0
    assert reading.band_area_mm2 < 150.0


def test_hands_stay_flagged_under_either_lamp() -> None:
    """The hand under the calibration's lamp and the hand under the moved one, read in play
    order after the boards before them."""
    reader = BoardReader(bench_calibration("bench-03"))
    flagged = {}
    for name in ("02a-hand", "02b-move", "07b-move", "08b-move", "09a-hand"):
        flagged[name] = reader.read(bench_frame("bench-03", name)).occluded
    assert flagged["02a-hand"] and flagged["09a-hand"]


def test_only_the_colour_the_highlight_took_is_taken_back() -> None:
    """Where the highlight lay, a residual opposite it is taken back by at most the
    highlight's length; one along it, or across it, is left as it is; and nothing is where
    the empty board was not brighter than its lit board (a stain, the grain)."""
    test = BoardReader(bench_calibration("bench-03")).occlusion
    length = np.hypot(test.sheen[..., 0], test.sheen[..., 1])
    y, x = np.unravel_index(int(np.argmax(length)), length.shape)
    assert length[y, x] > 0.05  # the left margin's highlight, toward the lamp's white
    h = test.sheen[y, x]
    across = np.array([-h[1], h[0]], np.float32)
    for residual, expected in ((-2 * h, -h), (-0.5 * h, 0 * h), (h, h), (across, across)):
        q1 = np.full(length.shape, residual[0], np.float32)
        q2 = np.full(length.shape, residual[1], np.float32)
        back = np.array([a[y, x] for a in test._sheen_gone(q1, q2)])  # (private: that step alone)
        np.testing.assert_allclose(back, expected, atol=1e-6)
    assert not test.sheen[~test.brighter].any()  # no highlight where the wood was not its brightest
    blank = np.zeros_like(length)
    assert all(np.count_nonzero(np.abs(a) > 1e-7) == 0 for a in test._sheen_gone(blank, blank))
