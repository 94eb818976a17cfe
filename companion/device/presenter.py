"""From what the referee says to what the panel shows: events, hints, takebacks and camera
faults become scenes, and, when the device has a voice, sentences (``speech.py``).

Kept apart from the run loop so the MockFactory tests drive the very code the device runs,
event by event, and assert the pins. The voice gets the very calls the panel's scenes come
from, so the two never tell different stories.
"""

from __future__ import annotations

from dataclasses import replace

from companion.device import scene as scenes
from companion.device.panel import Panel
from companion.device.scene import Scene
from companion.device.speech import Speech
from companion.reconciler.events import Event, EventType, is_aside
from companion.rules.move import Move
from companion.rules.square import board_squares, square_name

ASKING = frozenset({"help", "illegal"})
"""Scenes that ask the player to act on the board: a report of plies in doubt (an aside,
``is_aside``) does not replace them."""


class Presenter:
    def __init__(self, panel: Panel, speech: Speech | None = None) -> None:
        self.panel = panel
        self.speech = speech  # the voice beside the panel, told the same events
        self._scene: Scene = scenes.idle(None, "starting")
        self._fault: str | None = None
        self._service: str | None = None
        self._doubted: frozenset[str] = frozenset()  # plies the shown doubt blinks for (none:
        #                                               the scene shown is no doubt's)

    @property
    def scene(self) -> Scene:
        return self._scene

    def show(self, scene: Scene) -> None:
        self._scene = scene
        self._doubted = frozenset()
        self.panel.show(self._overlaid(scene))

    def _overlaid(self, scene: Scene) -> Scene:
        """``scene`` with the open faults over it: "needs service" before camera trouble."""
        if self._service:
            named = f"needs service: {self._service}" + (f"; {self._fault}" if self._fault else "")
            return scenes.with_fault(scene, named, scenes.NEEDS_SERVICE)
        return scenes.with_fault(scene, self._fault) if self._fault else scene

    def event(self, event: Event, turn: str) -> None:
        """Show one referee event; ``turn`` is the side to move after it. A report of plies in
        doubt does not hide a request the player must answer (``ASKING``: the help request's
        lit squares, the illegal move's squares to restore), which it often follows in the same
        batch: it is said aloud, and the request stays shown until its own answer."""
        scene = self.scene_for(event, turn)
        if scene is not None and is_aside(event) and self._shown_name() in ASKING:
            scene = None
        if scene is not None:
            self.show(scene)
            if event.type is EventType.NEEDS_ATTENTION and "unsure" in event.detail:
                self._doubted = frozenset(event.detail["unsure"])  # (every ply in doubt now)
        elif event.type is EventType.SETTLED:
            self._doubt_settled(event, turn)
        if self.speech is not None:
            self.speech.event(event, turn)

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
        #               the panel keeps showing what it showed (``event`` rests it after a doubt)

    def _shown_name(self) -> str:
        """The name of the scene that stays shown (past a passing one: a refused press)."""
        return (self._scene.after or self._scene).name if self._scene.seconds else self._scene.name

    def _doubt_settled(self, event: Event, turn: str) -> None:
        """A doubt the panel blinks for settled: once no ply it blinked for is left in doubt,
        the panel rests (nothing is left to check). A scene shown since (a move, a request
        about the board) is not the doubt's and stays."""
        if not self._doubted:
            return
        left = self._doubted - set(event.detail.get("settled", {}))
        if left:
            self._doubted = left
            return
        moves = " ".join(event.moves)
        self.show(scenes.idle(turn, f"sure now: {moves}, {turn} to play" if moves else f"{turn} to play"))

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

    def accept_refused(self, turn: str, reason: str) -> None:
        """A triple press the referee cannot take now (a hand over the board): said for a
        moment over the request, which stays shown (and open)."""
        self.show(scenes.refused(self._scene.after or self._scene, turn, reason))
        if self.speech is not None:
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
