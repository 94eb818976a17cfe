"""Cups side by side: each cup's apparent radius is fitted with its neighbours explained away
(``BoardScene.raw_radii`` with ``tops``), so a crowded reference rank does not teach sizes too
large. Fitted alone, a cup's best radius grows into its neighbours' evidence (their lean, their
shadows): on the rendered bench's bench-19 the reference's black 3 fitted 28 mm where a lone
black 4 fits 29, and every black 4 of the game read as a 3."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.vision.calibration import (
    FIT_PAD_MM,
    RADIUS_SCAN,
    BoardScene,
    calibrate,
    reference_layout,
)
from companion.vision.matching import evidence, rectify
from companion.vision.sources import read_image

PUSH_MM = 10.0
"""The black 2 and 4 put this far off their squares' centres toward the black 3 between them."""
CROWDED = {"b4": (PUSH_MM, 0.0), "d4": (-PUSH_MM, 0.0)}
BLACK_3 = 14  # c4, in board_squares order
LIGHT_B = Path(__file__).resolve().parents[1] / "data" / "bench" / "bench-03-light-b" / "frames"


def black_3_fits(setup, offsets: dict[str, tuple[float, float]]) -> tuple[float, float]:
    """The reference black 3's apparent radius fitted alone and with its neighbours explained
    away, on a reference frame with ``offsets``."""
    cal = setup.calibration
    scene = BoardScene(cal.layout, cal.view, cal.camera, cal.comparison())
    pad = int(np.ceil(FIT_PAD_MM * cal.view.scale))
    frame = setup.renderer.render(setup.renderer.reference_tops(), offsets=offsets)
    fg = evidence(rectify(frame, cal.view, cal.camera), scene.background, cal.pixels, pad).fg
    ref = reference_layout(cal.size, cal.max_piece)
    one = {BLACK_3: ref[BLACK_3]}
    _, alone = scene.raw_radii(fg, pad, cal.cups, one, RADIUS_SCAN)
    _, away = scene.raw_radii(fg, pad, cal.cups, one, RADIUS_SCAN, ref)
    return alone[BLACK_3], away[BLACK_3]


def test_a_crowded_cup_fits_its_own_radius_with_its_neighbours_explained_away(setup_for):
    s = setup_for(2)
    apart_alone, apart_away = black_3_fits(s, {})
    crowded_alone, crowded_away = black_3_fits(s, CROWDED)
    assert apart_away == apart_alone  # cups apart: nothing of a neighbour's to take out
    assert crowded_alone > apart_alone + 3.0  # the neighbours' evidence swallowed (24.4 mm for 20.4)
    assert abs(crowded_away - apart_alone) <= 1.0


@pytest.mark.slow
def test_a_crowded_reference_rank_calibrates_the_sizes_of_one_set_apart(setup_for):
    """Calibrated from a reference frame whose black 2 and 4 crowd the black 3, the black 3's
    radius is the one an uncrowded reference gives (before: 23.1 mm for 20.5)."""
    s = setup_for(2)
    crowded = calibrate(s.renderer.empty(), s.renderer.render(s.renderer.reference_tops(), offsets=CROWDED))
    assert abs(crowded.cups.radii[1][2] - s.calibration.cups.radii[1][2]) <= 1.0


def test_bench_03_light_b_white_3_keeps_to_the_sets_proportions():
    """bench-03's light-b reference (the lamp moved: the white cups' sides in deep shade) fitted
    its white 3 at 28.2 mm alone, larger than the white 4 beside it (26.3); explained away 22.2.
    The calibration's white 3 now sits between the 2 and the 4 by the set's proportions."""
    if not LIGHT_B.is_dir():
        pytest.skip("tests/data/bench/bench-03-light-b is not available")
    cal = calibrate(read_image(LIGHT_B / "00-empty.jpg"), read_image(LIGHT_B / "01-reference.jpg"))
    _, w2, w3, w4 = cal.cups.radii[0]
    assert abs((w3 - w2) - (w4 - w3)) <= 1.0
