"""The game log as the device uses it: a disk that refuses a write does not lose the game.

``GameStore`` raises a ``LogError`` saying what is wrong (full, read-only, damaged). At a
terminal that is the right answer; on the device it would end the referee mid-game. The
keeper sits between the loop and the store:

- at start, a damaged log is moved aside with a time stamp (kept for a person to look at)
  and a new one is made; a log that cannot be opened at all (read-only or full folder) is
  tried again later, and meanwhile no game is resumed;
- a write the store refuses is kept, in order, in memory, and every later write queues
  behind it until the store takes them all (the disk was full for a while, a card was
  remounted): nothing is lost while the program runs. ``start_game`` then answers with a
  provisional id (negative), which the queued writes use and which becomes the real id when
  the game's row is written;
- every failure and the recovery are reported to ``Health`` (the alert LED's "needs service"
  pattern, the journal, the web page's status).
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.device.health import Health
from companion.log import GameRow, GameStore, LogDamagedError, LogError
from companion.reconciler.events import Event
from companion.rules.game import BaseGame

log = logging.getLogger("gobblet-companion.log")

RETRY_SECONDS = 5.0  # between two attempts to write what the disk refused
MAX_QUEUED_SNAPSHOTS = 50  # board pictures kept while the disk is full; later ones are dropped
PART = "log"


@dataclass
class _Write:
    method: str
    game_id: int
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def move_aside(path: Path, label: str = "damaged", now: float | None = None) -> Path:
    """Rename ``path`` (and its WAL and shared-memory files) to ``path.<label>-<UTC stamp>``,
    kept for a person to look at, so a new file can take its place."""
    stamp = datetime.fromtimestamp(time.time() if now is None else now, UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.{label}-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        source = path.with_name(path.name + suffix)
        if source.exists():
            source.rename(target.with_name(target.name + suffix))
    return target


class LogKeeper:
    """The writing half of ``GameStore`` (and the two reads ``run`` needs to resume), never
    raising ``LogError``: what the store refuses waits in memory and is written later."""

    def __init__(
        self,
        path: Path,
        health: Health,
        *,
        open_store: Callable[[Path], GameStore] = GameStore,
        clock: Callable[[], float] = time.monotonic,
        retry_seconds: float = RETRY_SECONDS,
        repair: bool = True,
    ) -> None:
        """``repair=False`` (a person at a terminal): a log that cannot be opened is an error
        to show them, as ``GameStore`` raises it; the service (``True``) repairs or waits."""
        self.path = path
        self.health = health
        self._open_store = open_store
        self._clock = clock
        self.retry_seconds = retry_seconds
        self._queue: deque[_Write] = deque()
        self._ids: dict[int, int] = {}  # provisional id -> the row's id once written
        self._next_provisional = -1
        self._next_try = float("-inf")
        self.delayed = 0  # writes that waited in memory before reaching the disk
        self.dropped_snapshots = 0
        self.dropped_writes = 0  # writes the store raised something else than LogError for
        self.store: GameStore | None = self._open() if repair else open_store(path)

    # ----- opening ------------------------------------------------------------------------

    def _open(self) -> GameStore | None:
        """The store, a damaged file replaced by a new one; None (said in Health) when the
        log cannot be opened now."""
        try:
            return self._open_store(self.path)
        except LogDamagedError as error:
            return self._replace_damaged(str(error))
        except LogError as error:
            self._failed(str(error))
            return None

    def _replace_damaged(self, why: str) -> GameStore | None:
        try:
            aside = move_aside(self.path)
            store = self._open_store(self.path)
        except (OSError, LogError) as error:
            self._failed(f"{why}; moving it aside failed too ({error})")
            return None
        self.health.repaired(PART, f"{why.split(';')[0]}: moved aside to {aside.name}, a new log was started")
        return store

    def _failed(self, text: str) -> None:
        self.health.report(PART, f"{text}; games are kept in memory until it can be written")
        self._next_try = self._clock() + self.retry_seconds

    @property
    def pending(self) -> int:
        """Writes waiting for the disk."""
        return len(self._queue)

    # ----- reading (at start) -------------------------------------------------------------

    def unfinished(self, place: str | None = None) -> list[GameRow]:
        if self.store is None:
            return []
        try:
            return self.store.unfinished(place)
        except LogError as error:
            self._failed(str(error))
            return []

    def load_game(self, game_id: int) -> BaseGame:
        if self.store is None:
            raise LogError(f"the game log {self.path} cannot be read")
        return self.store.load_game(game_id)

    # ----- writing ------------------------------------------------------------------------

    def start_game(self, variant: str, **kwargs: Any) -> int:
        provisional = self._next_provisional
        self._next_provisional -= 1
        self._write(_Write("start_game", provisional, (variant,), kwargs))
        return self._ids.get(provisional, provisional)

    def add_move(self, game_id: int, ply: int, move: str, position: str, **kwargs: Any) -> None:
        self._write(_Write("add_move", game_id, (ply, move, position), kwargs))

    def take_back(self, game_id: int, ply: int, events: tuple[Event, ...] = ()) -> None:
        self._write(_Write("take_back", game_id, (ply, events), {}))

    def add_events(self, game_id: int, events: tuple[Event, ...]) -> None:
        if events:
            self._write(_Write("add_events", game_id, (events,), {}))

    def finish(self, game_id: int, result: str, **kwargs: Any) -> None:
        self._write(_Write("finish", game_id, (result,), kwargs))

    def _write(self, write: _Write) -> None:
        picture = write.kwargs.get("jpeg") is not None
        if picture and self._queue and self._queued_snapshots() >= MAX_QUEUED_SNAPSHOTS:
            write.kwargs = {**write.kwargs, "jpeg": None}  # the move matters, its picture can go
            self.dropped_snapshots += 1
        self._queue.append(write)
        self.flush(force=len(self._queue) == 1)  # behind a refused write: wait for the next try

    def _queued_snapshots(self) -> int:
        return sum(1 for queued in self._queue if queued.kwargs.get("jpeg") is not None)

    def flush(self, force: bool = False) -> bool:
        """Write what waits, oldest first; True once nothing waits. Without ``force`` at most
        every ``retry_seconds`` (the loop calls it every frame)."""
        if not self._queue:
            return True
        if (not force or self.store is None) and self._clock() < self._next_try:
            return False
        if self.store is None:
            self.store = self._open()
            if self.store is None:
                return False
        was_failing = self.health.fault(PART) is not None
        while self._queue:
            try:
                self._apply(self.store, self._queue[0])
            except LogError as error:
                self._failed(str(error))
                return False
            except Exception as error:  # a bug, not the disk: this write would block all the others
                self._drop(self._queue[0], error)
            self._queue.popleft()
            self.delayed += was_failing
        if was_failing:
            self.health.clear(PART, f"the game log is written again ({self.delayed} delayed writes saved)")
        return True

    def _drop(self, write: _Write, error: Exception) -> None:
        self.dropped_writes += 1
        log.error("the game log refused a write (%s of game %d)", write.method, write.game_id, exc_info=error)
        self.health.report(
            "log-write",
            f"{self.dropped_writes} write(s) to the game log failed ({type(error).__name__}: {error}) "
            "and were dropped; the game goes on (a bug: please report it with the journal)",
        )

    def _apply(self, store: GameStore, write: _Write) -> None:
        if write.method == "start_game":
            self._ids[write.game_id] = store.start_game(*write.args, **write.kwargs)
            return
        game_id = self._ids.get(write.game_id, write.game_id)
        getattr(store, write.method)(game_id, *write.args, **write.kwargs)

    def real_id(self, game_id: int) -> int:
        """The log's id of a game ``start_game`` answered with ``game_id`` (the same once written)."""
        return self._ids.get(game_id, game_id)

    def close(self) -> None:
        if self._queue:
            self._next_try = float("-inf")  # one last try, whatever the retry clock says
            self.flush(force=True)
        if self._queue:
            log.error(
                "%d writes to the game log %s could not be saved before stopping", len(self._queue), self.path
            )
        if self.store is not None:
            self.store.close()
            self.store = None

    def __enter__(self) -> LogKeeper:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
