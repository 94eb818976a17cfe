"""The game log: every game the device referees, kept in one SQLite file.

The modules, by idea: ``store`` (the file and its reads and writes), ``schema`` (the tables
and their migrations), ``errors`` (what can go wrong, one class a cause), ``rows`` (the
records a read returns) and ``replay`` (a stored game back as a ``Game``). Callers import
from here.
"""

from companion.log.errors import (
    LogDamagedError,
    LogError,
    LogFullError,
    LogNewerError,
    LogReadOnlyError,
    UnreplayableGameError,
    log_error,
)
from companion.log.replay import headers_of, replay_game
from companion.log.rows import GameRow, MoveRow, local_time
from companion.log.schema import MIGRATIONS, SCHEMA_VERSION
from companion.log.store import GameStore

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "GameRow",
    "GameStore",
    "LogDamagedError",
    "LogError",
    "LogFullError",
    "LogNewerError",
    "LogReadOnlyError",
    "MoveRow",
    "UnreplayableGameError",
    "headers_of",
    "local_time",
    "log_error",
    "replay_game",
]
