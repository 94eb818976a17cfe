"""The run loop with a scripted camera: moves reach the log, the panel shows the right thing,
the button works, a restart resumes the game, a lost camera does not end it."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from companion.device.camera import CameraLink
from companion.device.hint import HintWorker
from companion.device.loop import Companion
from companion.log import GameStore
from companion.reconciler.events import Event, EventType
from companion.rules.game import Game
from companion.rules.move import Move
from companion.rules.position import Position
from companion.rules.square import square_name
from companion.rules.variant import CLASSIC
from companion.vision.observation import Observation

FRAME = (np.arange(48 * 48 * 3) % 241).astype(np.uint8).reshape(48, 48, 3)
WIN = ["4a1", "4d4", "3a2", "3d3", "2a3", "2d2", "1a4"]


def seen(position: Position) -> Observation:
    tops = {square_name(sq): position.top(sq) for sq in position.squares if position.top(sq)}
    return Observation.from_tops(tops, position.size, position.variant.max_piece)


def positions(moves: list[str]) -> list[Observation]:
    game = Game()
    out = []
    for text in moves:
        game.push_text(text)
        out.append(seen(game.position))
    return out


class ScriptedTable:
    """The camera always delivers a frame; ``observe`` hands out the next scripted board."""

    def __init__(self, observations: list[Observation]) -> None:
        self.observations = list(observations)

    def add(self, *observations: Observation) -> None:
        self.observations.extend(observations)

    def read(self):
        if not self.observations:
            raise EOFError
        return FRAME

    def observe(self, frame, timestamp=0.0):
        return self.observations.pop(0)

    def close(self) -> None:
        pass


class FirstMove:
    def search(self, position, seconds, cancel):
        return next(iter(position.legal_moves))


def make_companion(rig, path, table: ScriptedTable) -> Companion:
    companion = Companion(
        variant=CLASSIC,
        camera=CameraLink(lambda: table),
        observe=table.observe,
        presenter=rig.presenter,
        store=GameStore(path),
        hints=HintWorker(FirstMove(), budget=0.2),
    )
    companion.start()
    return companion


def drain(companion: Companion) -> None:
    while companion.step():
        pass


def test_a_game_is_refereed_and_logged(rig, tmp_path):
    table = ScriptedTable(positions(WIN))
    companion = make_companion(rig, tmp_path / "g.sqlite3", table)
    drain(companion)
    store = companion.store
    row = store.game(companion.game_id)
    assert row.result == "1-0" and row.termination == "line" and row.plies == 7
    assert [m.move for m in store.moves(row.id)] == WIN
    types = [e.type for e in store.events(row.id)]
    assert types.count(EventType.MOVE) == 7 and types[-1] == EventType.WIN
    for square in ("a1", "a2", "a3", "a4"):
        assert rig.states(rig.square_pin(square))[-1] is True
    assert rig.panel.tone_history[-1] == "C5"  # the win tune has started


def test_a_restart_resumes_the_same_game_with_hidden_cups(rig, tmp_path):
    path = tmp_path / "g.sqlite3"
    moves = ["4a1", "4b2", "3c1", "b2-c1", "4d1"]  # black's 4 covers white's 3 on c1
    table = ScriptedTable(positions(moves)[:4])
    first = make_companion(rig, path, table)
    drain(first)
    game_id = first.game_id
    # the process dies here: nothing is closed
    table.add(*positions(moves)[4:])
    second = make_companion(rig, path, table)
    assert second.resumed and second.game_id == game_id and second.game.ply == 4
    assert second.game.position.stack(Move.from_text("4c1").to_square) == ((0, 3), (1, 4))
    drain(second)
    assert [m.move for m in second.store.moves(game_id)] == moves
    assert len(second.store.games()) == 1


def test_an_illegal_move_and_its_restoration(rig, tmp_path):
    after_white = positions(["4a1"])[0]
    white_again = Observation.from_tops({"a1": (0, 4), "b1": (0, 3)})  # White plays on Black's turn
    table = ScriptedTable([after_white, white_again])
    companion = make_companion(rig, tmp_path / "g.sqlite3", table)
    companion.step()
    rig.clear()
    companion.step()
    assert companion.store.events(companion.game_id)[-1].type == EventType.ILLEGAL
    assert rig.states(rig.square_pin("b1")) == [False, True]
    assert rig.states(rig.pin(rig.config.pins.alert)) == [False, True]
    assert rig.panel.tone_history == ["A3"]
    table.add(after_white)
    companion.step()
    assert companion.store.events(companion.game_id)[-1].type == EventType.RESTORED
    assert rig.states(rig.square_pin("b1")) == [False, True, False]
    assert rig.states(rig.pin(rig.config.pins.alert)) == [False, True, False]
    assert companion.game.ply == 1


def presses(rig, count: int) -> None:
    """``count`` quick presses, then time for the gesture's window to close."""
    button = rig.pin(rig.config.pins.button)
    for _ in range(count):
        button.drive_low()
        rig.clock.now += 0.1
        button.drive_high()
        rig.clock.now += 0.1
    rig.clock.now += rig.config.panel.double_press


