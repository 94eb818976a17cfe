"""A device that never dies dark (issue 12, defects 3 and 9): a damaged log, a full disk, a
read-only log, a bad calibration, an unreplayable game, a referee or panel exception, a
failed hint. Each keeps the service running, shows on the panel and in ``Health``, and where
it is safe repairs itself; no move is lost."""

from __future__ import annotations

import errno
import itertools
import json
import logging
import socket
import sqlite3
import threading
import time

import numpy as np
import pytest

from companion.device.camera import CameraLink
from companion.device.health import Health
from companion.device.hint import HintWorker
from companion.device.log_keeper import LogKeeper
from companion.device.loop import QUIET_STEPS, Companion
from companion.device.notify import Notifier
from companion.device.scene import NEEDS_SERVICE
from companion.device.scene import idle as idle_scene
from companion.device.vision_link import BoardObserver
from companion.errors import CompanionError
from companion.log import GameStore, LogReadOnlyError, log_error
from companion.reconciler.events import Event, EventType
from companion.rules.variant import CLASSIC
from tests.device.test_loop import FRAME, FirstMove, ScriptedTable, drain, positions

MOVES = ["4a1", "4b2", "3c1", "b2-c1", "4d1"]


def keeper_companion(rig, keeper: LogKeeper, table: ScriptedTable, health: Health, **kwargs) -> Companion:
    companion = Companion(
        variant=CLASSIC,
        camera=CameraLink(lambda: table),
        observe=table.observe,
        presenter=rig.presenter,
        store=keeper,
        hints=kwargs.pop("hints", None) or HintWorker(FirstMove(), budget=0.2),
        health=health,
        **kwargs,
    )
    companion.start()
    return companion


def stored_moves(path) -> list[str]:
    with GameStore(path, create=False) as store:
        return [m.move for m in store.moves(store.games()[0].id)]


class FillableDisk(GameStore):
    """A log whose disk can be made full: every write then fails as SQLite's does (ENOSPC)."""

    full = False

    def _transaction(self):
        if self.full:
            raise log_error(self.path, OSError(errno.ENOSPC, "No space left on device"), "writing to it")
        return super()._transaction()


# ----- the game log ---------------------------------------------------------------------------


def test_a_damaged_log_is_moved_aside_with_a_time_stamp_and_a_new_one_made(tmp_path):
    path = tmp_path / "games.sqlite3"
    path.write_bytes(b"garbage" * 1000)
    health = Health()
    with LogKeeper(path, health) as keeper:
        game = keeper.start_game("classic")
        keeper.add_move(game, 1, "4a1", "x")
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("games.sqlite3.damaged-")]
    assert len(aside) == 1 and aside[0].read_bytes() == b"garbage" * 1000
    assert stored_moves(path) == ["4a1"]
    assert health.ok and "moved aside to games.sqlite3.damaged-" in health.repairs()[0].text


def test_at_a_terminal_a_damaged_log_is_still_an_error(tmp_path):
    path = tmp_path / "games.sqlite3"
    path.write_bytes(b"garbage" * 1000)
    with pytest.raises(CompanionError, match="damaged"):
        LogKeeper(path, Health(), repair=False)
    assert path.read_bytes() == b"garbage" * 1000


def test_a_full_disk_for_a_while_loses_no_move(rig, tmp_path):
    path = tmp_path / "games.sqlite3"
    clock = [0.0]
    health = Health()
    keeper = LogKeeper(path, health, open_store=FillableDisk, clock=lambda: clock[0], retry_seconds=5.0)
    table = ScriptedTable(positions(MOVES)[:2])
    companion = keeper_companion(rig, keeper, table, health)
    companion.step()
    disk = keeper.store
    assert isinstance(disk, FillableDisk)
    disk.full = True
    companion.step()  # 4b2: refused by the full disk, kept in memory
    assert keeper.pending == 1
    fault = health.fault("log")
    assert fault is not None and "full" in fault.text and fault.needs_service
    table.add(*positions(MOVES)[2:4])
    companion.step()  # the loop shows it: the alert LED in the "needs service" pattern
    assert rig.presenter.panel.scene.alert == NEEDS_SERVICE
    companion.step()
    assert companion.game.ply == 4 and keeper.pending >= 3  # the referee went on meanwhile
    disk.full = False
    clock[0] += 5.0
    table.add(positions(MOVES)[4])
    companion.step()  # the next try writes everything, in order
    assert keeper.pending == 0 and health.fault("log") is None
    assert rig.presenter.panel.scene.alert != NEEDS_SERVICE
    drain(companion)
    keeper.close()
    assert stored_moves(path) == MOVES


