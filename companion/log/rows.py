"""What the log hands back: a game's row and its moves' rows, and stored times as text.

Plain frozen records, so a reader (``games list``, the web page, the device resuming a game)
holds no connection and nothing that can change under it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


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


def local_time(timestamp: float | None, pattern: str = "%Y-%m-%d %H:%M") -> str:
    """A stored time as local text; ``-`` for none, ``?`` for one that is not a time (a
    hand-edited row)."""
    if timestamp is None:
        return "-"
    try:
        return datetime.fromtimestamp(timestamp).strftime(pattern)
    except (TypeError, ValueError, OverflowError, OSError):
        return "?"
