"""The reference frame's colour check: a cup of the other colour is refused, a white cup that
is merely dim under a low lamp is not.

``low-lamp`` (tests/data/calibration) is a rendered board under a strong lamp 0.42 m above the
table, low at one side: the small white cups show mostly their own shaded side, and the size-1
cup's light-versus-dark vote comes out a little on the dark side (-0.1 a pixel against -1.2 to
-2.2 for the black cups). Calibration used to refuse this correct layout ("the size-1 cup on a1
looks black, not white")."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from companion.vision import calibration
from companion.vision.calibration import calibrate, reference_layout
from companion.vision.calibration import shows_other_colour as other_colour

LOW_LAMP = Path(__file__).resolve().parents[1] / "data" / "calibration" / "low-lamp"
REF = reference_layout(4, 4)  # rows 0..3 White's 1..4, rows 12..15 Black's 1..4


def votes(white: list[float], black: list[float]) -> dict[int, float]:
    return {row: v for row, v in zip([0, 1, 2, 3, 12, 13, 14, 15], white + black, strict=True)}


def test_a_dim_white_cup_votes_nearer_the_whites() -> None:
    seen = votes([-0.1, 0.2, 0.5, 1.0], [-2.2, -1.9, -1.5, -1.2])
    assert not other_colour(0, seen[0], seen, REF)


def test_a_black_cup_on_a_white_square_votes_like_the_blacks() -> None:
    seen = votes([-1.9, 0.8, 0.9, 1.0], [-2.2, -1.9, -1.5, -1.2])
    assert other_colour(0, seen[0], seen, REF)
    seen = votes([0.8, 0.9, 1.0, 1.1], [-2.2, -1.9, -1.5, 0.9])  # a white cup on d4
    assert other_colour(15, seen[15], seen, REF)


def test_a_vote_of_its_own_colour_is_never_the_other() -> None:
    seen = votes([0.1, 5.0, 5.0, 5.0], [-0.1, -5.0, -5.0, -5.0])
    assert not other_colour(0, seen[0], seen, REF)
    assert not other_colour(12, seen[12], seen, REF)


def test_the_low_lamp_reference_calibrates(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[int, float]] = []
    check = calibration._check_reference

    def spy(scores, votes, *rest):  # type: ignore[no-untyped-def]
        seen.append(dict(votes))
        return check(scores, votes, *rest)

    monkeypatch.setattr(calibration, "_check_reference", spy)
    result = calibrate(
        cv2.imread(str(LOW_LAMP / "00-empty.jpg")), cv2.imread(str(LOW_LAMP / "01-reference.jpg"))
    )
    assert result.reference
    assert seen[-1][0] < 0  # the case itself: the white 1 votes a little dark
