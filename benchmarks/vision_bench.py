"""The vision bench: photo-like games read and refereed as the device would, scored against the truth.

    PYTHONPATH=. python benchmarks/vision_bench.py [SCENE ...] [--frames DIR] [--json FILE]
        [--look-class C] [--resolution 640x480] [--no-replay] [--no-demos]
        [--fps 5] [--board-seconds 4] [--hand-seconds 1.5] [--frame-noise S]
        [--misjudge COLOUR:SIZE:FACTOR] [--read-right SCENE/FRAME:SQUARE ...]

Scenes are folders in frames-dev's layout (rendered by ``benchmarks/render_bench/render.py``
into ``/work/bench-data``, or ``$BENCH_DATA``; a scene may also be given as a path). Each is
calibrated from its own ``00-empty`` and ``01-reference`` frames with the product's calibration
(what ``gobblet-companion calibrate`` does), then:

- **reading**: every game frame is read once by a fresh ``BoardReader``: per-square accuracy
  (hand-free frames, the calibration frames left out), wrong squares at >= 0.9 confidence on
  frames not flagged occluded (the ones the referee would use), hand frames flagged occluded,
  hand-free frames falsely flagged, read time;
- **replay**: the frames are shown, frame by frame at the camera's pace (``--fps``), to the
  device's own observer (``vision_link.reader_observer``: a fresh reader and ``StabilityGate``;
  its ``judged(events, position, unsure)`` hook, when it has one, after each stable observation, as the
  device loop calls it) and a fresh ``Reconciler``: the empty board, then for each ply its hand
  frame if it has one (``--hand-seconds``) and the board after the move (``--board-seconds``,
  each varied). Scored like ``reconciler_faults.py`` (moves right, flagged, wrong; announced
  wrong, aligned to the truth), whether the game is exact, the **longest stretch lost** (from
  the first judgement off track, after a stable observation or at the end of a board's showing,
  to the next on track: the reconciler's game agreeing with the truth, the same tops and the
  same moves since the start or its last resync, and nothing asked; in seconds of stable
  frames, those of a board standing still that the reader saw (not taken for a hand), and
  plies), the **referee's view**: the last stable observation of
  each board scored like a reading (with a reader that learns, this is the after to the
  reading pass's before), and the **help requests** as the player meets them (``Request``:
  a confirm request or a help request, how long it stays lit, what closed it, whether the
  camera read the lit squares right, what accepting at once would change, tried on a copy
  of the referee, and whether later readings settled a confirm request left unanswered).
  ``--player none`` leaves every request unanswered; the default careful player accepts
  the camera's view ``--answer-seconds`` after a request opens when it is what the board
  shows.

Demos (unless ``--no-demos``): a scene with a ``-light-b`` companion (its light changes during
the game) is also calibrated under the later light; a scene with a ``-wrong-cup`` companion is
also calibrated from that companion's reference frame, in which the user put one cup of the
wrong size (the calibration then misjudges that size). ``--misjudge white:2:1.15`` edits every
calibration instead: the learned apparent radius of that colour and size times the factor; a
factor that takes the size past a neighbour is refused for that scene (calibration failed), as
``calibrate`` and ``Calibration.load`` refuse such a set. ``--read-right
bench-32/12b-move:b3`` (repeatable) has the replay's reader read that square of that frame as
the truth has it (``ReadRight``): what mending a misread would buy the referee.

Figures are printed as a summary table (per scene, per look class, per resolution, overall);
``--json FILE`` (``-`` for stdout) writes them all for machines.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import difflib
import fnmatch
import json
import os
import platform
import random
import sys
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.referee_trace import answer_entry, reading_entry
from companion.device.vision_link import reader_observer
from companion.errors import CompanionError
from companion.reconciler.attention import SETTLED_BY_READINGS
from companion.reconciler.events import Event, EventType
from companion.reconciler.reconciler import Reconciler
from companion.rules import COLOR_NAMES, Game, Move, Variant
from companion.rules.position import Position
from companion.rules.square import parse_color, parse_square, square_name
from companion.testing.faults import score_record
from companion.vision.calibration import Calibration, calibrate, size_order_problem
from companion.vision.gate import StabilityGate
from companion.vision.observation import Observation, Top, class_index
from companion.vision.reader import BoardReader, Reading
from companion.vision.sources import read_image

DEFAULT_FRAMES = Path(os.environ.get("BENCH_DATA", "/work/bench-data"))
SURE = 0.9  # a wrong reading at or above this confidence is one the referee would believe
LOST_EVENTS = {EventType.NEEDS_ATTENTION, EventType.ILLEGAL}
ATTENTION_EVENTS = {EventType.NEEDS_ATTENTION, EventType.ILLEGAL, EventType.RESYNC}
BACK_SOON_SECONDS = 3.0  # the target: exact, or back on track within this many stable seconds
CALIBRATION_FRAMES = ("00-empty", "01-reference")


# ----- scenes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchFrame:
    name: str
    kind: str  # empty, reference, move, hand
    path: Path
    tops: dict[str, Top]  # the truth: what is visible on each occupied square
    moves: tuple[str, ...]  # the moves on the board (for a hand frame: before the move)
    light: str = "a"


@dataclass
class BenchScene:
    name: str
    folder: Path
    variant: str
    moves: tuple[str, ...]
    meta: dict
    frames: list[BenchFrame]

    def frame(self, name: str) -> BenchFrame:
        return next(f for f in self.frames if f.name == name)

    @property
    def game_frames(self) -> list[BenchFrame]:
        return [f for f in self.frames if f.name not in CALIBRATION_FRAMES]

    @property
    def boards_missing(self) -> int:
        """How many of the game's moves have no board here (a set of a few frames, such as
        tests/data/pale): its replay would jump over moves, and is not played."""
        return len(self.moves) - sum(f.kind == "move" for f in self.frames)

    @property
    def look_class(self) -> str:
        return self.meta.get("look_class", "unknown")

    @property
    def resolution(self) -> str:
        return "x".join(str(v) for v in self.meta.get("resolution", ["?"]))


def truth_tops(record: dict) -> dict[str, Top]:
    return {sq: (COLOR_NAMES.index(t["color"]), int(t["size"])) for sq, t in record.get("top", {}).items()}


def load_scene(folder: Path) -> BenchScene:
    """A scene folder: ``scene.json`` and ``frames/NAME.jpg`` + ``NAME.json``, in play order."""
    info = json.loads((folder / "scene.json").read_text())
    frames = []
    played: tuple[str, ...] = ()
    for path in sorted((folder / "frames").glob("*.jpg")):
        record = json.loads(path.with_suffix(".json").read_text())
        if record["kind"] == "move":
            played = tuple(record["moves"])
        frames.append(
            BenchFrame(path.stem, record["kind"], path, truth_tops(record), played, record.get("light", "a"))
        )
    meta = dict(info.get("bench", {}))
    meta.setdefault("resolution", info.get("resolution"))
    return BenchScene(folder.name, folder, info["variant"], tuple(info["moves"]), meta, frames)


def complete(folder: Path) -> bool:
    info = folder / "scene.json"
    if not info.exists():
        return False
    data = json.loads(info.read_text())
    return data.get("frames", 0) >= data.get("of_frames", data.get("frames", 0)) > 0


def find_scenes(root: Path, patterns: list[str]) -> list[Path]:
    """Complete scene folders under ``root`` whose names match ``patterns`` (all when none);
    a pattern that is a folder is taken as it is."""
    folders = sorted(p for p in root.iterdir() if p.is_dir() and complete(p)) if root.is_dir() else []
    if not patterns:
        return [
            p
            for p in folders
            if "calibrates" not in json.loads((p / "scene.json").read_text()).get("bench", {})
        ]
    chosen = []
    for pattern in patterns:
        if Path(pattern).is_dir() and (Path(pattern) / "scene.json").exists():
            chosen.append(Path(pattern))
            continue
        hits = [p for p in folders if fnmatch.fnmatch(p.name, pattern)]
        if not hits:
            raise CompanionError(f"no complete scene {pattern!r} in {root}")
        chosen += [p for p in hits if p not in chosen]
    return chosen


# ----- calibration ------------------------------------------------------------------------------


def calibrate_from(
    scene: BenchScene,
    source: BenchScene | None = None,
    trust_layout: bool = False,
    white_darker: bool = False,
) -> Calibration:
    """The product's calibration from a scene's (or a companion's) empty and reference frames;
    ``trust_layout`` as ``calibrate --cups-as-set-out``: the reference layout on the user's word;
    ``white_darker`` as ``calibrate --white-darker``: the user says White's cups are the darker set,
    as a scene whose ``bench`` says ``white_darker`` has its user say (``generate.py``)."""
    source = source or scene
    empty = read_image(str(source.frame("00-empty").path))
    reference = read_image(str(source.frame("01-reference").path))
    said = white_darker or bool(source.meta.get("white_darker"))
    return calibrate(empty, reference, trust_layout=trust_layout, white_darker=said)


@dataclass(frozen=True)
class Misjudgement:
    """One colour's size learned ``factor`` times too large (or small): ``COLOUR:SIZE:FACTOR``."""

    colour: int
    size: int
    factor: float

    @classmethod
    def parse(cls, spec: str) -> Misjudgement:
        try:
            colour_text, size_text, factor_text = spec.split(":")
            made = cls(parse_color(colour_text), int(size_text), float(factor_text))
        except (ValueError, CompanionError):
            raise CompanionError(
                f"--misjudge {spec!r}: expected COLOUR:SIZE:FACTOR, e.g. white:2:1.15"
            ) from None
        if not 1 <= made.size <= 9 or made.factor <= 0:
            raise CompanionError(f"--misjudge {spec!r}: a size 1..9 and a factor above 0")
        return made

    def apply(self, calibration: Calibration) -> Calibration:
        """The calibration with that size's learned apparent radius scaled; refused (as
        ``calibrate`` and ``Calibration.load`` refuse it) where that takes the size past a
        neighbour: no calibration the device can hold has sizes that do not grow."""
        cups = calibration.cups
        if not hasattr(cups, "with_radius") or self.size > cups.max_piece:
            raise CompanionError(f"--misjudge: this calibration has no size-{self.size} radius to change")
        radius = cups.radii[self.colour][self.size - 1] * self.factor
        misjudged = cups.with_radius(self.colour, self.size, radius)
        problem = size_order_problem(misjudged)
        if problem is not None:
            raise CompanionError(f"--misjudge: {problem}, a calibration the device refuses")
        return dataclasses.replace(calibration, cups=misjudged)


@dataclass(frozen=True)
class ReadRight:
    """One misread mended by hand for the replay (``--read-right SCENE/FRAME:SQUARE``): every
    reading of that frame the replay's reader makes gives that square's true class the
    probability it gave its top, and its top the true class's (the two exchanged; a square
    whose top is the truth's is left as read). What mending a misread would buy the referee,
    measured before anyone builds the mend: on bench-32 the white 2 read a 3 on 12b-15b was
    the longest stretch lost, but with those four squares read right the referee was still lost
    15.6 s over another ply, whose cup another shadow made a size large too (docs/vision-findings.md)."""

    scene: str
    frame: str
    square: str

    @classmethod
    def parse(cls, spec: str) -> ReadRight:
        scene, _, rest = spec.partition("/")
        frame, _, square = rest.partition(":")
        try:
            parse_square(square)
        except CompanionError:
            square = ""
        if not scene or not frame or not square:
            raise CompanionError(
                f"--read-right {spec!r}: expected SCENE/FRAME:SQUARE, e.g. bench-32/12b-move:b3"
            )
        return cls(scene, frame, square)

    def __str__(self) -> str:
        return f"{self.scene}/{self.frame}:{self.square}"


def read_right(observation: Observation, tops: dict[str, Top], squares: tuple[str, ...]) -> Observation:
    """``observation`` with each of ``squares`` given its true class (``tops``, the frame's
    truth) as its top: the probabilities of the class read and the true class exchanged."""
    p = observation.probabilities.copy()
    for square in squares:
        row = observation.row(square)
        true, read = class_index(tops.get(square), observation.max_piece), int(np.argmax(p[row]))
        p[row, [true, read]] = p[row, [read, true]]
    return dataclasses.replace(observation, probabilities=p)


# ----- reading every frame ----------------------------------------------------------------------


@dataclass
class ReadTally:
    squares: int = 0
    right: int = 0
    considered: int = 0  # squares on hand-free frames not flagged occluded
    sure_wrong: int = 0  # of those, wrong at >= SURE
    frames: int = 0
    frames_right: int = 0
    false_occluded: int = 0
    hands: int = 0
    hands_flagged: int = 0
    hands_missed_misread: int = 0  # hand frames not flagged whose board was read wrong anywhere
    errors: dict[str, int] = field(default_factory=dict)  # kind of error -> squares
    wrong: list[str] = field(default_factory=list)
    read_cpu_ms: list[float] = field(default_factory=list)
    read_wall_ms: list[float] = field(default_factory=list)

    def add(self, other: ReadTally) -> None:
        for f in dataclasses.fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if isinstance(mine, int):
                setattr(self, f.name, mine + theirs)
            elif isinstance(mine, list):
                mine.extend(theirs)
            else:
                for k, v in theirs.items():
                    mine[k] = mine.get(k, 0) + v

    def figures(self) -> dict:
        return {
            "squares": self.squares,
            "right": self.right,
            "accuracy": self.right / self.squares if self.squares else None,
            "frames": self.frames,
            "frames_right": self.frames_right,
            "sure_wrong": self.sure_wrong,
            "considered": self.considered,
            "sure_wrong_per_10k": 1e4 * self.sure_wrong / self.considered if self.considered else None,
            "hands": self.hands,
            "hands_flagged": self.hands_flagged,
            "hands_missed_misread": self.hands_missed_misread,
            "false_occluded": self.false_occluded,
            "errors": dict(sorted(self.errors.items())),
            "read_cpu_ms_median": median(self.read_cpu_ms),
            "read_wall_ms_median": median(self.read_wall_ms),
            "wrong": self.wrong,
        }


def median(values: list[float]) -> float | None:
    return float(np.median(values)) if values else None


def error_kind(truth: Top, read: Top) -> str:
    if truth is None:
        return "empty read as a cup"
    if read is None:
        return "cup read as empty"
    if truth[0] != read[0]:
        return "colour"
    return "size off by one" if abs(truth[1] - read[1]) == 1 else "size off by more"


def label(top: Top) -> str:
    return "empty" if top is None else f"{'WB'[top[0]]}{top[1]}"


def read_frames(scene: BenchScene, calibration: Calibration, by_light: dict[str, ReadTally]) -> ReadTally:
    """Every game frame read once, in play order, by a fresh reader."""
    reader = BoardReader(calibration)
    tally = ReadTally()
    for frame in scene.game_frames:
        image = read_image(str(frame.path))
        wall, cpu = time.perf_counter(), time.process_time()
        obs = reader.read(image)
        tally.read_wall_ms.append(1000 * (time.perf_counter() - wall))
        tally.read_cpu_ms.append(1000 * (time.process_time() - cpu))
        part = ReadTally()
        score_frame(scene, frame, obs, part)
        tally.add(part)
        by_light.setdefault(frame.light, ReadTally()).add(part)
    return tally


def score_frame(scene: BenchScene, frame: BenchFrame, obs: Observation, tally: ReadTally) -> None:
    if frame.kind == "hand":
        score_hand(scene, frame, obs, tally)
        return
    tally.frames += 1
    tally.false_occluded += obs.occluded
    wrong = 0
    for name, top in obs.tops().items():
        truth = frame.tops.get(name)
        tally.squares += 1
        confidence = obs.confidence(name)
        if not obs.occluded:
            tally.considered += 1
        if top == truth:
            tally.right += 1
            continue
        wrong += 1
        kind = error_kind(truth, top)
        tally.errors[kind] = tally.errors.get(kind, 0) + 1
        sure = not obs.occluded and confidence >= SURE
        tally.sure_wrong += sure
        tally.wrong.append(
            f"{scene.name}/{frame.name} {name}: {label(truth)} read {label(top)} ({confidence:.2f})"
            + (" SURE" if sure else "")
            + (" [occluded]" if obs.occluded else "")
        )
    tally.frames_right += not wrong and not obs.occluded


def score_hand(scene: BenchScene, frame: BenchFrame, obs: Observation, tally: ReadTally) -> None:
    """A hand frame should be flagged; one that is not matters only if the reading it lets
    through is wrong (a hand beside the board, every square in view, is read like the board)."""
    tally.hands += 1
    tally.hands_flagged += obs.occluded
    if obs.occluded:
        return
    misread = sorted(name for name, top in obs.tops().items() if top != frame.tops.get(name))
    tally.hands_missed_misread += bool(misread)
    tally.wrong.append(
        f"{scene.name}/{frame.name}: hand not flagged, "
        + (f"{len(misread)} squares misread ({', '.join(misread)})" if misread else "every square read right")
    )


# ----- replaying the game through the gate and the reconciler --------------------------------


@dataclass(frozen=True)
class Showing:
    """One frame shown to the camera from ``start`` for ``seconds``."""

    frame: BenchFrame
    start: float
    seconds: float


def timeline(scene: BenchScene, board_seconds: float, hand_seconds: float) -> list[Showing]:
    """The empty board, then each move's hand (if any) and board, for varied times (seeded by
    the scene's name, so every run shows the same timeline)."""
    rng = random.Random(zlib.crc32(scene.name.encode()))
    shown = []
    clock = 0.0
    frames = [scene.frame("00-empty"), *scene.game_frames]
    for frame in frames:
        base = hand_seconds if frame.kind == "hand" else board_seconds
        seconds = base * rng.uniform(0.6, 1.4)
        shown.append(Showing(frame, clock, seconds))
        clock += seconds
    return shown


def camera_frames(shown: list[Showing], fps: float) -> Iterator[tuple[float, Showing]]:
    """Each showing as the camera samples it: frames at ``1/fps`` steps on one clock."""
    step = 1.0 / fps
    k = 0
    for showing in shown:
        end = showing.start + showing.seconds
        while k * step < end:
            yield k * step, showing
            k += 1


def stable_seconds(
    shown: list[Showing], start: float, end: float, blind: tuple[float, ...] = (), step: float = 0.0
) -> float:
    """Seconds of stable frames between ``start`` and ``end``: a board stood still (no hand),
    less ``step`` for each of the ``blind`` frames (camera times) in between, those of a
    still board the reader took for a hand: the referee had nothing to read then (the gate
    passes nothing), so they are the reader's time lost, not the referee's."""
    total = 0.0
    for s in shown:
        if s.frame.kind == "hand":
            continue
        total += max(0.0, min(end, s.start + s.seconds) - max(start, s.start))
    return max(0.0, total - step * sum(start <= t < end for t in blind))


@dataclass
class Stretch:
    start: float
    start_ply: int
    end: float | None = None
    end_ply: int | None = None
    reason: str = ""


@dataclass
class Request:
    """One help request as the player meets it: an alert LED and squares lit from ``opened`` to
    ``closed`` (camera seconds). ``kind`` is ``confirm`` (plies in doubt on a still board,
    ``detail.confirm``) or ``help``; ``closed_by`` says what closed it (``accepted``: the player
    answered; ``reading``: a later reading; ``resync``; ``replaced``: another request; ``end``);
    ``answer_changes`` what accepting the camera's view at once would change in the game
    (``moves``: the record; ``doubts``: only which plies are in doubt; ``nothing``), tried on a
    copy of the referee when the request opened; ``settled_alone`` for a confirm request whether
    the plies it asked about were settled by later readings by the game's end; ``camera_right``
    whether the camera read the lit squares as the board stood when it opened (what the careful
    player would accept)."""

    opened: float
    kind: str
    squares: int
    camera_right: bool = False
    plies: tuple[int, ...] = ()
    closed: float | None = None
    closed_by: str = ""
    answer_changes: str = "nothing"
    settled_alone: bool | None = None

    def figures(self) -> dict:
        return {
            "opened": round(self.opened, 2),
            "kind": self.kind,
            "squares": self.squares,
            "camera_right": self.camera_right,
            "plies": list(self.plies),
            "open_seconds": None if self.closed is None else round(self.closed - self.opened, 2),
            "closed_by": self.closed_by,
            "answer_changes": self.answer_changes,
            "settled_alone": self.settled_alone,
        }


def answer_changes(reconciler: Reconciler) -> str:
    """What accepting the camera's view now would change: tried on a copy of the referee."""
    try:
        trial = copy.deepcopy(reconciler)
    except (TypeError, copy.Error):  # (a referee that cannot be copied: not tried)
        return "untried"
    record, unsure = [m.text() for m in trial.game.moves], dict(trial.unsure)
    trial.accept_board()
    if [m.text() for m in trial.game.moves] != record or trial.resyncs != reconciler.resyncs:
        return "moves"
    return "doubts" if dict(trial.unsure) != unsure else "nothing"


class RequestWatch:
    """Follows the help requests the referee holds open (``Reconciler.attention`` when it is a
    ``help`` event), one ``Request`` each, as a player at the table meets them."""

    def __init__(self, result: GameResult) -> None:
        self.result = result
        self.event: Event | None = None
        self.open: Request | None = None
        self.told: set[tuple[float, int]] = set()  # (camera time, ply) later readings told

    def after(
        self, reconciler: Reconciler, events: list[Event], t: float, frame: BenchFrame, answered: bool
    ) -> None:
        request = getattr(reconciler, "attention", None)
        if not (isinstance(request, Event) and request.type is EventType.HELP and request.squares):
            request = None
        if request is self.event:
            return
        if self.open is not None:
            if answered:
                how = "accepted"
            elif any(e.type is EventType.RESYNC for e in events):
                how = "resync"
            else:
                how = "reading" if request is None else "replaced"
            self.close(t, how)
        self.event = request
        if request is not None:
            plies = tuple(request.detail.get("plies", ()))
            kind = "confirm" if request.detail.get("confirm") else "help"
            squares = reconciler.help_squares or {}
            max_piece = reconciler.variant.max_piece
            right = all(
                class_index(frame.tops.get(square_name(sq)), max_piece) == camera
                for sq, (_g, camera) in squares.items()
            )
            self.open = Request(
                t, kind, len(request.squares), right, plies, answer_changes=answer_changes(reconciler)
            )
            self.result.requests.append(self.open)

    def close(self, t: float, how: str) -> None:
        assert self.open is not None
        self.open.closed, self.open.closed_by = t, how
        self.open = None

    def ended(self, t: float) -> None:
        """The game's end: a request still open closes, and each confirm request the player did
        not accept says whether later readings settled the plies it asked about on their own (a
        ``settled`` by readings, or a ``correction``, after it opened)."""
        if self.open is not None:
            self.close(t, "end")
        for request in self.result.requests:
            if request.kind == "confirm" and request.closed_by != "accepted":
                told = {ply for when, ply in self.told if when >= request.opened}
                request.settled_alone = set(request.plies) <= told

    def tell(self, events: list[Event], t: float) -> None:
        """Note the plies later readings told (settled, or corrected) at camera time ``t``."""
        for event in events:
            if event.type is EventType.SETTLED and (event.reason or "").startswith(SETTLED_BY_READINGS):
                self.told |= {(t, int(ply)) for ply in event.detail.get("settled", {})}
            elif event.type is EventType.CORRECTION:
                first = (event.ply or 0) + 1
                self.told |= {(t, ply) for ply in range(first, first + len(event.moves))}


@dataclass
class GameResult:
    moves: int = 0
    right: int = 0
    flagged: int = 0
    silent: int = 0
    wrong: int = 0
    announced_wrong: int = 0
    exact: bool = False
    result_announced: bool | None = None  # the game's win announced, when it has one
    resyncs: int = 0
    attention_events: int = 0
    illegal_events: int = 0
    stable_observations: int = 0
    help_requests: int = 0  # help events that open or change a request
    accepted: int = 0  # requests the player answered by accepting the camera's view
    requests: list[Request] = field(default_factory=list)  # each request as the player met it
    stretches: list[Stretch] = field(default_factory=list)
    strict: list[Stretch] = field(default_factory=list)  # an unsure report counted as lost too
    fed: list[dict] = field(default_factory=list)  # what the referee was given, in order (``--readings``)
    events: list[dict] = field(default_factory=list)
    record: list[str] = field(default_factory=list)
    shown: ReadTally = field(default_factory=lambda: ReadTally())  # the referee's last view of each board
    shown_by_light: dict[str, ReadTally] = field(default_factory=dict)
    boards: int = 0  # boards shown (the empty one included)
    unseen: int = 0  # of those, never passed by the gate
    blind: list[float] = field(default_factory=list)  # camera times of still-board frames taken for a hand
    step: float = 0.0  # seconds between camera frames

    def longest(self, shown: list[Showing], end_time: float, strict: bool = False) -> dict | None:
        """The longest stretch lost, in seconds of stable frames (``stable_seconds``), then
        plies; ``board_seconds`` is the time boards stood still, the reader's blind frames in.

        A stretch never back outranks every stretch that came back: a game that ends off track
        (say its last boards were never seen stable, which are no stable seconds) is the
        referee lost for good, however short the stretch measures."""
        best = None
        blind = tuple(self.blind)

        def rank(item: dict) -> tuple[bool, float, int]:
            return (not item["back"], item["stable_seconds"], item["plies"])

        for s in self.strict if strict else self.stretches:
            end = s.end if s.end is not None else end_time
            seconds = stable_seconds(shown, s.start, end, blind, self.step)
            plies = (s.end_ply if s.end_ply is not None else self.moves) - s.start_ply
            item = {
                "stable_seconds": round(seconds, 2),
                "board_seconds": round(stable_seconds(shown, s.start, end), 2),
                "plies": plies,
                "from_ply": s.start_ply,
                "back": s.end is not None,
                "reason": s.reason,
            }
            if best is None or rank(item) > rank(best):
                best = item
        return best


def tops_of_game(game: Game) -> dict[str, Top]:
    return tops_of_position(game.position)


def tops_of_position(position: Position) -> dict[str, Top]:
    return {square_name(sq): position.top(sq) for sq in position.squares if position.top(sq) is not None}


class TruthGames:
    """The truth's game after each number of moves (positions built once)."""

    def __init__(self, variant: str, moves: tuple[str, ...]) -> None:
        game = Game(Variant.from_spec(variant))
        self.tops = [tops_of_game(game)]
        for text in moves:
            game.push(Move.from_text(text))
            self.tops.append(tops_of_game(game))

    def ply_showing(self, position: str | None, played: int) -> int:
        """The latest truth ply up to ``played`` whose tops a resync's ``position`` shows: an
        accepted camera view is the reading the help request was made from, which the game may
        have moved past while the player looked (then the referee's first move after the
        resync is the truth's next, not a move too many); ``played`` when none matches."""
        if position is None:
            return played
        tops = tops_of_position(Position.from_text(position))
        return next((k for k in range(played, -1, -1) if self.tops[k] == tops), played)


def asking(reconciler: Reconciler, strict: bool = False) -> bool:
    """Whether the reconciler still holds a request for attention it has not resolved: its public
    ``attention`` when it has one, else the reading it last reported as unclear (``_attention``,
    cleared once a reading is explained), and an illegal action it waits to see put right.
    A request to confirm plies in doubt on a still board (``detail.confirm``) is, unless
    ``strict``, judged as a report of those plies is: by the game the referee follows."""
    request = getattr(reconciler, "attention", getattr(reconciler, "_attention", None))
    if not strict and isinstance(request, Event) and request.detail.get("confirm"):
        request = None
    return request is not None or getattr(reconciler, "awaiting_restore", None) is not None


def on_track(
    reconciler: Reconciler, truth: TruthGames, played: tuple[str, ...], offset: int, strict: bool = False
) -> bool:
    """The reconciler's game agrees with the truth: the same tops on every square, the same moves
    since the game's start (or since its last resync, at truth ply ``offset``), and it asks for
    nothing (``asking``)."""
    if asking(reconciler, strict):
        return False
    record = [m.text() for m in reconciler.game.moves]
    if record != list(played[offset:]):
        return False
    return tops_of_game(reconciler.game) == truth.tops[len(played)]


def aligned_wrong(ply: int, move: str, record: list[str], truth: list[str]) -> bool:
    """Whether a move announced at ``ply`` of the reconciler's game is not the truth's, once
    its record is aligned to the truth's moves (a move one ply off after a missed or doubled
    stretch is not wrong twice)."""
    index = ply - 1
    if index < len(truth) and truth[index] == move:
        return False
    if index >= len(record) or record[index] != move:
        return True
    matcher = difflib.SequenceMatcher(None, truth, record, autojunk=False)
    return not any(tag == "equal" and r0 <= index < r1 for tag, _a, _b, r0, r1 in matcher.get_opcodes())


def reports_unsure(event: Event) -> bool:
    """Whether ``event`` only reports plies in doubt (``detail.unsure``) of a game the referee
    goes on following: it asks nothing of the player (``attention`` stays None)."""
    return event.type is EventType.NEEDS_ATTENTION and "unsure" in event.detail


def lost_cause(events: list[Event], strict: bool = False) -> Event | None:
    """The event that puts the referee off track whatever its game: an illegal action or a
    needs-attention, but for a report of plies in doubt (unless ``strict``): with it the
    referee is judged by its game (on track when the game is the truth's)."""
    return next(
        (e for e in events if e.type in LOST_EVENTS and (strict or not reports_unsure(e))),
        None,
    )


class LostTracker:
    """Opens a stretch lost at the first judgement off track and closes it at the next on
    track. The reconciler is judged after each stable observation it is fed, and at the end of
    each board's showing (a board the gate never passed leaves it behind the game). A
    ``strict`` tracker keeps its stretches apart (``GameResult.strict``)."""

    def __init__(self, result: GameResult, strict: bool = False) -> None:
        self.result = result
        self.stretches = result.strict if strict else result.stretches
        self.open: Stretch | None = None

    def observed(self, t: float, ply: int, cause: Event | None, tracking: bool) -> None:
        if cause is not None:
            self._judge(t, ply, False, f"{cause.type}: {cause.reason or ''}")
        else:
            self._judge(t, ply, tracking, "off track without asking")

    def showing_ended(self, showing: Showing, seen_stable: bool, tracking: bool) -> None:
        why = "off track without asking" if seen_stable else "the board was never seen stable"
        self._judge(showing.start + showing.seconds, len(showing.frame.moves), tracking, why)

    def _judge(self, t: float, ply: int, tracking: bool, reason: str) -> None:
        if self.open is None and not tracking:
            self.open = Stretch(t, ply, reason=reason)
            self.stretches.append(self.open)
        elif self.open is not None and tracking:
            self.open.end, self.open.end_ply = t, ply
            self.open = None


class WatchedReader(BoardReader):
    """The device's reader, remembering whether the last frame it read was taken for a hand
    (what makes a frame of a still board no stable frame for the referee)."""

    occluded = False

    def __init__(self, calibration: Calibration, mended: dict[str, tuple[str, ...]] | None = None) -> None:
        super().__init__(calibration)
        self.mended = mended or {}
        """Squares read right by hand, by frame name (``ReadRight``)."""
        self.showing: BenchFrame | None = None
        """The frame the camera shows (set by the replay before each read)."""

    def read_details(self, image: np.ndarray, timestamp: float = 0.0) -> Reading:
        reading = super().read_details(image, timestamp)
        squares = None if self.showing is None else self.mended.get(self.showing.name)
        if squares and self.showing is not None:
            reading.observation = read_right(reading.observation, self.showing.tops, squares)
        self.occluded = reading.observation.occluded
        return reading


class Player:
    """Answers the referee's help request (``Reconciler.help_squares``/``accept_board``, where
    the reconciler has them) as a careful player would, ``delay`` seconds after it opens: looks
    at the squares lit, and accepts what the camera sees when that is what is on the board; when
    the board is as the game has it (the camera misreads), there is nothing to put right and
    the player leaves it.

    Only while the board still stands as the camera read it (``read``: the board of the
    referee's last stable observation, the reading the request holds): accepting says "the
    board is as the camera sees it", and once a move has been made since, the camera's view
    is of a board no longer there. Checking the lit squares alone, the player accepted after
    the next move (bench-08's confirm request about ply 7, accepted at 36.2 s with ply 8
    already on the board): the referee, its request closed on a board one move behind, was
    judged off track until it read the new one (a 0.0 s stretch lost; bench-18 1.0 s)."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.request: dict | None = None
        self.asked_at: float | None = None
        self.read: dict[str, Top] | None = None  # the board the referee last read

    def saw(self, frame: BenchFrame) -> None:
        """The referee was given a stable observation of ``frame``: the board its reading shows."""
        self.read = frame.tops

    def answer(self, reconciler: Reconciler, frame: BenchFrame, t: float) -> list[Event] | None:
        squares = getattr(reconciler, "help_squares", None)
        accept = getattr(reconciler, "accept_board", None)
        if not squares or accept is None:
            self.request = self.asked_at = None
            return None
        if squares != self.request:
            self.request, self.asked_at = dict(squares), t
        if self.asked_at is None or t - self.asked_at < self.delay or frame.tops != self.read:
            return None  # (too soon, or the board changed since the camera read it)
        self.asked_at = None  # one answer a request
        max_piece = reconciler.variant.max_piece
        board = {sq: class_index(frame.tops.get(square_name(sq)), max_piece) for sq in squares}
        if all(board[sq] == camera for sq, (_game, camera) in squares.items()):
            return list(accept())
        return None


def replay(
    scene: BenchScene,
    calibration: Calibration,
    fps: float,
    board_seconds: float,
    hand_seconds: float,
    frame_noise: float,
    player: Player | None = None,
    learn: bool = True,
    mended: dict[str, tuple[str, ...]] | None = None,
) -> tuple[GameResult, list[Showing]]:
    """The scene's frames shown to the device's own observer (a fresh reader and stability
    gate, ``vision_link.reader_observer``) and a fresh reconciler, on the camera's clock. After
    each stable observation the observer's ``judged(events, position, unsure)`` is called when it has
    one, as the device loop does, so a reader that learns during the game learns here too."""
    clock = [0.0]
    reader = WatchedReader(calibration, mended)
    observe = reader_observer(reader, StabilityGate(), clock=lambda: clock[0], learn=learn)
    judged = getattr(observe, "judged", None)
    reconciler = Reconciler(scene.variant)
    truth = TruthGames(scene.variant, scene.moves)
    shown = timeline(scene, board_seconds, hand_seconds)
    result = GameResult(moves=len(scene.moves), step=1.0 / fps)
    noise = np.random.default_rng(zlib.crc32(scene.name.encode()))
    images: dict[str, np.ndarray] = {}
    before: list[str] = []  # records held before each resync
    doubted: set[int] = set()
    offset = 0
    trackers = (LostTracker(result), LostTracker(result, strict=True))
    watch = RequestWatch(result)
    announced: set[tuple[int, int, str]] = set()
    current: Showing | None = None
    last: Observation | None = None  # the last stable observation of the current showing

    def showing_ended(showing: Showing) -> None:
        if showing.frame.kind == "hand":
            return
        for tracker, strict in zip(trackers, (False, True), strict=True):
            tracking = on_track(reconciler, truth, showing.frame.moves, offset, strict)
            tracker.showing_ended(showing, last is not None, tracking)
        result.boards += 1
        result.unseen += last is None
        if last is not None:  # what the referee was last shown of this board
            score_frame(scene, showing.frame, last, result.shown)
            result.shown_by_light.setdefault(showing.frame.light, ReadTally())
            score_frame(scene, showing.frame, last, result.shown_by_light[showing.frame.light])

    def take(events: list[Event], t: float, frame: BenchFrame) -> None:
        """Score the events the reconciler gave at camera time ``t`` with ``frame`` shown."""
        nonlocal before, doubted, offset
        played = frame.moves
        for event in events:
            result.events.append({"t": round(t, 2), "truth_ply": len(played), **event_summary(event)})
            if event.type is EventType.RESYNC:
                result.resyncs += 1
                doubted |= {ply + len(before) for ply in event.detail.get("unsure", [])}
                before += list(event.detail.get("record", []))
                offset = truth.ply_showing(event.position, len(played))
            result.attention_events += event.type is EventType.NEEDS_ATTENTION
            result.illegal_events += event.type is EventType.ILLEGAL
            result.help_requests += str(event.type) == "help" and bool(event.squares)
        record = [m.text() for m in reconciler.game.moves]
        unsure = getattr(reconciler, "unsure", {})
        for event in events:
            if event.type is EventType.MOVE and event.move and event.ply not in unsure:
                key = (result.resyncs, event.ply, event.move)
                if key not in announced and aligned_wrong(
                    event.ply, event.move, record, list(played[offset:])
                ):
                    announced.add(key)
                    result.announced_wrong += 1
        if frame.kind != "hand":  # a hand the reader missed: what the board shows is in flux
            for tracker, strict in zip(trackers, (False, True), strict=True):
                tracking = on_track(reconciler, truth, played, offset, strict)
                cause = lost_cause(events, strict)
                tracker.observed(t, len(played), cause, cause is None and tracking)

    for t, showing in camera_frames(shown, fps):
        clock[0] = t
        if showing is not current:
            if current is not None:
                showing_ended(current)
            current, last = showing, None
        frame = showing.frame
        if frame.name not in images:
            images = {frame.name: read_image(str(frame.path))}  # one still in memory at a time
        image = images[frame.name]
        if frame_noise > 0:
            image = np.clip(image + noise.normal(0, frame_noise, image.shape), 0, 255).astype(np.uint8)
        reader.showing = frame
        stable = observe(image, t)
        if frame.kind != "hand" and reader.occluded:
            result.blind.append(t)
        if frame.kind != "hand" and player is not None:
            answer = player.answer(reconciler, frame, t)
            if answer is not None:
                result.accepted += 1
                result.fed.append(answer_entry(scene.name, scene.variant, frame.name, t))
                take(answer, t, frame)
                watch.after(reconciler, answer, t, frame, answered=True)
        if stable is None:
            continue
        last = stable
        result.stable_observations += 1
        events = reconciler.feed(stable)
        result.fed.append(reading_entry(scene.name, scene.variant, frame.name, stable))
        if player is not None:
            player.saw(frame)
        if judged is not None:
            judged(events, reconciler.game.position, reconciler.unsure)
        take(events, t, frame)
        watch.tell(events, t)
        watch.after(reconciler, events, t, frame, answered=False)
    if current is not None:
        showing_ended(current)
    watch.ended(clock[0])
    final = [m.text() for m in reconciler.game.moves]
    result.record = before + final
    unsure = doubted | {len(before) + ply for ply in getattr(reconciler, "unsure", {})}
    result.right, result.wrong, unknown = score_record(result.record, list(scene.moves), unsure)
    asked = result.attention_events or result.illegal_events or result.resyncs
    result.flagged, result.silent = (unknown, 0) if asked else (0, unknown)
    result.exact = result.record == list(scene.moves) and not unsure and not result.resyncs
    ends = [e for e in result.events if e["type"] in ("win", "loss", "draw")]
    winner = truth_winner(scene)
    if winner is not None:
        result.result_announced = any(e.get("winner") == winner for e in ends)
    return result, shown


def truth_winner(scene: BenchScene) -> str | None:
    last = scene.game_frames[-1] if scene.game_frames else None
    if last is None:
        return None
    return json.loads(last.path.with_suffix(".json").read_text()).get("winner")


def event_summary(event: Event) -> dict:
    data = {"type": str(event.type), "ply": event.ply}
    for name in ("move", "reason", "winner"):
        value = getattr(event, name)
        if value:
            data[name] = value
    if event.moves:
        data["moves"] = list(event.moves)
    if event.squares:
        data["squares"] = list(event.squares)
    return data


# ----- running and reporting ---------------------------------------------------------------------


@dataclass
class Run:
    """One scene calibrated one way: its reading and replay figures."""

    scene: BenchScene
    calibration_from: str
    reading: ReadTally | None = None
    by_light: dict[str, ReadTally] = field(default_factory=dict)
    game: GameResult | None = None
    longest: dict | None = None
    longest_strict: dict | None = None  # counting reports of plies in doubt as lost too
    failed: str | None = None
    calibrate_seconds: float = 0.0
    replay_seconds: float = 0.0

    def figures(self) -> dict:
        data: dict = {
            "scene": self.scene.name,
            "calibrated_from": self.calibration_from,
            "look_class": self.scene.look_class,
            "resolution": self.scene.resolution,
            "variant": self.scene.variant,
            "plies": len(self.scene.moves),
            "calibration_failed": self.failed,
            "calibrate_seconds": round(self.calibrate_seconds, 2),
        }
        if self.reading is not None:
            data["reading"] = self.reading.figures()
            if len(self.by_light) > 1:
                data["reading_by_light"] = {k: v.figures() for k, v in sorted(self.by_light.items())}
        if self.game is not None:
            g = self.game
            data["replay"] = {
                "moves": g.moves,
                "right": g.right,
                "flagged": g.flagged,
                "silent": g.silent,
                "wrong": g.wrong,
                "announced_wrong": g.announced_wrong,
                "exact": g.exact,
                "result_announced": g.result_announced,
                "resyncs": g.resyncs,
                "needs_attention": g.attention_events,
                "help_requests": g.help_requests,
                "accepted_camera_view": g.accepted,
                "requests": request_totals(g.requests),
                "request_list": [r.figures() for r in g.requests],
                "illegal": g.illegal_events,
                "stable_observations": g.stable_observations,
                "longest_lost": self.longest,
                "longest_lost_strict": self.longest_strict,
                "boards": g.boards,
                "boards_never_seen_stable": g.unseen,
                "referee_view": g.shown.figures(),
                "referee_view_by_light": {k: v.figures() for k, v in sorted(g.shown_by_light.items())},
                "record": g.record,
                "events": g.events,
                "seconds": round(self.replay_seconds, 1),
            }
        return data


def run_scene(scene: BenchScene, source: BenchScene | None, args: argparse.Namespace) -> Run:
    run = Run(scene, (source or scene).name)
    started = time.perf_counter()
    try:
        calibration = calibrate_from(scene, source, args.trust_layout, args.white_darker)
        if args.misjudge:
            calibration = args.misjudge.apply(calibration)
    except CompanionError as error:
        run.failed = str(error)
        return run
    run.calibrate_seconds = time.perf_counter() - started
    if not args.no_read:
        run.reading = read_frames(scene, calibration, run.by_light)
    if not args.no_replay and scene.boards_missing:
        print(
            f"{scene.name}: {scene.boards_missing} of its {len(scene.moves)} moves have no board here: "
            "replay not played (read only)",
            file=sys.stderr,
        )
    elif not args.no_replay:
        started = time.perf_counter()
        run.game, shown = replay(
            scene,
            calibration,
            args.fps,
            args.board_seconds,
            args.hand_seconds,
            args.frame_noise,
            None if args.player == "none" else Player(args.answer_seconds),
            not args.no_learning,
            mended_squares(scene, args.read_right),
        )
        run.replay_seconds = time.perf_counter() - started
        end = shown[-1].start + shown[-1].seconds
        run.longest = run.game.longest(shown, end)
        run.longest_strict = run.game.longest(shown, end, strict=True)
    return run


def mended_squares(scene: BenchScene, mends: list[ReadRight]) -> dict[str, tuple[str, ...]]:
    """The squares ``--read-right`` mends in ``scene``'s replay, by frame name."""
    squares: dict[str, tuple[str, ...]] = {}
    for mend in mends:
        if mend.scene == scene.name:
            squares[mend.frame] = (*squares.get(mend.frame, ()), mend.square)
    return squares


NOT_DEMOS = ("ref-c",)
"""Companions that are no demo: ``-ref-c`` (the reference layout again, every cup right, at
other offsets) are there to measure calibration's checks on (``benchmarks/reference_margins.py``);
played, each would cost a replay of its scene's game and say what the scene's own run says."""


def companions(root: Path, scene: BenchScene) -> list[BenchScene]:
    """The calibration-only companions of a scene (``-light-b``, ``-wrong-cup``) present, those
    of ``NOT_DEMOS`` left out."""
    found = []
    for folder in sorted(root.glob(f"{scene.name}-*")):
        if complete(folder):
            other = load_scene(folder)
            if other.meta.get("calibrates") == scene.name and other.meta.get("purpose") not in NOT_DEMOS:
                found.append(other)
    return found


def group(runs: list[Run], key) -> dict[str, tuple[ReadTally, list[Run]]]:
    groups: dict[str, tuple[ReadTally, list[Run]]] = {}
    for run in runs:
        tally, members = groups.setdefault(key(run), (ReadTally(), []))
        if run.reading is not None:
            tally.add(run.reading)
        members.append(run)
    return groups


def request_totals(requests: list[Request]) -> dict:
    """How many requests a player met, of which kind, how long they stayed open, how many were
    answered, and what answering them would change."""
    spans = sorted(r.closed - r.opened for r in requests if r.closed is not None)
    return {
        "requests": len(requests),
        "confirm": sum(r.kind == "confirm" for r in requests),
        "help": sum(r.kind == "help" for r in requests),
        "camera_right": sum(r.camera_right for r in requests),
        "accepted": sum(r.closed_by == "accepted" for r in requests),
        "closed_by_reading": sum(r.closed_by == "reading" for r in requests),
        "answer_changes_moves": sum(r.answer_changes == "moves" for r in requests),
        "answer_changes_doubts": sum(r.answer_changes == "doubts" for r in requests),
        "answer_changes_nothing": sum(r.answer_changes == "nothing" for r in requests),
        "confirm_settled_alone": sum(bool(r.settled_alone) for r in requests),
        "open_seconds_median": round(median(spans) or 0.0, 2),
        "open_seconds_max": round(spans[-1], 2) if spans else 0.0,
    }


def requests_text(totals: dict, games: int) -> str:
    """The request figures in one line."""
    t = totals
    return (
        f"help requests {t['requests']} in {games} games (confirm {t['confirm']}, help {t['help']}); "
        f"camera right on the squares lit {t['camera_right']}, accepted {t['accepted']}, "
        f"closed by a reading {t['closed_by_reading']}; an answer would change the moves "
        f"{t['answer_changes_moves']}, only the doubts {t['answer_changes_doubts']}, nothing "
        f"{t['answer_changes_nothing']}; confirm requests settled by later readings "
        f"{t['confirm_settled_alone']}; open {t['open_seconds_median']:.1f} s median, "
        f"{t['open_seconds_max']:.1f} s longest"
    )


def game_totals(runs: list[Run]) -> dict:
    games = [r for r in runs if r.game is not None or r.failed]
    played = [r for r in games if r.game is not None]
    results = [r.game for r in played if r.game is not None]  # (the same runs' games, typed)
    longest = [r.longest for r in played if r.longest]
    worst = max(longest, key=lambda x: (x["stable_seconds"], x["plies"]), default=None)
    strict = [r.longest_strict for r in played if r.longest_strict]
    soon = sum(
        1
        for r, g in zip(played, results, strict=True)
        if g.exact
        or (r.longest is None or (r.longest["back"] and r.longest["stable_seconds"] <= BACK_SOON_SECONDS))
    )

    def total(name: str) -> int:
        return sum(int(getattr(g, name)) for g in results)

    return {
        "games": len(games),
        "calibration_failed": len(games) - len(played),
        "exact": total("exact"),
        "exact_or_back_within_3s": soon,
        **{name: total(name) for name in ("moves", "right", "flagged", "silent", "wrong", "announced_wrong")},
        "resyncs": total("resyncs"),
        "games_lost_at_some_point": len(longest),
        "never_back": sum(1 for x in longest if not x["back"]),
        "longest_lost": worst,
        "longest_lost_strict": max(strict, key=lambda x: (x["stable_seconds"], x["plies"]), default=None),
        "requests": request_totals([q for g in results for q in g.requests]),
    }


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.2f} %" if whole else "-"


