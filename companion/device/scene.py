"""What the panel shows, as data: which LEDs are steady, blinking or counting, and what the
buzzer plays, for each thing the referee has to say.

The conventions come from electronic chess boards, because players who have used one read
them without a manual: a hint lights the from-square blinking and the to-square steady; a
placement lights the to-square and tells the size by the number of blinks; an illegal move
lights the offending squares and sounds a low tone until the board is restored; a win plays
a tune and lights the line.

Scenes are pure values and ``outputs_at`` is a pure function of time, so the pin sequences the
tests assert are the same on a Pi, in CI and in the embedded default.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from companion.rules.move import Move
from companion.rules.square import square_name

WHITE_NAME, BLACK_NAME = "white", "black"


class Mode(StrEnum):
    ON = "steady"
    BLINK = "blinking"
    COUNT = "counting"  # n blinks, a pause, again: a size told by blinks


@dataclass(frozen=True)
class Light:
    mode: Mode
    count: int = 0

    def describe(self) -> str:
        return f"blinks {self.count}x" if self.mode is Mode.COUNT else str(self.mode)


STEADY = Light(Mode.ON)
BLINK = Light(Mode.BLINK)


def counted(n: int) -> Light:
    return Light(Mode.COUNT, n)


@dataclass(frozen=True)
class Note:
    tone: str | None  # a note name gpiozero's Tone understands ("A4"), or None for a rest
    seconds: float


@dataclass(frozen=True)
class Sound:
    name: str
    notes: tuple[Note, ...]
    repeat: bool = False  # True: loops until the scene changes (the illegal-move tone)

    @property
    def seconds(self) -> float:
        return sum(note.seconds for note in self.notes)


# The buzzer's vocabulary. Tones stay within A2..A6, the range the TonalBuzzer is built with.
CLICK = Sound("click", (Note("E6", 0.05),))
BEEP = Sound("beep", (Note("A5", 0.12),))
LOW_TONE = Sound("low tone", (Note("A3", 0.4), Note(None, 0.4)), repeat=True)
CHIRP = Sound("question chirp", (Note("C5", 0.08), Note(None, 0.05), Note("G5", 0.12)))
WIN_TUNE = Sound("win tune", (Note("C5", 0.15), Note("E5", 0.15), Note("G5", 0.15), Note("C6", 0.45)))
LOSS_TUNE = Sound("losing tune", (Note("G4", 0.2), Note("E4", 0.2), Note("C4", 0.5)))
DRAW_TUNE = Sound("draw tune", (Note("E5", 0.2), Note(None, 0.1), Note("E5", 0.2)))
NEW_GAME_TUNE = Sound("new-game tune", (Note("C5", 0.12), Note("G5", 0.2)))
TAKEBACK_TUNE = Sound("takeback tune", (Note("G5", 0.12), Note("C5", 0.2)))
FAULT_TONE = Sound("fault beep", (Note("A3", 0.15), Note(None, 0.1), Note("A3", 0.15)))


@dataclass(frozen=True)
class Scene:
    """Everything the panel shows until the next scene (or, with ``seconds``, until ``after``)."""

    name: str
    text: str
    squares: Mapping[str, Light] = field(default_factory=dict)
    turn: Mapping[str, Light] = field(default_factory=dict)  # "white"/"black" turn LEDs
    alert: Light | None = None
    sound: Sound | None = None
    seconds: float | None = None
    after: Scene | None = None

    def describe(self) -> str:
        """One line for the console and the journal: what a person would see and hear."""
        parts = [self.text]
        if self.squares:
            lit = ", ".join(f"{sq} {light.describe()}" for sq, light in sorted(self.squares.items()))
            parts.append(f"LEDs {lit}")
        if self.alert is not None:
            parts.append(f"alert LED {self.alert.describe()}")
        turn = ", ".join(f"{side} {light.describe()}" for side, light in self.turn.items())
        if turn:
            parts.append(f"turn LED {turn}")
        if self.sound is not None:
            parts.append(f"buzzer {self.sound.name}{' (repeating)' if self.sound.repeat else ''}")
        return " | ".join(parts)


# ----- the scenes ---------------------------------------------------------------------------


def _lights(squares: Iterable[str], light: Light) -> dict[str, Light]:
    return {sq: light for sq in squares}


def idle(turn: str | None, text: str = "waiting for a move", sound: Sound | None = None) -> Scene:
    """The resting state: only the side to move's turn LED."""
    return Scene("idle", text, turn={turn: STEADY} if turn else {}, sound=sound)


