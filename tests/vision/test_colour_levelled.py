"""The colour vote judges a cup by its ratio to the grid's mean colour (``PixelModel.levelled``,
``calibration.levelled``), not to the wood behind it alone.

A glossy board's sheen brightens the wood and not the cups. The vision bench's bench-28 (glossy
natural cups on walnut, 1280x960; ``tests/data/sheen/bench-28``: its calibration frames and one
game frame) has its empty board 0.43 brighter (log) on a4 than on d1, where the reference
white 4 stands: the white 4 on a4 (06b) read 0.45 darker than that, its shaded side at the black
cups' mean, and read as a black 4 at 0.86 (before the fix).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from companion.vision.calibration import Calibration
from companion.vision.observation import class_index
from companion.vision.pixels import PixelModel
from tests.shared_calibrations import frame_read, frame_truth, frames_calibration, square_row

pytestmark = pytest.mark.slow  # a 1280x960 calibration and a read: about 4 s of CPU

SHEEN = Path(__file__).resolve().parents[1] / "data" / "sheen" / "bench-28" / "frames"
FRAME = "06b-move"
SURE = 0.9


row = square_row


def test_the_white_4_on_the_sheen_reads_white() -> None:
    """a4's white 4 reads most likely a white 4 (main: a black 4 at 0.86)."""
    calibration, observation = frame_read(SHEEN, FRAME)
    probabilities = observation.probabilities[row("a4")]
    assert int(np.argmax(probabilities)) == class_index((0, 4), calibration.max_piece)


def test_every_cup_of_the_frame_takes_its_colour_and_none_is_read_wrong_and_sure() -> None:
    calibration, observation = frame_read(SHEEN, FRAME)
    tops = {row(sq): top for sq, top in frame_truth(SHEEN, FRAME).items()}
    assert not observation.occluded
    for k, (colour, _) in tops.items():
        p = observation.probabilities[k]
        white, black = p[1 : 1 + calibration.max_piece].sum(), p[1 + calibration.max_piece :].sum()
        assert (white > black) == (colour == 0), f"row {k} took the other colour"
    for k in range(observation.probabilities.shape[0]):
        if observation.confidence(k) >= SURE:
            assert observation.top(k) == tops.get(k), f"row {k} read wrong and sure"


def test_the_levelled_models_are_saved_and_old_files_keep_the_plain_vote() -> None:
    """What calibration learns for the vote goes into the file; a file from before it (no
    ``levelled`` entry) loads, and its vote is the plain models'."""
    calibration = frames_calibration(SHEEN)
    assert calibration.pixels.levelled is not None
    data = json.loads(json.dumps(calibration.to_json()))
    again = Calibration.from_json(data)
    assert again.pixels.levelled is not None
    assert np.allclose(again.pixels.levelled[0].mean, calibration.pixels.levelled[0].mean)
    del data["pixels"]["levelled"]
    old = Calibration.from_json(data)
    assert old.pixels.levelled is None
    assert old.pixels.colours == (old.pixels.light, old.pixels.dark)


def test_the_level_is_the_board_s_own_colour_against_its_mean() -> None:
    """On bench-28 the wood on a4 is brighter than on d1 (the sheen), and the level says so."""
    calibration = frames_calibration(SHEEN)
    level = calibration.comparison().level
    assert level is not None
    view, layout = calibration.view, calibration.layout
    (u4, v4), (u1, v1) = view.to_pixels(
        np.array([layout.square_centre(row("a4")), layout.square_centre(row("d1"))])
    )
    assert level[round(v4), round(u4), 0] - level[round(v1), round(u1), 0] > 0.3
    assert (
        abs(
            float(
                np.mean(
                    [
                        level[round(v), round(u), 0]
                        for u, v in view.to_pixels(np.array([layout.square_centre(r) for r in range(16)]))
                    ]
                )
            )
        )
        < 0.01
    )


def test_a_model_without_levelled_gaussians_votes_as_before() -> None:
    """Without ``levelled`` the level is not looked at."""
    model = PixelModel.default()
    f = np.random.default_rng(0).normal(0, 0.3, (20, 20, 3)).astype(np.float32)
    ncc = np.zeros((20, 20), np.float32)
    plain = model.log_odds(f, ncc)
    shifted = model.log_odds(f, ncc, np.full_like(f, 0.5))
    assert np.array_equal(plain[0], shifted[0]) and np.array_equal(plain[1], shifted[1])