def double_press(rig) -> None:
    presses(rig, 2)


def test_a_takeback_is_offered_and_confirmed_with_a_double_press(rig, tmp_path):
    before = positions(["4a1", "4b2"])
    table = ScriptedTable([*before, positions(["4a1", "4b2", "a1-c3"])[-1], before[-1]])
    companion = make_companion(rig, tmp_path / "g.sqlite3", table)
    for _ in range(3):
        companion.step()
    assert companion.game.ply == 3
    rig.clear()
    companion.step()  # the board shows the position before a1-c3
    assert rig.presenter.scene.name == "takeback-offered"
    assert rig.states(rig.square_pin("a1"))[:2] == [False, True]
    assert companion.game.ply == 3  # nothing is undone unasked
    double_press(rig)
    table.add(before[-1])
    companion.step()
    assert companion.game.ply == 2
    assert [m.move for m in companion.store.moves(companion.game_id)] == ["4a1", "4b2"]
    assert companion.store.events(companion.game_id)[-1].type == EventType.TAKEBACK
    assert rig.panel.tone_history[-1] == "G5"  # the takeback tune


def test_holding_the_button_starts_a_new_game(rig, tmp_path):
    table = ScriptedTable(positions(["4a1", "4b2"]))
    companion = make_companion(rig, tmp_path / "g.sqlite3", table)
    companion.step()
    companion.step()
    old = companion.game_id
    rig.clear()
    button = rig.pin(rig.config.pins.button)
    button.drive_low()
    rig.clock.now += 2.1
    table.add(Observation.from_tops({}))
    companion.step()
    button.drive_high()
    assert companion.game_id != old and companion.game.ply == 0
    assert companion.store.game(old).termination == "abandoned"
    assert rig.states(rig.square_pin("d4")) == [False, True]
    assert rig.panel.tone_history[0] == "C5"


def unsure_black_four_on_a1(position: Position) -> Observation:
    """The board of ``position`` but a1 read, unsurely, as a Black 4 (no move makes that)."""
    observation = seen(position)
    probabilities = observation.probabilities.copy()
    row = observation.row("a1")
    probabilities[row] = 0.0
    probabilities[row, -1], probabilities[row, 1] = 0.6, 0.4  # Black 4, or a White 1
    return Observation(observation.size, observation.max_piece, probabilities, False)


def test_a_triple_press_accepts_what_the_camera_sees(rig, tmp_path):
    """Readings that keep differing from the game on a1, too unsure to restart from: the panel
    lights a1 with the alert; three presses accept the camera's view, and the game goes on
    from it in a new record."""
    game = Game()
    for text in ("4a1", "4d4"):
        game.push_text(text)
    table = ScriptedTable([*positions(["4a1", "4d4"]), *[unsure_black_four_on_a1(game.position)] * 2])
    companion = make_companion(rig, tmp_path / "g.sqlite3", table)
    for _ in range(4):
        companion.step()
    assert companion.presenter.scene.name == "help" and companion.reconciler.help_squares
    assert rig.states(rig.square_pin("a1"))[-1] is True
    old = companion.game_id
    presses(rig, 3)
    table.add(unsure_black_four_on_a1(game.position))
    companion.step()
    assert companion.reconciler.help_squares is None
    assert companion.game.position.top(0) == (1, 4) and companion.game_id != old
    assert companion.store.game(old).termination == "abandoned"
    reason = companion.store.game(old).reason or ""  # (the player's word, not the board lost)
    assert "accepted" in reason and "could not be followed" not in reason and "new record" in reason
    assert companion.store.game(companion.game_id).start_position == companion.game.start.text()
    assert companion.accept_board() == []  # nothing asked any more


