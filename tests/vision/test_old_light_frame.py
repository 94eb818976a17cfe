"""A frame seen under the lamp just replaced is not learned as the new lamp's first.

Learning waits for the next clean move to confirm a stable frame. When the lamp is learned
again in between (``learning.relit``, once the first board under it has held still), the frame
waiting shows the old light: confirmed, it was learned as the first sure frame under the new
lamp, moving the colour models a third of the way toward the old light's look. The committed
bench-03's lamp is moved, dimmed and warmed from frame 07: its board 06b is the last under the
calibration's light, 07b the first under the new lamp.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.rules.square import Square, square_name
from companion.vision.learning import ObserverLearning
from companion.vision.reader import STILL_SECONDS, BoardReader
from companion.vision.sources import read_image
from tests.shared_calibrations import frame_truth, frames_calibration

pytestmark = pytest.mark.slow  # a calibration, the lamp learned and a few reads: about 4 s

BENCH = Path(__file__).resolve().parents[1] / "data" / "bench" / "bench-03" / "frames"


class Position:
    """The referee's position after a board, as learning asks it: the board's true tops."""

    def __init__(self, name: str) -> None:
        self.tops = frame_truth(BENCH, name)

    def top(self, sq: Square) -> tuple[int, int] | None:
        return self.tops.get(square_name(sq))


def shown(learning: ObserverLearning, name: str, start: float, seconds: float) -> None:
    """The board ``name`` shown still from ``start`` for ``seconds`` (5 frames a second), every
    frame read and seen by learning, the last one stable; the referee then announces a move."""
    reader = learning.learner.reader
    image = read_image(BENCH / f"{name}.jpg")
    for k in range(int(seconds * 5) + 1):
        learning.seen(image, reader.read_details(image, start + k / 5))
    learning.stable(image, reader.read(image, start + seconds))
    learning.judged(["move"], Position(name))


def test_the_board_before_the_lamp_changed_is_not_learned_under_the_new_lamp() -> None:
    calibration = frames_calibration(BENCH)
    learning = ObserverLearning(BoardReader(calibration))
    shown(learning, "05b-move", 0.0, 1.0)
    shown(learning, "06b-move", 10.0, 1.0)  # confirms 05b (the same light): learned
    learned = learning.learner.calibration.learned
    assert learned is not None and learned.frames == 1 and learned.shadows is None
    white = learned.pixels.light.mean

    shown(learning, "07b-move", 20.0, STILL_SECONDS + 0.4)  # the new lamp, learned again
    learned = learning.learner.calibration.learned
    assert learned is not None and learned.shadows is not None
    assert learned.frames == 0  # 06b, shown under the old lamp, was not learned as its first
    assert np.array_equal(learned.pixels.light.mean, white)  # nor moved the colours toward it

    shown(learning, "08b-move", 30.0, 1.0)  # confirms 07b, under the new lamp: learned
    learned = learning.learner.calibration.learned
    assert learned is not None and learned.frames == 1


def test_a_frame_already_under_the_new_lamp_is_kept() -> None:
    """07b, the first board under the new lamp, passed before the picture had held still long
    enough to learn the lamp; the lamp is learned on 08b, and 07b, under it already, is learned
    when 08b's move confirms it."""
    calibration = frames_calibration(BENCH)
    learning = ObserverLearning(BoardReader(calibration))
    shown(learning, "06b-move", 0.0, 1.0)
    shown(learning, "07b-move", 10.0, 1.0)  # too short to learn the lamp: nothing relearned
    learned = learning.learner.calibration.learned
    assert learned is None or learned.shadows is None

    shown(learning, "08b-move", 20.0, STILL_SECONDS + 0.4)  # the lamp learned; 07b confirmed
    learned = learning.learner.calibration.learned
    assert learned is not None and learned.shadows is not None
    assert learned.frames == 1
