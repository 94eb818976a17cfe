"""The engine protocol and the hint command, driven as another program would drive them."""

from __future__ import annotations

import io
import json

from companion.cli import main
from companion.engine.protocol import ProtocolSession
from companion.rules import PRESETS, Move, Position


def converse(lines: str) -> list[str]:
    out = io.StringIO()
    ProtocolSession(out=out).run(io.StringIO(lines))
    return out.getvalue().splitlines()


def test_protocol_answers_isready_and_a_legal_bestmove_with_info():
    lines = converse(
        "uci\nisready\nvariant classic\nposition startpos moves 4a1 4b2\ngo depth 3\nisready\nquit\n"
    )
    assert "uciok" in lines and lines.count("readyok") == 2
    infos = [line for line in lines if line.startswith("info depth")]
    assert infos and all(
        " score " in line and " nodes " in line and " nps " in line and " pv " in line for line in infos
    )
    best = [line for line in lines if line.startswith("bestmove")]
    assert len(best) == 1
    position = Position(PRESETS["classic"])
    for text in ("4a1", "4b2"):
        position.push(Move.from_text(text))
    assert Move.from_text(best[0].split()[1]) in position.legal_moves


def test_protocol_junior_movetime_and_errors_keep_the_engine_alive():
    lines = converse(
        "variant junior\nposition startpos moves 2b2\ngo movetime 500\nbogus\n"
        "position startpos moves 9z9\nisready\n"
    )
    assert any(line.startswith("info depth") and "mate" in line for line in lines)
    assert any(line.startswith("bestmove ") for line in lines)
    assert sum(line.startswith("info string error") for line in lines) == 2
    assert lines[-1] == "readyok"


def test_hint_json(capsys):
    assert main(["hint", "--variant", "junior", "--moves", "2b2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"move", "score", "depth", "nodes", "pv", "seconds", "value"}
    assert data["value"] == "win"


def test_hint_rejects_an_illegal_move_with_one_line(capsys):
    assert main(["hint", "--moves", "4a1 4a1"]) == 2
    assert "illegal" in capsys.readouterr().err
