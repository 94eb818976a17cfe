import json

import numpy as np
import pytest

from companion.errors import CompanionError
from companion.vision.calibration import Calibration, calibrate, parse_corners
from companion.vision.reader import BoardReader


def test_save_and_load_round_trip(setup_for, tmp_path):
    cal = setup_for(1).calibration
    path = tmp_path / "board.json"
    cal.save(path)
    data = json.loads(path.read_text())
    assert data["format"] == "gobblet-companion/vision-calibration" and data["version"] == 1
    assert data["board"]["size"] == 4 and data["reference_learned"] is True
    again = Calibration.load(path, size=4)
    assert np.allclose(again.camera.homography, cal.camera.homography)
    assert np.array_equal(again.background, cal.background)
    assert again.cups == cal.cups


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda d: "not json at all {", "not JSON"),
        (lambda d: json.dumps({"format": "something-else"}), "not a gobblet-companion vision calibration"),
        (lambda d: json.dumps({**d, "version": 99}), "version 99"),
        (lambda d: json.dumps({**d, "background_png": "AAAA"}), "corrupt"),
        (lambda d: json.dumps({k: v for k, v in d.items() if k != "camera"}), "corrupt"),
        (lambda d: json.dumps({**d, "cups": {"radii_mm": [[1, 2]], "heights_mm": [[1, 2]]}}), "cup sizes"),
    ],
)
def test_corrupt_or_mismatched_files_are_refused(setup_for, tmp_path, mangle, message):
    path = tmp_path / "board.json"
    setup_for(1).calibration.save(path)
    path.write_text(mangle(json.loads(path.read_text())))
    with pytest.raises(CompanionError, match=message):
        Calibration.load(path)


def test_a_calibration_for_another_board_size_is_refused(setup_for, tmp_path):
    path = tmp_path / "board.json"
    setup_for(1).calibration.save(path)
    with pytest.raises(CompanionError, match="4x4 board, not 3x3"):
        Calibration.load(path, size=3)
    with pytest.raises(CompanionError, match="4x4 board, not 5x5"):
        BoardReader(setup_for(1).calibration, size=5)
    with pytest.raises(CompanionError, match="cannot read"):
        Calibration.load(tmp_path / "missing.json")


@pytest.mark.slow
def test_hand_given_corners_for_a_board_without_markers(setup_for, rng):
    s = setup_for(5, markers=False)
    r = s.renderer
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in r.grid_corners_px())
    with pytest.raises(CompanionError, match="markers not found"):
        calibrate(r.empty(), r.reference())
    cal = calibrate(r.empty(), r.reference(), parse_corners(corners))
    reader = BoardReader(cal)
    tops = {"a1": (0, 4), "b3": (1, 2), "d4": (1, 1), "c2": (0, 3)}
    assert reader.read(r.render(tops)).tops() == r.truth(tops)


def test_without_a_reference_frame_defaults_still_read(setup_for):
    r = setup_for(3).renderer
    reader = BoardReader(calibrate(r.empty()))
    tops = {"a1": (0, 1), "b2": (1, 4), "c3": (0, 4), "d4": (1, 2)}
    assert reader.read(r.render(tops)).tops() == r.truth(tops)


@pytest.mark.slow
def test_a_wrong_reference_layout_is_refused(setup_for):
    r = setup_for(1).renderer
    with pytest.raises(CompanionError, match="reference frame: no clear"):
        calibrate(r.empty(), r.render({"a1": (0, 1)}))
    swapped = {k: (1 - v[0], v[1]) for k, v in r.reference_tops().items()}
    with pytest.raises(CompanionError, match="look darker"):
        calibrate(r.empty(), r.render(swapped))


@pytest.mark.parametrize(
    "text",
    ["1,2 3,4 5,6", "a,b c,d e,f g,h", "1,2,3 4,5 6,7 8,9"],
)
def test_bad_corner_text(text):
    with pytest.raises(CompanionError, match="--corners"):
        parse_corners(text)


def test_bad_images_are_refused(setup_for):
    r = setup_for(1).renderer
    with pytest.raises(CompanionError, match="not an 8-bit image"):
        calibrate(np.zeros((480, 640, 3), np.float32))
    with pytest.raises(CompanionError, match="only 10x10"):
        calibrate(np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(CompanionError, match="reference image is 320x240"):
        calibrate(r.empty(), np.zeros((240, 320, 3), np.uint8))


@pytest.mark.parametrize("junk", [None, 1, "x", [], {}, [[1, 2], [3]], {"size": "four"}])
def test_any_junk_field_is_a_clear_error(setup_for, tmp_path, junk):
    path = tmp_path / "board.json"
    setup_for(1).calibration.save(path)
    data = json.loads(path.read_text())
    for key in ("board", "camera", "cups", "pixels", "rectified_px_per_mm", "background_png", "markers_px"):
        if junk == data[key] or (key == "markers_px" and junk == {}):
            continue  # a scale of 1 px/mm, or no markers (a --corners calibration), is not junk
        path.write_text(json.dumps({**data, key: junk}))
        with pytest.raises(CompanionError):
            Calibration.load(path)
