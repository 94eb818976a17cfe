"""Every bad input issue 12 found (defects 6 and 7) gives one clear line on stderr and exit
status 2: no traceback, no hang, no silently wrong limit."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from companion.cli import main
from companion.log import GameStore
from companion.rules.game import Game

ROOT = Path(__file__).resolve().parents[1]
HANG_SECONDS = 30  # a refusal takes well under a second; a hang is killed here


def refused(capsys, argv: list[str]) -> str:
    """Run the command in process; it must exit 2 with exactly one line on stderr."""
    capsys.readouterr()
    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse's refusals exit from parse_args
        status = exit_.code
    out, err = capsys.readouterr()
    assert status == 2, (argv, out, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def refused_in_a_subprocess(argv: list[str], stdin: str = "") -> str:
    """For the inputs that used to hang: a real process, killed if it does not answer."""
    result = subprocess.run(
        [sys.executable, "-m", "companion", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 2, (argv, result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    return result.stderr


def refused_within_the_limit(capsys, argv: list[str]) -> str:
    """``refused``, in a thread given ``HANG_SECONDS``: a hang fails the test instead of
    stalling the run (the hung thread, a daemon, is left behind). In process, without the
    tenth of a second of CPU a new interpreter costs."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["err"] = refused(capsys, argv)
        except BaseException as error:  # an assertion too: raised again below
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_SECONDS)
    assert not thread.is_alive(), f"{argv} still running after {HANG_SECONDS} s"
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return str(outcome["err"])


@pytest.fixture
def log(tmp_path) -> Path:
    path = tmp_path / "games.sqlite3"
    with GameStore(path) as store:
        game = Game()
        game_id = store.start_game("classic")
        move = game.push_text("4a1")
        store.add_move(game_id, 1, move.text(), game.position.text(), jpeg=b"\xff\xd8fake\xff\xd9")
    return path


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["hint", "--time", "nan"], "finite number of seconds"),
        (["hint", "--time", "inf"], "finite number of seconds"),
        (["hint", "--depth", "0"], "out of range"),
        (["play", "--ai", "black", "--think", "nan"], "finite number of seconds"),
    ],
)
def test_limits_that_used_to_hang_are_refused(capsys, argv, words):
    assert words in refused_within_the_limit(capsys, argv)


def test_a_limit_that_used_to_hang_is_refused_by_the_installed_command():
    """The same refusal through ``python -m companion`` in a process of its own, killed if it
    does not answer: the entry point and its exit status, once."""
    assert "finite number of seconds" in refused_in_a_subprocess(["hint", "--time", "nan"])


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["hint", "--depth", "-3"], "out of range"),
        (["hint", "--depth", "100"], "out of range"),
        (["perft", "--depth", "1000"], "out of range"),
        (["run", "--fps", "0"], "frames per second"),
        (["run", "--fps", "-5"], "frames per second"),
        (["run", "--fps", "nan"], "frames per second"),
        (["run", "--max-seconds", "inf"], "seconds"),
        (["calibrate", "--empty", "e.jpg", "--out", "o.json", "--square-mm", "0"], "millimetres"),
        (["calibrate", "--empty", "e.jpg", "--out", "o.json", "--square-mm", "-60"], "millimetres"),
        (["calibrate", "--empty", "e.jpg", "--out", "o.json", "--pieces", "0"], "out of range"),
        (["calibrate", "--empty", "e.jpg", "--out", "o.json", "--size", "3", "--pieces", "4"], "room"),
        (["replay", "--calibration", "c.json", "f.png", "--hold", "nan"], "seconds"),
        (["moves", "--variant", "classic:size=4,size=5"], "given twice"),
        (["moves", "--variant", "classic:size=٤"], "bad value"),
        (["moves", "--moves", "4a٤"], "not a move"),
    ],
)
def test_impossible_limits_and_specs_are_refused(capsys, argv, words):
    assert words in refused(capsys, argv)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["games", "list", "--limit", "0"], "out of range"),
        (["games", "list", "--limit", "-1"], "out of range"),
        (["games", "list", "--limit", "99999999999999999999"], "out of range"),
        (["games", "show", "99999999999999999999"], "out of range"),
        (["games", "show", "12345"], "no game 12345"),
        (["games", "export", "-o", "/proc/nope/x"], "cannot write the records to /proc/nope/x"),
        (["games", "export", "-o", "{tmp}"], "it is a folder"),
        (["games", "show", "1", "--snapshot", "1", "--out", "/proc/nope/s.jpg"], "cannot write the board"),
        (["games", "show", "1", "--snapshot", "1"], "needs --out"),
    ],
)
def test_game_log_commands_refuse_in_one_line(capsys, log, tmp_path, argv, words):
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in argv]
    assert words in refused(capsys, [*argv, "--db", str(log)])


def test_a_snapshot_is_written_when_it_can_be(capsys, log, tmp_path):
    out = tmp_path / "s.jpg"
    assert main(["games", "show", "1", "--snapshot", "1", "--out", str(out), "--db", str(log)]) == 0
    assert out.read_bytes() == b"\xff\xd8fake\xff\xd9"


def test_markers_to_an_unwritable_place_is_one_line(capsys):
    assert "cannot write" in refused(capsys, ["markers", "--out", "/proc/nope/x.png"])


def test_play_show_off_the_board_keeps_the_game(capsys, monkeypatch):
    """`printf '4b2\\nshow a5\\n' | play` was an IndexError that lost the unsaved game."""
    lines = iter(["4b2", "show a5", "show e1", "show b2", "quit", ""])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    assert main(["play"]) == 0
    out = capsys.readouterr().out
    assert "! a5 is not on the 4x4 board" in out and "! e1 is not on the 4x4 board" in out
    assert "b2 bottom to top: W4" in out


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[hint]\nlevel = "godlike"\n', "is not a level"),
        ("[hint]\ntime = nan\n", "hint.time must be a finite number"),
        ("[hint]\ntime = inf\n", "hint.time must be a finite number"),
        ("[camera]\nreconnect_delay = nan\n", "camera.reconnect_delay"),
        ("[panel]\nblink_period = inf\n", "panel.blink_period"),
        ("[panel]\nhold_time = nan\n", "panel.hold_time"),
    ],
)
def test_config_values_are_checked(capsys, tmp_path, log, text, words):
    config = tmp_path / "config.toml"
    config.write_text(text)
    assert words in refused(capsys, ["games", "list", "--config", str(config)])


def test_a_config_that_is_not_utf8_is_one_line(capsys, tmp_path):
    config = tmp_path / "config.toml"
    config.write_bytes(b'[hint]\nlevel = "m\xe9dium"\n')
    assert "not UTF-8" in refused(capsys, ["games", "list", "--config", str(config)])
