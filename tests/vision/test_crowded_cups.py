"""Cups side by side: each cup's apparent radius is fitted with its neighbours explained away
(``BoardScene.raw_radii`` with ``tops``), so a crowded reference rank does not teach sizes too
large. Fitted alone, a cup's best radius grows into its neighbours' evidence (their lean, their
shadows): on the rendered bench's bench-19 the reference's black 3 fitted 28 mm where a lone
black 4 fits 29, and every black 4 of the game read as a 3."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.vision.calibration import FIT_PAD_MM, RADIUS_SCAN, BoardScene, calibrate, reference_layout
from companion.vision.matching import evidence, rectify
from companion.vision.sources import read_image
from companion.vision.synth import SceneRenderer

PUSH_MM = 10.0
"""How far the cups on either side are pushed off their squares' centres toward the middle one."""
BLACK_3 = 14
"""The reference's black 3 (c4, in board_squares order), between the black 2 and 4."""
FRAMES = 5
LIGHT_B = Path(__file__).resolve().parents[1] / "data" / "bench" / "bench-03-light-b" / "frames"


def crowded_fits(setup, row: int = BLACK_3) -> list[tuple[float, float]]:
    """The reference cup on ``row``, its neighbours on the rank pushed toward it, fitted alone
    and with its neighbours explained away, on ``FRAMES`` frames (each cup a little off centre
    at random).
    A fresh renderer of the set-up's seed draws them: the same board and camera, and frames
    that do not depend on what other tests drew."""
    cal = setup.calibration
    scene = BoardScene(cal.layout, cal.view, cal.camera, cal.comparison())
    pad = int(np.ceil(FIT_PAD_MM * cal.view.scale))
    ref = reference_layout(cal.size, cal.max_piece)
    rank = row // cal.size + 1
    offsets = {f"b{rank}": (PUSH_MM, 0.0), f"d{rank}": (-PUSH_MM, 0.0)}
    renderer = SceneRenderer(setup.renderer.seed)
    fits = []
    for _ in range(FRAMES):
        frame = rectify(renderer.render(renderer.reference_tops(), offsets=offsets), cal.view, cal.camera)
        fg = evidence(frame, scene.background, cal.pixels, pad).fg
        _, alone = scene.raw_radii(fg, pad, cal.cups, {row: ref[row]}, RADIUS_SCAN)
        _, away = scene.raw_radii(fg, pad, cal.cups, {row: ref[row]}, RADIUS_SCAN, ref)
        fits.append((alone[row], away[row]))
    return fits


def test_a_crowded_cup_fits_its_own_radius_with_its_neighbours_explained_away(setup_for):
    """Alone, the crowded black 3 swells toward a 4 on some frames (24.4 mm for 20.5);
    explained away, it fits within 1 mm of the calibration's radius on every frame."""
    s = setup_for(2)
    calibrated = s.calibration.cups.radii[1][2]
    fits = crowded_fits(s)
    assert max(alone for alone, _ in fits) > calibrated + 3.0
    assert all(abs(away - calibrated) <= 1.0 for _, away in fits)


def test_bench_03_light_b_white_3_keeps_to_the_sets_proportions():
    """bench-03's light-b reference (the lamp moved: the white cups' sides in deep shade) fitted
    its white 3 at 28.2 mm alone, larger than the white 4 beside it (26.3); explained away 22.2.
    The calibration's white 3 now sits between the 2 and the 4 by the set's proportions."""
    if not LIGHT_B.is_dir():
        pytest.skip("tests/data/bench/bench-03-light-b is not available")
    cal = calibrate(read_image(LIGHT_B / "00-empty.jpg"), read_image(LIGHT_B / "01-reference.jpg"))
    _, w2, w3, w4 = cal.cups.radii[0]
    assert abs((w3 - w2) - (w4 - w3)) <= 1.0