def test_a_read_only_log_keeps_the_game_in_memory_and_writes_it_when_it_can(tmp_path):
    path = tmp_path / "games.sqlite3"
    clock = [0.0]
    health = Health()
    with LogKeeper(path, health, clock=lambda: clock[0], retry_seconds=1.0) as keeper:
        assert keeper.store is not None
        keeper.store._db.execute("PRAGMA query_only = ON")  # writes fail as on a read-only mount
        game = keeper.start_game("classic")
        assert game < 0  # provisional until the row is written
        keeper.add_move(game, 1, "4a1", "x")
        fault = health.fault("log")
        assert fault is not None and "read-only" in fault.text
        keeper.store._db.execute("PRAGMA query_only = OFF")
        clock[0] += 1.0
        assert keeper.flush()
        assert keeper.real_id(game) > 0 and health.ok
    assert stored_moves(path) == ["4a1"]


def test_a_log_that_cannot_be_opened_at_start_is_tried_again(tmp_path):
    path = tmp_path / "games.sqlite3"
    attempts = []

    def open_store(p):
        attempts.append(p)
        if len(attempts) < 3:
            raise LogReadOnlyError(f"the game log {p} cannot be written: read-only")
        return GameStore(p)

    clock = [0.0]
    health = Health()
    with LogKeeper(path, health, open_store=open_store, clock=lambda: clock[0], retry_seconds=2.0) as keeper:
        assert keeper.store is None and keeper.unfinished() == [] and not health.ok
        game = keeper.start_game("classic")
        keeper.add_move(game, 1, "4a1", "x")
        assert len(attempts) == 1  # behind the refused open, the writes wait for the next try
        clock[0] += 2.0
        assert not keeper.flush()  # still read-only
        clock[0] += 2.0
        assert keeper.flush() and health.ok
    assert stored_moves(path) == ["4a1"] and len(attempts) == 3


def test_an_unfinished_game_that_no_longer_replays_is_kept_and_a_new_one_started(rig, tmp_path):
    path = tmp_path / "games.sqlite3"
    with GameStore(path) as store:
        old = store.start_game("classic")
        store.add_move(old, 1, "4a1", "not the position after 4a1")
    health = Health()
    with LogKeeper(path, health) as keeper:
        companion = keeper_companion(rig, keeper, ScriptedTable([]), health)
        assert not companion.resumed and companion.game_id != old
    with GameStore(path, create=False) as store:
        row = store.game(old)
        assert row.result == "*" and row.termination == "unreplayable" and row.plies == 1
        assert "does not replay" in (row.reason or "")
    assert "a new game was started" in health.repairs()[0].text


# ----- calibration --------------------------------------------------------------------------


def test_a_bad_calibration_on_the_service_falls_back_to_calibrate_me(tmp_path):
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"image_size": [0, 0]}))
    health = Health()
    observer = BoardObserver(path, CLASSIC, health=health)
    assert observer.fault is not None and observer.fault.startswith("calibrate me")
    assert not path.exists()
    assert [p.name.split("-")[0] for p in tmp_path.iterdir()] == ["calibration.json.bad"]
    assert "calibrating again" in health.repairs()[0].text
    assert observer(FRAME, 0.0) is None  # tries to calibrate from the frame, no exception


def test_at_a_terminal_a_bad_calibration_is_still_an_error(tmp_path):
    path = tmp_path / "calibration.json"
    path.write_text("{")
    with pytest.raises(CompanionError, match="corrupt"):
        BoardObserver(path, CLASSIC)
    assert path.exists()


# ----- the loop survives --------------------------------------------------------------------


