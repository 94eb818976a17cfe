"""Under a lamp learned again, the sizes no sure cup has shown yet follow their colour's fitted
sizes (``learning._followed``).

Where the colour model stops calling pixels cup is the lamp's doing, for every size of a colour
alike, and a size is fitted only on a sure cup of it. The vision bench's bench-31 (its lamp moved
at 07b) shrank its white and black 4s by 5 % on the first sure frame under the new lamp while its
black 3, left in doubt from its ply on, kept the first lamp's radius, and the referee stayed in
doubt over its black 3 and 4s to the end. The committed bench-03 (its lamp moved, dimmed and
warmed from frame 07) shows only 4s on its first boards under the new lamp.
"""

from __future__ import annotations

from functools import cache

import pytest

from companion.vision.cups import CupSet
from companion.vision.learning import ObserverLearning
from companion.vision.reader import STILL_SECONDS, BoardReader
from tests.shared_calibrations import frames_calibration
from tests.vision.test_old_light_frame import BENCH, shown

pytestmark = pytest.mark.slow  # a calibration, the lamp learned and a few reads: about 4 s

WHITE, BLACK = 0, 1


@cache
def learned_under_the_new_lamp() -> tuple[CupSet, CupSet, CupSet]:
    """The radii (at calibration, once the lamp was learned again on 07b, once 08b's move
    confirmed 07b, the first sure frame under the new lamp)."""
    calibration = frames_calibration(BENCH)
    learning = ObserverLearning(BoardReader(calibration))
    shown(learning, "06b-move", 0.0, 1.0)
    shown(learning, "07b-move", 10.0, STILL_SECONDS + 0.4)  # the new lamp, learned again
    relit = learning.learner.reader.models.cups
    shown(learning, "08b-move", 30.0, 1.0)  # confirms 07b: white and black 4s only
    return calibration.cups, relit, learning.learner.reader.models.cups


@pytest.mark.parametrize("colour", [WHITE, BLACK])
def test_the_sizes_not_yet_seen_under_a_new_lamp_scale_as_their_colour_fitted_did(colour: int) -> None:
    calibrated, relit, learned = learned_under_the_new_lamp()
    assert relit == calibrated  # learning the lamp moves no size
    ratio = learned.radii[colour][3] / calibrated.radii[colour][3]
    assert abs(ratio - 1.0) > 0.005  # the 4, fitted on 07b, moved
    for size in (1, 2, 3):  # on no square of 07b, fitted nowhere
        assert learned.radii[colour][size - 1] == pytest.approx(calibrated.radii[colour][size - 1] * ratio)


def test_under_the_same_light_a_size_no_cup_showed_stays() -> None:
    """Before the lamp moves, a sure frame moves only the sizes it shows (the fits counted
    since calibration, ``_to_fit``): a size no cup showed is not the light's to move."""
    calibration = frames_calibration(BENCH)
    learning = ObserverLearning(BoardReader(calibration))
    shown(learning, "05b-move", 0.0, 1.0)
    shown(learning, "06b-move", 10.0, 1.0)  # confirms 05b, the same light: learned
    learned = learning.learner.calibration.learned
    assert learned is not None and learned.frames == 1 and learned.shadows is None
    radii = learning.learner.reader.models.cups.radii
    for colour in (WHITE, BLACK):
        assert radii[colour][:3] == calibration.cups.radii[colour][:3]
