"""The calibration's own shade is left out of the judgement whether the light changed
(``pixels.lit_wood``, ``Background.light_judged``): a shadow the empty board's margin carried
at calibration, and no longer carries, is not light come since.

The bench's bench-26 (``tests/data/shadows/bench-26``: a lamp 0.42 m up at one side) was
calibrated with the reserve cups standing beside the board, their three long shadows across
its left margin. By its last board (18b) the big reserves are played: those strips read
brighter than the empty board, the board's cups throw their shadows over a third of the margin,
and the light field fitted to all of it bent to a range of 0.50 in log, "the light changed",
where it had not, and the region cue was trusted less on that board (``LAMP_REGION_TRUST``)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.pixels import lit_unevenly
from companion.vision.reader import BoardReader
from companion.vision.shadows import light_changed, light_seen
from companion.vision.sources import read_image
from tests.shared_calibrations import LONG_SHADOWS, long_shadows_calibration


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    return BoardReader(long_shadows_calibration())


def last_board(reader: BoardReader) -> np.ndarray:
    """18b-move on the board plane."""
    return reader.rectified(read_image(LONG_SHADOWS / "18b-move.jpg"))


def test_the_reserve_cups_shade_is_left_out_of_the_light_judged(reader: BoardReader) -> None:
    background = reader.background
    assert background.lit_rows is not None
    gone = np.setdiff1d(np.arange(len(background.band_sample)), background.lit_rows)
    assert len(gone) > 0.05 * len(background.band_sample)  # the three shadows' strips
    xs = background.band_sample[gone] % background.band.shape[1]
    assert xs.max() < 0.2 * background.band.shape[1]  # all in the left margin, where they fell


def test_a_fresh_reader_reads_the_last_board_under_the_calibration_light(reader: BoardReader) -> None:
    field = light_seen(reader.background, last_board(reader))
    assert not lit_unevenly(field)
    assert not light_changed(field)


@pytest.mark.parametrize("change", ["a lamp across the board", "one gain"])
def test_a_light_changed_over_the_calibration_shade_still_reads_changed(
    reader: BoardReader, change: str
) -> None:
    """The last board lit anew: brighter towards the right by 0.4 in log, or dimmer by 0.25
    everywhere, reads as another light, the shade left out or not."""
    board = last_board(reader).astype(np.float32)
    h, w = board.shape[:2]
    if change == "one gain":
        ratio = np.full((h, w), np.exp(-0.25), np.float32)
    else:
        ratio = np.exp(np.linspace(-0.2, 0.2, w, dtype=np.float32))[None, :].repeat(h, axis=0)
    relit = np.clip(board * ratio[:, :, None], 0, 255).astype(np.uint8)
    field = light_seen(reader.background, relit)
    assert light_changed(field)
    assert lit_unevenly(field) == (change != "one gain")
