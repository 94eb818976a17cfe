"""The device as others see it from another thread: immutable snapshots the loop publishes,
the referee's events as they happen, the latest camera frame, and commands the loop drains.

The web page (``companion.web``) runs on its own thread and event loop. It must never slow
the camera loop nor touch the game directly, so the two meet only here: once per frame the
loop calls ``Remote.serve``, which runs the commands waiting for it (a hint asked from the
page, a takeback, a new game, the camera's view accepted, a new calibration), stores the
frame (a reference, no copy), and publishes a new ``GameSnapshot`` when something a viewer can
see has changed. Publishing swaps one reference and wakes the listeners without waiting for
them; a listener that fails is dropped, never the game.

Pairing a browser with the device is also settled here: the page asks for it, the LEDs show
it is pending, and the next button press within ``PAIRING_SECONDS`` grants it instead of
asking for a hint.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from companion.device import scene as scenes
from companion.errors import CompanionError
from companion.reconciler.events import Event, EventType
from companion.rules.position import Position
from companion.rules.square import COLOR_NAMES, parse_square, square_name
from companion.rules.variant import Variant
from companion.vision.observation import Observation, class_top

if TYPE_CHECKING:
    from companion.device.loop import Companion

log = logging.getLogger("gobblet-companion")

PAIRING_SECONDS = 30.0
EVENTS_KEPT = 200  # the last events a newly opened page can show
FAULTS_KEPT = 20

NamedCup = tuple[str, int]  # a cup as ("white" | "black", size)


@dataclass(frozen=True)
class ViewerFrame:
    image: np.ndarray
    timestamp: float
    number: int


@dataclass(frozen=True)
class GameSnapshot:
    """What a viewer can see of the device at one instant; never changed once published."""

    version: int
    game_id: int
    variant: str
    size: int
    max_piece: int
    white: str
    black: str
    ply: int
    turn: str
    position: str
    started: float | None
    stacks: dict[str, tuple[NamedCup, ...]]  # square -> cups bottom first (hidden ones from history)
    unknown: dict[str, tuple[str, ...]]  # square -> what its hidden part may still be
    reserves: dict[str, tuple[tuple[int, ...], ...]]  # colour -> external stacks, top first
    moves: tuple[tuple[int, str, float | None], ...]  # (ply, move, time) of every move played
    result: str
    reason: str | None
    over: bool
    panel: str  # what the panel says right now
    alert: str | None  # what the alert LED means right now, in words; None: dark
    fault: str | None  # camera (or calibration) trouble
    hint: str | None  # the hint shown for this position
    takeback_offered: str | None  # the move a takeback would undo, when the board offers it
    awaiting_restore: bool
    help_squares: tuple[str, ...]  # squares the referee asks the players to look at
    can_accept: bool  # the referee can take the camera's view as the board
    pairing: bool  # a browser waits for the button
    frames: int
    published: float = field(default_factory=time.time)

    @property
    def last_move(self) -> str | None:
        return self.moves[-1][1] if self.moves else None


@dataclass
class _Command:
    name: str
    arguments: dict[str, Any]
    done: Future[str]


class Remote:
    """The meeting point between the loop's thread and viewers on other threads."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._commands: queue.SimpleQueue[_Command] = queue.SimpleQueue()
        self._listeners: list[Callable[[], object]] = []
        self._versions = itertools.count(1)
        self._event_numbers = itertools.count(1)
        self.snapshot: GameSnapshot | None = None
        self.frame: ViewerFrame | None = None
        self._frames = 0
        self.events: deque[tuple[int, dict[str, Any]]] = deque(maxlen=EVENTS_KEPT)
        self.faults: deque[tuple[float, str]] = deque(maxlen=FAULTS_KEPT)
        self._last_fault: str | None = None
        self._key: tuple[Any, ...] | None = None
        self._hint: tuple[str, str] | None = None  # (position, move) of the last hint shown
        self._pairing_until: float | None = None
        self._pairing_shown = False
        self._granted: Future[bool] | None = None
        self.health: Any = None  # the device's health record (its own lock), where it keeps one

    # ----- viewers' side (any thread) --------------------------------------------------------

    def listen(self, callback: Callable[[], object]) -> Callable[[], None]:
        """Call ``callback`` (from the loop's thread; it must not block) after each publish or
        event; returns the function that stops it."""
        with self._lock:
            self._listeners.append(callback)

        def stop() -> None:
            with self._lock:
                if callback in self._listeners:
                    self._listeners.remove(callback)

        return stop

    def command(self, name: str, **arguments: Any) -> Future[str]:
        """Queue a command for the loop; the future holds its answer in words, or the
        ``CompanionError`` that refused it."""
        done: Future[str] = Future()
        self._commands.put(_Command(name, arguments, done))
        return done

    def events_after(self, number: int) -> list[tuple[int, dict[str, Any]]]:
        with self._lock:
            return [(n, e) for n, e in self.events if n > number]

    def request_pairing(self) -> Future[bool]:
        """A browser waits to be paired: the next button press within ``PAIRING_SECONDS``
        sets the future to True; time running out sets it to False."""
        with self._lock:
            if self._granted is not None and not self._granted.done():
                self._granted.set_result(False)  # one pairing at a time: the newest request wins
            self._granted = Future()
            self._pairing_until = self._clock() + PAIRING_SECONDS
            return self._granted

    @property
    def pairing_pending(self) -> bool:
        with self._lock:
            return self._pairing_until is not None

    # ----- the loop's side ---------------------------------------------------------------------

    def confirm_pairing(self) -> bool:
        """A button press: True when it paired a waiting browser (and so asks no hint)."""
        with self._lock:
            granted, pending = self._granted, self._pairing_until is not None
            self._pairing_until = None
        if not pending or granted is None or granted.done():
            return False
        granted.set_result(True)
        log.info("web: a browser was paired by the button")
        return True

    def record(
        self,
        events: list[Event] | tuple[Event, ...],
        observation: Observation | None = None,
        position: Position | None = None,
    ) -> None:
        """The referee's events, as they happen, for the pages' event lists; a needs-attention
        event gets, square by square, what the camera sees against what the game expects."""
        if not events:
            return
        with self._lock:
            for event in events:
                data = event.to_json()
                if (
                    event.type is EventType.NEEDS_ATTENTION
                    and observation is not None
                    and position is not None
                ):
                    data["compare"] = compare(event.squares, observation, position)
                self.events.append((next(self._event_numbers), data))
        self._wake()

    def note_hint(self, position: str, move: str) -> None:
        self._hint = (position, move)

    def serve(self, companion: Companion, frame: np.ndarray | None) -> None:
        """Once per loop step: run the waiting commands, keep the frame, publish what changed."""
        if self.health is None:
            self.health = getattr(companion, "health", None)
        if frame is not None:
            self._frames += 1
            self.frame = ViewerFrame(frame, time.time(), self._frames)
        while True:
            try:
                command = self._commands.get_nowait()
            except queue.Empty:
                break
            self._run(companion, command)
        self._show_pairing(companion)
        self._note_fault(companion)
        key = _key_of(companion, self)
        if key != self._key:
            self._key = key
            self.snapshot = snapshot_of(companion, self, next(self._versions))
            self._wake()

    def _run(self, companion: Companion, command: _Command) -> None:
        if not command.done.set_running_or_notify_cancel():
            return
        try:
            command.done.set_result(_COMMANDS[command.name](companion, **command.arguments))
        except CompanionError as error:
            command.done.set_exception(error)
        except Exception as error:  # a bad command must never stop the referee
            log.exception("web command %s failed", command.name)
            command.done.set_exception(CompanionError(f"{command.name} failed: {error}"))

    def _show_pairing(self, companion: Companion) -> None:
        with self._lock:
            if self._pairing_until is not None and self._clock() >= self._pairing_until:
                self._pairing_until = None
                if self._granted is not None and not self._granted.done():
                    self._granted.set_result(False)
            pending = self._pairing_until is not None
        if pending and companion.presenter.scene.name != "pairing":  # kept up over moves' scenes
            companion.presenter.show(scenes.pairing())
        elif self._pairing_shown and not pending:
            companion.show_waiting_state()
        self._pairing_shown = pending

    def _note_fault(self, companion: Companion) -> None:
        fault = companion.fault
        if fault != self._last_fault and fault is not None:
            self.faults.append((time.time(), fault))
        self._last_fault = fault

    def _wake(self) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener()
            except Exception:  # a viewer that is gone: forget it, the game goes on
                with self._lock:
                    if listener in self._listeners:
                        self._listeners.remove(listener)


