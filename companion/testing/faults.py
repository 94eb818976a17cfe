"""Random games turned into observation streams with injected faults, and the scoring of a
reconciler run over them: the robustness tests and ``benchmarks/reconciler_faults.py`` use it.

A stream is what the stability gate would hand the reconciler: one observation per stable
board state, each with the truth (the moves really on the board) beside it, and the gate's
count of hands since the reading before (``Observation.hidden``: one per move made or taken
back in between, at least one). Faults are the
ones a camera above a real table meets: squares misread, frames with a hand in them, a whole
turn made while the board was covered, a cup lifted and put back or lifted before its move,
takebacks, each kind of illegal action, and (for the recovery figures) several moves made
while the camera saw nothing at all.

A run is scored per move of the game as the reconciler holds it at the end: right (equal to
the move really made), flagged (not known: missing after the reconciler asked for attention,
or a ply it reports as unsure), or wrong (a move it holds as known that was not made), which
must never happen. Moves announced and later withdrawn by a ``correction`` are counted apart
(``withdrawn``), as are moves that were wrong when announced: as known (``shown_wrong``), or
while the same feed reported that ply as unsure (``shown_unsure``). A move announced late that
was really made then, and taken back since (the takeback in the same reading), is not wrong.
"""

from __future__ import annotations

import difflib
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from companion.reconciler.events import Event, EventType, looks_again
from companion.reconciler.reconciler import Reconciler
from companion.reconciler.referee import Action, ActionKind, legal_code_index
from companion.rules.game import Game
from companion.rules.position import Position
from companion.rules.square import Square, board_squares, opponent, parse_square
from companion.rules.variant import GobbleRule, Variant
from companion.vision.observation import Observation, class_count, class_index

Tops = dict[Square, tuple[int, int]]

ASKED = frozenset({EventType.NEEDS_ATTENTION, EventType.ILLEGAL, EventType.RESYNC, EventType.HELP})
"""Events that tell the player the referee is not following: a game with one of them scores its
moves not known as flagged, not silent. A help request is one (the alert LED and a beep), and
often the only one: the request replaces the reading's ``needs-attention`` on the panel, and
blind seeds 304 and 328 (a help request at once after moves made out of sight, to the end)
were scored silent for it."""


