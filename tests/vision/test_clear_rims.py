"""A rim the calibration saw read every reference cup of its colour clearly weighs by its own
clarity (``edges.clear_rims``, ``CupOutline.clear_rims``, ``edges.size_shares``).

On the vision bench's bench-31 (natural cups on walnut, dim warm light; the lamp moves, halves
and cools from 07b; ``tests/data/lamp/bench-31``) the white cups' colour moves onto the board's
shadow line under the new lamp and the region cue reads the white 4s on a1 and d2 as 3s, a1's
on 07b at 0.93. Their feet are no edge on this board (a pale cup's lower wall reads like the
wood), so the base circles tie (a1: 0.128 for the 3 against 0.126 for the 4), while the rims,
which the light does not move, say 4 by far (0.151 against 0.039). On the reference frame the
white rims read every white cup's size by 0.059 or more (its black rims misread the 2 and 3).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.errors import CompanionError
from companion.vision.edges import SPREAD_FLOOR, CupOutline, clear_rims, rim_weights, size_shares
from companion.vision.observation import class_index
from tests.shared_calibrations import frame_read, frame_truth, square_row

LAMP = Path(__file__).resolve().parents[1] / "data" / "lamp" / "bench-31" / "frames"

REGION = np.array([[-15.8, -8.9, 0.0, -2.56]])
"""bench-31's a1 on 07b: the region cue's size logits (3 ahead by 2.56, weighed 0.5 under the
moved lamp), its base scores (tied) and its rim's (4 by far)."""
BASE = np.array([[0.068, 0.068, 0.128, 0.126]])
RIM = np.array([[0.033, 0.060, 0.039, 0.151]])


def test_a_colour_has_clear_rims_where_each_reference_cup_leads_by_the_floor() -> None:
    """Every cup of the colour must lead by ``SPREAD_FLOOR``: one cup short of it, or no cup
    at all, leaves the colour's rims weighed as before."""
    lead = SPREAD_FLOOR + 0.01
    white = [(0, size, np.where(np.arange(4) == size - 1, lead, 0.0)) for size in range(1, 5)]
    black = [(1, size, np.where(np.arange(4) == size - 1, lead, 0.0)) for size in range(1, 5)]
    assert clear_rims(white + black) == (True, True)
    short = [(1, 2, np.array([0.0, SPREAD_FLOOR - 0.01, 0.0, 0.0]))]
    assert clear_rims(white + black + short) == (True, False)
    assert clear_rims(white) == (True, False)
    assert clear_rims([]) == (False, False)


def test_a_clear_rim_weighs_by_its_spread_up_to_the_base() -> None:
    """At or under the floor a rim weighs 1, as before; a clear one by its spread over the
    floor, at most 2 (the base's weight)."""
    rims = np.array([[0.0, 0.0, 0.0, 0.02], [0.0, 0.0, 0.0, 0.075], [0.0, 0.0, 0.0, 0.3]])
    assert rim_weights(rims) == pytest.approx([1.0, 1.5, 2.0])


def test_a_clear_rim_moves_a_size_its_tied_base_does_not_dispute() -> None:
    """a1's cues: without clear rims the base, not above the 3, holds the region cue's 3; with
    them the rim carries the sum to the 4, which keeps no more than the region cue's top share;
    a rim of a colour not clear changes nothing."""
    trust = np.array([0.5])
    before = size_shares(REGION, BASE, RIM, trust=trust)
    assert int(np.argmax(before)) == 2
    assert size_shares(REGION, BASE, RIM, trust=trust, clear=np.array([False])) == pytest.approx(before)
    after = size_shares(REGION, BASE, RIM, trust=trust, clear=np.array([True]))
    assert int(np.argmax(after)) == 3
    assert after.max() <= before.max() + 1e-12


def test_a_clear_rim_does_not_move_a_size_the_base_disputes_by_more() -> None:
    """The base's say stays: where it scores the region cue's size well above the rim's, the
    edges' sum does not pick the rim's size and nothing moves."""
    base = np.array([[0.068, 0.068, 0.160, 0.080]])
    shares = size_shares(REGION, base, RIM, trust=np.array([0.5]), clear=np.array([True]))
    assert int(np.argmax(shares)) == 2


def test_the_outline_keeps_its_clear_rims_and_an_old_file_has_none() -> None:
    outline = CupOutline(0.9, 0.75, 0.9, (1.0, 0.5), (True, False))
    assert CupOutline.from_json(outline.to_json()) == outline
    old = {"scale": 0.9, "rim_ratio": 0.75, "rim_height": 0.9, "region_trust": [1.0, 1.0]}
    assert CupOutline.from_json(old).clear_rims == (False, False)
    with pytest.raises(CompanionError):
        CupOutline.from_json({**old, "clear_rims": [1, 0]})


@pytest.mark.slow  # a calibration and a read: about 3 s of CPU
def test_bench_31s_white_4s_under_the_new_lamp_read_as_4s() -> None:
    """bench-31's 07b, calibrated under the first lamp: the white rims are clear, the black
    ones not; a1's and d2's white 4s read as 4s (before the fix: 3s at 0.93 and 0.55) and every
    square as the truth."""
    calibration, observation = frame_read(LAMP, "07b-move")
    assert calibration.outline is not None
    assert calibration.outline.clear_rims == (True, False)
    for square in ("a1", "d2"):
        k = square_row(square)
        assert int(np.argmax(observation.probabilities[k])) == class_index((0, 4), calibration.max_piece)
    truth = frame_truth(LAMP, "07b-move")
    assert {sq: top for sq, top in observation.tops().items() if top is not None} == truth
