"""A cup colour learned nearer the wood's own look than the calibration's is not what the
occlusion test asks "board or not" with (``PixelModel.no_nearer_wood``).

On the vision bench's bench-38 the pale cups, learned under a warm lamp added at 11b, came
nearer the wood (their brightness against the board -0.64 -> -0.42 in log), and the margin
where the reserve stacks' shade lay at calibration read as an arm at first sight on 15b-17b
(208, 272, 300 mm² over the 150; 84, 128, 72 with the calibration's pale colour). Its frames
are not committed; these tests move a committed calibration's colours as learning did."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from companion.vision.calibration import Adaptation, Calibration
from companion.vision.pixels import Gaussian, PixelModel
from companion.vision.reader import BoardReader
from tests.shared_calibrations import bench_calibration

NEARER = 0.65
"""bench-38's pale cups' learned mean against the calibration's: -0.42 / -0.64 in brightness."""


def scaled(model: Gaussian, factor: float) -> Gaussian:
    """``model`` with its mean (the cups' look against the empty board) scaled toward the wood's
    own look (features 0) by ``factor`` under 1, away from it over 1."""
    return Gaussian(model.mean * factor, model.cov)


def learned(calibration: Calibration, pixels: PixelModel) -> Calibration:
    """``calibration`` having learned ``pixels`` and nothing else."""
    taught = Adaptation(cups=calibration.cups, pixels=pixels, background=calibration.background, frames=1)
    return replace(calibration, learned=taught)


def test_a_colour_learned_nearer_the_wood_goes_back_to_the_calibrations() -> None:
    """The pale colour moved toward the wood lies nearer its look, and the occlusion test's
    model has the calibration's in its place; the dark colour, learned away, stays learned."""
    calibrated = bench_calibration("bench-03").pixels
    pixels = replace(calibrated, light=scaled(calibrated.light, NEARER), dark=scaled(calibrated.dark, 1.2))
    assert pixels.wood_likeness()[0] > calibrated.wood_likeness()[0]
    assert pixels.wood_likeness()[1] < calibrated.wood_likeness()[1]
    judged = pixels.no_nearer_wood(calibrated)
    assert judged.light is calibrated.light
    assert judged.dark is pixels.dark


def test_colours_learned_no_nearer_the_wood_keep_the_very_model() -> None:
    calibrated = bench_calibration("bench-03").pixels
    pixels = replace(calibrated, light=scaled(calibrated.light, 1.2))
    assert pixels.no_nearer_wood(calibrated) is pixels
    assert calibrated.no_nearer_wood(calibrated) is calibrated


def test_the_readers_occlusion_test_says_less_cup_of_wood_lit_toward_the_pale_cups() -> None:
    """A reader that learned the pale colour nearer the wood judges occlusion with the
    calibration's: wood a third of the way toward the pale cups' look (a lamp-warmed margin
    between the two) scores less "cup" than the learned colour makes it."""
    calibration = bench_calibration("bench-03")
    calibrated = calibration.pixels
    pixels = replace(calibrated, light=scaled(calibrated.light, NEARER))
    reader = BoardReader(learned(calibration, pixels))
    test = reader.occlusion.pixels
    assert test.light is calibrated.light
    between = np.tile((pixels.light.mean / 3).astype(np.float32), (4, 4, 1))
    assert float(test.colour_fg(between)[0, 0]) < float(pixels.colour_fg(between)[0, 0])


def test_a_colour_learned_into_the_woods_look_is_judged_as_the_calibrations() -> None:
    """A pale colour learned so near the wood that it has the wood's look (``WOOD_LIKE``) goes
    back to the calibration's, which has not: the occlusion test judges with that colour, and
    does not leave it out as the learned one's likeness would."""
    calibration = bench_calibration("bench-03")
    calibrated = calibration.pixels
    pixels = replace(calibrated, light=Gaussian(calibrated.light.mean * 0.5, calibrated.light.cov * 0.5))
    assert pixels.wood_like()[0] and not calibrated.wood_like()[0]
    test = BoardReader(learned(calibration, pixels)).occlusion.pixels
    assert test.light is calibrated.light
    assert test.left_out == calibrated.for_occlusion().left_out
