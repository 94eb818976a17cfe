"""Hints in the background: the answer for the position on the board, never a stale one."""

from __future__ import annotations

import threading
import time

from companion.device.hint import HintWorker
from companion.rules.game import Game
from companion.rules.move import Move


class SlowSearcher:
    """Thinks until cancelled or for ``seconds``; answers the first legal move."""

    def __init__(self) -> None:
        self.cancelled = 0

    def search(self, position, seconds, cancel: threading.Event):
        if cancel.wait(seconds):
            self.cancelled += 1
        return next(iter(position.legal_moves))


class GatedSearcher:
    """Thinks until the test opens its gate: a search that cannot end while request() runs."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.started = threading.Event()

    def search(self, position, seconds, cancel: threading.Event):
        self.started.set()
        self.gate.wait(10.0)
        return next(iter(position.legal_moves))


def test_the_answer_arrives_in_the_background():
    game = Game()
    searcher = GatedSearcher()
    with HintWorker(searcher, budget=5.0) as worker:
        worker.request(game.position)  # returns although the search cannot finish yet
        assert searcher.started.wait(5.0)
        assert worker.result() is None  # nothing yet: the search is still thinking
        searcher.gate.set()
        hint = worker.wait(5.0)
    assert hint is not None and hint.move in game.position.legal_moves
    assert hint.key == game.position.text()


def test_a_new_move_cancels_a_stale_hint():
    game = Game()
    searcher = SlowSearcher()
    with HintWorker(searcher, budget=5.0) as worker:
        worker.request(game.position)
        time.sleep(0.05)
        game.push(Move.from_text("4a1"))
        worker.cancel()
        deadline = time.monotonic() + 2.0
        while searcher.cancelled == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert searcher.cancelled == 1
        assert worker.result() is None  # the stale answer is dropped


def test_a_second_request_replaces_the_first():
    game = Game()
    with HintWorker(SlowSearcher(), budget=0.1) as worker:
        worker.request(game.position)
        game.push(Move.from_text("4a1"))
        worker.request(game.position)
        hint = worker.wait(3.0)
    assert hint is not None and hint.key == game.position.text()


def test_a_crashing_engine_gives_an_error_not_a_crash():
    class Broken:
        def search(self, position, seconds, cancel):
            raise RuntimeError("no evaluation")

    with HintWorker(Broken(), budget=0.1) as worker:
        worker.request(Game().position)
        hint = worker.wait(2.0)
    assert hint is not None and hint.move is None and "no evaluation" in (hint.error or "")


def test_an_overrunning_search_is_cancelled_after_the_budget():
    class Stubborn:
        def search(self, position, seconds, cancel):
            cancel.wait(10.0)
            return None

    with HintWorker(Stubborn(), budget=0.1, grace=0.05) as worker:
        started = time.monotonic()
        worker.request(Game().position)
        hint = worker.wait(3.0)
        assert hint is not None and 0.15 <= time.monotonic() - started < 1.5


def test_the_engine_answers_a_hint_within_the_budget():
    from companion.device.hint import EngineSearcher

    game = Game()
    game.push(Move.from_text("4a1"))
    with HintWorker(EngineSearcher("strong"), budget=0.1) as worker:
        started = time.monotonic()
        worker.request(game.position)
        hint = worker.wait(5.0)
    assert hint is not None and hint.error is None, hint
    assert hint.move in game.position.legal_moves
    assert time.monotonic() - started < 2.0


def test_a_stale_engine_search_stops_early():
    from companion.device.hint import EngineSearcher

    with HintWorker(EngineSearcher("strong"), budget=20.0) as worker:
        worker.request(Game().position)
        time.sleep(0.2)
        started = time.monotonic()
        worker.cancel()
        while worker._results.empty() and time.monotonic() - started < 5.0:
            time.sleep(0.01)
        assert time.monotonic() - started < 2.0  # stop() ended the search well before its budget
