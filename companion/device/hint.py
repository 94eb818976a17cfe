"""Hints computed in the background, so the camera loop never waits for the AI.

The loop asks for a hint and goes on reading frames; one worker thread searches within the
time budget and leaves the answer to be collected. A hint belongs to the position it was
asked for: a move on the board cancels the search, and an answer that arrives for a position
that is no longer on the board is dropped rather than shown.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from companion.component import Component
from companion.rules.move import Move
from companion.rules.position import Position

GRACE = 0.5  # seconds past the budget before the worker cancels a search that overruns


class MoveFinder(Protocol):
    """What the hint worker asks for a move: the engine, or a stand-in in tests (named apart
    from the engine's own ``Searcher``, the tree search behind it)."""

    def search(self, position: Position, seconds: float, cancel: threading.Event) -> Move | None:
        """The best move found within ``seconds``; stop early, returning the best so far (or
        None), once ``cancel`` is set."""
        ...


@dataclass(frozen=True)
class Hint:
    key: str  # the position text the hint was asked for
    move: Move | None
    seconds: float
    error: str | None = None


@dataclass
class _Request:
    key: str
    position: Position
    cancel: threading.Event


class HintWorker(Component):
    def __init__(
        self,
        searcher: MoveFinder,
        budget: float,
        clock: Callable[[], float] = time.monotonic,
        grace: float = GRACE,
    ) -> None:
        self._searcher = searcher
        self.budget = budget
        self.grace = grace  # past the budget, an overrunning search is cancelled
        self._clock = clock
        self._requests: queue.Queue[_Request | None] = queue.Queue()
        self._results: queue.Queue[Hint] = queue.Queue()
        self._lock = threading.Lock()
        self._current: _Request | None = None
        self._thread: threading.Thread | None = None

    @property
    def pending(self) -> str | None:
        """The position text a hint is being computed for, if any."""
        with self._lock:
            return self._current.key if self._current is not None else None

    def request(self, position: Position) -> None:
        """Start a hint for ``position``, cancelling any search still running."""
        request = _Request(position.text(), position.copy(), threading.Event())
        with self._lock:
            if self._current is not None:
                self._current.cancel.set()
            self._current = request
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="hint", daemon=True)
            self._thread.start()
        self._requests.put(request)

    def cancel(self) -> None:
        """The position changed: stop the search and forget its answer."""
        with self._lock:
            if self._current is not None:
                self._current.cancel.set()
            self._current = None

    def result(self) -> Hint | None:
        """The answer for the position still wanted, once it is ready; stale answers are dropped."""
        while True:
            try:
                hint = self._results.get_nowait()
            except queue.Empty:
                return None
            with self._lock:
                if self._current is not None and hint.key == self._current.key:
                    self._current = None
                    return hint

    def wait(self, timeout: float) -> Hint | None:
        """Block until the wanted answer arrives (the embedded default and tests use this)."""
        deadline = self._clock() + timeout
        while self._clock() < deadline:
            hint = self.result()
            if hint is not None or self.pending is None:
                return hint
            time.sleep(0.01)
        return None

    def _work(self) -> None:
        while True:
            request = self._requests.get()
            if request is None:
                return
            if request.cancel.is_set():
                continue
            self._results.put(self._search(request))

    def _search(self, request: _Request) -> Hint:
        started = self._clock()
        timer = threading.Timer(self.budget + self.grace, request.cancel.set)
        timer.daemon = True
        timer.start()
        try:
            move = self._searcher.search(request.position, self.budget, request.cancel)
        except Exception as error:  # a crashing engine must not take the referee down
            return Hint(request.key, None, self._clock() - started, f"{type(error).__name__}: {error}")
        finally:
            timer.cancel()
        return Hint(request.key, move, self._clock() - started)

    def close(self) -> None:
        self.cancel()
        if self._thread is not None:
            self._requests.put(None)
            self._thread.join(timeout=self.budget + 2 * self.grace)
            self._thread = None


class EngineSearcher:
    """The project's engine behind the ``MoveFinder`` protocol, one engine per variant (its
    tables carry over from hint to hint within a game)."""

    def __init__(self, level: str = "strong", seed: int = 0) -> None:
        self.level = level
        self.seed = seed
        self._engines: dict[str, Any] = {}

    def _engine(self, position: Position) -> Any:
        spec = position.variant.spec
        if spec not in self._engines:
            from companion.engine import Engine

            self._engines[spec] = Engine(position.variant, level=self.level, seed=self.seed)
        return self._engines[spec]

    def search(self, position: Position, seconds: float, cancel: threading.Event) -> Move | None:
        engine = self._engine(position)
        watcher = threading.Thread(target=_stop_on, args=(cancel, engine), name="hint-cancel", daemon=True)
        watcher.start()
        try:
            result = engine.search(position, time=seconds)
        finally:
            cancel.set()  # releases the watcher; a stop() after the search is harmless
            watcher.join()
        return result.move


def _stop_on(cancel: threading.Event, engine: Any) -> None:
    """``Engine.stop()`` once the hint is no longer wanted (a move was made)."""
    cancel.wait()
    engine.stop()
