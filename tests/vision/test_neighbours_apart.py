"""Each cup found is matched again with the other cups found taken for no cup
(``matching.match_apart``).

The evidence says "cup" for any cup, so where the cups beside a square lean or crowd into its
search, its larger silhouettes score them too. The vision bench's bench-05 (yellow and red cups
on cherry, 1280x960; ``tests/data/crowded/bench-05``: its calibration frames and one game frame)
has a yellow 3 on b4 with a yellow 4 leaning in from b3 and a red 4 from a4: the 4's silhouette
slid 9 mm onto them and read best, a white 4 at 0.98 (before the fix).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.vision.matching import evidence, match_all, match_apart
from companion.vision.observation import class_index
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from tests.shared_calibrations import frame_read, frame_truth, frames_calibration, square_row

pytestmark = pytest.mark.slow  # a 1280x960 calibration and a few reads: about 4 s of CPU

CROWDED = Path(__file__).resolve().parents[1] / "data" / "crowded" / "bench-05" / "frames"
FRAME = "23b-move"
SURE = 0.9


row = square_row


def test_a_3_between_two_leaning_4s_reads_as_a_3() -> None:
    """The yellow 3 on b4 reads most likely a white 3 (main: a white 4 at 0.98)."""
    calibration, observation = frame_read(CROWDED, FRAME)
    probabilities = observation.probabilities[row("b4")]
    assert int(np.argmax(probabilities)) == class_index((0, 3), calibration.max_piece)


def test_no_square_of_the_crowded_board_is_read_wrong_and_sure() -> None:
    _, observation = frame_read(CROWDED, FRAME)
    tops = {row(sq): top for sq, top in frame_truth(CROWDED, FRAME).items()}
    assert not observation.occluded
    for k in range(observation.probabilities.shape[0]):
        if observation.confidence(k) >= SURE:
            assert observation.top(k) == tops.get(k), f"row {k} read wrong and sure"


def test_the_neighbours_explained_away_leave_the_3_its_size() -> None:
    """The cause, at the matcher: b4 matched alone fits a 4 slid onto its neighbours; matched
    with them taken for no cup, a 3. The cups with no neighbour in their search keep their
    match as it was."""
    calibration = frames_calibration(CROWDED)
    reader = BoardReader(calibration)
    rect = reader.rectified(read_image(CROWDED / f"{FRAME}.jpg"))
    ev = evidence(rect, reader.background, reader.models.pixels, reader.bank.pad)
    alone = match_all(ev, reader.bank)
    apart = match_apart(ev, reader.bank, alone)
    b4 = row("b4")
    assert (alone[b4].colour, alone[b4].size) == (0, 4)
    assert (apart[b4].colour, apart[b4].size) == (0, 3)
    for m, again in zip(alone, apart, strict=True):
        if m.sizes[m.size - 1] <= 0:
            assert again is m  # no cup found: never matched again


def test_a_lone_cup_is_not_matched_again() -> None:
    """With fewer than two cups found there is no neighbour to explain away."""
    calibration = frames_calibration(CROWDED)
    reader = BoardReader(calibration)
    rect = reader.rectified(read_image(CROWDED / "00-empty.jpg"))
    ev = evidence(rect, reader.background, reader.models.pixels, reader.bank.pad)
    alone = match_all(ev, reader.bank)
    assert match_apart(ev, reader.bank, alone) is alone
