"""The background review: started when a game has ended and the board is idle, stopped for a
hint and let go after, ended with the device; its child reviews the log's waiting games."""

from __future__ import annotations

import contextlib
import signal
import sqlite3
import subprocess
import sys

import pytest

from companion.coach import GameReview
from companion.device.reviewer import NICENESS, BackgroundReviewer, review_waiting_games
from companion.log import GameStore
from tests.coach.helpers import game_of, log_game
from tests.device.test_loop import WIN, ScriptedTable, drain, make_companion, positions

JUNIOR_WIN = "3a1 3b1 3a2 3b2 2a3"  # White's file a in five plies


class FakeProcess:
    """A child that runs until told it has ended, remembering the signals it got."""

    pid = 4242

    def __init__(self, command) -> None:
        self.command = list(command)
        self.signals: list[int] = []
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self.returncode

    def send_signal(self, number: int) -> None:
        self.signals.append(number)

    def terminate(self) -> None:
        self.signals.append(signal.SIGTERM)
        self.returncode = -signal.SIGTERM

    def wait(self, timeout: float | None = None) -> int:
        assert self.returncode is not None
        return self.returncode


class Launcher:
    def __init__(self) -> None:
        self.started: list[FakeProcess] = []

    def __call__(self, command) -> FakeProcess:
        self.started.append(FakeProcess(command))
        return self.started[-1]


def test_it_starts_only_for_a_finished_game_on_an_idle_board_and_not_during_a_hint(tmp_path):
    launch = Launcher()
    reviewer = BackgroundReviewer(tmp_path / "g.sqlite3", nodes=500, idle_seconds=20, launch=launch)
    reviewer.wanted = False  # (nothing waited from before: a fresh log)
    reviewer.tick(still_for=100, hinting=False)
    assert not launch.started  # no game has ended
    reviewer.game_finished()
    reviewer.tick(still_for=5, hinting=False)
    reviewer.tick(still_for=30, hinting=True)
    assert not launch.started  # the board moved recently, then a hint was searched
    reviewer.tick(still_for=30, hinting=False)
    (child,) = launch.started
    assert child.command[1:] == [
        "-m",
        "companion.device.reviewer",
        str(tmp_path / "g.sqlite3"),
        "--nodes",
        "500",
    ]
    assert child.command[0] == sys.executable and reviewer.running


def test_a_hint_stops_the_review_and_it_goes_on_after(tmp_path):
    launch = Launcher()
    reviewer = BackgroundReviewer(tmp_path / "g.sqlite3", idle_seconds=0, launch=launch)
    reviewer.tick(still_for=0, hinting=False)  # games from before may wait: it starts at once
    (child,) = launch.started
    reviewer.tick(still_for=0, hinting=True)
    assert reviewer.paused and child.signals == [signal.SIGSTOP]
    reviewer.tick(still_for=0, hinting=True)  # once
    reviewer.tick(still_for=0, hinting=False)
    assert not reviewer.paused and child.signals == [signal.SIGSTOP, signal.SIGCONT]
    child.returncode = 0
    reviewer.tick(still_for=0, hinting=False)
    assert not reviewer.running and len(launch.started) == 1  # nothing more wanted


def test_closing_wakes_a_stopped_review_and_ends_it(tmp_path):
    launch = Launcher()
    reviewer = BackgroundReviewer(tmp_path / "g.sqlite3", idle_seconds=0, launch=launch)
    reviewer.tick(still_for=0, hinting=False)
    reviewer.tick(still_for=0, hinting=True)
    reviewer.close()
    assert launch.started[0].signals == [signal.SIGSTOP, signal.SIGCONT, signal.SIGTERM]
    assert not reviewer.running


def test_the_loop_asks_for_a_review_when_a_game_ends(rig, tmp_path):
    launch = Launcher()
    table = ScriptedTable(positions(WIN[:-1]))
    companion = make_companion(rig, tmp_path / "g.sqlite3", table)
    companion.reviewer = BackgroundReviewer(tmp_path / "g.sqlite3", idle_seconds=0, launch=launch)
    companion.reviewer.wanted = False
    drain(companion)
    assert not launch.started  # the game goes on
    table.add(*positions(WIN)[-1:])
    drain(companion)
    assert companion.game.is_over()
    table.add(*positions(WIN)[-1:])  # one more frame: the loop ticks the reviewer
    drain(companion)
    assert len(launch.started) == 1


def test_the_child_reviews_every_waiting_game_and_names_one_it_cannot(tmp_path):
    path = tmp_path / "g.sqlite3"
    with GameStore(path) as store:
        done = log_game(store, game_of("junior", JUNIOR_WIN))
        log_game(store, game_of("junior", "3a1 3b1"))  # unfinished: not reviewed
        broken = log_game(store, game_of("junior", JUNIOR_WIN))
    with contextlib.closing(sqlite3.connect(path)) as db, db:  # a hand edit: a move junior has no piece for
        db.execute("UPDATE moves SET move = '4c3' WHERE game_id = ? AND ply = 2", (broken,))
    said: list[str] = []
    assert review_waiting_games(path, nodes=300, log_line=said.append) == 1
    assert len(said) == 1 and said[0].startswith(f"game {broken} not reviewed:")
    with GameStore(path, create=False) as store:
        review = GameReview.from_json(store.review(done, 5))
        assert review.exact and len(review.plies) == 5
        assert store.unreviewed() == [broken]


@pytest.mark.slow
def test_the_child_process_runs_at_the_lowest_priority_and_fills_the_log(tmp_path):
    path = tmp_path / "g.sqlite3"
    with GameStore(path) as store:
        game_id = log_game(store, game_of("junior", JUNIOR_WIN))
    script = (
        "import os, sys, companion.device.reviewer as r; "
        "r.review_waiting_games = lambda *a, **k: print(os.nice(0)) or 0; sys.exit(r.main(sys.argv[1:]))"
    )
    niceness = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True
    )
    assert int(niceness.stdout) >= NICENESS  # os.nice adds to the parent's: at least 19
    subprocess.run([sys.executable, "-m", "companion.device.reviewer", str(path)], check=True, timeout=120)
    with GameStore(path, create=False) as store:
        assert store.review(game_id, 5) is not None


def test_the_device_reviews_with_the_coachs_default_budget():
    from companion.coach import DEFAULT_NODES
    from companion.device import reviewer
    from companion.device.config import DeviceConfig

    assert reviewer.DEFAULT_NODES == DEFAULT_NODES == DeviceConfig().log.review_nodes
