"""Shade tinted by the light lit cups bounce into it (``ShadowModel.tints``), and a cup found
standing on no foot in another cup's shadow (``BaseFits.footless``).

The bench's bench-44 (``tests/data/shadows/bench-44``: natural cups on birch, a low lamp at one
side): beside a lit natural cup the shade takes the cup's warm light, its colour shifted 0.06 to
0.1 per unit of darkening where the shade line learned from the whole reference frame says 0.025;
that shade is what a natural cup's shaded wall looks like, and empty squares in it read as white
2s and 3s at 0.41 to 0.46 (3.1 to 3.8 rings, over the faint gate). The reference frame shows the
same range of tints (its grid's shade beside the white rank, its margin's far from any lit cup),
and none of those squares has a cup's foot.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from companion.vision.edges import BaseFits, edge_maps
from companion.vision.matching import evidence, match_all
from companion.vision.reader import SHADOW_REMATCH_RINGS, BoardReader
from companion.vision.shadows import ShadowModel, tint_range
from companion.vision.sources import read_image
from tests.shared_calibrations import BOUNCED_SHADE, frame_read, frame_truth, frames_calibration, square_row

WHITE = 0
MODEL = ShadowModel(along=(1.0, 0.0), depth=-1.4, hue=(0.02, 0.03), slack=0.03)
TINTED = ((0.0, 0.0), (0.07, 0.09))


def test_the_reference_shade_gives_the_range_of_its_tints() -> None:
    """Half the shade far from any lit cup (no tint), half beside one (0.07, 0.09 per unit):
    the range runs from about the one to about the other, where one shade line lies between."""
    rng = np.random.default_rng(0)
    m = rng.uniform(-1.2, -0.5, 2000)
    tint = np.where(rng.random(2000)[:, None] < 0.5, 0.0, np.array([0.07, 0.09]))
    shade = np.c_[m, m[:, None] * tint + rng.normal(0, 0.005, (2000, 2))]
    found = tint_range(shade)
    assert found is not None
    ends = sorted(found, key=lambda t: float(np.hypot(*t)))
    assert np.hypot(*ends[0]) < 0.015 and np.allclose(ends[1], (0.07, 0.09), atol=0.015)
    assert tint_range(shade[:10]) is None  # too few deep pixels to say


def test_shade_tinted_within_the_range_is_lifted_and_a_sleeve_is_not() -> None:
    beside_a_cup = np.array([-0.8, -0.8 * 0.07, -0.8 * 0.09], np.float32)
    sleeve = np.array([-0.5, 0.2, -0.15], np.float32)
    f = np.stack([beside_a_cup, sleeve]).reshape(1, 2, 3)
    shadow = np.full((1, 2), 255, np.uint8)
    one_line = MODEL.lift(f, shadow)
    assert np.hypot(*one_line[0, 0, 1:]) > 0.02  # off the one line by more than its slack
    lifted = dataclasses.replace(MODEL, tints=TINTED).lift(f, shadow)
    assert np.abs(lifted[0, 0]).max() < 1e-6
    assert np.hypot(*lifted[0, 1, 1:]) > 0.2  # a colour of its own


def test_a_shadow_model_keeps_its_tints_and_one_from_before_them_loads_without() -> None:
    model = dataclasses.replace(MODEL, tints=TINTED)
    assert ShadowModel.from_json(model.to_json()) == model
    before = model.to_json()
    del before["tints"]
    assert ShadowModel.from_json(before).tints is None


@pytest.mark.slow  # a calibration and a read each: about 1 s of CPU
@pytest.mark.parametrize("name", ["04b-move", "06b-move", "08b-move"])
def test_empty_squares_in_bounced_shade_read_empty_and_the_cups_keep_their_colour(name: str) -> None:
    """04b's c3, a3 and b4 and 08b's c1 and b2 read as white cups before; the real white cups
    around them in the same shade (a4's 3, b3's 4) keep their colour."""
    _, observation = frame_read(BOUNCED_SHADE, name)
    truth = frame_truth(BOUNCED_SHADE, name)
    for square in ("a3", "b4", "c3", "c1", "b2"):
        if square not in truth:
            assert observation.top(square) is None, square
    for square, (colour, _) in truth.items():
        top = observation.top(square)
        assert top is not None and top[0] == colour, square


@pytest.mark.slow
def test_the_board_with_four_cups_in_each_others_shade_is_not_taken_for_a_hand() -> None:
    """06b: the cups' shade, off the one shade line, read as a fist over the grid."""
    _, observation = frame_read(BOUNCED_SHADE, "06b-move")
    assert not observation.occluded


@pytest.mark.slow
def test_a_shade_read_as_a_clear_cup_stands_on_no_foot_and_a_real_cup_does() -> None:
    """On 04b c3's shade scores a white cup over the faint gate with too little grain showing
    (``SHADOW_GRAIN``) to be asked about, yet no size's base is found there; a4's real white 3,
    in shade too, has its foot."""
    calibration = frames_calibration(BOUNCED_SHADE)
    reader = BoardReader(calibration)
    rect = reader.rectified(read_image(BOUNCED_SHADE / "04b-move.jpg"))
    ev = evidence(rect, reader.background, calibration.pixels, reader.bank.pad)
    assert reader.edges is not None
    fits = BaseFits(edge_maps(ev.features, reader.edges.pad, reader.edges.reads), reader.edges)
    matches = match_all(ev, reader.bank)
    ring = calibration.cups.ring_px(calibration.scale)
    c3, a4 = square_row("c3"), square_row("a4")
    for row in (c3, a4):
        assert matches[row].colour == WHITE and matches[row].sizes.max() > SHADOW_REMATCH_RINGS * ring
    assert fits.footless(c3)
    assert not fits.footless(a4)
    # (private: the gate on the region cue's matches; without the edges, faint or grain alone)
    assert not reader.maybe_shadow(ev, c3, matches[c3], None)
    assert reader.maybe_shadow(ev, c3, matches[c3], fits)
