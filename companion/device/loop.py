"""The referee's loop: camera → board reader → stability gate → reconciler → events → panel
and log, plus the button and the background hint.

One frame per ``step``, and nothing in a step waits for long: the AI thinks on its own
thread, the panel animates on its own thread, the log writes one small transaction per move.
The game lives in the reconciler and, move by move, in the log, so a restart (power cut,
crash, watchdog) resumes it from the log with every hidden cup known.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from companion.component import Component
from companion.device.button import Gesture
from companion.device.camera import CameraLink
from companion.device.health import Health
from companion.device.hint import HintWorker
from companion.device.log_keeper import LogKeeper
from companion.device.notify import Notifier
from companion.device.presenter import Presenter
from companion.device.remote import Remote
from companion.device.reviewer import BackgroundReviewer
from companion.device.scene import idle
from companion.log import GameRow, GameStore, UnreplayableGameError
from companion.reconciler.accounts import Kind
from companion.reconciler.decoder import decide
from companion.reconciler.events import Event, EventType
from companion.reconciler.reconciler import Reconciler
from companion.rules.game import Game
from companion.rules.games import is_gobblet_spec
from companion.rules.move import Move
from companion.rules.position import Position
from companion.rules.square import color_name
from companion.rules.variant import Variant
from companion.vision.observation import Observation

log = logging.getLogger("gobblet-companion")

Observe = Callable[[np.ndarray, float], Observation | None]
"""A frame and its time stamp to a stable observation: the board reader and the stability gate
together. None while the board is not stable (hands over it, a cup in the air)."""

ABANDONED = "abandoned"
HANDS_OFF = "hands off the board: press three times again once it stands still"
"""Why a triple press made while a hand is over the board (or the board is still settling) is
refused: what the camera sees then is not the board the referee asked about."""
UNREPLAYABLE = "unreplayable"
QUIET_STEPS = 100  # error-free steps after which an error outside a board counts as over
READY_GRACE = 30.0  # seconds: READY=1 without a camera, before systemd's start timeout (90 s)
_MOVED = (  # the position changed: hints go stale
    EventType.MOVE,
    EventType.TAKEBACK,
    EventType.NEW_GAME,
    EventType.RESYNC,
    EventType.CORRECTION,
)


@dataclass(frozen=True)
class _Line:
    game_id: int
    start: Position
    moves: list[Move]


@dataclass
class Players:
    white: str = "White"
    black: str = "Black"
    place: str | None = None


class Companion(Component):
    def __init__(
        self,
        *,
        variant: Variant,
        camera: CameraLink,
        observe: Observe,
        presenter: Presenter,
        store: GameStore | LogKeeper,
        hints: HintWorker,
        notifier: Notifier | None = None,
        health: Health | None = None,
        players: Players | None = None,
        snapshots: bool = False,
        encode_jpeg: Callable[[np.ndarray], bytes | None] | None = None,
        remote: Remote | None = None,
        reviewer: BackgroundReviewer | None = None,
    ) -> None:
        self.variant = variant
        self.camera = camera
        self.observe = observe
        self.presenter = presenter
        self.store = store
        self.hints = hints
        self.notifier = notifier or Notifier(environ={})
        self.health = health or Health()
        self.players = players or Players()
        self.snapshots = snapshots
        self.encode_jpeg = encode_jpeg
        self.remote = remote  # the web page's view of the device and its commands
        self.reviewer = reviewer  # finished games reviewed in the background, when the board is idle
        self._last_change = time.monotonic()  # the last event: the board is idle some time after
        self.reconciler: Reconciler = Reconciler(variant, takeback=False)
        self.game_id = 0
        self._finished = False
        self._offer: int | None = None  # ply of the move whose takeback is offered
        self.frames = 0
        self.observations = 0
        self.resumed = False
        self.step_errors = 0  # exceptions a step survived (reconciler, log, panel, hint)
        self._refused: bytes | None = None  # the board the referee failed on, skipped until it changes
        self._started_at = time.monotonic()
        self._ready = False
        self._quiet_steps = 0  # steps since the last exception

    # ----- the game ------------------------------------------------------------------------

    @property
    def game(self) -> Game:
        return self.reconciler.game

    def turn_name(self) -> str:
        return color_name(self.game.turn)

    def start(self, resume: bool = True) -> None:
        """Resume the unfinished game at this table (same variant) from the log, or start a
        new one; any other unfinished game at this table is closed as abandoned."""
        # Only Gobblet games are the referee's: a Cups game played at the terminal or on the
        # web page at the same table is neither resumed nor closed here.
        waiting = [row for row in self.store.unfinished(self.players.place) if is_gobblet_spec(row.variant)]
        row = waiting[0] if waiting and resume and waiting[0].variant == self.variant.spec else None
        for other in waiting:
            if other is not row:
                self.store.finish(other.id, "*", termination=ABANDONED, reason="a new game was started")
        game = self._replayed(row) if row is not None else None
        if row is not None and game is not None:
            self._adopt(Reconciler(self.variant, game, takeback=False), row.id)
            self.resumed = True
            log.info(
                "resumed game %d at ply %d, %s to play: %s",
                row.id,
                game.ply,
                self.turn_name(),
                game.position.text(),
            )
            self.presenter.show(
                idle(self.turn_name(), f"resumed game {row.id} at ply {game.ply}, {self.turn_name()} to play")
            )
        else:
            self._new_game(announce=False)
            self.presenter.show(
                idle(
                    self.turn_name(), f"game {self.game_id}: {self.variant.spec}, {self.turn_name()} to play"
                )
            )

    def _replayed(self, row: GameRow) -> Game | None:
        """The stored game, replayed; one that no longer replays stays in the log unfinished
        (result ``*``, its moves kept for a person to look at) and a new game starts, rather
        than the service failing at every start."""
        try:
            game = self.store.load_game(row.id)
            return game if isinstance(game, Game) else None
        except UnreplayableGameError as error:
            self.store.finish(row.id, "*", termination=UNREPLAYABLE, reason=str(error))
            self.health.repaired("game", f"{error}: it is kept in the log unfinished; a new game was started")
            return None

    def _announce_ready(self) -> None:
        """READY=1 once the camera is open, or after ``READY_GRACE`` without it: a service
        that never became ready would be killed and restarted until systemd gave up, with the
        panel dark; a ready one blinks the fault and keeps trying the camera."""
        if self._ready or not (self.camera.is_open or time.monotonic() - self._started_at >= READY_GRACE):
            return
        self._ready = True
        camera = "" if self.camera.is_open else f"; {self.camera.fault or 'no camera yet'}"
        self.notifier.ready(f"game {self.game_id}, ply {self.game.ply}{camera}")

    def _adopt(self, reconciler: Reconciler, game_id: int) -> None:
        self.reconciler = reconciler
        self.game_id = game_id
        self._finished = reconciler.game.is_over()
        self._offer = None
        self.hints.cancel()

    def _new_game(self, *, announce: bool) -> None:
        """A fresh game in a new record (the button, or no game to resume)."""
        self._adopt(Reconciler(self.variant, Game(self.variant), takeback=False), self._open_record(None))
        if announce:
            event = Event(EventType.NEW_GAME, detail={"variant": self.variant.spec})
            self.store.add_events(self.game_id, (event,))
            self._tell_remote([event])
            self.presenter.event(event, self.turn_name())

    def start_new_game(
        self, reason: str, variant: Variant | None = None, white: str | None = None, black: str | None = None
    ) -> None:
        """Close the game in progress as abandoned and start another (the button's hold, the
        web page's "new game"); ``variant`` must read on the same board as the current one."""
        self._abandon(reason)
        self.variant = variant or self.variant
        self.players = Players(white or self.players.white, black or self.players.black, self.players.place)
        self._new_game(announce=True)

    def _open_record(self, start: str | None) -> int:
        """Start a record in the log (from ``start``, a position text, when the game does not
        begin from the empty board) and make it the current one."""
        self.game_id = self.store.start_game(
            self.variant.spec,
            white=self.players.white,
            black=self.players.black,
            place=self.players.place,
            start_position=start if start != Position(self.variant).text() else None,
        )
        self._finished = False
        self._offer = None
        log.info("game %d started (%s)", self.game_id, self.variant.spec)
        return self.game_id

    def _abandon(self, reason: str) -> None:
        if not self._finished:
            self.store.finish(self.game_id, "*", termination=ABANDONED, reason=reason)
            self._finished = True

    # ----- one frame -----------------------------------------------------------------------

    def step(self) -> bool:
        """Read and referee one frame; False once a finite camera (simulation) has ended.
        An exception in the step does not end the referee (see ``_survive``)."""
        try:
            frame = self.camera.read()
        except EOFError:
            return False
        observation, before = None, None
        try:
            self._announce_ready()
            if isinstance(self.store, LogKeeper):
                self.store.flush()
            self._track("camera", self.camera.fault)
            self._track("vision", getattr(self.observe, "fault", None))  # "calibrate me"
            self.presenter.fault(self.fault, self.health.needs_service())
            if frame is not None:
                self.frames += 1
                observation = self.observe(frame, self.camera.timestamp)
                if observation is not None and not self._is_refused(observation):
                    self.observations += 1
                    before = self._line()
                    self.on_observation(observation, frame)
            for gesture in self.presenter.panel.gestures():
                self.on_gesture(gesture)
            self._collect_hint()
            if self.reviewer is not None:
                self.reviewer.tick(time.monotonic() - self._last_change, self.hints.pending is not None)
            if self.remote is not None:
                self.remote.serve(self, frame)
            self._quiet_steps += 1
            if self._quiet_steps == QUIET_STEPS and self._refused is None:
                self.health.clear("referee", f"{QUIET_STEPS} steps without an error")
        except Exception as error:  # the referee degrades; it does not stop
            self._survive(error, observation, before)
        self.notifier.watchdog()
        return True

    @property
    def fault(self) -> str | None:
        """Camera or calibration trouble, in words (the alert LED blinks for it)."""
        return self.camera.fault or getattr(self.observe, "fault", None)

    def _track(self, part: str, fault: str | None) -> None:
        """Camera trouble and "calibrate me" in ``Health`` too (the web page's status), as
        faults a person fixes at the table, not "needs service"; the camera link and the
        observer already say them in the journal."""
        current = self.health.fault(part)
        if fault is None:
            if current is not None:
                self.health.clear(part, say=False)
        elif current is None or current.text != fault:
            self.health.report(part, fault, needs_service=False, say=False)

    def _is_refused(self, observation: Observation) -> bool:
        if self._refused is None:
            return False
        if _board_key(observation) == self._refused:
            return True
        self._refused = None  # the board changed: try the referee again
        self.health.clear("referee", "the board changed")
        return False

    def _line(self) -> _Line:
        """The game as it stands (its record, start and moves): what a failed step goes back to."""
        return _Line(self.game_id, self.game.start.copy(), [played.move for played in self.game.played])

    def _survive(self, error: Exception, observation: Observation | None, before: _Line | None) -> None:
        """Count and report an exception in a step. When the referee failed on a board, that
        board is skipped until it changes (so the same error does not recur every frame) and
        the referee is rebuilt as the game stood before the step, dropping whatever half-made
        state the failure left (a move it logged meanwhile is logged again, in its place)."""
        self.step_errors += 1
        self._quiet_steps = 0
        where = "on a board" if observation is not None else "in the loop"
        text = f"{type(error).__name__} {where}: {error}; the game goes on as it stood before"
        if self.health.report("referee", text).count == 1:
            log.error("the referee survived an error", exc_info=error)
        if observation is not None and before is not None:
            self._refused = _board_key(observation)
            try:
                self._rebuild(before)
            except Exception as again:  # the log refused too: the keeper holds the writes
                log.error("rebuilding the referee failed: %s", again)

    def _rebuild(self, before: _Line) -> None:
        try:
            if before.game_id != self.game_id:
                raise RuntimeError("the step had opened another record")
            game = Game(self.variant, start=before.start)
            for move in before.moves:
                game.push(move)
            self._adopt(Reconciler(self.variant, game, takeback=False), self.game_id)
        except Exception as error:  # the game cannot be put back: a fresh one, announced
            log.error("the referee could not be rebuilt (%s); a new game starts", error)
            self._abandon("the referee failed and could not be rebuilt")
            self._new_game(announce=True)
        self.show_waiting_state()

    def run(self, stop: threading.Event | None = None, idle_sleep: float = 0.005) -> None:
        """Step until stopped or the camera ends; the camera paces the loop."""
        stop = stop or threading.Event()
        while not stop.is_set():
            if not self.step():
                break
            if not self.camera.ok:
                stop.wait(min(0.1, self.camera.reconnect_delay))
            elif idle_sleep:
                time.sleep(idle_sleep)

    # ----- what the reconciler says --------------------------------------------------------

    def on_observation(self, observation: Observation, frame: np.ndarray | None = None) -> list[Event]:
        if self._takeback_shown(observation):
            return []
        withdrawn, self._offer = self._offer is not None, None
        events = self.reconciler.feed(observation)
        position = self.game.position
        if withdrawn:  # (the offer's squares go dark; what the batch says is shown over it)
            self.show_waiting_state()
        self._referee_said(events, frame, observation)
        judged = getattr(self.observe, "judged", None)
        if judged is not None:  # the reader learns from positions the referee is sure of, once shown
            judged(events, position, self.reconciler.unsure)
        return events

    def _referee_said(
        self, events: list[Event], frame: np.ndarray | None, observation: Observation | None = None
    ) -> None:
        """Log, show and announce what the reconciler made of a reading (or of the camera's
        view accepted as the board)."""
        for event in events:
            log.info("event %s", _event_text(event))
        if events:
            self._last_change = time.monotonic()
        self._persist(events, frame)
        if any(e.type in _MOVED for e in events):
            self.hints.cancel()
        self._tell_remote(events, observation)
        self.presenter.batch(events, self.reconciler.held, self.turn_name())
        if any(e.type is EventType.MOVE for e in events):
            self.notifier.status(f"game {self.game_id}, ply {self.game.ply}, {self.turn_name()} to play")

    def _tell_remote(self, events: list[Event], observation: Observation | None = None) -> None:
        if self.remote is not None:
            self.remote.record(events, observation, self.game.position)

    def reload_calibration(self) -> bool:
        """A new calibration file was written (the web page's wizard): read frames with it."""
        reload = getattr(self.observe, "reload", None)
        if reload is None:
            return False
        reload()
        return True

    def _persist(self, events: list[Event], frame: np.ndarray | None) -> None:
        """Follow the referee's events into the log (the reconciler's game changes only
        through them, docs/reconciler.md): a new game or a resync opens a new record (the one
        in progress is closed as abandoned), a correction or a takeback drops the moves after
        its ply, a move is added, a win, loss or draw finishes the record. This batch's events
        are stored with its last move (and the frame, with snapshots on), or on their own."""
        batch = tuple(events)
        last_move = next((e for e in reversed(events) if e.type is EventType.MOVE), None)
        for event in events:
            start = _new_record_start(event, self.variant)
            if start is not None:
                self._abandon(_abandon_reason(event))
                self._open_record(start)
            elif event.type in (EventType.CORRECTION, EventType.TAKEBACK):
                self.store.take_back(self.game_id, event.ply + 1)
                self._finished = False
            elif event.type is EventType.MOVE and event.move is not None and event.position is not None:
                last = event is last_move
                self.store.add_move(
                    self.game_id,
                    event.ply,
                    event.move,
                    event.position,
                    timestamp=event.timestamp,
                    events=batch if last else (),
                    jpeg=self._jpeg(frame) if last else None,
                )
            elif event.type in _ENDINGS and not self._finished:
                self._finish(event)
        if last_move is None:
            self.store.add_events(self.game_id, batch)

    def _finish(self, event: Event) -> None:
        """A win, loss or draw event closes the record with its result."""
        result = {"white": "1-0", "black": "0-1"}.get(event.winner or "", "1/2-1/2")
        termination = event.detail.get("termination")
        self.store.finish(self.game_id, result, termination=termination, reason=event.reason)
        self._finished = True
        log.info("game %d over: %s", self.game_id, event.reason)
        if self.reviewer is not None:
            self.reviewer.game_finished()

    def _jpeg(self, frame: np.ndarray | None) -> bytes | None:
        if not self.snapshots or frame is None or self.encode_jpeg is None:
            return None
        return self.encode_jpeg(frame)

    # ----- takeback: offered by the board, confirmed by a double press ---------------------

    def _takeback_shown(self, observation: Observation) -> bool:
        """When the board shows the position before the last move, offer to take it back
        (a double press confirms) instead of handing the board to the reconciler, which would
        otherwise have to call it an illegal move or two moves made out of sight."""
        if self.game.ply == 0 or not self._shows_previous_position(observation):
            return False
        if self._offer != self.game.ply:
            self._offer = self.game.ply
            move = self.game.played[-1].move.text()
            log.info("takeback of %s offered: double press to confirm", move)
            self.presenter.takeback_offered(move, self.turn_name())
        return True

    def _shows_previous_position(self, observation: Observation) -> bool:
        decision = decide(
            self.game, observation, moves=False, illegal=False, lifts=False, two_moves=False, takeback=True
        )
        return decision.accepted is not None and decision.accepted.kind is Kind.TAKEBACK

    @property
    def takeback_offer(self) -> int | None:
        """The ply whose move the board offers to take back (a double press confirms)."""
        return self._offer

    @property
    def takeback_offer_move(self) -> str | None:
        return self.game.played[-1].move.text() if self._offer is not None and self.game.played else None

    def show_waiting_state(self) -> None:
        """Back to what the reconciler waits for: the board restored, the request it holds open
        (help, or an unclear reading: a takeback offer withdrawn must not leave the panel dark
        while the referee still asks), or the next move."""
        self.presenter.waiting(self.reconciler.held, self.turn_name())

    def confirm_takeback(self) -> Event | None:
        if self._offer is None or self._offer != self.game.ply:
            log.info("double press ignored: no takeback is offered")
            return None
        game = self.game
        move = game.pop()
        event = Event(EventType.TAKEBACK, ply=game.ply, move=move.text(), position=game.position.text())
        self._adopt(Reconciler(self.variant, game, takeback=False), self.game_id)
        self._persist([event], None)
        self._tell_remote([event])
        log.info("event %s", _event_text(event))
        self.presenter.event(event, self.turn_name())
        return event

    # ----- the button and the hint ---------------------------------------------------------

    def on_gesture(self, gesture: Gesture) -> None:
        log.info("button: %s", gesture)
        if gesture is Gesture.PRESS:
            if self.remote is None or not self.remote.confirm_pairing():  # a pending pairing takes the press
                self.ask_hint()
        elif gesture is Gesture.HOLD:
            self.start_new_game("a new game was started with the button")
        elif gesture is Gesture.DOUBLE:
            self.confirm_takeback()
        elif gesture is Gesture.TRIPLE:
            self.accept_board()

    def accept_refusal(self) -> str | None:
        """Why the camera's view cannot be accepted now, None when it can: a help request is
        open and the board does not stand as the referee last read it (``at_rest`` of the
        observer: a hand over the board, or a board that changed and has not settled). Accepting
        then would take the reading the request was made from as the board while a hand may be
        changing it (putting it right, or making the next move), so the press is refused, said,
        and the request kept: the player presses again once the board stands. Deferring it to
        the next stable reading instead would answer a request the player has not seen (that
        reading may close the request or ask about other squares)."""
        if self.reconciler.help_squares is None or getattr(self.observe, "at_rest", True):
            return None
        return HANDS_OFF

    def accept_board(self) -> list[Event]:
        """The player's answer to the referee's help request: the board is as the camera sees
        it (a triple press, or a page's button). The game goes on from it: the moves of a path
        the referee kept that shows it, or else a resync, in a new record; nothing happens when
        no help is asked for, and it is refused (said on the panel and aloud, the request kept)
        while the board does not stand still (``accept_refusal``)."""
        refusal = self.accept_refusal()
        if refusal is not None:
            log.info("accept refused: %s", refusal)
            self.presenter.accept_refused(self.turn_name(), refusal)
            return []
        events = self.reconciler.accept_board()
        if not events:
            log.info("accept ignored: the referee asks for no help")
            return []
        self.hints.cancel()
        self._referee_said(events, None)
        if self.reconciler.help_squares is not None:  # (refused: no possible board; said aloud)
            self.presenter.accept_refused(self.turn_name(), events[-1].reason or "", say=False)
        return events

    def ask_hint(self) -> bool:
        if self.game.is_over() or self.reconciler.awaiting_restore is not None:
            log.info("no hint: %s", "the game is over" if self.game.is_over() else "restore the board first")
            return False
        self.hints.request(self.game.position)
        log.info("hint requested for ply %d (%s to play)", self.game.ply, self.turn_name())
        return True

    def _collect_hint(self) -> None:
        hint = self.hints.result()
        if hint is None:
            return
        if hint.key != self.game.position.text():
            return
        if hint.move is None:
            reason = hint.error or "the engine found no move"
            log.warning("no hint: %s", reason)
            self.health.report("hint", reason, needs_service=False)
            self.presenter.hint_failed(self.turn_name(), reason)
            return
        self.health.clear("hint")
        log.info("hint for %s: %s (%.2f s)", self.turn_name(), hint.move.text(), hint.seconds)
        event = Event(
            EventType.HINT,
            ply=self.game.ply,
            move=hint.move.text(),
            detail={"seconds": round(hint.seconds, 3)},
        )
        self.store.add_events(self.game_id, (event,))
        if self.remote is not None:
            self.remote.note_hint(hint.key, hint.move.text())
        self._tell_remote([event])
        self.presenter.hint(hint.move, self.turn_name())

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.notifier.stopping()


_ENDINGS = (EventType.WIN, EventType.LOSS, EventType.DRAW)
_ABANDON_REASONS = {
    EventType.NEW_GAME: "the board was set up for a new game",
    EventType.RESYNC: "the board could not be followed; the game goes on in a new record",
}
NEW_RECORD = ", in a new record"


def _abandon_reason(event: Event) -> str:
    """Why the record in progress closes at ``event`` (one that opens a new record). A resync
    says its own why: the board lost, or the camera's view accepted by the player (with
    ``detail.accepted``), so a record closed on the player's word does not read as the
    referee losing the board."""
    if event.type is EventType.RESYNC and event.detail.get("accepted") and event.reason:
        return event.reason + NEW_RECORD
    return _ABANDON_REASONS.get(event.type, "the game restarted from another start")


def _new_record_start(event: Event, variant: Variant) -> str | None:
    """The start position (text) of the new record an event opens, None if it opens none:
    a new game starts from the empty board, a resync from the position it gives, a correction
    that names a start (the other side to move after a resync) from that."""
    if event.type is EventType.NEW_GAME:
        return Position(variant).text()
    if event.type is EventType.RESYNC:
        return event.position
    if event.type is EventType.CORRECTION:
        start = event.detail.get("start")
        return str(start) if start is not None else None
    return None


def _board_key(observation: Observation) -> bytes:
    """What a board looks like, without its time: the same board gives the same key."""
    return observation.probabilities.round(2).tobytes() + bytes([observation.occluded])


def _event_text(event: Event) -> str:
    parts = [str(event.type), f"ply {event.ply}"]
    for value in (event.move, event.winner, " ".join(event.line) or None, event.reason):
        if value:
            parts.append(str(value))
    return ": ".join([parts[0], ", ".join(parts[1:])])