def lost_text(longest: dict | None) -> str:
    if not longest:
        return "-"
    text = f"{longest['stable_seconds']:.1f} s / {longest['plies']} pl"
    standing = longest.get("board_seconds", longest["stable_seconds"])
    if standing - longest["stable_seconds"] >= 0.05:  # the reader was blind to a still board meanwhile
        text += f" [{standing:.1f} s standing]"
    return text if longest["back"] else text + " (never back)"


def print_report(runs: list[Run], demos: list[tuple[str, Run, Run]], args: argparse.Namespace) -> None:
    print(
        f"{'scene':<20} {'class':<12} {'res':<9} {'squares':>13} {'sure✗':>5} {'hands':>7} {'false':>5} "
        f"{'ms':>5} {'plies':>5} {'exact':>5} {'right/flag/silent/wrong':>23} {'longest lost':>24}   requests"
    )
    for run in runs:
        print(row_text(run.scene.name, run))
    print()
    for title, key in (
        ("per look class", lambda r: r.scene.look_class),
        ("per resolution", lambda r: r.scene.resolution),
        ("all scenes", lambda r: "all"),
    ):
        print(title + ":")
        for name, (tally, members) in sorted(group(runs, key).items()):
            g = game_totals(members)
            print(
                f"  {name:<12} squares {tally.right}/{tally.squares} ({pct(tally.right, tally.squares)}), "
                f"sure wrong {tally.sure_wrong} ({per10k(tally)}/10k), "
                f"hands {tally.hands_flagged}/{tally.hands}{missed_text(tally)}, "
                f"false occluded {tally.false_occluded}/{tally.frames}; "
                f"games exact {g['exact']}/{g['games']}, "
                f"moves right {g['right']}/{g['moves']}, flagged {g['flagged']}, wrong {g['wrong']} "
                f"(announced wrong {g['announced_wrong']}), longest lost {lost_text(g['longest_lost'])}"
            )
    everything = ReadTally()
    for run in runs:
        if run.reading is not None:
            everything.add(run.reading)
    if everything.errors:
        print(
            "reading errors by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(everything.errors.items()))
        )
    cpu = group_times(runs)
    if cpu:
        print(
            "read time (median, ms): "
            + "; ".join(f"{res}: {c:.1f} CPU, {w:.1f} wall" for res, (c, w) in cpu.items())
        )
    g = game_totals(runs)
    print(
        f"games: {g['exact']}/{g['games']} exact, "
        f"{g['exact_or_back_within_3s']} exact or back on track within "
        f"{BACK_SOON_SECONDS:.0f} s; lost at some point {g['games_lost_at_some_point']}, never back "
        f"{g['never_back']}; resyncs {g['resyncs']}; wrong moves held {g['wrong']}, announced wrong "
        f"{g['announced_wrong']}; calibration failed {g['calibration_failed']}; longest lost "
        f"{lost_text(g['longest_lost'])}, {lost_text(g['longest_lost_strict'])} counting reports of "
        "plies in doubt as lost"
    )
    print(requests_text(g["requests"], g["games"] - g["calibration_failed"]))
    if demos:
        print("\ndemos (the same game, calibrated two ways):")
        for what, demo, control in demos:
            print(f"  {what}")
            print("    " + row_text(f"cal {demo.calibration_from}", demo))
            print("    " + row_text(f"cal {control.calibration_from}", control))
            for run in (demo, control):
                print(f"      calibrated from {run.calibration_from}: {views_text(run)}")
    if args.show_errors:
        print("\nwrong squares:")
        for run in runs:
            for line in run.reading.wrong if run.reading else []:
                print("  " + line)


