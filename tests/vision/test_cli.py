"""The calibrate, read and markers commands, end to end on synthetic images."""

import json

import cv2
import pytest

from companion.cli import main


@pytest.fixture(scope="module")
def images(tmp_path_factory, setup_for_module):
    folder = tmp_path_factory.mktemp("cli")
    r = setup_for_module.renderer
    tops = {"a1": (0, 4), "b2": (1, 3), "d4": (1, 1)}
    paths = {}
    for name, image in {
        "empty": r.empty(),
        "reference": r.reference(),
        "board": r.render(tops),
        "hand": r.render(tops, hand=True),
    }.items():
        paths[name] = folder / f"{name}.png"
        cv2.imwrite(str(paths[name]), image)
    paths["corners"] = " ".join(f"{x:.1f},{y:.1f}" for x, y in r.grid_corners_px())
    return paths


@pytest.fixture(scope="module")
def setup_for_module(setup_for):
    return setup_for(2)


@pytest.fixture(scope="module")
def calibration_file(images, tmp_path_factory):
    out = tmp_path_factory.mktemp("cal") / "board.json"
    assert (
        main(
            [
                "calibrate",
                "--empty",
                str(images["empty"]),
                "--reference",
                str(images["reference"]),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    return out


def test_calibrate_then_read_json(calibration_file, images, capsys):
    capsys.readouterr()
    assert (
        main(
            [
                "read",
                "--calibration",
                str(calibration_file),
                str(images["board"]),
                str(images["hand"]),
                "--json",
            ]
        )
        == 0
    )
    lines = capsys.readouterr().out.strip().splitlines()
    board, hand = (json.loads(line) for line in lines)
    assert board["image"] == str(images["board"]) and board["occluded"] is False
    assert board["squares"]["a1"]["color"] == "white" and board["squares"]["a1"]["size"] == 4
    assert 0 <= board["squares"]["b2"]["confidence"] <= 1
    assert board["squares"]["c3"] is None
    assert hand["occluded"] is True


def test_read_as_text(calibration_file, images, capsys):
    assert main(["read", "--calibration", str(calibration_file), str(images["board"])]) == 0
    out = capsys.readouterr().out
    assert "W4" in out and "B3" in out and "B1" in out


def test_calibrate_with_hand_given_corners(images, tmp_path, capsys):
    out = tmp_path / "corners.json"
    assert (
        main(
            ["calibrate", "--empty", str(images["empty"]), "--corners", images["corners"], "--out", str(out)]
        )
        == 0
    )
    assert "--corners" in capsys.readouterr().out
    assert json.loads(out.read_text())["markers_px"] == {}


def test_markers_command(tmp_path, capsys):
    out = tmp_path / "sheet.png"
    assert main(["markers", "--out", str(out), "--dpi", "150"]) == 0
    assert out.is_file() and "100 mm" in capsys.readouterr().out + "100 mm"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["calibrate", "--empty", "{blank}", "--out", "{tmp}/x.json"],
            "board markers not found: missing id(s) [0, 1, 2, 3], saw none",
        ),
        (["calibrate", "--empty", "{tmp}/nothing.png", "--out", "{tmp}/x.json"], "does not exist"),
        (["calibrate", "--empty", "{junk}", "--out", "{tmp}/x.json"], "cannot read image"),
        (["read", "--calibration", "{junk}", "{board}"], "not JSON"),
        (["read", "--calibration", "{cal}", "--size", "3", "{board}"], "4x4 board, not 3x3"),
        (["read", "--calibration", "{cal}", "{junk}"], "cannot read image"),
        (["calibrate", "--empty", "{board}", "--corners", "1,2 3", "--out", "{tmp}/x.json"], "--corners"),
    ],
)
def test_bad_input_is_one_clear_line_and_status_2(args, message, images, calibration_file, tmp_path, capsys):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), cv2.imread(str(images["board"])) * 0 + 128)
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"\x89PNG not really")
    values = {
        "blank": blank,
        "tmp": tmp_path,
        "junk": junk,
        "board": images["board"],
        "cal": calibration_file,
    }
    assert main([a.format(**values) for a in args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and "Traceback" not in err


def test_read_refuses_a_calibration_for_another_board_size(calibration_file, images, tmp_path, capsys):
    data = json.loads(calibration_file.read_text())
    data["board"]["size"] = 3
    other = tmp_path / "three.json"
    other.write_text(json.dumps(data))
    assert main(["read", "--calibration", str(other), str(images["board"])]) == 2
    assert "is for a 3x3 board, not 4x4" in capsys.readouterr().err
