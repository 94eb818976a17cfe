"""The device's side of vision: opening the camera named in the configuration, loading (or
making) the calibration, and the frame → stable observation function the loop calls; and,
for the embedded default, the synthetic scene renderer behind the simulated table.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from companion.device.config import CameraConfig
from companion.device.health import Health
from companion.device.log_keeper import move_aside
from companion.device.scenario import Shot
from companion.device.simulate import tops_of
from companion.errors import CompanionError
from companion.files import write_text_atomically
from companion.reconciler.events import Event, EventType, looks_again, unclear_reading
from companion.rules.variant import Variant
from companion.vision.calibration import Calibration, calibrate
from companion.vision.gate import StabilityGate
from companion.vision.geometry import BoardLayout
from companion.vision.learning import UNSURE, ObserverLearning, ShowsTops
from companion.vision.observation import Observation
from companion.vision.reader import BoardReader
from companion.vision.sources import PI_CAMERA_ADVICE, ExposureLock, FrameSource, open_source
from companion.vision.synth import Top

log = logging.getLogger("gobblet-companion.vision")

HOLD_SECONDS = 1.0  # a reading must hold this long (and 3 frames) before the referee sees it
SIMULATED_HOLD = 0.0  # simulation runs faster than real time: 3 agreeing frames are enough
MIN_FRAMES = 3


Observe = Callable[[np.ndarray, float], Observation | None]


class ReaderObserver:
    """(frame, camera time) -> the stable observation, when this frame completes a settled
    period. The gate runs on the camera's time (a video's own time line); the observation it
    passes is stamped with the wall clock, which the reconciler gives the move (and the log).

    ``judged(events, position, unsure)``, called by the device loop after each stable
    observation was fed to the referee, lets the reader learn from the frames the referee is
    sure of (``companion.vision.learning``): with the referee's plies in doubt (``unsure``),
    from every square they leave sure; with ``learn=False`` it only listens."""

    def __init__(
        self,
        reader: BoardReader,
        gate: StabilityGate,
        clock: Callable[[], float] = time.time,
        learn: bool = True,
    ) -> None:
        self.reader = reader
        self.gate = gate
        self.clock = clock
        self.learning = ObserverLearning(reader) if learn else None
        self._doubt_look = False  # a second look was asked for plies in doubt (not learned from)
        self.moved: dict[int, tuple[str, ...]] = {}
        """Squares each announced ply touched, since the game's last start: where the cups of
        a ply in doubt may have gone since."""

    def __call__(self, frame: np.ndarray, timestamp: float) -> Observation | None:
        try:
            reading = self.reader.read_details(frame, timestamp)
        except CompanionError as error:
            log.warning("unreadable frame: %s", error)
            return None
        if self.learning is not None:
            reading = self.learning.seen(frame, reading)  # (read again if learning went back)
        stable = self.gate.feed(timestamp, reading.observation)
        if stable is None:
            return None
        if self.learning is not None:
            self.learning.stable(frame, stable, reading.fits)
        return replace(stable, timestamp=self.clock())

    @property
    def at_rest(self) -> bool:
        """Whether the board stands as the referee was last shown it (``StabilityGate.at_rest``:
        no hand over it, nothing changed since)."""
        return self.gate.at_rest

    def judged(
        self,
        events: Sequence[Event],
        position: ShowsTops,
        unsure: Mapping[int, Sequence[str]] | None = None,
    ) -> bool:
        """The referee's events after the last stable observation and its position then;
        True when the reader learned from a frame (the calibration to save changed).

        ``unsure`` is the referee's plies in doubt now, with the moves its paths play there
        (``Reconciler.unsure``): the squares they name, and where a cup from one of them was
        moved since (``squares_in_doubt``), are left out of what is learned, and a report of
        those plies no longer drops the frame. Without it, any report of doubt does. When the referee could
        not make out the reading, or plies came into doubt on a look not itself still
        (``looks_again``), the gate takes a second look at the board (``StabilityGate.look_again``)."""
        self._follow(events)
        still = self.gate.stable is not None and self.gate.stable.still
        repeat = still and self._doubt_look  # (a look for the referee's doubts, not the reader's)
        self._doubt_look = False
        if looks_again(events, still):
            self.gate.look_again()  # unclear, or plies came into doubt: a still board may tell
            # (a look for the doubts alone reads a board already learned from: not learned again)
            self._doubt_look = not any(unclear_reading(e) for e in events)
        if self.learning is None or repeat:
            return False  # (a board already learned from is not learned from twice)
        doubt = squares_in_doubt(unsure or {}, self.moved) if unsure is not None else None
        kinds = [_kind(e, doubt is not None) for e in events]
        try:
            return self.learning.judged(kinds, position, doubt if doubt is not None else ())
        except CompanionError as error:  # learning is a bonus: the game never stops for it
            log.warning("not learned from a frame: %s", error)
            return False

    @property
    def calibration(self) -> Calibration:
        """The calibration with what was learned during the game."""
        return self.reader.calibration

    def _follow(self, events: Sequence[Event]) -> None:
        """Keep ``moved`` in step with the referee's game."""
        for event in events:
            if event.type in RESTARTS:
                self.moved.clear()
            elif event.type == EventType.TAKEBACK:
                self.moved.pop(event.ply, None)
            elif event.type == EventType.MOVE:
                self.moved[event.ply] = event.squares


