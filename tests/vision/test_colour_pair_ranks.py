"""Which rank holds White's cups, and learning that keeps it so, for a colour pair whose White is
not the lighter against the wood (``calibration.RANKS_SWAPPED_MARGIN``,
``learning.in_calibrated_order``).

``tests/data/refs/bench-65`` is a fresh rendered reference (orange and blue cups on grey-washed
wood, 640x480): against that pale wood the orange White measures 0.08 darker than the blue, in
the colour models' log brightness, though it is the lighter paint. Calibration used to refuse it
as "the ranks swapped"; 70 synthetic set-ups with their ranks swapped measure rank 1 darker
by 0.56 or more.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from companion.vision.calibration import RANKS_SWAPPED_MARGIN, calibrate
from companion.vision.learning import in_calibrated_order
from companion.vision.pixels import Gaussian, PixelModel
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image

BENCH_65 = Path(__file__).resolve().parents[1] / "data" / "refs" / "bench-65" / "frames"


def truth_tops(path: Path) -> dict[str, tuple[int, int]]:
    top = json.loads(path.read_text())["top"]
    return {sq: (0 if cup["color"] == "white" else 1, cup["size"]) for sq, cup in top.items()}


def test_a_colour_pair_whose_white_reads_darker_calibrates_and_reads_its_layout() -> None:
    empty, reference = read_image(BENCH_65 / "00-empty.jpg"), read_image(BENCH_65 / "01-reference.jpg")
    calibration = calibrate(empty, reference)
    light, dark = calibration.pixels.light.mean[0], calibration.pixels.dark.mean[0]
    assert dark - RANKS_SWAPPED_MARGIN < light < dark  # darker, but not by the margin
    tops = BoardReader(calibration).read(reference).tops()
    cups = {square: top for square, top in tops.items() if top is not None}
    assert cups == truth_tops(BENCH_65 / "01-reference.json")


def model(brightness: float) -> Gaussian:
    return Gaussian(np.array([brightness, 0.0, 0.0]), np.eye(3) * 0.01)


@pytest.mark.parametrize(
    ("calibrated", "learned", "kept"),
    [
        ((0.5, -0.5), (0.3, -0.2), True),  # White the lighter, and still so
        ((0.5, -0.5), (-0.3, -0.2), False),  # the pair would swap
        ((-0.7, -0.6), (-0.8, -0.7), True),  # White the darker at calibration, and still so
        ((-0.7, -0.6), (-0.5, -0.6), False),  # ... now the lighter: swapped
    ],
)
def test_learning_keeps_the_pair_in_its_calibrated_order(
    calibrated: tuple[float, float], learned: tuple[float, float], kept: bool
) -> None:
    at_calibration = replace(PixelModel.default(), light=model(calibrated[0]), dark=model(calibrated[1]))
    assert in_calibrated_order(model(learned[0]), model(learned[1]), at_calibration) is kept
