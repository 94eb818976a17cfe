"""Reference cups refitted beside the shade hemmed in between rank neighbours.

``along-ranks`` (tests/data/calibration) is the bench's bench-38 empty board and reference
layout as rendered (natural cups on pale maple, 1280x960, a lamp low beyond the d file so the
shadows run along the ranks). Each white cup of rank 1 stands in its lamp-side neighbour's
shadow, and the wood hemmed in between them reads as cup (lit by the white walls, bluer than
the shadow tint the board model learned): the white cups fitted 14.2, 19.2, 24.4 and 28.7 mm
(rendered 12.5, 17.0, 21.4, 26.5) and a lone white 4 in the game read a sure 3."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.rules.square import WHITE
from companion.vision.calibration import calibrate, left_out_is_trapped_shade
from companion.vision.sources import read_image

ALONG_RANKS = Path(__file__).resolve().parents[1] / "data" / "calibration" / "along-ranks"


def test_white_reference_cups_are_fitted_off_the_shade_between_them() -> None:
    empty = read_image(str(ALONG_RANKS / "00-empty.jpg"))
    reference = read_image(str(ALONG_RANKS / "01-reference.jpg"))
    radii = calibrate(empty, reference).cups.radii[WHITE]
    assert radii[2] == pytest.approx(22.2, abs=0.5)  # was 24.4; rendered 21.4
    assert radii[3] == pytest.approx(27.7, abs=0.5)  # was 28.7; rendered 26.5


def parts_with(
    left_out: float, cup: float, shadow: float, in_shadow: float = 1.0
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    """A look (m only matters) and the three parts of ``_left_out_parts`` with these mean
    darkenings, ``in_shadow`` of the left-out part inside the others' shadow."""
    look = np.zeros((10, 30, 3), np.float32)
    masks = [np.zeros((10, 30), bool) for _ in range(3)]
    for k, m in enumerate((left_out, cup, shadow)):
        masks[k][:, 10 * k : 10 * k + 10] = True
        look[:, 10 * k : 10 * k + 10, 0] = m
    shaded = masks[2].copy()
    shaded[: round(10 * in_shadow), :10] = True
    return look, (masks[0], masks[1], masks[2]), shaded


def test_shade_as_dark_as_open_shadow_beside_a_lighter_cup_is_trapped() -> None:
    look, parts, shaded = parts_with(-1.07, -0.33, -1.02)  # bench-38's c1, measured
    assert left_out_is_trapped_shade(look, parts, shaded)


def test_a_cups_own_body_or_open_wood_is_not_trapped_shade() -> None:
    look, parts, shaded = parts_with(-1.28, -1.25, -0.84)  # bench-32's black cup's own body
    assert not left_out_is_trapped_shade(look, parts, shaded)
    look, parts, shaded = parts_with(-1.07, -0.33, -1.02, in_shadow=0.5)  # half out of the shadow
    assert not left_out_is_trapped_shade(look, parts, shaded)