def moved(move_text: str, turn: str) -> Scene:
    mover = BLACK_NAME if turn == WHITE_NAME else WHITE_NAME
    return idle(turn, f"{mover} played {move_text}, {turn} to play", CLICK)


def hint(move: Move, turn: str) -> Scene:
    """From-square blinking, to-square steady; a placement counts its size on the to-square."""
    to = square_name(move.to_square)
    if move.from_square is None:
        squares = {to: counted(move.size or 1)}
        text = f"hint for {turn}: place a size {move.size} on {to}"
    else:
        squares = {square_name(move.from_square): BLINK, to: STEADY}
        text = f"hint for {turn}: move {square_name(move.from_square)} to {to}"
    return Scene("hint", text, squares=squares, turn={turn: STEADY}, sound=BEEP)


def _pointing(
    name: str,
    text: str,
    squares: Iterable[str],
    light: Light,
    turn: str,
    alert: Light,
    sound: Sound | None = None,
) -> Scene:
    """The shape of every "look here" message: squares lit, the alert LED, the turn LED kept."""
    return Scene(name, text, squares=_lights(squares, light), turn={turn: STEADY}, alert=alert, sound=sound)


def illegal(squares: Iterable[str], turn: str, reason: str) -> Scene:
    """Offending squares and the alert LED steady, a low tone that repeats until restored."""
    return _pointing(
        "illegal", f"illegal: {reason}; restore the board", squares, STEADY, turn, STEADY, LOW_TONE
    )


def attention(squares: Iterable[str], turn: str, reason: str) -> Scene:
    """The board cannot be read with confidence: point at it quietly, do not accuse."""
    return _pointing("attention", f"check the board: {reason}", squares, BLINK, turn, BLINK)


def help_requested(squares: Iterable[str], turn: str, reason: str) -> Scene:
    """The referee asks for help: the squares where the camera and the game disagree steady,
    the alert LED blinking, one low beep; until the board is put right or a triple press
    accepts what the camera sees."""
    return _pointing("help", f"help: {reason} (triple press: accept)", squares, STEADY, turn, BLINK, BEEP)


def also_asking(shown: Scene, request: Scene) -> Scene:
    """Two requests about one board at once: ``shown`` (an illegal move waiting to be put
    right, the more urgent: its alert LED and low tone) with ``request``'s squares lit too
    and both said (a help request opened meanwhile lights where the camera and the game
    differ, often squares the illegal move's do not: 24 batches of the event dump's 520 games;
    putting the board as the game has it answers both, a triple press the request)."""
    squares = {**request.squares, **shown.squares}
    return replace(shown, squares=squares, text=f"{shown.text}; {request.text}")


def refused(shown: Scene, turn: str, reason: str) -> Scene:
    """A press the referee cannot take now (accepting the camera's view while a hand is over
    the board): two low beeps and the alert LED blinking over the squares ``shown`` lights,
    for 3 s, then ``shown`` again (the request it answers is still open)."""
    return Scene(
        "refused",
        f"not now: {reason}",
        squares=shown.squares,
        turn={turn: STEADY},
        alert=BLINK,
        sound=FAULT_TONE,
        seconds=3.0,
        after=replace(shown, sound=None),
    )


def won(line: Iterable[str], winner: str, reason: str) -> Scene:
    return Scene("win", reason, squares=_lights(line, STEADY), turn={winner: BLINK}, sound=WIN_TUNE)


def lost_by_uncover(line: Iterable[str], winner: str, reason: str) -> Scene:
    """The losing uncover: the revealed line steady, the alert LED on, a falling tune."""
    return Scene(
        "uncover",
        reason,
        squares=_lights(line, STEADY),
        turn={winner: BLINK},
        alert=STEADY,
        sound=LOSS_TUNE,
    )


def drawn(reason: str) -> Scene:
    return Scene("draw", reason, turn={WHITE_NAME: BLINK, BLACK_NAME: BLINK}, sound=DRAW_TUNE)


