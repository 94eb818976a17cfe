"""``gobblet-companion replay`` on the development frames: calibrate from each scene's empty
and reference frames, replay the rest, and compare the moves with the scene's."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from companion.cli import main
from companion.vision.calibration import calibrate

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "frames-dev"
SCENES = sorted(SHARED.glob("dev-*")) if SHARED.is_dir() else []


def calibration_file(scene: Path, tmp_path: Path) -> Path:
    frames = scene / "frames"
    path = tmp_path / "calibration.json"
    calibrate(cv2.imread(str(frames / "00-empty.jpg")), cv2.imread(str(frames / "01-reference.jpg"))).save(
        path
    )
    return path


@pytest.mark.slow
@pytest.mark.skipif(not SCENES, reason="../shared/data/frames-dev is not there")
@pytest.mark.parametrize("scene", SCENES, ids=lambda p: p.name)
def test_replay_prints_the_scene_moves(scene: Path, tmp_path: Path, capsys) -> None:
    frames = sorted(str(p) for p in (scene / "frames").glob("*.jpg"))[2:]
    status = main(["replay", "--calibration", str(calibration_file(scene, tmp_path)), *frames, "--json"])
    assert status == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    moves = [line["move"] for line in lines if line["type"] == "move"]
    expected = json.loads((scene / "scene.json").read_text())["moves"]
    assert moves == expected
    final = next(line for line in lines if line["type"] == "final")
    assert final["moves"] == expected
    assert lines[-1]["type"] == "record" and expected[-1] in lines[-1]["record"]
    winner = json.loads((scene / "frames" / Path(frames[-1]).with_suffix(".json").name).read_text())["winner"]
    ends = [line for line in lines if line["type"] in ("win", "loss", "draw")]
    assert bool(ends) == bool(winner)


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    corrupt = tmp_path / "c.json"
    corrupt.write_text("not json")
    assert main(["replay", "--calibration", str(corrupt), "x.jpg"]) == 2
    assert main(["replay", "--calibration", str(corrupt), "--variant", "nope", "x.jpg"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("gobblet-companion: ") for line in err)


def test_unreadable_frame_is_bad_input(tmp_path: Path, capsys, setup_for) -> None:
    calibration = tmp_path / "calibration.json"
    setup_for(1).calibration.save(calibration)  # any board's: the frame is refused before reading
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not an image")
    assert main(["replay", "--calibration", str(calibration), str(junk)]) == 2
    assert "not an image" in capsys.readouterr().err
