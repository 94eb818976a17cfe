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
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from companion.component import Component
from companion.errors import CompanionError
from companion.reconciler.events import Event
from companion.rules.fen import PositionSyntaxError
from companion.rules.game import Game
from companion.rules.move import Move, MoveError
from companion.rules.position import Position
from companion.rules.record import apply_result
from companion.rules.variant import Variant, VariantError

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id             INTEGER PRIMARY KEY,
    variant        TEXT NOT NULL,
    white          TEXT NOT NULL DEFAULT 'White',
    black          TEXT NOT NULL DEFAULT 'Black',
    place          TEXT,
    started        REAL NOT NULL,
    ended          REAL,
    result         TEXT NOT NULL DEFAULT '*',
    termination    TEXT,
    reason         TEXT,
    start_position TEXT
);
CREATE TABLE IF NOT EXISTS moves (
    game_id   INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply       INTEGER NOT NULL,
    move      TEXT NOT NULL,
    timestamp REAL NOT NULL,
    position  TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS events (
    id        INTEGER PRIMARY KEY,
    game_id   INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply       INTEGER NOT NULL,
    type      TEXT NOT NULL,
    timestamp REAL NOT NULL,
    data      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_game ON events (game_id, id);
CREATE TABLE IF NOT EXISTS snapshots (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply     INTEGER NOT NULL,
    jpeg    BLOB NOT NULL,
    PRIMARY KEY (game_id, ply)
);
"""


@dataclass(frozen=True)
class GameRow:
    id: int
    variant: str
    white: str
    black: str
    place: str | None
    started: float
    ended: float | None
    result: str
    termination: str | None
    reason: str | None
    start_position: str | None
    plies: int

    @property
    def finished(self) -> bool:
        return self.ended is not None


@dataclass(frozen=True)
class MoveRow:
    ply: int
    move: str
    timestamp: float
    position: str


_GAME_COLUMNS = (
    "g.id, g.variant, g.white, g.black, g.place, g.started, g.ended, g.result, g.termination, "
    "g.reason, g.start_position, (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id)"
)


class GameStore(Component):
    """The SQLite file; every method is one short transaction."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.exists():
            raise CompanionError(
                f"no game log at {self.path}: play a game with `gobblet-companion run` first"
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=5.0, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as error:
            raise CompanionError(f"cannot open the game log {self.path}: {error}") from None
        try:
            self._prepare()
        except sqlite3.DatabaseError as error:
            self._db.close()
            raise CompanionError(
                f"the game log {self.path} is damaged ({error}); move it aside and a new one is made"
            ) from None

    def _prepare(self) -> None:
        db = self._db
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"schema version {version} is newer than this program's {SCHEMA_VERSION}"
            )
        if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise sqlite3.DatabaseError("quick_check failed")
        db.executescript(SCHEMA)  # idempotent; executescript commits on its own
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            yield db
            db.execute("COMMIT")
        except sqlite3.Error as error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise CompanionError(f"game log {self.path}: {error}") from None
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
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
                "INSERT INTO games (variant, white, black, place, started, start_position) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    variant,
                    white,
                    black,
                    place,
                    started if started is not None else time.time(),
                    start_position,
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

    # ----- reading ------------------------------------------------------------------------

    def games(self, limit: int | None = None) -> list[GameRow]:
        """Most recent first."""
        sql = f"SELECT {_GAME_COLUMNS} FROM games g ORDER BY g.started DESC, g.id DESC"
        rows = self._query(sql + (" LIMIT ?" if limit else ""), (limit,) if limit else ())
        return [GameRow(*row) for row in rows]

    def game(self, game_id: int) -> GameRow:
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

    def events(self, game_id: int) -> list[Event]:
        rows = self._query("SELECT data FROM events WHERE game_id = ? ORDER BY id", (game_id,))
        return [Event.from_json(json.loads(data)) for (data,) in rows]

    def snapshot(self, game_id: int, ply: int) -> bytes | None:
        rows = self._query("SELECT jpeg FROM snapshots WHERE game_id = ? AND ply = ?", (game_id, ply))
        return bytes(rows[0][0]) if rows else None

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as error:
            raise CompanionError(f"game log {self.path}: {error}") from None

    # ----- games back from the log --------------------------------------------------------

    def load_game(self, game_id: int) -> Game:
        """Replay a stored game: the full position, every hidden cup included, with time stamps."""
        row = self.game(game_id)
        try:
            start = Position.from_text(row.start_position) if row.start_position else None
            variant = start.variant if start is not None else Variant.from_spec(row.variant)
        except (VariantError, PositionSyntaxError) as error:
            raise CompanionError(f"game {game_id} in {self.path}: {error}") from None
        game = Game(variant, start=start, headers=headers_of(row))
        for stored in self.moves(game_id):
            try:
                game.push(Move.from_text(stored.move), stored.timestamp)
            except MoveError as error:
                raise CompanionError(f"game {game_id} in {self.path}, ply {stored.ply}: {error}") from None
            if game.position.text() != stored.position:
                raise CompanionError(
                    f"game {game_id} in {self.path}, ply {stored.ply}: "
                    "the stored position does not follow from the moves"
                )
        _apply_stored_ending(game, row)
        return game


def headers_of(row: GameRow) -> dict[str, str]:
    headers = {
        "White": row.white,
        "Black": row.black,
        "Date": datetime.fromtimestamp(row.started).strftime("%Y.%m.%d"),
    }
    if row.place:
        headers["Place"] = row.place
    return headers


def _apply_stored_ending(game: Game, row: GameRow) -> None:
    """Endings off the board (agreed draw, resignation, touch) are not in the moves; the record
    reader already knows how to apply them from a result and a termination."""
    if row.finished and not game.is_over() and row.result != "*":
        apply_result(game, row.result, row.termination)
