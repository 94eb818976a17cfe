"""A calibration file with impossible values (a zero image size, a NaN scale, an all-zero
homography, a camera below the board) is refused when loaded, in one line, by every command
that reads one: it used to divide by zero in read, replay and run, or read an empty board for
ever."""

from __future__ import annotations

import json

import cv2
import pytest

from companion.cli import main
from companion.errors import CompanionError
from companion.vision.calibration import Calibration


@pytest.fixture(scope="module")
def files(tmp_path_factory, setup_for):
    setup = setup_for(2)
    folder = tmp_path_factory.mktemp("badcal")
    good = folder / "good.json"
    setup.calibration.save(good)
    frame = folder / "frame.png"
    cv2.imwrite(str(frame), setup.renderer.empty())
    return {"folder": folder, "good": good, "frame": frame, "data": json.loads(good.read_text())}


def damaged(files, change) -> str:
    data = json.loads(json.dumps(files["data"]))
    change(data)
    path = files["folder"] / "bad.json"
    path.write_text(json.dumps(data))  # Python's json writes NaN and Infinity, as a hand edit can
    return str(path)


def set_in(*keys_and_value):
    *keys, value = keys_and_value

    def change(data):
        for key in keys[:-1]:
            data = data[key]
        data[keys[-1]] = value

    return change


def grow_white_3_past_its_4(data):
    radii = data["cups"]["radii_mm"][0]
    radii[2] = radii[3] * 1.01


CASES = {
    "zero image size": (set_in("camera", "image_size", [0, 0]), "image size 0x0"),
    "NaN scale": (set_in("rectified_px_per_mm", float("nan")), "rectified_px_per_mm is not a finite"),
    "infinite focal": (set_in("camera", "focal_px", float("inf")), "focal_px is not a finite"),
    "zero homography": (set_in("camera", "homography", [[0, 0, 0]] * 3), "singular"),
    "flat homography": (set_in("camera", "homography", [[1, 0, 0], [2, 0, 0], [0, 0, 1]]), "singular"),
    "camera under the board": (set_in("camera", "centre_mm", [120.0, 120.0, -500.0]), "not above"),
    "zero squares": (set_in("board", "square_mm", 0), "board dimensions"),
    "scale out of range": (set_in("rectified_px_per_mm", 1e6), "rectified scale"),
    "huge image": (set_in("camera", "image_size", [10**9, 10**9]), "image size"),
    "image size text": (set_in("camera", "image_size", ["wide", "tall"]), "corrupt"),
    "markers not a table": (set_in("markers_px", [1, 2]), "corrupt"),
    # found by tests/test_fuzz.py: int(None) was a TypeError out of load
    "no cup count": (set_in("max_piece", None), "cup sizes"),
    "cup count text": (set_in("max_piece", "4"), "cup sizes"),
    # a white 3 taken larger than the white 4 (issue 11, bench-08 under --misjudge white:3:1.2):
    # a real 3 then has no model near it and the referee held its misreadings as moves
    "sizes that do not grow": (grow_white_3_past_its_4, "white size-4 cups"),
}

GOOD_SHADOWS = {
    "version": 1,
    "along_mm_per_mm": [1.0, -2.0],
    "depth": -1.2,
    "hue": [0.0, 0.02],
    "slack": 0.04,
}
SHADOW_CASES = {
    "shadow model not a table": ([1, 2], "shadow model version None"),
    "shadow model from the future": ({**GOOD_SHADOWS, "version": 2}, "shadow model version 2"),
    "shadow model without its slope": ({**GOOD_SHADOWS, "along_mm_per_mm": None}, "shadow model is corrupt"),
    "shadow model lightening": ({**GOOD_SHADOWS, "depth": 0.5}, "shadow model is corrupt"),
    "shadow model slack": ({**GOOD_SHADOWS, "slack": 3.0}, "shadow model is corrupt"),
    "shadow model reaching too far": ({**GOOD_SHADOWS, "reach_mm_per_mm": 40.0}, "shadow model is corrupt"),
    "shadow model reach as text": ({**GOOD_SHADOWS, "reach_mm_per_mm": "far"}, "shadow model is corrupt"),
}


@pytest.mark.parametrize("case", CASES)
def test_impossible_values_are_refused_at_load(files, case):
    change, words = CASES[case]
    with pytest.raises(CompanionError, match="corrupt") as refused:
        Calibration.load(damaged(files, change))
    assert words in str(refused.value)


@pytest.mark.parametrize("case", ["zero image size", "NaN scale", "zero homography"])
@pytest.mark.parametrize("command", ["read", "replay"])
def test_commands_refuse_a_bad_calibration_in_one_line(files, capsys, case, command):
    path = damaged(files, CASES[case][0])
    capsys.readouterr()
    assert main([command, "--calibration", path, str(files["frame"])]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "corrupt" in err and "Traceback" not in err


@pytest.mark.parametrize("case", SHADOW_CASES)
def test_a_bad_shadow_model_is_refused_at_load(files, case):
    entry, words = SHADOW_CASES[case]
    with pytest.raises(CompanionError, match="run calibrate again") as refused:
        Calibration.load(damaged(files, set_in("shadows", entry)))
    assert words in str(refused.value)


def test_read_refuses_a_bad_shadow_model_in_one_line(files, capsys):
    path = damaged(files, set_in("shadows", {**GOOD_SHADOWS, "depth": "deep"}))
    capsys.readouterr()
    assert main(["read", "--calibration", path, str(files["frame"])]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "shadow model is corrupt" in err and "Traceback" not in err


def test_a_good_shadow_model_loads(files):
    loaded = Calibration.load(damaged(files, set_in("shadows", GOOD_SHADOWS)))
    assert loaded.shadows is not None and loaded.shadows.along == (1.0, -2.0)
    assert loaded.shadows.reach == 0.0  # a file from before the reach was kept: the fitted length
    reaching = Calibration.load(damaged(files, set_in("shadows", {**GOOD_SHADOWS, "reach_mm_per_mm": 3.0})))
    assert reaching.shadows is not None and reaching.shadows.reach == 3.0


def test_the_good_file_still_loads(files):
    assert Calibration.load(files["good"]).size == 4
