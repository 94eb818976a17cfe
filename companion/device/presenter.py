"""From what the referee says to what the panel shows: events, hints, takebacks and camera
faults become scenes, and, when the device has a voice, sentences (``speech.py``).

Kept apart from the run loop so the MockFactory tests drive the very code the device runs,
event by event, and assert the pins. The voice gets the very calls the panel's scenes come
from, so the two never tell different stories.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from companion.device import scene as scenes
from companion.device.panel import Panel
from companion.device.scene import Scene
from companion.device.speech import Speech
from companion.reconciler.events import Event, EventType, Held, is_aside
from companion.rules.move import Move
from companion.rules.square import board_squares, square_name

REST_TEXT = "{turn} to play"
"""What the panel says at rest once what it held for the referee is no longer held."""


class Presenter:
    def __init__(self, panel: Panel, speech: Speech | None = None) -> None:
        self.panel = panel
        self.speech = speech  # the voice beside the panel, told the same events
        self._scene: Scene = scenes.idle(None, "starting")
        self._fault: str | None = None
        self._service: str | None = None
        self._held = Held()  # what the referee held at the last batch
        self._holding = False  # the scene shown is one of the referee's held state (``Held``)

    @property
    def scene(self) -> Scene:
        return self._scene

    def show(self, scene: Scene, holding: bool = False) -> None:
        self._scene = scene
        self._holding = holding
        self.panel.show(self._overlaid(scene))

    def _overlaid(self, scene: Scene) -> Scene:
        """``scene`` with the open faults over it: "needs service" before camera trouble."""
        if self._service:
            named = f"needs service: {self._service}" + (f"; {self._fault}" if self._fault else "")
            return scenes.with_fault(scene, named, scenes.NEEDS_SERVICE)
        return scenes.with_fault(scene, self._fault) if self._fault else scene

    def event(self, event: Event, turn: str) -> None:
        """Show one event the device made itself (a new game, a takeback confirmed), with
        nothing held: the referee that follows it is fresh."""
        self.batch((event,), Held(), turn)

    def batch(self, events: Sequence[Event], held: Held, turn: str) -> None:
        """Show what one batch of referee events leaves on the panel, ``held`` being what the
        referee holds open after it (``Reconciler.held``) and ``turn`` the side to move.

        The panel shows the referee's most urgent state, not the batch's last event: an
        illegal action waiting to be put right, then the open help request, then the unclear
        reading reported (``held_scene``); with none, the batch's last event shown (a move, a
        win, "board restored"; asides are said only, ``is_aside``), and a doubt reported since
        the last move blinks over a panel at rest. A scene shown for a held state that is no
        longer held rests. A batch with no events that leaves the same state changes nothing
        (a hint or a takeback offer shown meanwhile stays). Every event is said aloud."""
        if self.speech is not None:
            for event in events:
                self.speech.event(event, turn)
        if not events and held == self._held:
            return
        self._held = held
        said = self._said_scene(events, turn)
        urgent = self.held_scene(held, turn)
        if urgent is not None:
            self._present(urgent, holding=True)
            return
        resting = said.name == "idle" if said is not None else self._holding or self._shown().name == "idle"
        if held.doubt is not None and resting:
            self._present(self.doubt_scene(held.doubt, turn), holding=True)
        elif said is not None:
            self.show(said)
        elif self._holding:  # (nothing held any more, and nothing said in its place)
            settled = " ".join(m for e in events if e.type is EventType.SETTLED for m in e.moves)
            text = REST_TEXT.format(turn=turn)
            self.show(scenes.idle(turn, f"sure now: {settled}, {text}" if settled else text))

    def held_scene(self, held: Held, turn: str) -> Scene | None:
        """The scene of the most urgent request the referee holds, None when it holds none.
        An illegal action still waiting comes first: the player must put it right, and an
        unclear reading meanwhile is about the same board (put right, it answers that too); a
        help request opened meanwhile lights its squares beside the illegal move's
        (``also_asking``), as a triple press answers it."""
        first = next((e for e in (held.illegal, held.request, held.unclear) if e is not None), None)
        if first is None:
            return None
        scene = self.scene_for(first, turn)
        assert scene is not None  # (illegal, help and needs-attention events all have one)
        if first is held.illegal and held.request is not None:
            request = self.scene_for(held.request, turn)
            assert request is not None
            scene = scenes.also_asking(scene, request)
        return scene

    def waiting(self, held: Held, turn: str) -> None:
        """Back to what the referee waits for when the panel showed something else meanwhile
        (a takeback offer the board withdrew, the referee rebuilt after an error): its most
        urgent request, a doubt still news, or the next move."""
        self._held = held
        urgent = self.held_scene(held, turn) or (self.doubt_scene(held.doubt, turn) if held.doubt else None)
        if urgent is not None:
            self._present(urgent, holding=True)
        else:
            self.show(scenes.idle(turn, REST_TEXT.format(turn=turn)))

    def doubt_scene(self, report: Event, turn: str) -> Scene:
        """Plies in doubt: the alert LED blinking over the panel at rest, until a move is shown
        or later readings settle them."""
        return scenes.attention(report.squares, turn, report.reason or "not sure which move was made")

    def _said_scene(self, events: Sequence[Event], turn: str) -> Scene | None:
        """The scene of the batch's last event that a display shows (not an aside)."""
        for event in reversed(events):
            if not is_aside(event):
                scene = self.scene_for(event, turn)
                if scene is not None:
                    return scene
        return None

    def _shown(self) -> Scene:
        """The scene that stays shown (past a passing one: a refused press, a new game's flash)."""
        return (self._scene.after or self._scene) if self._scene.seconds else self._scene

    def _present(self, scene: Scene, holding: bool) -> None:
        """Show ``scene`` unless it is already shown (its sound, taken off a scene a fault or
        a passing scene interrupted, aside): a held state shown again would restart its
        tone and blinks at every batch."""
        if replace(scene, sound=None) == replace(self._shown(), sound=None):
            self._holding = holding
            return
        self.show(scene, holding)

    def scene_for(self, event: Event, turn: str) -> Scene | None:
        match event.type:
            case EventType.MOVE:
                return scenes.moved(event.move or "", turn)
            case EventType.ILLEGAL:
                return scenes.illegal(event.squares, turn, event.reason or "illegal move")
            case EventType.NEEDS_ATTENTION:
                return scenes.attention(event.squares, turn, event.reason or "the board is unclear")
            case EventType.HELP:
                return scenes.help_requested(event.squares, turn, event.reason or "the board differs")
            case EventType.RESTORED:
                return scenes.idle(turn, f"board restored, {turn} to play")
            case EventType.CLEARED:  # the lit squares go dark; nothing was put right
                said = "camera confirmed" if event.detail.get("accepted") else "nothing to put right"
                return scenes.idle(turn, f"{said}, {turn} to play")
            case EventType.TAKEBACK:
                return scenes.taken_back(
                    scenes.move_squares(event.move) if event.move else (), turn, event.move or ""
                )
            case EventType.WIN:
                return scenes.won(event.line, event.winner or turn, event.reason or f"{event.winner} wins")
            case EventType.LOSS:
                return scenes.lost_by_uncover(
                    event.line, event.winner or turn, event.reason or f"{event.winner} wins"
                )
            case EventType.DRAW:
                return scenes.drawn(event.reason or "draw")
            case EventType.NEW_GAME:
                return self.new_game_scene()
            case EventType.CORRECTION:
                moves = " ".join(event.moves) or "the last moves"
                return scenes.idle(turn, f"corrected: the board shows {moves}, {turn} to play", scenes.BEEP)
            case EventType.RESYNC:
                return scenes.attention(
                    (), turn, "the board could not be followed; the game goes on from what it shows"
                )
        return None  # LIFTED, HINT, SETTLED: the log records them (a settled doubt is said aloud);
        #               the panel keeps showing what it showed (``batch`` rests it after a doubt)

    def new_game_scene(self) -> Scene:
        return scenes.new_game(square_name(sq) for sq in board_squares(self.panel.board_size))

    def hint(self, move: Move, turn: str) -> None:
        self.show(scenes.hint(move, turn))
        if self.speech is not None:
            self.speech.hint(move, turn)

    def takeback_offered(self, move_text: str, turn: str) -> None:
        self.show(scenes.takeback_offered(scenes.move_squares(move_text), turn, move_text))
        if self.speech is not None:
            self.speech.takeback_offered(move_text, turn)

    def accept_refused(self, turn: str, reason: str, say: bool = True) -> None:
        """A triple press the referee cannot take now (a hand over the board; or what the
        camera sees is no possible board, which the referee's own event says aloud, ``say``
        False): shown for a moment over the request, which stays shown (and open)."""
        self.show(scenes.refused(self._shown(), turn, reason), self._holding)
        if say and self.speech is not None:
            self.speech.accept_refused(turn, reason)

    def hint_failed(self, turn: str, reason: str) -> None:
        self.show(scenes.hint_failed(turn, reason))
        if self.speech is not None:
            self.speech.hint_failed(turn, reason)

    def fault(self, text: str | None, service: str | None = None) -> None:
        """Start or end a fault: camera trouble (``text``) blinks the alert LED, a fault that
        needs a person (``service``) blinks it in the "needs service" pattern, over whatever is
        shown. The scene is not replayed from the start, so a win tune does not sound again."""
        if (text, service) == (self._fault, self._service):
            return
        starting = (text, service) != (None, None) and (self._fault, self._service) == (None, None)
        self._fault, self._service = text, service
        quiet = replace(self._scene.after or self._scene, sound=None)
        self._scene = quiet
        overlaid = self._overlaid(quiet)
        self.panel.show(replace(overlaid, sound=scenes.FAULT_TONE) if starting else overlaid)
        if self.speech is not None:
            self.speech.fault(text, service)
