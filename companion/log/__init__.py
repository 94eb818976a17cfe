"""The game log: every game the device referees, kept in one SQLite file."""

from companion.log.store import GameRow, GameStore, MoveRow

__all__ = ["GameRow", "GameStore", "MoveRow"]
