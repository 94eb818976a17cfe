"""A reference cup whose radius fit found no edge does not set the other sizes' radii
(``calibration.smoothed_radii``, ``final_radii``).

Each reference cup's apparent radius is the best of a scan of silhouettes (``RADIUS_SCAN``),
smoothed toward a line through the set's proportions. Under a low lamp a cup's evidence can run
on past the largest silhouette tried (its shadows and its neighbours' read as cup): the fit then
comes out at the scan's top, the scan's radius and not the cup's. The bench's bench-26 (a lamp
0.42 m up at one side; ``tests/data/shadows/bench-26``) fits its reference black 4 at the scan's
top, 34.3 mm (its real radius is 26.1; its white 1 and 2 fit there too, and stay: the whites
would keep only two fits). Fitted into the line it tilted it for every size: the black 3 came
out 23.1 mm, where the game's black 3s fit 21.7, and c1's black 3 read as a 2 on every board
after ply 6 (before the fix: 12 boards at 0.43-0.48).
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.rules.square import board_squares, square_name
from companion.vision.calibration import RADIUS_SCAN, reference_layout, scanned_radii, smoothed_radii
from companion.vision.cups import CupSet
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from tests.shared_calibrations import LONG_SHADOWS, frame_truth, long_shadows_calibration

ORDER = [square_name(sq) for sq in board_squares(4)]
WHITE, BLACK = 0, 1
DEFAULT = CupSet.default(60.0)
REFERENCE = reference_layout(4, 4)
ROW = {top: row for row, top in REFERENCE.items()}


def top_of_scan(colour: int, size: int) -> float:
    """The largest radius ``RADIUS_SCAN`` tries for that cup."""
    return scanned_radii(DEFAULT.radii[colour][size - 1])[-1]


def both_ways(raw: dict[int, float]) -> tuple[CupSet, CupSet]:
    """The fits smoothed with those at the scan's top left out, and with every fit in."""
    return smoothed_radii(DEFAULT, REFERENCE, raw, stopped_only=True), smoothed_radii(DEFAULT, REFERENCE, raw)


def fits(black_4: float) -> dict[int, float]:
    """Reference fits (row -> radius, mm) near the default set's, but for the black 4's."""
    raw = {ROW[(colour, size)]: DEFAULT.radii[colour][size - 1] + 1.0 for colour, size in REFERENCE.values()}
    raw[ROW[(BLACK, 4)]] = black_4
    return raw


def test_a_fit_at_the_top_of_the_scan_leaves_the_other_sizes_where_their_fits_put_them() -> None:
    """A black 4 at the scan's top moves no other size: the set's line through the others, and
    the black 4 on it (one millimetre over the default, as each of its fits says)."""
    cups = smoothed_radii(DEFAULT, REFERENCE, fits(top_of_scan(BLACK, 4)), stopped_only=True)
    for colour in (WHITE, BLACK):
        assert np.allclose(cups.radii[colour], np.array(DEFAULT.radii[colour]) + 1.0)


def test_a_fit_at_the_top_of_the_scan_tilted_the_line_when_fitted_in() -> None:
    """The same fits all fitted in (as the first rounds of calibration still take them): every
    black size moves, the black 3 by most of a millimetre."""
    cups = smoothed_radii(DEFAULT, REFERENCE, fits(top_of_scan(BLACK, 4)))
    assert cups.radii[BLACK][2] > DEFAULT.radii[BLACK][2] + 1.5


def test_a_fit_inside_the_scan_is_its_own() -> None:
    """A black 4 a step under the scan's top is a fit like any other: kept, in the line and with
    its share of its own residual (the result as without ``stopped_only``)."""
    left_out, fitted_in = both_ways(fits(top_of_scan(BLACK, 4) - RADIUS_SCAN[2]))
    assert left_out == fitted_in


def test_a_colour_left_with_two_fits_keeps_them_all() -> None:
    """Where leaving the scan's top out would leave a colour fewer than three fits, every fit of
    it is kept: two neighbouring sizes would set its offset and tilt the line's slope (the stress
    set's stress-55 kept only its 3s and 4s: a slope of 0.31, its sizes 1.4 mm apart)."""
    raw = fits(top_of_scan(BLACK, 4))
    raw[ROW[(BLACK, 1)]] = top_of_scan(BLACK, 1)
    left_out, fitted_in = both_ways(raw)
    assert left_out == fitted_in


def test_a_fit_at_the_bottom_of_the_scan_stays_its_own() -> None:
    """A white 1 at the scan's least radius is kept: its evidence stops short of every
    silhouette tried (a pale cup's shaded crescent), and small, the fit still says which way
    the cup lies from the line."""
    raw = fits(DEFAULT.radii[BLACK][3] + 1.0)
    raw[ROW[(WHITE, 1)]] = scanned_radii(DEFAULT.radii[WHITE][0])[0]
    left_out, fitted_in = both_ways(raw)
    assert left_out == fitted_in
    assert left_out.radii[WHITE][0] < DEFAULT.radii[WHITE][0]


@pytest.mark.slow  # a calibration and three reads: about 2 s of CPU
@pytest.mark.parametrize("name", ["09b-move", "10b-move", "17b-move"])
def test_bench_26s_black_cups_read_their_sizes(name: str) -> None:
    """Every square of these bench-26 boards reads right: c1's black 3 (a 2 before the fix, at
    0.43-0.46) and on 17b a2's black 4 (a 3 at 0.62)."""
    observation = BoardReader(long_shadows_calibration()).read(read_image(LONG_SHADOWS / f"{name}.jpg"))
    truth = frame_truth(LONG_SHADOWS, name)
    assert {sq: observation.top(sq) for sq in ORDER if observation.top(sq) != truth.get(sq)} == {}
    assert observation.top("c1") == (BLACK, 3)
