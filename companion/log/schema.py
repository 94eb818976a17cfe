"""The log's tables and how an older log is brought up to them.

The schema is the list of migrations: a new log runs them all, an older one the ones it has
not had. ``PRAGMA user_version`` holds how many have run.
"""

from __future__ import annotations

import contextlib
import sqlite3

SCHEMA_VERSION = 3
REVIEWS_SCHEMA = 3  # the first schema with the reviews table (a reader may open an older log)
MIGRATIONS: dict[int, str] = {
    # 0 -> 1: the first schema
    1: """
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
""",
    # 1 -> 2: which program version logged a game (a bug report can say which release
    # refereed it); resuming looks up the unfinished games of a table by an index.
    2: """
ALTER TABLE games ADD COLUMN program TEXT;
CREATE INDEX IF NOT EXISTS games_unfinished ON games (place, ended);
""",
    # 2 -> 3: the coach's post-game review, computed once and kept with its game: the JSON
    # of companion.coach's GameReview, the number of plies it judged (a review of a line a
    # takeback has changed since is never shown) and how its values were found.
    3: """
CREATE TABLE IF NOT EXISTS reviews (
    game_id INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    plies   INTEGER NOT NULL,
    method  TEXT NOT NULL,
    made    REAL NOT NULL,
    data    TEXT NOT NULL
);
""",
}
"""``MIGRATIONS[n]`` takes a log from schema version ``n - 1`` to ``n``; each runs in one
transaction with its ``user_version`` bump, so a log is always at one version or the next.
A schema change is a new entry here, never an edit of an old one."""


def migrate(db: sqlite3.Connection, version: int) -> None:
    """Bring a log at schema ``version`` to ``SCHEMA_VERSION``, one migration at a time, each
    in its own transaction with its version bump (a power cut leaves a whole version)."""
    for target in range(version + 1, SCHEMA_VERSION + 1):
        try:
            db.executescript(
                f"BEGIN IMMEDIATE;\n{MIGRATIONS[target]}\nPRAGMA user_version = {target};\nCOMMIT;"
            )
        except sqlite3.Error:
            rollback(db)
            raise


def rollback(db: sqlite3.Connection) -> None:
    """Undo the open transaction, if any; a failing rollback changes nothing more."""
    if db.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
