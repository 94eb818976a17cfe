"""A set whose White is the darker (red against yellow with red first, dark wood against natural):
calibration says which set is the lighter (``Calibration.lighter``) and the reader judges that
set's cups as the pale ones; the ranks check asks the user which set is White's, since the frames
cannot tell a darker White set out right from a lighter White set with its ranks swapped
(``calibration.ranks_error``, ``calibrate --white-darker``).

The synthetic set-ups are drawn with ``SceneRenderer(white_darker=True)``: the same scene, White's
cups in the look's dark colour and gloss and Black's in its light.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.errors import CompanionError, ReferenceLayoutError
from companion.vision.calibration import RANKS_SWAPPED_MARGIN, Calibration, calibrate, lighter_colour
from companion.vision.pixels import Gaussian, PixelModel
from companion.vision.reader import BoardReader
from companion.vision.synth import SceneRenderer, Top
from tests.shared_calibrations import same_models

WHITE, BLACK = 0, 1
DARKER = "the cups on rank 1 look darker than those on the last rank"
LIGHTER = "the cups on rank 1 look lighter than those on the last rank"


def frames(seed: int, white_darker: bool) -> tuple[np.ndarray, np.ndarray]:
    scene = SceneRenderer(seed, white_darker=white_darker)
    return scene.empty(), scene.reference()


@pytest.mark.slow  # three calibrations of one set-up: about 3 s of CPU
def test_a_darker_white_set_calibrates_when_said_and_reads_its_reference() -> None:
    empty, reference = frames(3, white_darker=True)
    with pytest.raises(ReferenceLayoutError) as refused:
        calibrate(empty, reference)  # as Black's darker cups set out on rank 1 would look
    error = refused.value
    assert (error.kind, error.finding, error.trustable) == ("ranks swapped", DARKER, True)
    calibration = calibrate(empty, reference, white_darker=True)
    assert calibration.lighter == BLACK and not calibration.layout_trusted
    tops = BoardReader(calibration).read(reference).tops()
    cups = {square: top for square, top in tops.items() if top is not None}
    assert cups == SceneRenderer(3).reference_tops()
    trusted = calibrate(empty, reference, trust_layout=True)  # the web wizard's "calibrate anyway"
    assert trusted.overruled == (DARKER,) and same_models(trusted, calibration)


@pytest.mark.slow  # one calibration: about 1 s of CPU
def test_a_lighter_white_set_said_darker_is_refused_as_its_ranks_swapped() -> None:
    with pytest.raises(ReferenceLayoutError) as refused:
        calibrate(*frames(3, white_darker=False), white_darker=True)
    assert (refused.value.kind, refused.value.finding) == ("ranks swapped", LIGHTER)


def model(brightness: float) -> Gaussian:
    return Gaussian(np.array([brightness, 0.0, 0.0]), np.eye(3) * 0.01)


@pytest.mark.parametrize(
    ("white", "black", "white_darker", "lighter"),
    [
        (0.5, -0.5, False, WHITE),
        (0.5, -0.5, True, WHITE),  # measured clearly: the measure says (and the check refuses)
        (-0.7, 0.1, True, BLACK),
        (-0.7, 0.1, False, BLACK),
        (-0.08, 0.0, False, WHITE),  # neither clearly the lighter: the user's word
        (-0.08, 0.0, True, BLACK),
        (0.1, 0.11 - RANKS_SWAPPED_MARGIN, True, BLACK),  # lighter, not by the margin
    ],
)
def test_the_lighter_set_is_measured_where_clear_and_else_the_users_word(
    white: float, black: float, white_darker: bool, lighter: int
) -> None:
    pixels = replace(PixelModel.default(), light=model(white), dark=model(black))
    assert lighter_colour(pixels, white_darker) == lighter


def test_without_a_reference_the_default_colours_follow_the_users_word() -> None:
    assert lighter_colour(PixelModel.default()) == WHITE
    assert lighter_colour(PixelModel.default(white_darker=True)) == BLACK


@pytest.mark.slow  # a render, a calibration and a read: about 2 s of CPU
def test_a_dark_white_cup_in_a_shadow_where_grain_shows_keeps_its_cup() -> None:
    """``test_shadow_grain``'s stress-16 frame 02 with White's cups the darker set: the dark
    cup on a3, now a white 1, in another cup's shadow with the wood's grain showing, is no
    shadow read as a pale cup. Taken as White's the lighter (``lighter`` 0, as before the
    calibration measured it), the grain gate explained it away and a3 read empty."""
    r = SceneRenderer(1076, stress=True, white_darker=True)
    tops: dict[str, Top] = {
        "c1": (BLACK, 2), "b2": (WHITE, 1), "c2": (WHITE, 1), "a3": (WHITE, 1), "b3": (BLACK, 1),
        "c3": (BLACK, 1), "d3": (BLACK, 1), "a4": (WHITE, 2), "d4": (BLACK, 1),
    }  # fmt: skip
    calibration = calibrate(r.empty(), r.reference(), white_darker=True)
    frame = r.render(tops, frame=5)
    assert calibration.lighter == BLACK
    assert BoardReader(calibration).read(frame).top("a3") == (WHITE, 1)
    assert BoardReader(replace(calibration, lighter=WHITE)).read(frame).top("a3") is None


def calibrate_args(folder: Path, white_darker: bool) -> list[str]:
    """``calibrate``'s arguments for set-up 3's frames, drawn with White's cups the darker set
    or not, written into ``folder``."""
    names = [str(folder / "empty.png"), str(folder / "reference.png")]
    for name, image in zip(names, frames(3, white_darker), strict=True):
        assert cv2.imwrite(name, image)
    return ["calibrate", "--empty", names[0], "--reference", names[1], "--out", str(folder / "board.json")]


@pytest.mark.slow  # three calibrations by the command: about 3 s of CPU
def test_calibrate_says_how_to_name_a_darker_white_set_and_keeps_it_in_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "darker").mkdir()
    (tmp_path / "lighter").mkdir()
    args = calibrate_args(tmp_path / "darker", white_darker=True)
    assert main(args) == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith(
            f"{DARKER}; White's cups go on rank 1, and White's is the lighter set unless you say it is "
            "the darker; if White's cups are the darker set, add --white-darker"
        )
    )
    assert main([*args, "--white-darker"]) == 0
    assert "taken on trust" not in capsys.readouterr().out
    out = Path(args[-1])
    assert json.loads(out.read_text())["lighter_colour"] == BLACK and Calibration.load(out).lighter == BLACK
    assert main([*calibrate_args(tmp_path / "lighter", white_darker=False), "--white-darker"]) == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith(
            f"{LIGHTER}; White's cups go on rank 1, and you said White's is the darker set; "
            "if White's cups are the lighter set, leave out --white-darker"
        )
    )


def test_a_file_from_before_the_lighter_set_was_kept_takes_whites(tmp_path: Path) -> None:
    empty, _ = frames(3, white_darker=False)
    data = calibrate(empty).to_json()
    assert data["lighter_colour"] == WHITE
    del data["lighter_colour"]
    assert Calibration.from_json(data).lighter == WHITE
    data["lighter_colour"] = 2
    with pytest.raises(CompanionError, match=r"is corrupt .*lighter colour 2 is neither 0 nor 1"):
        Calibration.from_json(data)