def _cup_words(top: tuple[int, int] | None) -> str:
    return "nothing" if top is None else f"{COLOR_NAMES[top[0]]} {top[1]}"


def compare(squares: tuple[str, ...], observation: Observation, position: Position) -> list[dict[str, str]]:
    """Each square's top as the camera reads it and as the game has it."""
    out = []
    for name in squares:
        try:
            probabilities = observation.probabilities[observation.row(name)]
        except (CompanionError, IndexError):
            continue
        seen = class_top(int(np.argmax(probabilities)), observation.max_piece)
        out.append(
            {"square": name, "camera": _cup_words(seen), "game": _cup_words(position.top(parse_square(name)))}
        )
    return out


# ----- the commands, run on the loop's thread ---------------------------------------------------


def _hint(companion: Companion) -> str:
    if not companion.ask_hint():
        raise CompanionError(
            "no hint: the game is over" if companion.game.is_over() else "no hint: restore the board first"
        )
    return "hint asked"


def _takeback(companion: Companion) -> str:
    event = companion.confirm_takeback()
    if event is None:
        raise CompanionError("no takeback is offered: put the last move back on the board, then take it back")
    return f"took back {event.move}"


def _new_game(companion: Companion, variant: str = "", white: str = "", black: str = "") -> str:
    chosen = Variant.from_spec(variant) if variant else companion.variant
    if (chosen.size, chosen.max_piece) != (companion.variant.size, companion.variant.max_piece):
        raise CompanionError(
            f"{chosen.spec} needs another board ({chosen.size}x{chosen.size}, cups up to "
            f"{chosen.max_piece}): restart the device with --variant {chosen.spec}"
        )
    companion.start_new_game(
        "a new game was started from the web page",
        variant=chosen,
        white=white.strip()[:40] or companion.players.white,
        black=black.strip()[:40] or companion.players.black,
    )
    return f"game {companion.game_id} started"


