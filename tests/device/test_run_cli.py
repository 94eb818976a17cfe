"""``gobblet-companion run`` and ``games`` as a user runs them: the simulated table to the end
of a game, the log read back, bad input as one line and exit 2, a killed run resumed."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import cv2
import pytest

from companion.cli import main
from companion.device.scenario import random_game
from companion.rules.record import read_record
from companion.rules.variant import CLASSIC, PRESETS

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*argv: str) -> int:
    return main(list(argv))


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("GOBBLET_COMPANION_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("GOBBLET_COMPANION_CONFIG", str(ROOT / "hardware" / "config.toml"))
    return tmp_path


@pytest.mark.slow
def test_simulated_run_plays_a_game_to_the_end_and_logs_it(data, capsys):
    db = str(data / "g.sqlite3")
    assert run_cli("run", "--simulate", "--renderer", "truth", "--db", db, "--seed", "1") == 0
    out = capsys.readouterr().out
    expected = random_game(CLASSIC, 1)
    assert f"{expected.ply} plies, {expected.result}" in out
    assert "panel: hint for" in out and "panel: illegal" in out and "panel: took back" in out
    said = [line.removeprefix("  say: ") for line in out.splitlines() if line.startswith("  say: ")]
    assert any(line.startswith("Try ") for line in said) and any(
        line.startswith("Illegal: ") for line in said
    )
    assert any(line.startswith("Take back ") for line in said)
    moves = [line for line in said if line.startswith(("White: ", "Black: ")) or " gobbles " in line]
    assert len(moves) >= expected.ply  # every move said (those taken back and replayed twice)
    assert run_cli("games", "list", "--db", db) == 0
    assert expected.result in capsys.readouterr().out
    assert run_cli("games", "export", "--db", db, "1") == 0
    record = read_record(capsys.readouterr().out)
    assert [m.text() for m in record.moves] == [m.text() for m in expected.moves]
    assert run_cli("games", "show", "--db", db, "--json", "1") == 0
    assert '"type": "takeback"' in capsys.readouterr().out


@pytest.mark.slow
def test_speak_without_a_sound_card_says_why_once_and_the_game_goes_on(data, capsys, monkeypatch):
    cards = data / "cards"
    cards.write_text("--- no soundcards ---\n")
    monkeypatch.setattr("companion.device.speech.ALSA_CARDS", cards)
    db = str(data / "g.sqlite3")
    assert run_cli("run", "--simulate", "--renderer", "truth", "--db", db, "--speak") == 0
    captured = capsys.readouterr()
    silent = [line for line in captured.err.splitlines() if "speech: silent" in line]
    assert len(silent) == 1, captured.err
    assert "no sound device (ALSA lists no sound card)" in silent[0] or "is not installed" in silent[0]
    assert "  say: Try " in captured.out and f"{random_game(CLASSIC, 0).ply} plies" in captured.out


@pytest.mark.slow
def test_other_variants_are_refereed_and_logged_too(data, capsys):
    db = str(data / "g.sqlite3")
    assert run_cli("run", "--simulate", "--renderer", "truth", "--db", db, "--variant", "junior") == 0
    expected = random_game(PRESETS["junior"], 0)
    assert f"{expected.ply} plies, {expected.result}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("setup", "words"),
    [
        (lambda d: (d / "bad.toml").write_text("[pins]\nbutton = 99\n"), "not a GPIO number"),
        (lambda d: (d / "bad.toml").write_text("[pins\n"), "not valid TOML"),
        (lambda d: (d / "bad.toml").write_text('[speech]\nvoice = "xx"\n'), "no phrases in 'xx'"),
    ],
)
def test_a_bad_config_is_one_line_and_exit_2(data, capsys, setup, words):
    setup(data)
    assert run_cli("run", "--simulate", "--config", str(data / "bad.toml")) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_a_damaged_log_is_one_line_and_exit_2(data, capsys):
    db = data / "g.sqlite3"
    db.write_bytes(b"garbage" * 1000)
    assert run_cli("run", "--simulate", "--renderer", "truth", "--db", str(db)) == 2
    err = capsys.readouterr().err
    assert "damaged" in err and err.count("\n") == 1
    assert db.read_bytes() == b"garbage" * 1000  # never overwritten


def test_hardware_mode_off_a_pi_is_a_clear_error(data, capsys):
    assert run_cli("run", "--hardware") == 2
    assert "Raspberry Pi" in capsys.readouterr().err


def moves_in(db: Path) -> int:
    try:
        with sqlite3.connect(db) as connection:
            return connection.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.mark.slow
def test_killing_the_process_mid_game_then_starting_again_resumes_it(tmp_path):
    db = tmp_path / "g.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GOBBLET_COMPANION_DATA": str(tmp_path)}
    command = [
        sys.executable,
        "-m",
        "companion",
        "run",
        "--simulate",
        "--renderer",
        "truth",
        "--db",
        str(db),
        "--seed",
        "2",
        "--quiet",
    ]
    process = subprocess.Popen(
        [*command, "--fps", "20"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT
    )
    deadline = time.monotonic() + 30
    while moves_in(db) < 5 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    killed_at = moves_in(db)
    expected = random_game(CLASSIC, 2)
    assert 5 <= killed_at < expected.ply
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "game 1 resumed" in result.stdout
    with sqlite3.connect(db) as connection:
        games = connection.execute("SELECT id, result FROM games").fetchall()
        moves = [m for (m,) in connection.execute("SELECT move FROM moves WHERE game_id = 1 ORDER BY ply")]
    assert games == [(1, expected.result)]
    assert moves == [m.text() for m in expected.moves]


@pytest.mark.slow
def test_end_to_end_rendered_frames_through_vision_reconciler_panel_and_log(data, capsys):
    """The embedded default's path: synthetic pictures, the board reader, the stability gate,
    the reconciler, the mock panel, the log."""
    db = data / "g.sqlite3"
    assert run_cli("run", "--simulate", "--db", str(db), "--seed", "1") == 0
    out = capsys.readouterr().out
    expected = random_game(CLASSIC, 1)
    assert f"{expected.ply} plies, {expected.result}" in out
    assert "waited in vain" not in out
    with sqlite3.connect(db) as connection:
        [(game_id, result, termination)] = connection.execute(
            "SELECT id, result, termination FROM games"
        ).fetchall()
        moves = [
            m
            for (m,) in connection.execute(
                "SELECT move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
            )
        ]
        types = [
            t
            for (t,) in connection.execute(
                "SELECT type FROM events WHERE game_id = ? ORDER BY id", (game_id,)
            )
        ]
    assert (result, termination) == (expected.result, str(expected.outcome().termination))
    assert moves == [m.text() for m in expected.moves]
    for kind in ("illegal", "restored", "takeback"):
        assert kind in types
    assert types[-1] in ("win", "loss")


@pytest.mark.slow
def test_board_pictures_are_kept_when_asked(data, capsys):
    config = data / "config.toml"
    config.write_text("[log]\nsnapshots = true\n")
    db = str(data / "g.sqlite3")
    assert (
        run_cli(
            "run", "--simulate", "--renderer", "truth", "--config", str(config), "--db", db, "--seed", "1"
        )
        == 0
    )
    picture = data / "ply1.jpg"
    assert run_cli("games", "show", "--db", db, "1", "--snapshot", "1", "--out", str(picture)) == 0
    assert picture.read_bytes()[:2] == b"\xff\xd8"
    capsys.readouterr()
    assert run_cli("games", "show", "--db", db, "1", "--snapshot", "99", "--out", str(picture)) == 2


SHARED_FRAMES = ROOT.parent / "shared" / "data" / "frames-dev" / "dev-00"


@pytest.mark.slow
@pytest.mark.skipif(not SHARED_FRAMES.is_dir(), reason="shared/ frames are not beside the repository")
def test_a_camera_path_through_opencv_referees_rendered_photographs(data, capsys):
    """The hardware path with a video for a camera: OpenCV source, the calibration file, the
    stability gate on the video's own clock, the reconciler, mock pins (no Pi here)."""
    frames = SHARED_FRAMES / "frames"
    calibration = data / "calibration.json"
    assert (
        run_cli(
            "calibrate",
            "--empty",
            str(frames / "00-empty.jpg"),
            "--reference",
            str(frames / "01-reference.jpg"),
            "--out",
            str(calibration),
        )
        == 0
    )
    video = data / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (640, 480))
    shots = sorted(frames.glob("0[2-7]b-move.jpg"))
    for shot in shots:
        image = cv2.imread(str(shot))
        for _ in range(12):  # 1.2 s of video per position
            writer.write(image)
    writer.release()
    db = data / "g.sqlite3"
    assert run_cli("run", "--camera", str(video), "--calibration", str(calibration), "--db", str(db)) == 0
    capsys.readouterr()
    expected = json.loads((SHARED_FRAMES / "scene.json").read_text())["moves"][: len(shots)]
    with sqlite3.connect(db) as connection:
        moves = [m for (m,) in connection.execute("SELECT move FROM moves ORDER BY ply")]
    assert moves == expected


def test_a_missing_camera_at_the_terminal_is_one_line_and_exit_2(data, capsys):
    assert run_cli("run", "--camera", str(data / "no-such-video.avi"), "--db", str(data / "g.sqlite3")) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and err.count("\n") == 1