def missed_text(tally: ReadTally) -> str:
    """How many of the hand frames not flagged let a wrong reading through."""
    missed = tally.hands - tally.hands_flagged
    return f" (of {missed} not flagged, {tally.hands_missed_misread} misread)" if missed else ""


def split_text(tallies: dict[str, ReadTally]) -> str:
    if len(tallies) < 2:
        return ""
    return " (" + ", ".join(f"light {k} {pct(t.right, t.squares)}" for k, t in sorted(tallies.items())) + ")"


def views_text(run: Run) -> str:
    """Squares right in the reading pass (calibration only) and in the referee's view of the
    replay (after whatever the reader learned), split by light where the light changes."""
    parts = []
    if run.reading is not None:
        r = run.reading
        parts.append(f"read {r.right}/{r.squares}{split_text(run.by_light)}")
    if run.game is not None:
        v = run.game.shown
        parts.append(f"referee's view {v.right}/{v.squares}{split_text(run.game.shown_by_light)}")
        parts.append(f"{run.game.unseen} of {run.game.boards} boards never seen stable")
    return "; ".join(parts) or run.failed or ""


def per10k(tally: ReadTally) -> str:
    return f"{1e4 * tally.sure_wrong / tally.considered:.1f}" if tally.considered else "-"


def row_text(name: str, run: Run) -> str:
    if run.failed:
        where = f"{name:<20} {run.scene.look_class:<12} {run.scene.resolution:<9}"
        return f"{where} calibration failed: {run.failed}"
    r = run.reading
    reading = (
        f"{r.right:>4}/{r.squares:<4} {100 * r.right / max(r.squares, 1):5.1f}% {r.sure_wrong:>3} "
        f"{r.hands_flagged:>3}/{r.hands:<3} {r.false_occluded:>5} {median(r.read_cpu_ms) or 0:>5.1f}"
        if r
        else f"{'':>42}"
    )
    g = run.game
    game = (
        f"{g.moves:>5} {'yes' if g.exact else 'no':>5} {g.right:>9}/{g.flagged:>3}/{g.silent:>3}/{g.wrong:<3}"
        f"   {lost_text(run.longest):>24}   {request_cell(g.requests)}"
        if g
        else ""
    )
    return f"{name:<20} {run.scene.look_class:<12} {run.scene.resolution:<9} {reading} {game}"


