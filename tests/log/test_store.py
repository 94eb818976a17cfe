"""The SQLite game log: moves, events, takebacks, endings, resuming and damaged files."""

from __future__ import annotations

import sqlite3

import pytest

from companion.errors import CompanionError
from companion.log import GameStore
from companion.reconciler.events import Event, EventType
from companion.rules.game import Game
from companion.rules.record import read_record, write_record
from companion.rules.square import BLACK, WHITE, parse_square


def store_game(store: GameStore, moves: list[str], t0: float = 1_700_000_000.0) -> tuple[int, Game]:
    game = Game()
    game_id = store.start_game("classic", white="Ann", black="Bob", started=t0)
    for i, text in enumerate(moves, start=1):
        move = game.push_text(text, t0 + i)
        event = Event(EventType.MOVE, ply=game.ply, move=move.text(), timestamp=t0 + i)
        store.add_move(
            game_id, game.ply, move.text(), game.position.text(), timestamp=t0 + i, events=(event,)
        )
    return game_id, game


@pytest.fixture
def store(tmp_path):
    with GameStore(tmp_path / "games.sqlite3") as store:
        yield store


def legal_prefix() -> list[str]:
    game = Game()
    for text in ["4a1", "4d4", "3b1", "3c4", "2c1"]:
        game.push_text(text)
    return [m.text() for m in game.moves]


def test_moves_and_events_round_trip(store):
    game_id, game = store_game(store, legal_prefix())
    row = store.game(game_id)
    assert (row.white, row.black, row.plies, row.finished) == ("Ann", "Bob", 5, False)
    assert [m.move for m in store.moves(game_id)] == legal_prefix()
    assert [e.type for e in store.events(game_id)] == [EventType.MOVE] * 5
    loaded = store.load_game(game_id)
    assert loaded.position == game.position
    assert [p.timestamp for p in loaded.played] == [p.timestamp for p in game.played]


def test_wal_mode_and_full_sync(store):
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_resume_finds_the_unfinished_game_with_hidden_cups(tmp_path):
    path = tmp_path / "games.sqlite3"
    with GameStore(path) as store:
        done, _ = store_game(store, ["4a1"])
        store.finish(done, "1-0", termination="resignation", reason="Black resigned")
        game_id, game = store_game(store, ["4a1", "4b2", "3c1", "b2-c1"])  # black's 4 covers white's 3
    with GameStore(path) as store:
        [row] = store.unfinished()
        assert row.id == game_id
        assert store.unfinished("somewhere else") == []
        resumed = store.load_game(row.id)
        assert store.load_game(done).result == "1-0"
    assert resumed.position == game.position
    assert resumed.position.stack(parse_square("c1")) == ((WHITE, 3), (BLACK, 4))


def test_takeback_removes_the_move_but_keeps_the_history(store):
    game_id, _ = store_game(store, legal_prefix())
    store.take_back(game_id, 5, (Event(EventType.TAKEBACK, ply=4, move="2c1"),))
    assert [m.move for m in store.moves(game_id)] == legal_prefix()[:4]
    assert [e.type for e in store.events(game_id)][-1] == EventType.TAKEBACK
    assert store.load_game(game_id).ply == 4


def test_finish_and_export_in_the_record_format(store):
    game = Game()
    for text in ["4a1", "4d4", "3a2", "3d3", "2a3", "2d2", "1a4"]:
        game.push_text(text)
    assert game.is_over()
    game_id, _ = store_game(store, [m.text() for m in game.moves])
    store.finish(game_id, game.result, termination="line", reason=game.outcome().reason)
    assert store.unfinished() == []
    record = write_record(store.load_game(game_id))
    again = read_record(record)
    assert again.headers["White"] == "Ann" and again.result == "1-0"
    assert [m.text() for m in again.moves] == [m.text() for m in game.moves]


def test_snapshots(store):
    game_id = store.start_game("classic")
    game = Game()
    game.push_text("4a1")
    store.add_move(game_id, 1, "4a1", game.position.text(), jpeg=b"\xff\xd8fake\xff\xd9")
    assert store.snapshot(game_id, 1) == b"\xff\xd8fake\xff\xd9"
    assert store.snapshot(game_id, 2) is None


def test_a_damaged_file_is_a_clear_error(tmp_path):
    path = tmp_path / "games.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(CompanionError, match="damaged"):
        GameStore(path)


def test_a_missing_file_is_a_clear_error_when_only_reading(tmp_path):
    with pytest.raises(CompanionError, match="no game log"):
        GameStore(tmp_path / "none.sqlite3", create=False)


def test_a_committed_move_survives_a_killed_writer(tmp_path):
    """Another connection (a new process after a power cut) sees every committed move."""
    path = tmp_path / "games.sqlite3"
    store = GameStore(path)
    game_id, _ = store_game(store, legal_prefix())
    # no close(): the writer just stops
    other = sqlite3.connect(path)
    assert other.execute("SELECT COUNT(*) FROM moves WHERE game_id = ?", (game_id,)).fetchone()[0] == 5
    other.close()
    store.close()


def test_a_review_is_kept_with_its_game_for_the_moves_it_judged(store):
    game_id, game = store_game(store, legal_prefix())
    assert store.unreviewed() == []  # not finished yet
    store.finish(game_id, "1-0", termination="resignation", reason="Black resigned")
    other, _ = store_game(store, legal_prefix()[:2], t0=1_700_000_100.0)
    store.finish(other, "*", termination="abandoned")  # no result: nothing to review
    assert store.unreviewed() == [game_id]
    store.save_review(game_id, game.ply, "exact", {"version": 1, "plies": []})
    assert store.review(game_id, game.ply) == {"version": 1, "plies": []}
    assert store.review(game_id, game.ply - 1) is None  # a review of another line is none
    assert store.unreviewed() == []
    store.take_back(game_id, game.ply)  # the line changed: the review goes
    assert store.review(game_id, game.ply) is None and store.review(game_id, game.ply - 1) is None


def test_a_reader_of_a_log_without_reviews_finds_none(tmp_path):
    from tests.log.test_log_faults import log_at_version

    path = tmp_path / "old.sqlite3"
    log_at_version(path, 2)
    with GameStore(path, create=False) as reader:
        assert reader.review(1, 5) is None and reader.unreviewed() == []
