"""The game log: every game the device refereed, in one SQLite file.

One file because a person backs it up, copies it off the Pi or opens it in any SQLite tool.
WAL mode so ``gobblet-companion games list`` can read while ``run`` writes, and
``synchronous=FULL`` so that a committed move survives a power cut: each move (with its
events) is one transaction, which is what "a power cut loses at most the move in progress"
means. ``moves`` holds the game's current line (a takeback deletes the last row); ``events``
keeps everything that happened, takebacks and illegal moves included, in order.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from companion import __version__
from companion.component import Component
from companion.errors import CompanionError
from companion.log.errors import (
    LogDamagedError,
    LogError,
    LogNewerError,
    UnreplayableGameError,
    folder_read_only,
    log_error,
)
from companion.log.replay import replay_game
from companion.log.rows import GameRow, MoveRow
from companion.log.schema import REVIEWS_SCHEMA, SCHEMA_VERSION, migrate, rollback
from companion.reconciler.events import Event
from companion.rules.game import BaseGame
from companion.rules.games import is_gobblet_spec

MAX_ROW_ID = 2**63 - 1
"""The largest id SQLite's INTEGER PRIMARY KEY holds."""

_GAME_COLUMNS = (
    "g.id, g.variant, g.white, g.black, g.place, g.started, g.ended, g.result, g.termination, "
    "g.reason, g.start_position, (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id)"
)


