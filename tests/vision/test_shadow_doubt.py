"""A square read empty under another cup's shadow: in doubt, but not of a size ruled out.

``along-ranks`` (tests/data/calibration) is the bench's bench-38 empty board and reference
layout; ``04b-move.jpg`` its board after White's b4-a4 (a white 4 on a4, a black 4 on d3). b4,
left empty, lies in d3's 4's long shadow, which the matcher takes for a white 1 or 2; matched
again with that shadow taken for board it holds no cup and reads empty, never sure of it. The
first match had ruled the white 4 out there, and the doubt lifted it back to each other size's
0.12: the referee could not tell the 4 moved away from a fresh 4 put on a4 (docs/vision.md,
"Why bench-38's referee is lost from ply 2")."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.rules.square import WHITE
from companion.vision.calibration import calibrate
from companion.vision.observation import Observation, class_index
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image

ALONG_RANKS = Path(__file__).resolve().parents[1] / "data" / "calibration" / "along-ranks"


@pytest.fixture(scope="module")
def after_b4_a4() -> Observation:
    empty = read_image(str(ALONG_RANKS / "00-empty.jpg"))
    reference = read_image(str(ALONG_RANKS / "01-reference.jpg"))
    return BoardReader(calibrate(empty, reference)).read(read_image(str(ALONG_RANKS / "04b-move.jpg")))


def white(size: int, observation: Observation) -> float:
    """The probability that b4 holds a white cup of ``size``."""
    return float(observation.probabilities[observation.row("b4"), class_index((WHITE, size), 4)])


def test_the_shadowed_square_reads_empty_but_not_sure(after_b4_a4: Observation) -> None:
    assert after_b4_a4.top("b4") is None
    assert after_b4_a4.confidence("b4") < 0.75  # the shadow's doubt kept
    assert white(1, after_b4_a4) > 0.1  # a faint real cup in the shadow stays possible


def test_the_size_the_shadowed_match_ruled_out_stays_out(after_b4_a4: Observation) -> None:
    assert white(4, after_b4_a4) < 0.08  # was 0.12, as likely as the sizes found there
    assert white(4, after_b4_a4) < white(1, after_b4_a4) / 2
