"""The reference frame's colour check: a cup of the other colour is refused, a white cup that
is merely dim under a low lamp is not.

Each cup's plain colour (m, q1, q2 against the empty board, over its silhouette) is compared
with the other cups' (``shows_other_colour``): the colour models are learned from these same
cups, so they cannot judge one of them. ``low-lamp`` (tests/data/calibration) is a rendered
board under a strong lamp 0.42 m above the table, low at one side: the small white cups show
mostly their own shaded side (the white 1 is darker than the board, m = -0.11, where the black
cups are -0.58 to -0.75). Calibration used to refuse this correct layout ("the size-1 cup on a1
looks black, not white")."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision import calibration
from companion.vision.calibration import calibrate, reference_layout
from companion.vision.calibration import shows_other_colour as other_colour

LOW_LAMP = Path(__file__).resolve().parents[1] / "data" / "calibration" / "low-lamp"
LOW_SIDE = LOW_LAMP.parent / "along-ranks"  # the bench's bench-38, as rendered
REF = reference_layout(4, 4)  # rows 0..3 White's 1..4, rows 12..15 Black's 1..4


def colours(white: list[float], black: list[float], chroma: float = 0.0) -> dict[int, np.ndarray]:
    """Cup colours (m, q1, q2) by row from brightnesses; ``chroma`` tints the black cups."""
    return {
        row: np.array([m, chroma if row >= 12 else 0.0, 0.0])
        for row, m in zip([0, 1, 2, 3, 12, 13, 14, 15], white + black, strict=True)
    }


def test_a_dim_white_cup_is_nearer_the_whites() -> None:
    seen = colours([-0.6, -0.2, -0.1, 0.0], [-1.6, -1.5, -1.4, -1.3])
    assert not other_colour(0, seen, REF)


def test_a_black_cup_on_a_white_square_has_the_blacks_colour() -> None:
    seen = colours([-1.5, 0.0, -0.1, 0.1], [-1.6, -1.5, -1.4, -1.3])
    assert other_colour(0, seen, REF)
    seen = colours([0.0, -0.1, 0.1, 0.0], [-1.6, -1.5, -1.4, 0.05])  # a white cup on d4
    assert other_colour(15, seen, REF)


def test_colours_of_one_brightness_are_told_apart_by_their_hue() -> None:
    """Red and yellow cups, as bright as each other: a red cup on White's square is refused."""
    seen = colours([0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], chroma=0.4)
    assert not any(other_colour(row, seen, REF) for row in seen)
    seen[1] = np.array([0.0, 0.38, 0.0])
    assert other_colour(1, seen, REF)


def test_a_black_cup_lit_unlike_its_rank_mates_is_not_refused() -> None:
    """bench-38's reference colours (m, q1, q2), measured: a low side lamp's long shadows lie
    across b4 to d4 (the board there log -0.96 to -1.09 darker than in the empty frame) and not
    across a4 (-0.06), so the lit black 1 is 0.47 brighter than the black cups' median and 0.85
    times as far from the white cups' median as from theirs. Nearer the white cups, but not
    clearly: calibration used to refuse this correct layout ("the size-1 cup on a4 looks white,
    not black")."""
    seen = {
        0: np.array([-0.471, -0.010, -0.019]),
        1: np.array([-0.537, -0.030, -0.043]),
        2: np.array([-0.718, -0.053, -0.084]),
        3: np.array([-0.557, -0.064, -0.080]),
        12: np.array([-0.940, -0.087, -0.167]),
        13: np.array([-1.094, -0.115, -0.207]),
        14: np.array([-1.413, -0.139, -0.243]),
        15: np.array([-1.423, -0.154, -0.281]),
    }
    assert not any(other_colour(row, seen, REF) for row in seen)
    seen[12] = np.array([-0.547, -0.041, -0.062])  # a white cup there: the white cups' median
    assert other_colour(12, seen, REF)


def test_a_cup_only_a_little_nearer_the_other_colour_is_not_refused() -> None:
    """Nearer the other colour, but not ``OTHER_COLOUR_MARGIN`` times nearer: taken."""
    seen = colours([-0.6, -0.5, -0.5, -0.5], [-0.85, -1.4, -1.4, -1.4])
    assert not other_colour(12, seen, REF)  # 0.35 from the whites, 0.55 from the blacks
    seen = colours([-0.6, -0.5, -0.5, -0.5], [-0.7, -1.4, -1.4, -1.4])
    assert other_colour(12, seen, REF)  # 0.2 from the whites, 0.7 from the blacks


def calibrated_seen(folder: Path, monkeypatch: pytest.MonkeyPatch) -> calibration.ReferenceSeen:
    """What the reference check judged when ``folder``'s frames calibrated."""
    seen: list[calibration.ReferenceSeen] = []
    check = calibration.check_reference  # (private: a spy on what the check judged, mid-calibration)

    def spy(shown, *rest):  # type: ignore[no-untyped-def]
        seen.append(shown)
        return check(shown, *rest)

    monkeypatch.setattr(calibration, "check_reference", spy)
    result = calibrate(cv2.imread(str(folder / "00-empty.jpg")), cv2.imread(str(folder / "01-reference.jpg")))
    assert result.reference
    return seen[-1]


def test_the_low_lamp_reference_calibrates(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = calibrated_seen(LOW_LAMP, monkeypatch).colours
    white_1, black_1 = seen[0][0], seen[12][0]
    assert black_1 < white_1 < 0  # the case itself: the white 1 is darker than the board


def test_the_low_side_lamp_reference_calibrates(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = calibrated_seen(LOW_SIDE, monkeypatch).colours
    white = np.median([seen[row][0] for row in range(4)])
    black = np.median([seen[row][0] for row in (13, 14, 15)])
    assert abs(seen[12][0] - white) < abs(seen[12][0] - black)  # the case: the lit black 1


SHEEN = LOW_LAMP.parents[1] / "refs" / "bench-73" / "frames"
"""A fresh rendered reference (dim warm light, natural cups on glossy walnut): the empty frame has
a highlight over d1, so the white 4 there is dark against it. Plain, it has the black cups'
colour; levelled by the grid's mean colour, as the colour vote judges cups, the white cups'."""


def test_a_white_cup_dark_against_a_sheen_is_judged_levelled_too(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = calibrated_seen(SHEEN, monkeypatch)
    d1 = 3
    assert other_colour(d1, seen.colours, REF)  # the case: plain, the white 4 has the black cups' colour
    assert not other_colour(d1, seen.levelled, REF)  # levelled it has its own: calibration takes it