class GameStore(Component):
    """The SQLite file; every method is one short transaction."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        """``create=True`` (the device): open for writing, making the file or upgrading its
        schema as needed. ``create=False`` (``games list|show|export``): open read-only, so a
        reader never writes, and works on a full disk or a read-only mount."""
        self.path = Path(path)
        self.read_only = not create
        if not create and not self.path.exists():
            raise CompanionError(
                f"no game log at {self.path}: play a game with `gobblet-companion run` first"
            )
        try:
            self._db = self._connect_read_only() if self.read_only else self._connect()
        except (OSError, sqlite3.Error) as error:
            raise log_error(self.path, error, "opening it") from None
        try:
            self._prepare()
        except (OSError, sqlite3.Error) as error:
            self._db.close()
            raise log_error(self.path, error, "opening it") from None
        except LogError:
            self._db.close()
            raise

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return sqlite3.connect(self.path, timeout=5.0, isolation_level=None, check_same_thread=False)

    def _connect_read_only(self) -> sqlite3.Connection:
        """``mode=ro``; where SQLite cannot make the WAL's shared-memory file, ``immutable=1``:
        on a read-only folder (nothing can write there, so nothing can change under us), and
        on a full disk when the log was closed cleanly (no write-ahead log holds anything the
        file lacks, and nothing can be written to the full disk meanwhile)."""
        uri = self.path.resolve().as_uri()
        db = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=5.0, check_same_thread=False)
        try:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.OperationalError:
            db.close()
            if not (folder_read_only(self.path) or _checkpointed(self.path)):
                raise
        return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, check_same_thread=False)

    def _prepare(self) -> None:
        db = self._db
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise LogNewerError(
                f"the game log {self.path} was written by a newer gobblet-companion (schema {version}, "
                f"this program reads up to {SCHEMA_VERSION}): upgrade the program"
            )
        self.version = version
        if self.read_only:
            if version == 0:
                raise LogDamagedError(f"{self.path} is not a gobblet-companion game log (no schema)")
            return  # every reader's query works on every schema from 1 on
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        if version and db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise LogDamagedError(
                f"the game log {self.path} is damaged (its integrity check failed); "
                "move it aside and a new one is made"
            )
        migrate(db, version)
        self.version = SCHEMA_VERSION

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            yield db
            db.execute("COMMIT")
        except sqlite3.Error as error:
            rollback(db)
            raise log_error(self.path, error, "writing to it") from None
        except BaseException:
            rollback(db)
            raise

    def close(self) -> None:
        self._db.close()

    # ----- writing ------------------------------------------------------------------------

    def start_game(
        self,
        variant: str,
        *,
        white: str = "White",
        black: str = "Black",
        place: str | None = None,
        started: float | None = None,
        start_position: str | None = None,
    ) -> int:
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO games (variant, white, black, place, started, start_position, program) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    variant,
                    white,
                    black,
                    place,
                    started if started is not None else time.time(),
                    start_position,
                    f"gobblet-companion {__version__}",
                ),
            )
        return int(cursor.lastrowid or 0)

    def add_move(
        self,
        game_id: int,
        ply: int,
        move: str,
        position: str,
        *,
        timestamp: float | None = None,
        events: tuple[Event, ...] = (),
        jpeg: bytes | None = None,
    ) -> None:
        """The move, the events it caused and the board's picture, all or nothing."""
        with self._transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO moves (game_id, ply, move, timestamp, position) "
                "VALUES (?, ?, ?, ?, ?)",
                (game_id, ply, move, timestamp if timestamp is not None else time.time(), position),
            )
            self._insert_events(db, game_id, events)
            if jpeg is not None:
                db.execute(
                    "INSERT OR REPLACE INTO snapshots (game_id, ply, jpeg) VALUES (?, ?, ?)",
                    (game_id, ply, jpeg),
                )

    def take_back(self, game_id: int, ply: int, events: tuple[Event, ...] = ()) -> None:
        """Remove the move at ``ply`` (the last one) from the game's line; the events keep it."""
        with self._transaction() as db:
            db.execute("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, ply))
            db.execute("DELETE FROM snapshots WHERE game_id = ? AND ply >= ?", (game_id, ply))
            db.execute("DELETE FROM reviews WHERE game_id = ?", (game_id,))
            db.execute(
                "UPDATE games SET ended = NULL, result = '*', termination = NULL, reason = NULL WHERE id = ?",
                (game_id,),
            )
            self._insert_events(db, game_id, events)

    def add_events(self, game_id: int, events: tuple[Event, ...]) -> None:
        if events:
            with self._transaction() as db:
                self._insert_events(db, game_id, events)

    @staticmethod
    def _insert_events(db: sqlite3.Connection, game_id: int, events: tuple[Event, ...]) -> None:
        db.executemany(
            "INSERT INTO events (game_id, ply, type, timestamp, data) VALUES (?, ?, ?, ?, ?)",
            [(game_id, e.ply, str(e.type), e.timestamp, json.dumps(e.to_json())) for e in events],
        )

    def finish(
        self,
        game_id: int,
        result: str,
        *,
        termination: str | None = None,
        reason: str | None = None,
        ended: float | None = None,
    ) -> None:
        with self._transaction() as db:
            db.execute(
                "UPDATE games SET ended = ?, result = ?, termination = ?, reason = ? WHERE id = ?",
                (ended if ended is not None else time.time(), result, termination, reason, game_id),
            )

    def save_review(self, game_id: int, plies: int, method: str, data: dict[str, Any]) -> None:
        """Keep the coach's review of the game's first ``plies`` plies (JSON-able ``data``),
        replacing any earlier one."""
        with self._transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO reviews (game_id, plies, method, made, data) VALUES (?, ?, ?, ?, ?)",
                (game_id, plies, method, time.time(), json.dumps(data)),
            )

    # ----- reading ------------------------------------------------------------------------

    def review(self, game_id: int, plies: int) -> dict[str, Any] | None:
        """The stored review of the game's first ``plies`` plies, if there is one (a review
        of another line of the game, or one that no longer reads, is none)."""
        if self.version < REVIEWS_SCHEMA:  # a reader of an older log: no review kept yet
            return None
        rows = self._query("SELECT data FROM reviews WHERE game_id = ? AND plies = ?", (game_id, plies))
        if not rows:
            return None
        try:
            data = json.loads(rows[0][0])
        except (TypeError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def unreviewed(self) -> list[int]:
        """Finished Gobblet games (the coach reviews no other game) with a result and at least
        one move but no review of their moves, most recent first: what the device reviews when
        the board is idle."""
        if self.version < REVIEWS_SCHEMA:
            return []
        rows = self._query(
            "SELECT g.id, g.variant FROM games g WHERE g.ended IS NOT NULL AND g.result != '*' "
            "AND EXISTS (SELECT 1 FROM moves m WHERE m.game_id = g.id) "
            "AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.game_id = g.id "
            "AND r.plies = (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id)) "
            "ORDER BY g.started DESC, g.id DESC"
        )
        return [int(row[0]) for row in rows if is_gobblet_spec(str(row[1]))]

    def games(self, limit: int | None = None) -> list[GameRow]:
        """Most recent first."""
        sql = f"SELECT {_GAME_COLUMNS} FROM games g ORDER BY g.started DESC, g.id DESC"
        rows = self._query(sql + (" LIMIT ?" if limit else ""), (limit,) if limit else ())
        return [GameRow(*row) for row in rows]

    def game(self, game_id: int) -> GameRow:
        rows = []
        if 0 <= game_id <= MAX_ROW_ID:  # an id SQLite cannot hold is no game's
            rows = self._query(f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.id = ?", (game_id,))
        if not rows:
            raise CompanionError(
                f"no game {game_id} in {self.path}: `gobblet-companion games list` shows the ids"
            )
        return GameRow(*rows[0])

    def unfinished(self, place: str | None = None) -> list[GameRow]:
        """Games at ``place`` (None: the device's own table) that never ended, most recent
        first: the first is the one ``run`` resumes after a restart."""
        rows = self._query(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.ended IS NULL AND g.place IS ? "
            "ORDER BY g.started DESC, g.id DESC",
            (place,),
        )
        return [GameRow(*row) for row in rows]

    def moves(self, game_id: int) -> list[MoveRow]:
        rows = self._query(
            "SELECT ply, move, timestamp, position FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
        )
        return [MoveRow(*row) for row in rows]

    def events(self, game_id: int, damaged: list[str] | None = None) -> list[Event]:
        """The game's events in order. A row that no longer reads (bad JSON, an unknown event
        type: a hand edit, or a newer program's event) is skipped and, when ``damaged`` is
        given, described there, so one bad row does not hide the rest."""
        rows = self._query("SELECT id, data FROM events WHERE game_id = ? ORDER BY id", (game_id,))
        events = []
        for row_id, data in rows:
            try:
                events.append(Event.from_json(json.loads(data)))
            except (ValueError, TypeError, KeyError, AttributeError) as error:
                if damaged is not None:
                    damaged.append(f"event row {row_id} does not read ({type(error).__name__}: {error})")
        return events

    def snapshot(self, game_id: int, ply: int) -> bytes | None:
        rows = self._query("SELECT jpeg FROM snapshots WHERE game_id = ? AND ply = ?", (game_id, ply))
        return bytes(rows[0][0]) if rows else None

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        try:
            return self._db.execute(sql, params).fetchall()
        except (sqlite3.Error, OverflowError) as error:
            raise log_error(self.path, error, "reading it") from None

    # ----- games back from the log --------------------------------------------------------

    def load_game(self, game_id: int) -> BaseGame:
        """Replay a stored game: the full position, every hidden cup included, with time stamps.
        A game that does not replay raises ``UnreplayableGameError`` naming the game and why."""
        row = self.game(game_id)
        moves = self.moves(game_id)
        try:
            return replay_game(row, moves)
        except UnreplayableGameError as error:
            raise UnreplayableGameError(f"game {game_id} in {self.path} does not replay: {error}") from None
        except (CompanionError, ValueError, TypeError, OverflowError, OSError) as error:
            raise UnreplayableGameError(
                f"game {game_id} in {self.path} does not replay: {type(error).__name__}: {error}"
            ) from None


def _checkpointed(path: Path) -> bool:
    """The file holds every committed change: its write-ahead log is gone or empty."""
    wal = path.with_name(path.name + "-wal")
    try:
        return wal.stat().st_size == 0
    except FileNotFoundError:
        return True
    except OSError:
        return False
