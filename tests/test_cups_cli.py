"""Cups at the command line: moves, perft, hint, play (logged, then listed, shown and exported
like a refereed game), and its bad inputs: one line on stderr, exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.log import GameStore
from companion.rules.cups import CupsGame
from companion.rules.record import read_records
from tests.test_bad_input import refused

ROOT = Path(__file__).resolve().parents[1]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_moves_perft_and_hint(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "moves", "--variant", "cups", "--moves", "s4 s3").split() == [
        "s1",
        "s2",
        "s3",
        "s4",
        "c4",
    ]
    perft = json.loads(run(capsys, "perft", "--variant", "cups", "--depth", "5", "--json"))
    assert perft["nodes"] == 1252
    hint = json.loads(run(capsys, "hint", "--variant", "cups", "--moves", "s4 s3", "--depth", "3", "--json"))
    assert hint["move"] in ("s1", "s2", "s3", "s4", "c4") and hint["depth"] >= 1
    near_end = "cups 0.0.0.1/0.0.0.0 w 0/0 40/39 0"
    solved = run(capsys, "hint", "--position", near_end, "--time", "0.2")
    assert solved.startswith("c4  score cp 200 (win)")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["hint", "--variant", "cups:cups=5"], "even number of cups"),
        (["hint", "--variant", "cups:stock=x"], "needs a whole number"),
        (["moves", "--variant", "cups", "--moves", "s4 c9"], "ply 2: c9 is illegal: there are only 4 cups"),
        (["moves", "--variant", "cups", "--moves", "s4 x"], "ply 2: 'x' is not a Cups move"),
        (["moves", "--position", "cups 0.0.0.0/0.0.0.0 w 40/39 0/0 0"], "holds 79 beans"),
        (["hint", "--position", "cups 0.0.0.0/0.0.0.0 w 0/0 40/40 0"], "the game is over"),
        (["play", "--variant", "cups:size=4"], "use cups=N or stock=N"),
        (["run", "--variant", "cups"], "the referee plays Gobblet, not 'cups'"),
    ],
)
def test_bad_cups_input_is_one_line_and_exit_2(capsys, argv: list[str], words: str) -> None:
    assert words in refused(capsys, argv)


def test_play_against_the_engine_logged_then_listed_shown_and_exported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "games.sqlite3"
    script = "s4\nc3\nhelp\ns3\nundo\ns2\nresign\n\n"
    argv = ["play", "--variant", "cups", "--ai", "black", "--level", "greedy", "--white", "Ann"]
    result = subprocess.run(
        [sys.executable, "-m", "companion", *argv, "--log", "--db", str(db)],
        input=script,
        text=True,
        capture_output=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "c3 is illegal: cup 3 holds" in out and "s3, c2" in out and "took back s3" in out
    assert "White: stock" in out and "Black wins: White resigned" in out and "logged as game 1" in out
    listing = run(capsys, "games", "list", "--db", str(db))
    assert "cups" in listing and "Ann - Black" in listing and "0-1" in listing
    shown = run(capsys, "games", "show", "1", "--db", str(db))
    assert "1. " in shown and " white  s4" in shown and " black  " in shown
    (game,) = read_records(run(capsys, "games", "export", "1", "--db", str(db)))
    assert isinstance(game, CupsGame) and game.result == "0-1" and game.moves[0].text() == "s4"
    assert [m.text() for m in game.moves][2] == "s2"
    assert "the coach reviews Gobblet games only" in refused(
        capsys, ["games", "review", "1", "--db", str(db)]
    )
    with GameStore(db, create=False) as store:
        assert store.unreviewed() == [], "the device's reviewer leaves a finished Cups game alone"
