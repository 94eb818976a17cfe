"""The log under faults: readers open read-only and say what is really wrong (read-only, full,
damaged, newer); schema upgrades run in order from every older version; one damaged game or
event row does not hide the others."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from companion.cli import main
from companion.log import (
    MIGRATIONS,
    SCHEMA_VERSION,
    GameStore,
    LogDamagedError,
    LogFullError,
    LogNewerError,
    LogReadOnlyError,
    UnreplayableGameError,
)
from companion.rules.game import Game

from .test_store import legal_prefix, store_game


def schema_of(path: Path) -> set[tuple[str, str]]:
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall()
    finally:
        db.close()
    return {(name, " ".join(sql.split())) for name, sql in rows}


def log_at_version(path: Path, version: int) -> None:
    """A log as a program of schema ``version`` left it, with one game when it has tables."""
    db = sqlite3.connect(path, isolation_level=None)
    for step in range(1, version + 1):
        db.executescript(MIGRATIONS[step])
    db.execute(f"PRAGMA user_version = {version}")
    if version >= 1:
        game = Game()
        db.execute("INSERT INTO games (id, variant, started) VALUES (1, 'classic', 1700000000.0)")
        for ply, text in enumerate(legal_prefix(), start=1):
            game.push_text(text)
            db.execute(
                "INSERT INTO moves VALUES (1, ?, ?, ?, ?)",
                (ply, text, 1700000000.0 + ply, game.position.text()),
            )
    db.close()


@pytest.mark.parametrize("version", range(SCHEMA_VERSION))
def test_every_older_schema_is_upgraded_in_order_and_keeps_its_games(tmp_path, version):
    path = tmp_path / "old.sqlite3"
    log_at_version(path, version)
    fresh = tmp_path / "fresh.sqlite3"
    GameStore(fresh).close()
    with GameStore(path) as store:
        assert store._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        if version >= 1:
            assert store.load_game(1).ply == len(legal_prefix())
        new = store.start_game("classic")
        assert store._db.execute("SELECT program FROM games WHERE id = ?", (new,)).fetchone()[0]
    assert schema_of(path) == schema_of(fresh)


def test_a_migration_that_fails_leaves_the_log_at_its_old_version(tmp_path, monkeypatch):
    path = tmp_path / "games.sqlite3"
    log_at_version(path, 1)
    monkeypatch.setitem(MIGRATIONS, 2, "ALTER TABLE games ADD COLUMN program TEXT; THIS IS NOT SQL;")
    with pytest.raises(Exception, match="syntax error"):
        GameStore(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    assert "program" not in [row[1] for row in db.execute("PRAGMA table_info(games)")]
    db.close()


def test_a_log_from_a_newer_program_is_not_called_damaged(tmp_path):
    path = tmp_path / "games.sqlite3"
    log_at_version(path, SCHEMA_VERSION)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    for create in (True, False):
        with pytest.raises(LogNewerError, match="newer gobblet-companion"):
            GameStore(path, create=create)


def test_a_reader_never_writes(tmp_path, capsys):
    """An older log read by `games list` stays as it was: no schema written, no version bumped."""
    path = tmp_path / "games.sqlite3"
    log_at_version(path, 1)
    before = path.read_bytes()
    assert main(["games", "list", "--db", str(path)]) == 0
    assert main(["games", "show", "1", "--db", str(path), "--events"]) == 0
    assert main(["games", "export", "--db", str(path)]) == 0
    assert path.read_bytes() == before
    assert "4a1" in capsys.readouterr().out


@contextlib.contextmanager
def read_only_folder(tmp_path: Path):
    """A folder that cannot be written: a read-only tmpfs mount as root, permissions otherwise."""
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() != 0:
        yield folder, lambda: folder.chmod(0o555)
        folder.chmod(0o755)
        return
    if (
        shutil.which("mount") is None
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)], capture_output=True
        ).returncode
    ):
        pytest.skip("root here, but no tmpfs can be mounted to make a read-only folder")
    try:
        yield folder, lambda: subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
    finally:
        if subprocess.run(["umount", str(folder)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)  # a file still open


def test_on_a_read_only_disk_readers_read_and_the_writer_says_read_only(tmp_path, capsys):
    with read_only_folder(tmp_path) as (folder, lock):
        path = folder / "games.sqlite3"
        with GameStore(path) as store:
            store_game(store, legal_prefix())
        lock()
        capsys.readouterr()
        assert main(["games", "list", "--db", str(path)]) == 0
        assert main(["games", "export", "--db", str(path)]) == 0
        out = capsys.readouterr()
        assert "5 plies" in out.out and "4a1" in out.out and not out.err
        with pytest.raises(LogReadOnlyError, match="read-only") as refused:
            GameStore(path)
        assert "damaged" not in str(refused.value)


def test_a_full_disk_is_called_full_and_the_log_still_reads(tmp_path, capsys):
    path = tmp_path / "games.sqlite3"
    with GameStore(path) as store:
        game_id, _ = store_game(store, legal_prefix())
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "disk is full"
        with pytest.raises(LogFullError, match="is full") as full:
            store.add_move(game_id, 6, "x" * 20000, "y" * 20000)
        assert "damaged" not in str(full.value)
        assert store.load_game(game_id).ply == 5  # nothing half-written
    assert main(["games", "show", str(game_id), "--db", str(path)]) == 0
    assert "5. " in capsys.readouterr().out


@pytest.mark.skipif(os.geteuid() != 0, reason="a tiny disk needs a tmpfs mount (root)")
def test_a_really_full_disk_is_called_full(tmp_path):
    folder = tmp_path / "tiny"
    folder.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", str(folder)]).returncode:
        pytest.skip("no tmpfs can be mounted here")
    try:
        with GameStore(folder / "games.sqlite3") as store:
            game_id, _ = store_game(store, legal_prefix())
            (folder / "filler").write_bytes(b"\0" * (200 * 1024 - (folder / "games.sqlite3").stat().st_size))
            with pytest.raises(LogFullError, match="is full"):
                for ply in range(6, 400):
                    store.add_move(game_id, ply, "4a1", "p" * 4000)
    except OSError:
        pass  # the filler itself did not fit: the disk was full before the log was
    finally:
        if subprocess.run(["umount", str(folder)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def test_a_damaged_log_is_called_damaged_by_readers_too(tmp_path, capsys):
    path = tmp_path / "games.sqlite3"
    path.write_bytes(b"SQLite format 3\0" + b"\x13" * 4000)
    with pytest.raises(LogDamagedError, match="damaged"):
        GameStore(path, create=False)
    assert main(["games", "list", "--db", str(path)]) == 2
    err = capsys.readouterr().err
    assert "damaged" in err and err.count("\n") == 1


def test_a_bad_event_row_does_not_hide_the_game(tmp_path, capsys):
    path = tmp_path / "games.sqlite3"
    with GameStore(path) as store:
        game_id, _ = store_game(store, legal_prefix())
        store._db.execute("UPDATE events SET data = '{not json' WHERE id = 2")
        store._db.execute("""UPDATE events SET data = '{"type": "teleport"}' WHERE id = 3""")
        damaged: list[str] = []
        assert len(store.events(game_id, damaged)) == 3
        assert len(damaged) == 2 and "row 2" in damaged[0]
    capsys.readouterr()
    assert main(["games", "show", str(game_id), "--events", "--db", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("event ") == 3 and captured.err.count("skipped") == 2
    assert main(["games", "show", str(game_id), "--json", "--db", str(path)]) == 0


def test_export_skips_and_names_an_unreplayable_game(tmp_path, capsys):
    """One unreplayable game made `games export` fail for every game."""
    path = tmp_path / "games.sqlite3"
    with GameStore(path) as store:
        store_game(store, legal_prefix())
        broken, _ = store_game(store, legal_prefix())
        store_game(store, ["4a1", "4b2"])
        store._db.execute("UPDATE moves SET move = '4a1' WHERE game_id = ? AND ply = 2", (broken,))
        with pytest.raises(UnreplayableGameError, match=f"game {broken} .* does not replay"):
            store.load_game(broken)
    capsys.readouterr()
    assert main(["games", "export", "--db", str(path), "-o", str(tmp_path / "all.txt")]) == 0
    text = (tmp_path / "all.txt").read_text()
    assert text.count("[White ") == 2
    err = capsys.readouterr().err
    assert f"skipped game {broken}" in err and err.count("\n") == 1
    assert main(["games", "export", str(broken), "--db", str(path)]) == 2  # nothing left to export


def test_a_start_time_that_is_not_a_time_still_lists_and_exports(tmp_path, capsys):
    path = tmp_path / "games.sqlite3"
    with GameStore(path) as store:
        game_id, _ = store_game(store, legal_prefix())
        store._db.execute("UPDATE games SET started = 'yesterday' WHERE id = ?", (game_id,))
        store._db.execute("UPDATE moves SET timestamp = 1e300 WHERE game_id = ?", (game_id,))
    for argv in (["list"], ["show", str(game_id)], ["show", str(game_id), "--json"], ["export"]):
        assert main(["games", *argv, "--db", str(path)]) == 0, argv


@pytest.mark.skipif(os.geteuid() != 0, reason="a tiny disk needs a tmpfs mount (root)")
def test_readers_read_a_log_on_a_really_full_disk(tmp_path, capsys):
    """Defect 4 on a real full disk: the log was closed cleanly (no WAL files left), then the
    disk filled up; list, show and export must read it, not call it damaged."""
    folder = tmp_path / "tiny"
    folder.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(folder)]).returncode:
        pytest.skip("no tmpfs can be mounted here")
    try:
        path = folder / "games.sqlite3"
        with GameStore(path) as store:
            game_id, _ = store_game(store, legal_prefix())
        with contextlib.suppress(OSError), open(folder / "filler", "wb") as filler:
            while True:
                filler.write(b"\0" * 4096)
                filler.flush()
        capsys.readouterr()
        assert main(["games", "list", "--db", str(path)]) == 0
        assert main(["games", "show", str(game_id), "--db", str(path)]) == 0
        assert main(["games", "export", "--db", str(path)]) == 0
        out = capsys.readouterr()
        assert "4a1" in out.out and "damaged" not in out.err, out.err
    finally:
        if subprocess.run(["umount", str(folder)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)