RESTARTS = frozenset({EventType.NEW_GAME, EventType.RESYNC, EventType.CORRECTION})
"""Events after which the plies announced so far no longer say where cups went."""
SQUARE_NAME = re.compile(r"[a-z][1-9][0-9]?")


def squares_in_doubt(
    unsure: Mapping[int, Sequence[str]], moved: Mapping[int, Sequence[str]]
) -> frozenset[str] | None:
    """The squares whose top depends on which of the referee's paths is right: those its moves
    in doubt name, and those a cup in doubt was moved on to since (it carries the doubt along).
    Each square's cups since the first ply in doubt are followed (``_CupsInDoubt``): a cup from
    the reserve is the same on every path, and so is a cup moved from a square whose top was
    sure, wherever it goes; a square a ply in doubt named stays in doubt below whatever covers it.
    Counting every square touched since the first ply in doubt, as was done before, kept the
    bench's bench-26 from learning its misread black 3 on c1 (placed at ply 6, a ply after one
    left in doubt until ply 11) for most of the game. Carrying the doubt along with any cup that
    left a square once in doubt kept bench-39's c2 in doubt for the rest of its game (ply 3's cup
    left c4 at ply 5; the sure white 4 that ply 7 put on c4 went on to c2 at ply 9), so that
    nothing the referee was sure of there, from ply 12 on, was ever compared or learned. None
    when it cannot be told (a ply in doubt with an alternative that names no square, such as
    another start, or a ply since not followed): then the whole board is in doubt."""
    if not unsure:
        return frozenset()
    cups = _CupsInDoubt()
    first, last = min(unsure), max([*unsure, *moved])
    for ply in range(first, last + 1):
        if ply in unsure:
            named = _named(unsure[ply])
            if named is None:
                return None
            cups.doubt(named | set(moved.get(ply, ())))
        elif ply in moved:
            cups.play(moved[ply])
        else:
            return None
    return cups.tops_in_doubt()


def _named(texts: Sequence[str]) -> set[str] | None:
    """The squares a ply's moves in doubt name; None when one names none (another start)."""
    squares: set[str] = set()
    for text in texts:
        named = SQUARE_NAME.findall(text)
        if not named and text != NO_MOVE:
            return None
        squares.update(named)
    return squares


class _CupsInDoubt:
    """Whether each square's top is in doubt, cup by cup, since the first ply in doubt: the
    cups put on a square since (each one sure or in doubt) over what it held then (sure, unless
    a ply in doubt named it: then all of it is, whatever covers it later)."""

    def __init__(self) -> None:
        self.stacks: dict[str, list[bool]] = {}  # square -> its cups since, bottom first: in doubt?
        self.below: set[str] = set()  # squares whose cups under those are in doubt

    def doubt(self, squares: set[str]) -> None:
        """A ply in doubt named ``squares``: which cups they hold now depends on the path."""
        self.below |= squares
        for square in squares:
            self.stacks.pop(square, None)

    def play(self, squares: Sequence[str]) -> None:
        """A ply every path plays alike: a cup from the reserve onto ``squares[0]`` (sure), or
        from ``squares[0]`` onto ``squares[1]`` (as sure as it was there)."""
        if len(squares) == 1:
            self.stacks.setdefault(squares[0], []).append(False)
        elif len(squares) > 1:
            self.stacks.setdefault(squares[1], []).append(self._take(squares[0]))

    def _take(self, square: str) -> bool:
        """Lift ``square``'s top: whether it was in doubt."""
        stack = self.stacks.get(square)
        return stack.pop() if stack else square in self.below

    def tops_in_doubt(self) -> frozenset[str]:
        """The squares whose top is in doubt now."""
        covered = {square for square, stack in self.stacks.items() if stack}
        return frozenset(
            {square for square in self.below if square not in covered}
            | {square for square, stack in self.stacks.items() if stack and stack[-1]}
        )


NO_MOVE = "no move"
"""The reconciler's text for a path that plays nothing at a ply (its squares are the others')."""