@dataclass(frozen=True)
class FaultRates:
    """How often each fault is injected (per square for misreads, per move for the rest)."""

    misread: float = 0.02
    confident_misread: bool = False  # misread squares keep ~no probability on the truth
    occluded: float = 0.10  # an occluded frame before a stable state
    covered: float = 0.05  # a move made while the board was covered (never seen)
    lift_then_move: float = 0.05  # the moving cup seen in the air first
    lift_put_back: float = 0.03  # a cup lifted, put back, then moved (touch rule: illegal)
    takeback: float = 0.03  # the move is taken back, then a move is made again
    illegal: float = 0.05  # one of the illegal actions, then the board put right
    blind: float = 0.0  # 3 to 5 moves made while the camera saw nothing

    @classmethod
    def clean(cls) -> FaultRates:
        return cls(0.0, False, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@dataclass
class Step:
    observation: Observation
    truth: tuple[str, ...]  # the moves on the board when this observation was taken
    fault: str | None = None  # the fault this step injects, if any
    expect: EventType | None = None  # the event the fault should cause
    tops: Tops | None = None  # what the board showed (a still second look reads it again)


@dataclass
class Stream:
    variant: Variant
    steps: list[Step]
    moves: tuple[str, ...]  # the game's moves at the end
    faults: Counter = field(default_factory=Counter)
    rates: FaultRates = field(default_factory=FaultRates)  # a still second look misreads alike


# ----- observations -------------------------------------------------------------------------


def tops_of(position: Position) -> Tops:
    return {sq: top for sq in position.squares if (top := position.top(sq)) is not None}


def observe(
    tops: Tops, variant: Variant, rng: random.Random, rates: FaultRates, occluded: bool = False
) -> Observation:
    """Class probabilities as a classifier would give them: mostly confident, some misread.

    A misread square gives most of its probability to a wrong class; the true class keeps a
    share (a classifier that errs is usually torn) unless ``rates.confident_misread``.
    """
    size, max_piece = variant.size, variant.max_piece
    k = class_count(max_piece)
    rows = []
    for sq in board_squares(size):
        truth = class_index(tops.get(sq), max_piece)
        if occluded:
            rows.append(_spread(rng, k, 1.0))
            continue
        if rng.random() < rates.misread:
            wrong = rng.choice([c for c in range(k) if c != truth])
            share = rng.uniform(0.5, 0.9)
            keep = rng.uniform(0.001, 0.01) if rates.confident_misread else rng.uniform(0.2, 0.9)
            row = _spread(rng, k, (1.0 - share) * (1.0 - keep))
            row[wrong] += share
            row[truth] += (1.0 - share) * keep
        else:
            share = rng.uniform(0.97, 0.9995)
            row = _spread(rng, k, 1.0 - share)
            row[truth] += share
        rows.append(row)
    return Observation(size, max_piece, np.array(rows), occluded)


def _spread(rng: random.Random, k: int, mass: float) -> np.ndarray:
    """``mass`` shared at random over ``k`` classes."""
    weights = np.array([rng.expovariate(1.0) for _ in range(k)])
    return weights * (mass / weights.sum())


# ----- physical actions, legal or not -------------------------------------------------------


def apply_action(tops: Tops, position: Position, action: Action) -> Tops:
    """The tops after a physical action (a lift shows the cup it uncovers)."""
    after = dict(tops)
    if action.origin is not None:
        stack = position.stack(action.origin)
        if len(stack) > 1:
            after[action.origin] = stack[-2]
        else:
            after.pop(action.origin, None)
    if action.to is not None:
        after[action.to] = (action.color, action.size)
    return after


def illegal_actions(game: Game) -> dict[str, list[Action]]:
    """Every illegal action of each kind the referee must recognise, in this position."""
    position = game.position
    variant = position.variant
    turn = position.turn
    max_piece = variant.max_piece
    legal = legal_code_index(position)
    found: dict[str, list[Action]] = {}

    def fits(sq: Square, size: int) -> bool:
        top = position.top(sq)
        return top is None or top[1] < size

    tops = {stack[0] for stack in position.reserve(turn)}
    pool = {s for stack in position.reserve(turn) for s in stack}
    for sq in position.squares:
        top = position.top(sq)
        for size in range(1, max_piece + 1):
            if not fits(sq, size) or (size, -1, sq) in legal:
                continue
            if size in tops and top is not None and variant.gobble_rule is not GobbleRule.ALWAYS:
                found.setdefault("stack-gobble", []).append(Action(ActionKind.PLACE, turn, size, to=sq))
            elif size in pool and size not in tops and top is None and not variant.any_order:
                found.setdefault("size-not-on-top", []).append(Action(ActionKind.PLACE, turn, size, to=sq))
        if top is not None and top[0] != turn:
            for to in position.squares:
                if to != sq and fits(to, top[1]):
                    found.setdefault("opponent-piece", []).append(
                        Action(ActionKind.MOVE, top[0], top[1], to=to, origin=sq)
                    )
            if variant.touch_rule:
                found.setdefault("peek", []).append(Action(ActionKind.LIFT, top[0], top[1], origin=sq))
    other_tops = {stack[0] for stack in position.reserve(opponent(turn))}
    for sq in position.squares:
        if position.top(sq) is None:
            found.setdefault("moved-twice", []).extend(
                Action(ActionKind.PLACE, opponent(turn), size, to=sq) for size in other_tops
            )
    return found


# ----- streams ------------------------------------------------------------------------------


def hands_between(before: tuple[str, ...], now: tuple[str, ...]) -> int:
    """How often the gate saw the board hidden between two readings of a generated game: a
    hand for each move made (or taken back) in between, and at least one."""
    shared = next(
        (i for i, (a, b) in enumerate(zip(before, now, strict=False)) if a != b), min(len(before), len(now))
    )
    return max(1, len(now) - shared + len(before) - shared)


def choose_move(game: Game, rng: random.Random) -> str:
    """A random legal move, taking a winning one most of the time (so games end by lines)."""
    position = game.position
    codes = position.legal_codes()
    winning = []
    for code in codes:
        position.push_code(code)
        result = position.line_result()
        position.pop_code()
        if result is not None and result.winner == position.turn:
            winning.append(code)
    code = rng.choice(winning) if winning and rng.random() < 0.7 else rng.choice(codes)
    return position.move_from_code(code).text()


class StreamBuilder:
    """Plays one random game and writes the stream the camera would have produced."""

    def __init__(self, variant: Variant, rng: random.Random, rates: FaultRates) -> None:
        self.variant = variant
        self.rng = rng
        self.rates = rates
        self.game = Game(variant)
        self.steps: list[Step] = []
        self.faults: Counter = Counter()
        self._seen: tuple[str, ...] = ()  # the moves on the board at the last reading

    def truth(self) -> tuple[str, ...]:
        return tuple(m.text() for m in self.game.moves)

    def emit(
        self, tops: Tops | None = None, fault: str | None = None, expect: EventType | None = None
    ) -> None:
        if tops is None:
            tops = tops_of(self.game.position)
        if self.rng.random() < self.rates.occluded:
            blocked = observe(tops, self.variant, self.rng, self.rates, occluded=True)
            self.steps.append(Step(blocked, self.truth(), "occluded"))
            self.faults["occluded"] += 1
        observation = observe(tops, self.variant, self.rng, self.rates)
        # what the stability gate counts: a hand over the board for each move made since the
        # last reading (at least one: a reading is passed again only after something moved)
        observation = replace(observation, hidden=hands_between(self._seen, self.truth()))
        self._seen = self.truth()
        self.steps.append(Step(observation, self.truth(), fault, expect, tops))
        if fault:
            self.faults[fault] += 1

    def chance(self, rate: float) -> bool:
        return self.rng.random() < rate

    def build(self, max_plies: int) -> Stream:
        """Play the game, injecting at most one fault between two plain readings.

        Faults never touch: a covered move, an illegal action, a lift or a takeback is
        followed by a plain reading of the board before the next one. Two of them before any
        plain reading can together look exactly like something else (a covered move then an
        illegal move of the cup it placed looks like one legal move), which no observer
        could tell apart. Misreads and occluded frames may fall anywhere.
        """
        quiet = True  # the last reading was a plain one
        while not self.game.is_over() and self.game.ply < max_plies:
            faulted = False
            if quiet and self.chance(self.rates.illegal):
                faulted = self.inject_illegal()
            if quiet and self.rates.blind and self.game.ply > 2 and self.chance(self.rates.blind):
                self.faults["blind"] += 1
                for _ in range(self.rng.randint(3, 5)):
                    if self.game.is_over():
                        break
                    self.game.push_text(choose_move(self.game, self.rng))
                self.emit(fault="blind", expect=EventType.RESYNC)
                continue
            move = choose_move(self.game, self.rng)
            origin = move.split("-")[0] if "-" in move and quiet and not faulted else None
            if origin is not None and self.chance(self.rates.lift_put_back) and self.variant.touch_rule:
                self.lift(origin, "lift-put-back", EventType.LIFTED)
                self.emit(fault="put-back", expect=EventType.ILLEGAL)
                faulted = True
            elif origin is not None and self.chance(self.rates.lift_then_move):
                self.lift(origin, "lift-then-move", EventType.LIFTED)
                faulted = True
            self.game.push_text(move)
            if quiet and not faulted and not self.game.is_over() and self.chance(self.rates.covered):
                self.faults["covered"] += 1
                quiet = False
                continue
            self.emit()
            quiet = True
            if (
                not faulted
                and not self.game.is_over()
                and self.game.ply > 1
                and self.chance(self.rates.takeback)
            ):
                self.game.pop()
                self.emit(fault="takeback", expect=EventType.TAKEBACK)
                quiet = False
        if not quiet:
            self.emit()
        return Stream(self.variant, self.steps, self.truth(), self.faults, self.rates)

    def lift(self, origin_name: str, fault: str, expect: EventType) -> None:
        origin = parse_square(origin_name)
        top = self.game.position.top(origin)
        assert top is not None, f"{origin_name} is empty"
        color, size = top
        action = Action(ActionKind.LIFT, color, size, origin=origin)
        self.emit(apply_action(tops_of(self.game.position), self.game.position, action), fault, expect)

    def inject_illegal(self) -> bool:
        kinds = illegal_actions(self.game)
        if not kinds:
            return False
        kind = self.rng.choice(sorted(kinds))
        action = self.rng.choice(kinds[kind])
        position = self.game.position
        self.emit(apply_action(tops_of(position), position, action), f"illegal:{kind}", EventType.ILLEGAL)
        self.emit(fault="restore", expect=EventType.RESTORED)
        return True


def make_stream(variant: Variant, seed: int, rates: FaultRates, max_plies: int = 60) -> Stream:
    return StreamBuilder(variant, random.Random(seed), rates).build(max_plies)


FAMILIES: dict[str, dict[str, float]] = {
    "covered": {"covered": 0.10},
    "lift": {"lift_then_move": 0.10, "lift_put_back": 0.05},
    "takeback": {"takeback": 0.05},
    "illegal": {"illegal": 0.08},
}
"""Fault families: each generated game gets one, on top of misreads and occluded frames."""

BLIND: dict[str, float] = {"blind": 0.06}
"""The recovery family: now and then 3 to 5 moves made while the camera saw nothing."""


def family_rates(
    name: str, misread: float = 0.02, occluded: float = 0.10, confident: bool = False
) -> FaultRates:
    base = FaultRates.clean()
    family = BLIND if name == "blind" else FAMILIES[name]
    rates = replace(base, misread=misread, occluded=occluded, confident_misread=confident)
    rates_of_family: dict[str, Any] = family  # (rates by field name: each a float)
    return replace(rates, **rates_of_family)


def run_games(
    count: int,
    variants: tuple[str, ...] = ("classic",),
    first_seed: int = 0,
    make: Callable[[Variant], Reconciler] | None = None,
    timer: Callable[[], float] | None = None,
    confident: bool = False,
    families: tuple[str, ...] | None = None,
    still_looks: int = 0,
) -> RunResult:
    """``count`` games, cycling through the fault families and the variants; ``still_looks``
    as ``run_stream`` takes it (each game's second looks drawn from their own seed)."""
    total = RunResult()
    names = families or tuple(sorted(FAMILIES))
    for i in range(count):
        seed = first_seed + i
        variant = Variant.from_spec(variants[i % len(variants)])
        stream = make_stream(variant, seed, family_rates(names[i % len(names)], confident=confident))
        looks = StillLooks(still_looks, random.Random(~seed))
        total.add(run_stream(stream, make or Reconciler, timer or time.perf_counter, looks))
    return total


# ----- scoring a run ------------------------------------------------------------------------


@dataclass
class RunResult:
    moves: int = 0  # moves of the game really played
    right: int = 0  # held at the end, known, and equal to the truth
    flagged: int = 0  # not known at the end (missing or unsure) and attention was asked for
    silent: int = 0  # not known at the end and nothing said: must be zero
    wrong: int = 0  # held at the end as known and not the truth: must be zero
    withdrawn: int = 0  # moves announced, then withdrawn by a correction
    shown_wrong: int = 0  # moves announced as known that were not the truth (most then corrected)
    shown_unsure: int = 0  # moves not the truth when announced, but reported unsure at once
    shown_wrong_aligned: int = 0  # the same, each announced move aligned to the truth's moves
    #                              (``wrong_once_aligned``): every wrong move once, not the right moves
    #                              after it that a shifted record puts at other plies
    games: int = 0
    stuck: int = 0  # games whose end the reconciler did not reach (moves missing at the end)
    resyncs: int = 0
    still_looks: int = 0  # still second looks fed (``StillLooks``)
    expected: Counter = field(default_factory=Counter)  # fault -> injected
    caught: Counter = field(default_factory=Counter)  # fault -> the expected event was emitted
    events: Counter = field(default_factory=Counter)
    seconds: list[float] = field(default_factory=list)

    def add(self, other: RunResult) -> None:
        for name in (
            "moves",
            "right",
            "flagged",
            "silent",
            "wrong",
            "withdrawn",
            "shown_wrong",
            "shown_unsure",
            "shown_wrong_aligned",
            "games",
            "stuck",
            "resyncs",
            "still_looks",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.expected.update(other.expected)
        self.caught.update(other.caught)
        self.events.update(other.events)
        self.seconds.extend(other.seconds)

    def summary(self) -> str:
        moves = max(self.moves, 1)
        parts = [f"{self.moves} moves of {self.games} games"]
        for name in ("right", "flagged", "wrong", "silent"):
            value = getattr(self, name)
            parts.append(f"{name} {value} ({100.0 * value / moves:.2f} %)")
        parts.append(
            f"withdrawn by corrections {self.withdrawn}, wrong when announced {self.shown_wrong} "
            f"(and {self.shown_unsure} more reported unsure at once; aligned to the truth "
            f"{self.shown_wrong_aligned})"
        )
        parts.append(f"games not followed to the end {self.stuck}, resyncs {self.resyncs}")
        return "; ".join(parts)


@dataclass
class StillLooks:
    """Second looks at a board that stood still, made as the device makes them
    (``ReaderObserver.judged``): after a reading the referee could not make out
    (``unclear_reading``), or one that brought plies into doubt (``reports_new_doubt``) or was
    said as a help request (``asks_for_help``) unless it was itself a second look
    (``events.looks_again``), the gate reads the unchanged board again and marks it
    ``Observation.still``. ``most`` caps them per settled board: the device looks again about
    every ``hold_seconds`` (1 s) only while the board stands, and players move every few
    seconds. Each look is a fresh reading of the same tops with the stream's misread rates."""

    most: int = 0  # 0: no second looks (the stream alone, as before)
    rng: random.Random = field(default_factory=random.Random)

    def wanted(self, events: list[Event], still: bool, made: int) -> bool:
        """Whether the device would read the board again after ``events``."""
        return made < self.most and looks_again(events, still)

    def look(self, step: Step, stream: Stream) -> Observation:
        """A still second look at ``step``'s board: nothing moved, no hand since."""
        assert step.tops is not None, "a still look needs the tops of the board it reads again"
        seen = observe(step.tops, stream.variant, self.rng, stream.rates)
        return replace(seen, hidden=0, still=True)


@dataclass
class GameScore:
    """The score of one game as its readings are fed (``run_stream``), kept as it goes: a
    resync replaces the reconciler's game, so what it held before must be taken when it
    happens, and whether a move was wrong when announced is known only then."""

    figures: RunResult = field(default_factory=lambda: RunResult(games=1))
    asked: bool = False  # attention was asked for: moves not known at the end are flagged, not silent
    before: list[str] = field(default_factory=list)  # the record held before the last resync
    doubted: set[int] = field(default_factory=set)  # its plies held as unsure then
    offset: int = 0  # truth plies before the resynced game's start
    made: tuple[str, ...] = ()  # the moves on the board at the reading before
    counted: set[tuple[int, int, str | None]] = field(default_factory=set)  # (resync, ply, move)
    #                                                 wrong moves counted aligned

    def reading(
        self, step: Step, seen: Observation, events: list[Event], reconciler: Reconciler, seconds: float
    ) -> None:
        """Score the events of one reading (``seen``: the step's own or a still look at it)."""
        self.figures.seconds.append(seconds)
        kinds = {e.type for e in events}
        self.figures.events.update(e.type for e in events)
        if kinds & ASKED:
            self.asked = True
        for event in events:
            if event.type is EventType.RESYNC:
                self._resync(event, step)
        if step.expect is not None and not seen.still:  # (a fault is caught or not by its own reading)
            self.figures.expected[step.fault] += 1
            if step.expect in kinds:
                self.figures.caught[step.fault] += 1
        if EventType.MOVE in kinds:
            self._announced(step, [e for e in events if e.type is EventType.MOVE], reconciler)
        self.made = step.truth

    def looked_again(self) -> None:
        """Count a still second look fed (``StillLooks``)."""
        self.figures.still_looks += 1

    def _resync(self, event: Event, step: Step) -> None:
        """Keep the record a resync ends (and its unsure plies); the truth's moves so far are
        the new game's start."""
        self.figures.resyncs += 1
        self.doubted |= {ply + len(self.before) for ply in event.detail.get("unsure", [])}
        self.before = self.before + list(event.detail.get("record", []))
        self.offset = len(step.truth)

    def _announced(self, step: Step, moves: list[Event], reconciler: Reconciler) -> None:
        """Count the moves announced that were not made: as known (``shown_wrong``), or
        reported unsure at once (``shown_unsure``); and those known ones wrong once the
        reconciler's game is aligned to the truth (``shown_wrong_aligned``), each once."""
        unsure_now = getattr(reconciler, "unsure", {})
        truth, made = step.truth[self.offset :], self.made[self.offset :]
        record = [m.text() for m in reconciler.game.moves]
        for event in moves:
            if not _made(event.ply, event.move, truth, made):
                if event.ply in unsure_now:
                    self.figures.shown_unsure += 1
                else:
                    self.figures.shown_wrong += 1
            key = (self.figures.resyncs, event.ply, event.move)
            if event.ply in unsure_now or key in self.counted:
                continue
            if wrong_once_aligned(event.ply, event.move, record, truth, made):
                self.counted.add(key)
                self.figures.shown_wrong_aligned += 1

    def result(self, reconciler: Reconciler, truth: tuple[str, ...]) -> RunResult:
        """The game's figures, its record at the end (``reconciler``'s, after the records the
        resyncs ended) scored against the moves really made (``truth``)."""
        figures = self.figures
        figures.withdrawn = getattr(reconciler, "corrections", 0)
        final = [m.text() for m in reconciler.game.moves]
        unsure = self.doubted | {len(self.before) + ply for ply in getattr(reconciler, "unsure", {})}
        figures.moves = len(truth)
        figures.right, figures.wrong, unknown = score_record(self.before + final, list(truth), unsure)
        figures.stuck = int(len(truth) > self.offset + len(final))
        if self.asked:
            figures.flagged = unknown
        else:
            figures.silent = unknown
        return figures


def run_stream(
    stream: Stream,
    make: Callable[[Variant], Reconciler],
    timer: Callable[[], float],
    looks: StillLooks | None = None,
) -> RunResult:
    """Feed a stream to a fresh reconciler and score the game it holds at the end, ply by ply.

    A ``resync`` restarts the reconciler's game from the board: the moves it held before are
    scored as they were, the truth's moves up to the resync are unknown (flagged), and the
    new game's moves are compared with the truth's from there (``GameScore``). With ``looks``,
    a settled board (not an occluded frame) is read again while the device would
    (``StillLooks``)."""
    looks = looks or StillLooks()
    reconciler = make(stream.variant)
    score = GameScore()
    for step in stream.steps:
        observation, looked = step.observation, 0
        while True:
            started = timer()
            events = reconciler.feed(observation)
            score.reading(step, observation, events, reconciler, timer() - started)
            if observation.occluded or not looks.wanted(events, observation.still, looked):
                break
            observation, looked = looks.look(step, stream), looked + 1
            score.looked_again()
    return score.result(reconciler, stream.moves)


def _made(ply: int, move: str | None, truth: tuple[str, ...], before: tuple[str, ...]) -> bool:
    """Whether ``move`` was really made at ``ply``: it is there now, or it was at the reading
    before (announced late in the reading that shows it taken back)."""
    index = ply - 1
    return any(index < len(moves) and moves[index] == move for moves in (truth, before))


def wrong_once_aligned(
    ply: int, move: str | None, record: list[str], truth: tuple[str, ...], before: tuple[str, ...]
) -> bool:
    """Whether a move announced at ``ply`` of the reconciler's game is wrong once the game it
    belongs to is aligned to the moves really made (as ``score_record`` aligns the final
    record): a move held where the truth has it, even at another ply because a stretch before
    it was held one move short or long, is right; so is one made at the reading before.
    Public beside ``score_record``: the two are the bench's scoring rules."""
    if _made(ply, move, truth, before):
        return False
    index = ply - 1
    if index >= len(record) or record[index] != move:
        return True
    for moves in (truth, before):
        matcher = difflib.SequenceMatcher(None, list(moves), record, autojunk=False)
        for tag, _t0, _t1, r0, r1 in matcher.get_opcodes():
            if tag == "equal" and r0 <= index < r1:
                return False
    return True


def score_record(record: list[str], truth: list[str], unsure: set[int]) -> tuple[int, int, int]:
    """(right, wrong, unknown) of a record against the moves really made, aligned as a diff.

    A move held where the truth has it is right, a move held that the truth does not have
    there is wrong, a true move not held is unknown; a move held as unsure (its 1-based ply in
    ``unsure``) counts as unknown whether or not it is the truth. Without gaps this is a
    ply-by-ply comparison; after a resync, or a stretch of moves the camera never saw, the
    diff finds the moves held again after the gap."""
    right = wrong = unknown = 0
    matcher = difflib.SequenceMatcher(None, truth, record, autojunk=False)
    for tag, t0, t1, r0, r1 in matcher.get_opcodes():
        held = range(r0 + 1, r1 + 1)
        doubtful = sum(ply in unsure for ply in held)
        if tag == "equal":
            right += len(held) - doubtful
            unknown += doubtful
        else:
            wrong += len(held) - doubtful
            # the true moves of this stretch that no wrong move stands in for were not held
            unknown += max(t1 - t0 - (len(held) - doubtful), 0)
    return right, wrong, unknown
