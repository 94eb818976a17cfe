"""The board shaded at calibration, now showing the lit board's look, is board.

The bench's bench-32 (``tests/data/shadows/bench-32``: natural cups on pale maple, a lamp low
beyond the board's far side) has reserve cups standing beyond its far edge at calibration: their
shadow lies across the margin beside a3. On 08b that shade is lit again (brighter, and warmer
than the shadow line allows), and the margin read as an arm: 160 mm² of it, over the 150 that
flag one, the grid clear. Where the empty board lay in shade and the frame now shows the lit
margin's own look, the colour may no longer say "not board" (``OcclusionTest._lit_again``).
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.occlusion import LIT_LOOK_LOG, LIT_LOOK_SPREADS
from companion.vision.reader import BoardReader
from tests.shared_calibrations import LONG_SHADOWS, PALE_SHADOWS, frame_read, frames_calibration

pytestmark = pytest.mark.slow  # a calibration and a read each: about 1 s of CPU


def test_the_reserves_shade_lit_again_reads_hand_free_at_first_sight() -> None:
    """08b read once by a fresh reader: flagged by the margin alone on main (160 mm²)."""
    _, observation = frame_read(PALE_SHADOWS, "08b-move")
    assert not observation.occluded


@pytest.mark.parametrize(("frames", "name"), [(LONG_SHADOWS, "07a-hand")])
def test_a_hand_over_the_board_stays_flagged(frames: object, name: str) -> None:
    """bench-26's hand, beside the board over its margin, where its cups' shadows lay."""
    _, observation = frame_read(frames, name)  # type: ignore[arg-type]
    assert observation.occluded


def test_only_the_lit_look_where_the_shade_lay_is_taken_for_board() -> None:
    """A map pixel shaded at calibration is taken back only when its brightness and colour are
    those of this frame's margin lit at calibration; a colour off by more than the spreads
    allowed, a brightness off by more than the log allowed, or a pixel that was lit, is not."""
    test = BoardReader(frames_calibration(PALE_SHADOWS)).occlusion
    assert test.was_shaded.any() and (~test.was_shaded).any()
    # (private: the test's one step, on features made up to put each pixel at a look)
    lit_look = np.median(test._empty_look[test._lit_margin], axis=0)
    board_lit = lit_look - test._empty_look  # features that put every pixel at the lit look
    spread = LIT_LOOK_SPREADS * test.pixels.chroma_sigma
    again = test._lit_again(board_lit)
    np.testing.assert_array_equal(again, test.was_shaded)
    for shift in ((0.0, 1.5 * spread, 0.0), (2 * LIT_LOOK_LOG, 0.0, 0.0), (0.0, 0.0, -1.5 * spread)):
        off = board_lit + np.where(test.was_shaded[..., None], np.float32(shift), np.float32(0))
        assert not test._lit_again(off).any()