def _kind(event: Event, doubt_known: bool) -> str:
    """The event's kind for learning: a report of plies in doubt is ``UNSURE`` when the squares
    in doubt are known (``judged``'s ``unsure``)."""
    if doubt_known and event.type == EventType.NEEDS_ATTENTION and "unsure" in event.detail:
        return UNSURE
    return str(event.type)


def reader_observer(
    reader: BoardReader, gate: StabilityGate, clock: Callable[[], float] = time.time, learn: bool = True
) -> ReaderObserver:
    """The device's frame -> stable observation function (see ``ReaderObserver``)."""
    return ReaderObserver(reader, gate, clock, learn)


class SynthRenderer:
    """The project's synthetic scene renderer as the simulated table's camera, calibrated the
    way a user calibrates: an empty board, then the reference layout."""

    def __init__(self, variant: Variant, seed: int) -> None:
        from companion.vision.synth import SceneRenderer

        self.scene = SceneRenderer(seed=seed, size=variant.size, max_piece=variant.max_piece)
        self.calibration = calibrate(
            self.scene.empty(),
            self.scene.reference(),
            layout=BoardLayout(size=variant.size),
            max_piece=variant.max_piece,
        )
        self.size = variant.size

    def render(self, shot: Shot, index: int) -> np.ndarray:
        tops: dict[str, Top] = dict(tops_of(shot.board))
        return self.scene.render(tops, hand=shot.hand is not None)

    def observer(self) -> Observe:
        return reader_observer(
            BoardReader(self.calibration, self.size), StabilityGate(SIMULATED_HOLD, MIN_FRAMES)
        )


LOCK_FORMAT = "gobblet-companion/camera-lock"


