"""A board whose own colour changes across it: cups that stand out where the reference put them
can have the wood's colour on other squares.

The frames are the vision bench's bench-12 (natural cups on a varnished oak board, 1280x960;
``tests/data/pale/bench-12``; everything off the board is made one flat grey to keep the files
small, and the reader never looks there). The wood on rank 4 is brighter and whiter than on
rank 1, where the reference white cups stand: a sheen, which does not light the cups. Against
that wood a white 4 has the board's colour; its lit wall read as board, its shaded crescent as
a dark cup, so the white 4 on b4 read as a black 2 and the one on c4 as an empty square on a
board flagged as covered (the rest of the cup, unexplained, looked like a hand).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.vision.pixels import PALE_TEXTURE_TOP, TEXTURE_CLIP
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from tests.shared_calibrations import bench_calibration, frame_truth, frames_calibration

SHEEN = Path(__file__).resolve().parents[1] / "data" / "pale" / "bench-12" / "frames"


@pytest.mark.slow
def test_white_fours_where_the_wood_is_whiter_read_as_white_fours():
    """Calibration sees that its white cups, moved to rank 4, would not stand out, and trusts
    the texture as on a pale board; then every top of both boards reads right, neither board
    is flagged."""
    calibration = frames_calibration(SHEEN)
    reader = BoardReader(calibration)
    for name in ("02b-move", "10b-move"):  # a white 4 on b4; on c4
        obs = reader.read(read_image(SHEEN / f"{name}.jpg"))
        read = {sq: top for sq, top in obs.tops().items() if top is not None}
        assert read == frame_truth(SHEEN, name), name
        assert not obs.occluded, name
    assert calibration.pixels.texture.max() == PALE_TEXTURE_TOP


def test_a_board_whose_cups_stand_out_everywhere_keeps_the_plain_texture():
    """bench-08 (natural cups on maple under a low lamp at one side): its wood's light changes
    across the board too, but its cups stand out on every square whatever that change is made
    of; a higher texture cap there flags hand-free frames as covered (docs/vision-findings.md)."""
    assert bench_calibration("bench-08").pixels.texture.max() == TEXTURE_CLIP[1]