def _accept(companion: Companion) -> str:
    refusal = companion.accept_refusal()
    if not companion.accept_board():
        raise CompanionError(refusal or "the referee is not asking for help right now")
    return "the camera's view is the board now"


def _calibration(companion: Companion) -> str:
    if not companion.reload_calibration():
        raise CompanionError("this camera does not use a calibration file (a simulated table)")
    return "calibration in use"


_COMMANDS: dict[str, Callable[..., str]] = {
    "hint": _hint,
    "takeback": _takeback,
    "new-game": _new_game,
    "accept": _accept,
    "calibration": _calibration,
}
COMMANDS = tuple(_COMMANDS)


# ----- snapshots -----------------------------------------------------------------------------------


def _key_of(companion: Companion, remote: Remote) -> tuple[Any, ...]:
    """Cheap to compute every frame; changes whenever a snapshot would."""
    game = companion.game
    return (
        companion.game_id,
        id(game),
        game.ply,
        len(game.played),
        game.is_over(),
        id(companion.presenter.scene),
        companion.fault,
        companion.takeback_offer,
        remote._hint,
        remote._pairing_shown,
        id(companion.reconciler.awaiting_restore),
        companion.players.white,
        companion.players.black,
    )


def snapshot_of(companion: Companion, remote: Remote, version: int) -> GameSnapshot:
    game = companion.game
    position = game.position
    reconciler = companion.reconciler
    unknowns = reconciler.unknowns
    scene = companion.presenter.panel.scene
    hint = remote._hint[1] if remote._hint and remote._hint[0] == position.text() else None
    outcome = game.outcome()
    help_squares = tuple(square_name(sq) for sq in sorted(reconciler.help_squares or {}))
    return GameSnapshot(
        version=version,
        game_id=companion.game_id,
        variant=companion.variant.spec,
        size=position.size,
        max_piece=companion.variant.max_piece,
        white=companion.players.white,
        black=companion.players.black,
        ply=game.ply,
        turn=companion.turn_name(),
        position=position.text(),
        started=game.played[0].timestamp if game.played else None,
        stacks={
            square_name(sq): tuple((COLOR_NAMES[c], s) for c, s in position.stack(sq))
            for sq in position.squares
            if position.stack(sq)
        },
        unknown={sq: tuple(options) for sq, options in (unknowns.unknown() if unknowns else {}).items()},
        reserves={COLOR_NAMES[c]: tuple(position.reserve(c)) for c in (0, 1)},
        moves=tuple(
            (game.start.ply + i + 1, played.move.text(), played.timestamp)
            for i, played in enumerate(game.played)
        ),
        result=game.result,
        reason=outcome.reason if outcome else None,
        over=game.is_over(),
        panel=scene.text,
        alert=scene.text if scene.alert is not None else None,
        fault=companion.fault,
        hint=hint,
        takeback_offered=companion.takeback_offer_move,
        awaiting_restore=reconciler.awaiting_restore is not None,
        help_squares=help_squares,
        can_accept=reconciler.help_squares is not None,
        pairing=remote._pairing_shown,
        frames=companion.frames,
    )