def new_game(every_square: Iterable[str], turn: str = WHITE_NAME) -> Scene:
    """Every square LED on for a moment, then the resting state for the first player."""
    return Scene(
        "new-game",
        "new game",
        squares=_lights(every_square, STEADY),
        sound=NEW_GAME_TUNE,
        seconds=0.6,
        after=idle(turn, f"new game, {turn} to play"),
    )


def takeback_offered(squares: Iterable[str], turn: str, move_text: str) -> Scene:
    """The board shows the position before the last move: ask before undoing it."""
    text = f"board shows the position before {move_text}: double press to take it back"
    return _pointing("takeback-offered", text, squares, counted(2), turn, BLINK, CHIRP)


def taken_back(squares: Iterable[str], turn: str, move_text: str) -> Scene:
    """The undone move's squares blink twice, then the resting state."""
    return Scene(
        "takeback",
        f"took back {move_text}",
        squares=_lights(squares, BLINK),
        sound=TAKEBACK_TUNE,
        seconds=1.0,
        after=idle(turn, f"took back {move_text}, {turn} to play"),
    )


def pairing() -> Scene:
    """A browser asks to be paired: the four corner squares and both turn LEDs blink until the
    button is pressed (or 30 s pass), like a smart-home bridge's link button."""
    return Scene(
        "pairing",
        "a browser asks to pair: press the button to allow it",
        squares=_lights(("a1", "d1", "a4", "d4"), BLINK),
        turn={WHITE_NAME: BLINK, BLACK_NAME: BLINK},
        sound=CHIRP,
    )


NEEDS_SERVICE = counted(3)
"""The alert LED's "needs service" pattern: three blinks, a pause, again, over whatever is
shown, for as long as a fault needs a person (the game log cannot be written, ...)."""


def hint_failed(turn: str, reason: str) -> Scene:
    """The button was pressed and no hint came: say so, so the press does not look ignored."""
    return Scene(
        "hint-failed",
        f"no hint: {reason}",
        turn={turn: STEADY},
        alert=BLINK,
        sound=FAULT_TONE,
        seconds=3.0,
        after=idle(turn, f"{turn} to play"),
    )


def with_fault(scene: Scene, fault: str, alert: Light = BLINK) -> Scene:
    """Any scene with the alert LED blinking (``alert``: in another pattern) and the fault
    named: the camera is gone, the game is not."""
    after = with_fault(scene.after, fault, alert) if scene.after is not None else None
    return replace(scene, alert=alert, text=f"{scene.text} [{fault}]", after=after)


def move_squares(move_text: str) -> list[str]:
    """The squares a move touches, for the scenes that point at a move."""
    move = Move.from_text(move_text)
    squares = [move.to_square] if move.from_square is None else [move.from_square, move.to_square]
    return [square_name(sq) for sq in squares]


# ----- time ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PanelOutputs:
    """What every output of the panel does at one instant: the lit square LEDs, the lit turn
    LEDs, the alert LED and the buzzer's note."""

    squares: frozenset[str]
    turn: frozenset[str]
    alert: bool
    tone: str | None


@dataclass(frozen=True)
class Timing:
    blink_period: float = 0.5
    count_pause: float = 1.0


def light_at(light: Light | None, t: float, timing: Timing) -> bool:
    if light is None:
        return False
    period = timing.blink_period
    if light.mode is Mode.ON:
        return True
    if light.mode is Mode.BLINK:
        return (t % period) < period / 2
    blinking = light.count * period
    u = t % (blinking + timing.count_pause)
    return u < blinking and (u % period) < period / 2


def tone_at(sound: Sound | None, t: float) -> str | None:
    if sound is None or not sound.notes:
        return None
    total = sound.seconds
    if sound.repeat:
        t %= total
    elif t >= total:
        return None
    for note in sound.notes:
        if t < note.seconds:
            return note.tone
        t -= note.seconds
    return None


def outputs_at(scene: Scene, t: float, timing: Timing = Timing()) -> PanelOutputs:
    """The outputs ``t`` seconds after ``scene`` was shown."""
    while scene.seconds is not None and scene.after is not None and t >= scene.seconds:
        t -= scene.seconds
        scene = scene.after
    return PanelOutputs(
        squares=frozenset(sq for sq, light in scene.squares.items() if light_at(light, t, timing)),
        turn=frozenset(side for side, light in scene.turn.items() if light_at(light, t, timing)),
        alert=light_at(scene.alert, t, timing),
        tone=tone_at(scene.sound, t),
    )
