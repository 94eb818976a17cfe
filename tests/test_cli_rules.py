"""The rules commands, run in-process through ``main`` and as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from companion.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_moves_lists_legal_moves(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "moves")
    assert status == 0 and len(out.split()) == 16 and "4a1" in out.split()


def test_moves_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "moves", "--moves", "4a2 4c3 3b2 c3-b2", "--json")
    data = json.loads(out)
    assert status == 0 and data["to_move"] == "white" and data["outcome"] is None
    assert "a2-a3" in data["moves"]


def test_moves_json_reports_the_outcome(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "moves", "--moves", "4a1 4b1 4a2 4b2 4a3 4b3 3a4", "--json")
    data = json.loads(out)
    assert data["moves"] == [] and data["outcome"]["winner"] == "white"
    assert "line" in data["outcome"]["reason"]


@pytest.mark.parametrize(
    ("moves", "words"),
    [
        ("4a1 4a1", "ply 2: 4a1 is illegal: a1 holds a same-size piece"),
        ("4a1 zz9", "ply 2:"),
        ("4a1 4b2 2c3", "ply 3: 2c3 is illegal: your stacks show sizes 4 and 3, not 2"),
    ],
)
def test_bad_move_sequences_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], moves: str, words: str
) -> None:
    status, out, err = run(capsys, "moves", "--moves", moves)
    assert status == 2 and out == ""
    assert words in err and err.count("\n") == 1


def test_unknown_variant_and_corrupt_position_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "moves", "--variant", "chess")[0] == 2
    status, _, err = run(capsys, "moves", "--position", "classic 4/4 w - -")
    assert status == 2 and "ranks" in err


def test_perft_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "perft", "--depth", "3", "--json")
    data = json.loads(out)
    assert status == 0 and data["depth"] == 3 and data["nodes"] == 10080
    assert data["seconds"] >= 0 and data["nodes_per_second"] >= 0


def test_perft_junior_after_moves(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "perft", "--variant", "junior", "--moves", "3b2", "--depth", "1", "--json")
    assert json.loads(out)["nodes"] == 24 + 0  # Black: 3 sizes x 8 empties, nothing can cover a 3


def test_play_two_people_at_the_terminal(tmp_path) -> None:
    record = tmp_path / "game.txt"
    script = "\n".join(
        ["4a1", "4a1", "show a1", "4b1", "undo", "4d4", "4a2", "4c4", "4a3", "4b4", "3a4", str(record), ""]
    )
    result = subprocess.run(
        [sys.executable, "-m", "companion", "play"], input=script, text=True, capture_output=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "a1 holds a same-size piece" in result.stdout
    assert "a1 bottom to top: W4" in result.stdout
    assert "took back 4b1" in result.stdout
    assert "White wins with a full line a1 a2 a3 a4" in result.stdout
    text = record.read_text()
    assert '[Result "1-0"]' in text and "3a4" in text


@pytest.mark.parametrize("command", ["moves", "perft", "play"])
def test_every_command_has_help(capsys: pytest.CaptureFixture[str], command: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0 and "usage" in capsys.readouterr().out