def test_a_referee_exception_is_survived_counted_and_not_repeated_on_the_same_board(rig, tmp_path):
    boards = positions(MOVES)
    table = ScriptedTable([boards[0], boards[1], boards[1], boards[1]])
    health = Health()
    with LogKeeper(tmp_path / "g.sqlite3", health) as keeper:
        companion = keeper_companion(rig, keeper, table, health)
        companion.step()
        real_feed = companion.reconciler.feed
        calls = []

        def failing_feed(observation):
            calls.append(observation)
            raise RuntimeError("a bug in the referee")

        companion.reconciler.feed = failing_feed  # type: ignore[method-assign]
        for _ in range(3):
            assert companion.step()  # the same board three times: one failure, then skipped
        assert len(calls) == 1 and companion.step_errors == 1
        fault = health.fault("referee")
        assert fault is not None and "RuntimeError" in fault.text
        assert companion.reconciler.feed != failing_feed  # rebuilt from the logged moves
        assert companion.game.ply == 1 and real_feed is not None
        table.add(boards[0], *boards[1:])  # a hand lifts the cup and puts it down again
        drain(companion)  # the board changed: refereed again
        assert health.fault("referee") is None and companion.game.ply == len(MOVES)
    assert stored_moves(tmp_path / "g.sqlite3") == MOVES


def test_a_log_exception_in_a_step_does_not_end_the_loop(rig, tmp_path):
    class BrokenStore(GameStore):
        def add_move(self, *args, **kwargs):
            raise sqlite3.InterfaceError("not a LogError: a bug")

    table = ScriptedTable(positions(MOVES)[:2])
    companion = Companion(
        variant=CLASSIC,
        camera=CameraLink(lambda: table),
        observe=table.observe,
        presenter=rig.presenter,
        store=BrokenStore(tmp_path / "g.sqlite3"),
        hints=HintWorker(FirstMove(), budget=0.2),
    )
    companion.start()
    drain(companion)
    assert companion.step_errors == 1 and companion.health.survived == 1


class Crashing:
    def search(self, position, seconds, cancel):
        raise RuntimeError("the engine was killed")


def test_a_failed_hint_shows_on_the_panel(rig, tmp_path):
    table = ScriptedTable([])
    health = Health()
    with LogKeeper(tmp_path / "g.sqlite3", health) as keeper:
        companion = keeper_companion(rig, keeper, table, health, hints=HintWorker(Crashing(), budget=0.2))
        table.read = lambda: FRAME
        companion.observe = lambda frame, timestamp: None
        assert companion.ask_hint()
        deadline = time.monotonic() + 3
        while rig.presenter.scene.name != "hint-failed" and time.monotonic() < deadline:
            companion.step()
            time.sleep(0.01)
        scene = rig.panel.scene
        assert scene.name == "hint-failed" and "the engine was killed" in scene.text
        rig.clear()
        rig.run_for(0.5)
        assert True in rig.states(rig.pin(rig.config.pins.alert))  # the alert LED blinks
        fault = health.fault("hint")
        assert fault is not None and not fault.needs_service


def test_the_panel_animator_logs_a_failing_render_and_keeps_going(rig, caplog):
    calls = []

    def broken_render():
        calls.append(1)
        raise OSError("gpiochip went away")

    rig.panel.render = broken_render  # type: ignore[method-assign]
    with caplog.at_level(logging.ERROR, logger="gobblet-companion.panel"):
        rig.panel.start()
        deadline = time.monotonic() + 3
        while len(calls) < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
    assert len(calls) >= 5 and rig.panel.render_errors >= 5
    assert rig.panel._animator is not None and rig.panel._animator.is_alive()
    lines = [r.getMessage() for r in caplog.records if "rendering failed" in r.getMessage()]
    assert len(lines) == 1 and "gpiochip went away" in lines[0]  # once, not every tick


def test_the_needs_service_pattern_is_three_blinks_and_a_pause(rig):
    rig.presenter.show(idle_scene("white"))
    rig.clear()
    rig.presenter.fault(None, "log: the disk is full")
    scene = rig.panel.scene
    assert scene.alert == NEEDS_SERVICE and scene.text.endswith("[needs service: log: the disk is full]")
    assert scene.sound is not None and scene.sound.name == "fault beep"
    rig.run_for(4.0, step=0.05)  # blink period 0.5 s: 3 blinks in 1.5 s, then 1 s dark
    alert = rig.states(rig.pin(rig.config.pins.alert))
    rises = sum(1 for a, b in itertools.pairwise(alert) if not a and b)
    assert rises in (4, 5, 6)  # 3 in the first 2.5 s round, the next round begun
    rig.presenter.fault(None, None)
    assert rig.panel.scene.alert is None


# ----- READY=1 ---------------------------------------------------------------------------------


