"""A square read empty under another cup's shadow: in doubt, but not of a size ruled out; and
a square whose shade at calibration is gone: the lit wood, no cup.

``along-ranks`` (tests/data/calibration) is the bench's bench-38 empty board and reference
layout; ``04b-move.jpg`` its board after White's b4-a4 (a white 4 on a4, a black 4 on d3). b4,
left empty, lies in d3's 4's long shadow, which the matcher takes for a white 1 or 2; matched
again with that shadow taken for board it holds no cup and reads empty, never sure of it. The
first match had ruled the white 4 out there, and the doubt lifted it back to each other size's
0.12: the referee could not tell the 4 moved away from a fresh 4 put on a4 (docs/vision-findings.md,
"Why bench-38's referee is lost from ply 2"). The doubt now goes to the sizes as the
shadow-free square ranks them (``reader.shadow_doubt``): the white 4 at 0.0004, where it was 0.05.
d2, empty, lay in a reserve stack's shade at calibration; Black has played from that stack, and
the lit wood there read a white 1 (0.46) that every help request lit: it is the lit board's
look where the shade lay, and reads empty (``BoardReader._outside_lit_shade``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.rules.square import BLACK, WHITE
from companion.vision.calibration import calibrate
from companion.vision.observation import Observation, class_index
from companion.vision.reader import SHADOW_DOUBT, BoardReader, shadow_doubt
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


def test_the_shadowed_square_holds_no_cup_the_shadow_free_evidence_rules_out(
    after_b4_a4: Observation,
) -> None:
    """The referee tells b4-a4 from a fresh 4 put on a4 by b4 alone: its empty against its
    white 4 must beat the referee's margin (4 nats, about 55 to 1), as every larger size falls
    behind the smaller ones with the shadow undone. Main read the 4 at 0.056 (9 to 1)."""
    empty = float(after_b4_a4.probabilities[after_b4_a4.row("b4"), 0])
    assert empty / white(4, after_b4_a4) > 55.0
    sizes = [white(size, after_b4_a4) for size in (1, 2, 3, 4)]
    assert sizes == sorted(sizes, reverse=True)


def test_the_doubt_follows_the_shadow_free_match() -> None:
    """The doubt holds as much of a cup as every size at the old floor did (empty at 0.75 at
    most, never sure), shared between the sizes as the match without the shadow ranks them:
    sizes it reads alike keep the old floor alike; and no size is surer than the first match
    had it."""
    unit = 2.0
    floor = -SHADOW_DOUBT * unit
    np.testing.assert_allclose(shadow_doubt(np.full(4, 5.0), np.full(4, -3.0), unit), np.full(4, floor))
    again = np.array([-3.0, -5.0, -7.0, -12.0])
    doubt = shadow_doubt(np.full(4, 5.0), again, unit)
    assert np.exp(doubt / unit).sum() == pytest.approx(4 * np.exp(-SHADOW_DOUBT))
    np.testing.assert_allclose(np.diff(doubt), np.diff(again))
    first = np.array([5.0, 5.0, 5.0, -20.0])
    assert shadow_doubt(first, again, unit)[3] == -20.0


def test_the_lit_wood_where_the_shade_lay_reads_empty(after_b4_a4: Observation) -> None:
    """d2 read a white 1 at 0.46 on main (the lit wood, brighter than the shaded empty board);
    the real cups around stay as read (a4's white 4, d3's black 4) and the board hand-free."""
    assert after_b4_a4.top("d2") is None
    assert after_b4_a4.top("a4") == (WHITE, 4)
    assert after_b4_a4.top("d3") == (BLACK, 4)
    assert not after_b4_a4.occluded
