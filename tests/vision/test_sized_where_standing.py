"""A cup the colour evidence drags away from where it stands is sized where it stands as well
(``BoardReader._placed``).

Under a new low raking lamp a pale cup's shaded wall, lit by the light the wood throws back,
reads as shadowed wood. The region cue's silhouette then slides to its search's edge, away
from that band, and a smaller size reads best there: the vision bench's bench-24 (natural cups
on grey-washed wood, a strong low lamp from frame 16 on; ``tests/data/lamp/bench-24``) read its
white 4s on b1 and b2 as 3s. Where the cup stands (its base circle, placed by the camera pose,
which no lamp moves) the 4 reads best. Calibrated under the first lamp, read under the second.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from companion.vision.matching import evidence, match_all, match_at
from companion.vision.observation import class_index
from companion.vision.reader import PLACED_MM, BoardReader
from companion.vision.sources import read_image
from tests.shared_calibrations import frames_calibration, square_row

pytestmark = pytest.mark.slow  # a calibration and a few reads: about 3 s of CPU

LAMP = Path(__file__).resolve().parents[1] / "data" / "lamp" / "bench-24" / "frames"
SURE = 0.9


row = square_row


def truth(name: str) -> dict[int, tuple[int, int]]:
    record = json.loads((LAMP / f"{name}.json").read_text())
    return {row(sq): (0 if t["color"] == "white" else 1, t["size"]) for sq, t in record["top"].items()}


@pytest.mark.parametrize(
    ("name", "square"), [("16b-move", "b1"), ("19b-move", "b1"), ("24b-move", "b1"), ("24b-move", "b2")]
)
def test_a_pale_4_dragged_off_its_base_reads_as_a_4(name: str, square: str) -> None:
    """Each of these white 4s is matched 8 mm or more from where its base stands (the lamp
    moved the region cue); read, its most likely class is a white 4 (before the fix: a white 3
    on 16b b1, 24b b1 and 24b b2)."""
    calibration = frames_calibration(LAMP)
    reading = BoardReader(calibration).read_details(read_image(LAMP / f"{name}.jpg"))
    k = row(square)
    assert reading.standing is not None
    matched, standing = reading.matches[k], reading.standing[k]
    apart = np.hypot(matched.dy - standing.dy, matched.dx - standing.dx) / calibration.view.scale
    assert apart >= PLACED_MM
    probabilities = reading.observation.probabilities[k]
    assert int(np.argmax(probabilities)) == class_index((0, 4), calibration.max_piece)


@pytest.mark.parametrize("name", ["16b-move", "19b-move", "24b-move"])
def test_no_square_under_the_new_lamp_is_read_wrong_and_sure(name: str) -> None:
    """A size the reader cannot tell comes out unsure, never sure and wrong."""
    calibration = frames_calibration(LAMP)
    observation = BoardReader(calibration).read(read_image(LAMP / f"{name}.jpg"))
    tops = truth(name)
    for k in range(observation.probabilities.shape[0]):
        if observation.confidence(k) >= SURE:
            assert observation.top(k) == tops.get(k), f"row {k} read wrong and sure"


def test_a_match_scored_where_it_was_found_keeps_its_score() -> None:
    """``match_at`` at the shift the matcher climbed to gives the matcher's own scores there."""
    calibration = frames_calibration(LAMP)
    reader = BoardReader(calibration)
    rect = reader.rectified(read_image(LAMP / "24b-move.jpg"))
    ev = evidence(rect, reader.background, reader.models.pixels, reader.bank.pad)
    for m, sq in zip(match_all(ev, reader.bank), reader.bank.squares, strict=True):
        again = match_at(ev, sq, m.colour, m.dy, m.dx)
        assert again.sizes[m.size - 1] == pytest.approx(m.sizes[m.size - 1], rel=1e-4, abs=1e-3)