def test_ready_is_sent_only_once_the_camera_is_open(rig, tmp_path):
    path = str(tmp_path / "notify")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(path)
    server.settimeout(0.05)  # READY=1 is sent within step(): it would be waiting already
    plugged = threading.Event()
    table = ScriptedTable([])
    table.read = lambda: FRAME

    def open_camera():
        if not plugged.is_set():
            raise OSError("no camera")
        return table

    health = Health()
    with (
        Notifier(environ={"NOTIFY_SOCKET": path}) as notifier,
        LogKeeper(tmp_path / "g.sqlite3", health) as keeper,
    ):
        companion = Companion(
            variant=CLASSIC,
            camera=CameraLink(open_camera, reconnect_delay=0.0, max_bad_frames=1),
            observe=lambda frame, timestamp: None,
            presenter=rig.presenter,
            store=keeper,
            hints=HintWorker(FirstMove(), budget=0.2),
            notifier=notifier,
            health=health,
        )
        companion.start()
        companion.step()
        with pytest.raises(TimeoutError):
            server.recv(256)
        plugged.set()
        companion.step()
        companion.step()
        server.settimeout(5.0)
        message = server.recv(256)
        assert message.startswith(b"READY=1\nSTATUS=game ")
    server.close()


def test_health_snapshot_is_json_for_the_web_page():
    health = Health(clock=lambda: 5.0)
    health.report("log", "the disk is full")
    health.report("log", "the disk is full")
    health.repaired("calibration", "moved aside")
    snapshot = json.loads(json.dumps(health.snapshot()))
    assert snapshot["needs_service"] and not snapshot["ok"]
    assert snapshot["faults"] == [
        {"part": "log", "text": "the disk is full", "since": 5.0, "count": 2, "needs_service": True}
    ]
    assert snapshot["repairs"] == [{"part": "calibration", "text": "moved aside", "at": 5.0}]
    assert snapshot["survived"] == 2
    health.clear("log")
    assert health.snapshot()["ok"] and health.snapshot()["survived"] == 2


def test_camera_trouble_reaches_health_but_not_needs_service(rig, tmp_path):
    table = ScriptedTable([])
    table.read = lambda: np.zeros((48, 48, 3), np.uint8)  # a covered lens: one flat colour
    health = Health()
    with LogKeeper(tmp_path / "g.sqlite3", health) as keeper:
        companion = keeper_companion(rig, keeper, table, health)
        companion.camera = CameraLink(lambda: table, max_bad_frames=2, reconnect_delay=0.0)
        companion.observe = lambda frame, timestamp: None
        for _ in range(3):
            companion.step()
        fault = health.fault("camera")
        assert fault is not None and "flat colour" in fault.text and not fault.needs_service
        assert health.needs_service() is None and rig.panel.scene.alert != NEEDS_SERVICE
        table.read = lambda: FRAME
        for _ in range(3):  # reopened, then a good frame
            companion.step()
        assert health.fault("camera") is None and health.survived == 1


def test_an_error_outside_a_board_is_over_after_quiet_steps(rig, tmp_path):
    table = ScriptedTable([])
    table.read = lambda: FRAME
    health = Health()
    with LogKeeper(tmp_path / "g.sqlite3", health) as keeper:
        companion = keeper_companion(rig, keeper, table, health)
        companion.observe = lambda frame, timestamp: None
        gestures = rig.panel.gestures
        rig.panel.gestures = lambda: 1 / 0  # type: ignore[method-assign]
        companion.step()
        fault = health.fault("referee")
        assert fault is not None and "ZeroDivisionError in the loop" in fault.text
        rig.panel.gestures = gestures  # type: ignore[method-assign]
        for _ in range(QUIET_STEPS - 1):
            companion.step()
        assert health.fault("referee") is not None
        companion.step()
        assert health.fault("referee") is None and companion.step_errors == 1


def test_a_write_that_fails_with_a_bug_is_dropped_not_left_blocking_the_others(tmp_path):
    class OneBadWrite(GameStore):
        def add_events(self, game_id, events):
            raise TypeError("not JSON serializable")

    health = Health()
    path = tmp_path / "g.sqlite3"
    with LogKeeper(path, health, open_store=OneBadWrite) as keeper:
        game = keeper.start_game("classic")
        keeper.add_events(game, (Event(EventType.LIFTED, ply=0),))
        keeper.add_move(game, 1, "4a1", "x")
        assert keeper.pending == 0 and keeper.dropped_writes == 1
        fault = health.fault("log-write")
        assert fault is not None and "TypeError" in fault.text and fault.needs_service
    assert stored_moves(path) == ["4a1"]