class ExposureStore:
    """The Pi camera's exposure, white balance and focus, saved beside the calibration they
    belong to (``camera.json``, keyed by the calibration's time stamp), so every open of the
    camera shows the board as the calibration saw it; a new calibration settles them again."""

    def __init__(self, path: Path, calibration_id: str | None = None) -> None:
        self.path = path
        self.calibration_id = calibration_id  # the calibration in use ("created"), None: none yet
        self.current: ExposureLock | None = None

    def saved(self) -> ExposureLock | None:
        """The lock saved for the calibration in use, or None (settle and save a new one)."""
        if self.calibration_id is None:
            return None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("format") != LOCK_FORMAT or data.get("calibration") != self.calibration_id:
                return None
            return ExposureLock.from_json(data["lock"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            log.warning(
                "ignoring the saved camera settings %s (%s): they are settled again", self.path, error
            )
            return None

    def save(self, lock: ExposureLock) -> None:
        """Keep ``lock`` as the settings of the calibration in use (a write that fails is said
        in the journal; the camera works on, it only settles again at the next start)."""
        self.current = lock
        data = {"format": LOCK_FORMAT, "calibration": self.calibration_id or "", "lock": lock.to_json()}
        try:
            write_text_atomically(self.path, json.dumps(data, indent=1) + "\n")
        except OSError as error:
            log.warning("cannot save the camera settings to %s: %s", self.path, error.strerror or error)

    def adopt(self, calibration_id: str) -> None:
        """A calibration was just made with the camera as it is: its settings are the current ones."""
        self.calibration_id = calibration_id
        if self.current is not None:
            self.save(self.current)


def camera_opener(
    source: str,
    on_pi: bool = True,
    camera: CameraConfig | None = None,
    exposure: ExposureStore | None = None,
) -> Callable[[], FrameSource]:
    """What ``camera.source`` names: ``auto`` (the Pi camera), ``pi``, a camera index
    (``0``) or a video file, with the configured resolution and frame rate. Opened on every
    (re)connect; the Pi camera re-applies the settings saved with the calibration."""
    spec = "pi" if source == "auto" else source
    if spec == "pi" and not on_pi:
        raise CompanionError(
            "camera.source = auto/pi needs the Raspberry Pi camera; name a camera index or a video file"
        )
    settings = camera or CameraConfig()
    resolution = (int(settings.resolution[0]), int(settings.resolution[1]))

    def open_camera() -> FrameSource:
        if spec != "pi":
            return open_source(spec, resolution=resolution, fps=settings.fps)
        return open_source(
            "pi",
            resolution=resolution,
            fps=settings.fps,
            mains_hz=settings.mains_hz,
            frame_timeout=settings.frame_timeout,
            lock=exposure.saved() if exposure is not None else None,
            on_locked=exposure.save if exposure is not None else None,
        )

    return open_camera


def camera_advice(source: str) -> str:
    """What to do when this camera is lost."""
    if source in ("auto", "pi"):
        return PI_CAMERA_ADVICE
    if source.isascii() and source.isdigit():
        return "check the camera's USB cable (it can be unplugged and plugged in again)"
    return "check the video file"


class BoardObserver:
    """The device's frame -> stable observation: the calibrated board reader and the gate.

    With no calibration file yet (a freshly installed device), it calibrates itself from the
    camera once the empty board with its four markers is in view, saves the calibration, and
    says so meanwhile through ``fault`` (the alert LED blinks). A damaged calibration file is
    never used (it would read a silently wrong board): at a terminal it is an error at start;
    on the service (``health`` given) it is moved aside with a time stamp and the device
    falls back to calibrating itself, so a bad file does not leave the service failing at
    every start with the panel dark. A calibration that cannot be saved (a read-only data
    folder) is used all the same and reported."""

    def __init__(
        self,
        calibration: Path,
        variant: Variant,
        retry_seconds: float = 5.0,
        clock: Callable[[], float] = time.time,
        on_calibrated: Callable[[str], None] | None = None,
        health: Health | None = None,
    ) -> None:
        self.path = calibration
        self.variant = variant
        self.retry_seconds = retry_seconds
        self._clock = clock
        self._on_calibrated = on_calibrated
        self._next_try = float("-inf")
        self._observe: ReaderObserver | None = None
        self.fault: str | None = None
        self.calibration_id: str | None = None  # the calibration's time stamp, when there is one
        self.health = health
        if not calibration.exists():
            self.fault = f"no calibration at {calibration}: show the empty board with its four markers"
        elif health is None:
            self._use(Calibration.load(calibration, variant.size))
        else:
            self._load_or_set_aside(health)

    def _load_or_set_aside(self, health: Health) -> None:
        try:
            self._use(Calibration.load(self.path, self.variant.size))
            return
        except CompanionError as error:
            why = str(error)
        try:
            aside = f"moved aside to {move_aside(self.path, 'bad').name}"
        except OSError as error:
            aside = f"could not be moved aside ({error.strerror or error})"
        health.repaired("calibration", f"{why}: {aside}; calibrating again from the empty board")
        self.fault = f"calibrate me: {why}; show the empty board with its four markers"

    def _use(self, calibration: Calibration) -> None:
        self.calibration_id = calibration.created or str(self.path)
        reader = BoardReader(calibration, self.variant.size)
        self._observe = reader_observer(reader, StabilityGate(HOLD_SECONDS, MIN_FRAMES), self._clock)
        self.fault = None

    def judged(
        self, events: Sequence[Event], position: ShowsTops, unsure: Mapping[int, Sequence[str]] | None = None
    ) -> None:
        """After each stable observation the referee judged: learn from the frames it is sure
        of (``ReaderObserver.judged``), and save what was learned with the calibration (a
        failed write is said in the journal; the reader keeps what it learned)."""
        if self._observe is None or not self._observe.judged(events, position, unsure):
            return
        try:
            self._observe.calibration.save(self.path)
        except CompanionError as error:
            log.warning("%s", error)

    @property
    def at_rest(self) -> bool:
        """Whether the board stands as the referee was last shown it (``ReaderObserver.at_rest``);
        False while the device is not calibrated (it reads no board)."""
        return self._observe is not None and self._observe.at_rest

    def reload(self) -> None:
        """The calibration file was replaced (the web page's wizard): read with the new one."""
        self._use(Calibration.load(self.path, self.variant.size))
        if self._on_calibrated is not None and self.calibration_id is not None:
            self._on_calibrated(self.calibration_id)

    def __call__(self, frame: np.ndarray, timestamp: float) -> Observation | None:
        if self._observe is not None:
            return self._observe(frame, timestamp)
        if self._clock() >= self._next_try:
            if self._next_try == float("-inf"):  # said once, when the camera's first frame comes
                log.warning("%s", self.fault)
            self._next_try = self._clock() + self.retry_seconds
            self._calibrate(frame)
        return None

    def _calibrate(self, frame: np.ndarray) -> None:
        try:
            calibration = calibrate(
                frame, layout=BoardLayout(size=self.variant.size), max_piece=self.variant.max_piece
            )
        except CompanionError as error:
            log.info("not calibrated yet: %s", error)
            return
        try:
            calibration.save(self.path)
            log.warning("calibrated from the empty board; saved %s", self.path)
        except CompanionError as error:  # a read-only data folder: use it, say it is not kept
            log.error("calibrated from the empty board, but %s: it is lost at the next start", error)
            if self.health is not None:
                self.health.report("calibration", f"{error}: the device calibrates again at every start")
        self._use(calibration)
        if self._on_calibrated is not None and self.calibration_id is not None:
            self._on_calibrated(self.calibration_id)
