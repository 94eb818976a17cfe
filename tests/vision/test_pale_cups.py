"""Pale cups on a pale board: how far the region cue is trusted for sizes, and what a pale cup
explains.

On such a board the colour model sees only the shaded crescent of a large pale cup's wall as
cup, so the region cue reads a white 4 as a 3 or a 2, and the rest of the cup, left
unexplained, looks like a hand. Calibration can see this on the user's own reference cups: the
region cue misreads them where the cups' base edges read them right. The numbers in the unit
tests below are the reference white cups of the bench's bench-27 (natural cups on birch), as
the reader's logits; the last test reads its committed frames (``tests/data/pale/bench-27``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.errors import CompanionError
from companion.vision.edges import CupOutline, edge_logits, region_trust, size_shares
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from tests.shared_calibrations import frame_truth, frames_calibration

PALE = Path(__file__).resolve().parents[1] / "data" / "pale" / "bench-27" / "frames"

# bench-27's reference white 3 and 4: the region cue's logits per size (they read swapped)
WHITE_3 = np.array([-5.89, -2.76, -0.49, 0.0])
WHITE_4 = np.array([-5.52, -1.42, 0.0, -0.82])


def reference(region: np.ndarray, size: int, colour: int = 0) -> tuple[int, int, np.ndarray, np.ndarray]:
    """A reference cup whose base edges put it at ``size`` (the rim silent)."""
    base = np.full(4, -0.1)
    base[size - 1] = 0.0
    return colour, size, region, edge_logits(base, np.zeros(4))[0]


def test_a_region_cue_that_reads_every_reference_cup_is_trusted_fully():
    cups = [reference(np.eye(4)[s - 1] * 3.0, s, colour) for colour in (0, 1) for s in (1, 2, 3, 4)]
    assert region_trust(cups) == (1.0, 1.0)
    assert region_trust([]) == (1.0, 1.0)  # no reference cups: nothing to doubt


def test_a_region_cue_that_misreads_a_reference_cup_weighs_less_until_the_edges_read_it():
    """On the region cue the white 3 reads a 4 and the white 4 a 3 (the 4's crescent fits
    smaller than the 3's); their base edges read them right. The white weight falls until the
    sum reads both; black keeps 1."""
    white = [reference(WHITE_3, 3), reference(WHITE_4, 4)]
    black = [reference(np.eye(4)[s - 1] * 3.0, s, 1) for s in (1, 2, 3, 4)]
    trust = region_trust(white + black)
    assert trust[1] == 1.0
    assert 0.0 <= trust[0] < 1.0
    for _, size, region, edges in white:
        assert int(np.argmax(trust[0] * region + edges)) == size - 1


def test_a_trusted_region_cue_keeps_the_rims_veto_and_a_doubted_one_lets_the_base_move():
    """A white 4 in the game: the region cue reads 3, the base 4, the rim too faint to tell
    (a spread under the floor) and a hair the other way. Fully trusted, the region's shares
    stand as they always did; doubted, the base moves the size, no surer than the region's 3."""
    region = np.array([[-4.46, -0.99, 0.0, -0.05]])
    base = np.array([[0.0, 0.05, 0.06, 0.07]])
    rim = np.array([[0.0, 0.01, 0.012, 0.011]])
    alone = np.exp(region) / np.exp(region).sum()
    assert size_shares(region, base, rim) == pytest.approx(alone)
    doubted = size_shares(region, base, rim, trust=np.array([0.05]))
    assert int(np.argmax(doubted)) == 3
    assert doubted.max() <= alone.max() + 1e-12
    assert doubted.sum() == pytest.approx(1.0)


def test_a_moved_size_stays_the_size_read():
    """The sum picks 4 far more surely than the region cue was of its 3: brought down to the
    region's top share, the 4 still leads (taking the rest in proportion let the 3 read above
    it)."""
    region = np.array([[-1.43, 0.0, -0.01, -1.04]])
    base = np.array([[0.0, 0.0, 0.05, 0.074]])
    rim = np.array([[0.0, 0.0, 0.01, 0.02]])
    shares = size_shares(region, base, rim, trust=np.array([0.05]))[0]
    assert int(np.argmax(shares)) == 3
    assert list(np.argsort(shares)) == list(np.argsort(0.05 * region[0] + edge_logits(base, rim)[0]))


def test_the_trust_is_saved_and_files_from_before_it_trust_fully(tmp_path):
    outline = CupOutline(1.08, 0.85, 0.6, (0.05, 1.0))
    assert CupOutline.from_json(outline.to_json()) == outline
    old = {"scale": 1.08, "rim_ratio": 0.85, "rim_height": 0.6}
    assert CupOutline.from_json(old).region_trust == (1.0, 1.0)
    for junk in ([0.5], [1.5, 1.0], "high", [None, 1.0]):
        with pytest.raises(CompanionError, match=r"^calibration file: the cups' outline is malformed$"):
            CupOutline.from_json({**old, "region_trust": junk})


def test_pale_white_fours_read_as_fours_and_their_bodies_are_no_hand():
    """bench-27 (natural cups on birch): calibration doubts the white region cue, not the
    black. After ply 8 the white 4s on c1 and c3 read as 3s before (0.46-0.63); after ply 10
    the board was flagged for the marks c3's white 4 hides beyond its apparent outline. Every
    top now reads right, neither board is flagged, and the hand still is."""
    calibration = frames_calibration(PALE)
    assert calibration.outline is not None
    white, black = calibration.outline.region_trust
    assert white < 1.0 and black == 1.0
    reader = BoardReader(calibration)
    for name in ("09b-move", "11b-move"):
        obs = reader.read(read_image(PALE / f"{name}.jpg"))
        assert not obs.occluded, name
        read = {sq: top for sq, top in obs.tops().items() if top is not None}
        assert read == frame_truth(PALE, name), name
    assert reader.read(read_image(PALE / "12a-hand.jpg")).occluded