def request_cell(requests: list[Request]) -> str:
    """A game's requests in a table cell: how many, how many of them confirm requests, and how
    many an answer would change the game for (its moves or its doubts)."""
    if not requests:
        return "-"
    confirm = sum(r.kind == "confirm" for r in requests)
    useful = sum(r.answer_changes in ("moves", "doubts") for r in requests)
    return f"{len(requests)} ({confirm} confirm, {useful} change)"


def group_times(runs: list[Run]) -> dict[str, tuple[float, float]]:
    out = {}
    for name, (tally, _members) in sorted(group(runs, lambda r: r.scene.resolution).items()):
        if tally.read_cpu_ms:
            out[name] = (median(tally.read_cpu_ms) or 0.0, median(tally.read_wall_ms) or 0.0)
    return out


def machine() -> dict:
    try:
        load = os.getloadavg()
    except OSError:
        load = (0.0, 0.0, 0.0)
    return {
        "python": platform.python_version(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "opencv": cv2.__version__,
        "load_average": [round(x, 2) for x in load],
        "when": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="*", help="scene names or patterns (bench-0*), or scene folders")
    parser.add_argument(
        "--frames", type=Path, default=DEFAULT_FRAMES, help=f"scenes folder ({DEFAULT_FRAMES})"
    )
    parser.add_argument("--json", metavar="FILE", help="write every figure as JSON (- for stdout)")
    parser.add_argument("--look-class", action="append", help="only scenes of this look class (repeatable)")
    parser.add_argument("--resolution", action="append", help="only scenes at this resolution, e.g. 640x480")
    parser.add_argument("--no-replay", action="store_true", help="reading figures only")
    parser.add_argument("--no-read", action="store_true", help="replay figures only")
    parser.add_argument("--no-demos", action="store_true", help="skip the light-b and wrong-cup calibrations")
    parser.add_argument("--fps", type=float, default=5.0, help="camera frames per second (default 5)")
    parser.add_argument(
        "--board-seconds", type=float, default=4.0, help="mean time a board stands (default 4)"
    )
    parser.add_argument(
        "--hand-seconds", type=float, default=1.5, help="mean time a hand is over it (default 1.5)"
    )
    parser.add_argument(
        "--frame-noise", type=float, default=0.0, help="fresh sensor noise per camera frame (sigma)"
    )
    parser.add_argument(
        "--player",
        choices=("careful", "none"),
        default="careful",
        help="who answers the referee's help requests (default careful: accepts the camera's view "
        "when it is what the board shows)",
    )
    parser.add_argument(
        "--answer-seconds", type=float, default=3.0, help="seconds before the player answers (default 3)"
    )
    parser.add_argument(
        "--misjudge", metavar="COLOUR:SIZE:FACTOR", help="scale one learned cup size in every calibration"
    )
    parser.add_argument(
        "--read-right",
        metavar="SCENE/FRAME:SQUARE",
        action="append",
        default=[],
        help="the replay's reader reads that square of that frame as the truth has it (repeatable): "
        "what mending a misread would buy the referee",
    )
    parser.add_argument("--show-errors", action="store_true", help="list every wrong square")
    parser.add_argument(
        "--trust-layout",
        action="store_true",
        help="calibrate as calibrate --cups-as-set-out does: the reference layout on the user's word",
    )
    parser.add_argument(
        "--white-darker",
        action="store_true",
        help="calibrate as calibrate --white-darker does: the user says White's cups are the darker set",
    )
    parser.add_argument(
        "--no-learning", action="store_true", help="the replay's reader does not learn during the game"
    )
    parser.add_argument(
        "--readings",
        metavar="FILE",
        help="write each stable observation the replays gave the referee, and each answer accepted, "
        "as JSON lines (benchmarks/referee_trace.py feeds them again)",
    )
    args = parser.parse_args(argv)
    if args.fps <= 0 or args.board_seconds <= 0 or args.hand_seconds <= 0 or args.frame_noise < 0:
        parser.error("--fps, --board-seconds and --hand-seconds must be positive, --frame-noise 0 or more")
    try:
        if args.misjudge:
            args.misjudge = Misjudgement.parse(args.misjudge)
        args.read_right = [ReadRight.parse(spec) for spec in args.read_right]
    except CompanionError as error:
        parser.error(str(error))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        folders = find_scenes(args.frames, args.scenes)
    except CompanionError as error:
        print(f"vision_bench: {error}", file=sys.stderr)
        return 2
    scenes = [load_scene(f) for f in folders]
    scenes = [
        s
        for s in scenes
        if (not args.look_class or s.look_class in args.look_class)
        and (not args.resolution or s.resolution in args.resolution)
    ]
    if not scenes:
        print(
            f"vision_bench: no complete scenes in {args.frames}; render them with "
            "benchmarks/render_bench/render.py (see docs/vision-bench.md)",
            file=sys.stderr,
        )
        return 2
    unknown = [
        m
        for m in args.read_right
        if not any(s.name == m.scene and any(f.name == m.frame for f in s.frames) for s in scenes)
    ]
    if unknown:
        print(
            f"vision_bench: --read-right: no frame {unknown[0].scene}/{unknown[0].frame} here",
            file=sys.stderr,
        )
        return 2
    runs: list[Run] = []
    demos: list[tuple[str, Run, Run]] = []
    started = time.perf_counter()
    for scene in scenes:
        run = run_scene(scene, None, args)
        runs.append(run)
        if not args.json or args.json != "-":
            print(row_text(scene.name, run), file=sys.stderr, flush=True)
        if args.no_demos or "calibrates" in scene.meta:
            continue
        for other in companions(scene.folder.parent, scene):
            what = f"{scene.name}: {other.meta.get('what', other.meta.get('purpose'))}"
            demo = run_scene(scene, other, args)
            if other.meta.get("purpose") == "light-b":  # the control is calibrated under the later light
                demos.append((what + " (calibrated under the first light, played under both)", run, demo))
            else:
                demos.append((what, demo, run))
    report: dict[str, Any] = {
        "machine": machine(),
        "command": " ".join(sys.argv),
        "seconds": round(time.perf_counter() - started, 1),
        "options": {
            k: [str(x) for x in v]
            if isinstance(v, list)
            else v
            if isinstance(v, int | float | str | None)
            else str(v)
            for k, v in vars(args).items()
        },
        "scenes": [r.figures() for r in runs],
        "totals": {
            name: {**tally.figures(), "games": game_totals(members)}
            for title, key in (
                ("class", lambda r: r.scene.look_class),
                ("resolution", lambda r: r.scene.resolution),
                ("all", lambda r: "all"),
            )
            for name, (tally, members) in ((f"{title}:{n}", v) for n, v in group(runs, key).items())
        },
        "demos": [{"what": w, "demo": d.figures(), "control": c.figures()} for w, d, c in demos],
    }
    for totals in report["totals"].values():
        totals.pop("wrong", None)
    if args.readings:
        write_readings(Path(args.readings), runs)
    if args.json == "-":
        json.dump(report, sys.stdout, indent=1)
        print()
        return 0
    print()
    print_report(runs, demos, args)
    now = machine()
    print(f"\n{len(runs)} scenes in {report['seconds']:.0f} s; {now['when']}, load {now['load_average']}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


def write_readings(path: Path, runs: list[Run]) -> None:
    """What each scene's replay gave its referee, one JSON line each (``--readings``)."""
    with path.open("w", encoding="utf-8") as out:
        for run in runs:
            for entry in run.game.fed if run.game is not None else ():
                out.write(json.dumps(entry) + "\n")


if __name__ == "__main__":
    sys.exit(main())