def step_until(companion: Companion, condition, seconds: float = 3.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        companion.step()
        time.sleep(0.01)


def test_a_hint_is_shown_when_ready_and_logged(rig, tmp_path):
    table = ScriptedTable([])
    companion = make_companion(rig, tmp_path / "g.sqlite3", table)
    table.read = lambda: FRAME  # the camera keeps delivering the unchanged board
    table.observe = lambda frame, timestamp: None
    companion.observe = table.observe
    rig.clear()
    assert companion.ask_hint()
    step_until(companion, lambda: rig.presenter.scene.name == "hint")
    hint = next(iter(Game().position.legal_moves))  # what FirstMove answers
    assert rig.presenter.scene.name == "hint"
    assert rig.states(rig.square_pin(square_name(hint.to_square)))[:2] == [False, True]
    logged = [e for e in companion.store.events(companion.game_id) if e.type == EventType.HINT]
    assert [(e.move, e.ply) for e in logged] == [(hint.text(), 0)]


def test_a_move_makes_the_pending_hint_stale(rig, tmp_path):
    class Slow:
        def __init__(self) -> None:
            self.thinking = threading.Event()

        def search(self, position, seconds, cancel):
            self.thinking.set()
            cancel.wait(seconds)
            return next(iter(position.legal_moves))

    table = ScriptedTable(positions(["4a1"]))
    companion = make_companion(rig, tmp_path / "g.sqlite3", table)
    engine = Slow()
    companion.hints = HintWorker(engine, budget=0.3)
    assert companion.ask_hint()
    assert engine.thinking.wait(5.0)
    companion.step()  # a move arrives while the engine thinks: the search is cancelled
    assert companion.hints.pending is None
    deadline = time.monotonic() + 5.0  # the cancelled search's stale answer comes back
    while companion.hints._results.empty() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert not companion.hints._results.empty()
    table.read = lambda: FRAME
    companion.observe = lambda frame, timestamp: None
    for _ in range(5):
        companion.step()
    assert rig.presenter.scene.name != "hint"
    companion.hints.close()


def test_a_lost_camera_keeps_the_game(rig, tmp_path):
    table = ScriptedTable(positions(["4a1", "4b2"]))
    broken = threading.Event()

    class Unplugged:
        def read(self):
            if broken.is_set():
                raise OSError("camera unplugged")
            return table.read()

        def close(self):
            pass

    companion = Companion(
        variant=CLASSIC,
        camera=CameraLink(Unplugged, max_bad_frames=2, reconnect_delay=0.0),
        observe=table.observe,
        presenter=rig.presenter,
        store=GameStore(tmp_path / "g.sqlite3"),
        hints=HintWorker(FirstMove(), budget=0.2),
    )
    companion.start()
    companion.step()
    broken.set()
    for _ in range(3):
        assert companion.step()
    assert not companion.camera.ok
    assert rig.presenter.scene.name != "" and rig.panel.scene.alert is not None
    broken.clear()
    drain(companion)
    assert companion.camera.ok and companion.game.ply == 2
    assert [m.move for m in companion.store.moves(companion.game_id)] == ["4a1", "4b2"]


@pytest.fixture(autouse=True)
def _no_logging_noise(caplog):
    caplog.set_level("WARNING")


def test_a_game_the_reconciler_restarts_gets_its_own_record(rig, tmp_path):
    """A resync restarts the game from what the board shows: the log follows the events, closes
    the old record and opens one from the resync's position, then adds the moves after it. The
    reconciler itself is kept (after a resync it alone knows which hidden cups are unknown)."""
    table = ScriptedTable(positions(["4a1", "4b2", "3c1"]))
    companion = make_companion(rig, tmp_path / "g.sqlite3", table)
    drain(companion)
    old = companion.game_id
    restarted = Game(CLASSIC, start=companion.game.position)
    restarted.push_text("b2-c1")

    def feed(observation):
        companion.reconciler.game = restarted
        return [
            Event(EventType.RESYNC, ply=restarted.start.ply, position=restarted.start.text()),
            Event(EventType.MOVE, ply=restarted.ply, move="b2-c1", position=restarted.position.text()),
        ]

    companion.reconciler.feed = feed
    kept = companion.reconciler
    companion.on_observation(Observation.from_tops({}))
    assert companion.reconciler is kept and companion.game is restarted
    assert companion.game_id != old and companion.store.game(old).termination == "abandoned"
    row = companion.store.game(companion.game_id)
    assert row.start_position == restarted.start.text()
    assert [m.move for m in companion.store.moves(row.id)] == ["b2-c1"]
    assert companion.store.load_game(row.id).position == restarted.position


def test_moves_the_reconciler_corrects_are_corrected_in_the_log(rig, tmp_path):
    table = ScriptedTable(positions(["4a1", "4b2", "3c1"]))
    companion = make_companion(rig, tmp_path / "g.sqlite3", table)
    drain(companion)
    game = companion.game
    withdrawn = [game.pop().text(), game.pop().text()][::-1]
    events = [
        Event(EventType.CORRECTION, ply=1, moves=("4b3", "3c1"), detail={"withdrawn": withdrawn}),
    ]
    for text in ("4b3", "3c1"):
        game.push_text(text)
        events.append(Event(EventType.MOVE, ply=game.ply, move=text, position=game.position.text()))

    companion.reconciler.feed = lambda observation: events
    companion.on_observation(Observation.from_tops({}))
    assert [m.move for m in companion.store.moves(companion.game_id)] == ["4a1", "4b3", "3c1"]
    assert companion.store.load_game(companion.game_id).position == game.position
