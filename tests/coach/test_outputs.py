"""What the review is written as: the record's symbols and evaluations, the SVG graph, and
``games review`` on the command line."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import pytest

from companion.cli import main
from companion.coach import GameReview, Value, annotate, eval_text, evaluation_graph, review_game
from companion.coach.graph import HEIGHT, MARGIN
from companion.engine import MATE
from companion.log import GameStore
from companion.rules.record import read_record, write_record
from tests.coach.helpers import game_of, log_game

NODES = 800
# White misses a win in one (ply 7) after Black handed over a line (ply 6)
MISSED = "4a1 4d4 4b1 4c4 4c1 4b4 3a4"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def missed() -> tuple:
    game = game_of("classic", MISSED)
    return game, review_game(game, nodes=NODES)


def test_an_annotated_record_carries_the_review_and_reads_back(missed):
    game, review = missed
    text = write_record(annotate(game, review))
    words = " ".join(text.split())
    assert "4b4?? {[%eval #1] Blunder; best 4d1" in words and "3a4? {[%eval 1.95] Missed win" in words
    again = read_record(text)
    assert [p.symbol for p in again.played] == [p.symbol or None for p in review.plies]
    assert [p.evaluation for p in again.played] == [eval_text(p.white_value()) for p in review.plies]
    assert "Missed win (a win in 1 ply)" in (again.played[-1].comment or "")
    assert again.moves == game.moves


def test_evaluations_are_written_from_whites_side():
    assert eval_text(Value(MATE - 3)) == "#3" and eval_text(Value(-(MATE - 2))) == "#-2"
    assert eval_text(Value(-150)) == "-1.50" and eval_text(Value(0, True)) == "0.00"


def test_the_graph_is_svg_with_a_clickable_mark_at_each_blunder_and_missed_win(missed):
    _, review = missed
    root = ET.fromstring(evaluation_graph(review))
    assert root.tag == f"{SVG}svg"
    marks = [c for c in root.iter(f"{SVG}circle") if c.get("class") == "mark"]
    assert [(m.get("data-ply"), m.get("data-verdict")) for m in marks] == [
        ("6", "blunder"),
        ("7", "missed win"),
    ]
    # Black's blunder hands White a win: its dot sits at the top edge; the line starts level
    assert float(marks[0].get("cy")) == pytest.approx(MARGIN)
    line = next(root.iter(f"{SVG}polyline")).get("points").split()
    assert len(line) == len(review.plies) + 1
    assert float(line[0].split(",")[1]) == pytest.approx(HEIGHT / 2)


def store_with(tmp_path, *games) -> str:
    path = tmp_path / "games.sqlite3"
    with GameStore(path) as store:
        for game in games:
            log_game(store, game)
    return str(path)


def test_games_review_prints_verdicts_and_a_summary_per_player(tmp_path, capsys):
    db = store_with(tmp_path, game_of("classic", MISSED))
    assert main(["games", "review", "1", "--db", db, "--nodes", str(NODES)]) == 0
    out, err = capsys.readouterr()
    assert "values: search, 800 nodes per position" in out
    assert "3a4?" in out and "Missed win (a win in 1 ply)" in out
    assert "Ann (white): 0 blunders, " in out and "1 missed wins" in out
    assert "Bob (black): 1 blunders" in out
    assert err == ""  # no progress bar when stderr is not a terminal


def test_games_review_json_and_svg(tmp_path, capsys):
    db = store_with(tmp_path, game_of("junior", "3b2 3a1 3c1"))
    svg = tmp_path / "graph.svg"
    assert main(["games", "review", "1", "--db", db, "--json", "--svg", str(svg)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["game"] == 1 and data["exact"] and data["method"] == "exact (junior solver)"
    assert [p["move"] for p in data["plies"]] == ["3b2", "3a1", "3c1"]
    assert [s["player"] for s in data["summary"]] == ["white", "black"]
    assert GameReview.from_json(data).plies[0].before.text() == "#13"
    ET.parse(svg)


def test_games_review_draws_a_progress_bar_on_a_terminal(tmp_path, capsys, monkeypatch):
    db = store_with(tmp_path, game_of("junior", "3b2 3a1 3c1"))

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["games", "review", "1", "--db", db]) == 0
    assert terminal.getvalue().endswith("[" + "#" * 30 + "] 3/3 plies\n")
    assert "\rreviewing game 1 [##########" in terminal.getvalue()


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["7"], "no game 7"),
        (["1", "--time", "0"], "--time"),
        (["1", "--nodes", "0"], "--nodes"),
        (["1", "--nodes", "5", "--time", "1"], "not allowed with"),
        (["2"], "no move to review"),
    ],
)
def test_games_review_refuses_bad_input_in_one_line(tmp_path, capsys, arguments, words):
    path = tmp_path / "games.sqlite3"
    with GameStore(path) as store:
        log_game(store, game_of("classic", "4a1"))
        store.start_game("classic")
    try:
        status = main(["games", "review", *arguments, "--db", str(path)])
    except SystemExit as exit_:  # argparse's refusals end there
        status = exit_.code
    assert status == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_a_review_is_made_once_kept_in_the_log_and_carried_by_the_export(tmp_path, capsys, monkeypatch):
    game = game_of("junior", "3a1 3b1 3a2 3b2 2a3")
    assert game.is_over()
    db = store_with(tmp_path, game)
    assert main(["games", "review", "1", "--db", db, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    with GameStore(db, create=False) as store:
        assert store.review(1, 5) is not None and store.unreviewed() == []

    def refuse(*args, **kwargs):
        raise AssertionError("the stored review should have been used")

    monkeypatch.setattr("companion.cli.games.review_game", refuse)
    assert main(["games", "review", "1", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == first
    assert main(["games", "export", "1", "--db", db]) == 0
    record = read_record(capsys.readouterr().out)
    assert [p.evaluation for p in record.played] == [
        eval_text(GameReview.from_json(first).plies[i].white_value()) for i in range(5)
    ]
    assert [p.symbol for p in record.played] == [p["symbol"] or None for p in first["plies"]]
