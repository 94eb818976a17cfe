"""A board learned under a new lamp holds the light, not the cups' shadows.

When learning sees that the light changed since the board in use was learned, it relights the
whole board by the light's change, measured on the frame's bare board and carried under the
cups (``learning.light_change``). Under a strong low lamp the bare board beside each cup holds
its long shadow: averaged in, a square relit by a cup's shade then read its next cup as bare
board or as a smaller one. The board where the lamp (learned again first, ``learning.relit``,
as the device observer does) throws the labelled cups' shadows is left out of that measure.
The frames are the vision bench's bench-24 (``tests/data/lamp/bench-24``): calibrated under
the first lamp, a strong low lamp from frame 16 on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.rules.square import board_squares, parse_square
from companion.vision.learning import Learner, label, relit
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from tests.shared_calibrations import frames_calibration

pytestmark = pytest.mark.slow  # a calibration, the lamp, one learning step and five reads: about 3 s

LAMP = Path(__file__).resolve().parents[1] / "data" / "lamp" / "bench-24" / "frames"
COLOURS = {"white": 0, "black": 1}


def truth(name: str) -> dict[int, tuple[int, int]]:
    squares = board_squares(4)
    tops = json.loads((LAMP / f"{name}.json").read_text())["top"]
    return {squares.index(parse_square(sq)): (COLOURS[t["color"]], t["size"]) for sq, t in tops.items()}


@pytest.mark.parametrize(("taught", "read"), [("16b-move", "19b-move"), ("19b-move", "16b-move")])
def test_a_board_learned_under_a_new_lamp_keeps_its_cups_seen(taught: str, read: str) -> None:
    """Learned from one board under the new lamp (its true tops), the reader still sees a cup
    on every square that holds one on the other, and the white 3 on c4 as a white 3: with the
    cups' shadows averaged into the light's change, c4's 3 read as bare board on both, and the
    board learned from read as covered (504 and 484 mm² of the grid unexplained)."""
    reader = BoardReader(frames_calibration(LAMP))
    image = read_image(LAMP / f"{taught}.jpg")
    lamp = relit(reader, reader.rectified(image), reader.read_details(image, 0.0))
    assert lamp is not None  # the lamp is learned first, as the device observer does
    reader.adopt(lamp)
    Learner(reader).learn(label(reader.rectified(image), truth(taught), reader.read(image)))
    assert not reader.read(image).occluded  # the board it learned from is not read as covered
    seen = reader.read(read_image(LAMP / f"{read}.jpg"))
    tops = truth(read)
    assert all(seen.top(row) is not None for row in tops)
    c4 = board_squares(4).index(parse_square("c4"))
    assert seen.top(c4) == tops[c4] == (0, 3)
