"""The reconciler: stable observations in, the game and the referee's events out.

It holds the full game, so every hidden cup is known from history, and asks the decoder what
each new stable observation shows. It then acts like a referee at the table:

- a clear legal move (or two, when the board was covered for a whole turn) is played;
- a clear illegal action is announced with its reason and the position to restore, and
  nothing else is accepted until the board shows that position again;
- a lifted cup is announced (the touch rule, a peek under an opponent's stack, a lift that
  uncovers the opponent's line, a lifted cup with nowhere to go);
- the board returning to the previous position takes the last move back (if enabled);
- anything it cannot explain with confidence is reported as needing attention, and it waits.

Wins, losses and draws are announced as soon as the move that decides them is played.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from companion.reconciler.decoder import (
    DEFAULT_SETTINGS,
    Decision,
    Explanation,
    Kind,
    Settings,
    code_texts,
    decide,
)
from companion.reconciler.events import Event, EventType
from companion.reconciler.referee import (
    Action,
    ActionKind,
    illegal_reason,
    put_back_reason,
    touch_reason,
    uncovered_line,
    wrong_piece_reason,
)
from companion.reconciler.unknowns import HiddenContents
from companion.rules.game import Game
from companion.rules.move import Move
from companion.rules.outcome import Outcome, Termination
from companion.rules.position import BOARD_FLAG
from companion.rules.square import Square, color_name, square_name
from companion.rules.variant import CLASSIC, Variant
from companion.vision.observation import Observation, class_top


@dataclass(frozen=True)
class Hypothesis:
    """Legal moves assumed since the game's position, and the joint log-likelihood of the
    observations that were not clear enough to accept them."""

    codes: tuple[int, ...]
    score: float
    decent: bool = True  # every observation on the way was explained but for a few misread squares


ROOT = Hypothesis((), 0.0)
BEAM_KINDS = (Kind.NO_CHANGE, Kind.MOVE, Kind.TWO_MOVES, Kind.LIFT)
# What an unclear observation may have been without changing the game: a cup in the air or an
# illegal action not yet put right. They keep the game's position alive in the beam, with the
# credit of having explained what was seen (a lift then a put-back must not lose to a made-up
# path of moves that ends where it started).
TRANSIENT_KINDS = (Kind.LIFT, Kind.ILLEGAL)
BEAM_WIDTH = 6
BEAM_DEPTH = 2  # moves assumed from unclear readings at most
PATH_LIMIT = 3  # moves accepted at once at most: a longer unseen path is too easily made up
DECENT_FLAWS = 1  # misread squares a reading may have and still vouch for the path through it
UNCLEAR_KEPT = 4  # unclear readings a path must be consistent with, the latest kept


def _path(item: tuple[float, Hypothesis, Explanation, Decision]) -> tuple:
    """What a joint candidate claims happened: its moves, or its kind and action."""
    _, hypothesis, explanation, _ = item
    return (hypothesis.codes + explanation.codes, explanation.kind if not explanation.codes else None,
            explanation.action)


def _runner_up(joint: list) -> tuple:
    return next((item for item in joint[1:] if _path(item) != _path(joint[0])), joint[0])


def _distinct(joint: list, count: int) -> list:
    """The best ``count`` joint candidates that claim different things."""
    seen: list[tuple] = []
    out = []
    for item in joint:
        path = _path(item)
        if path not in seen:
            seen.append(path)
            out.append(item)
            if len(out) == count:
                break
    return out


def _describe(game: Game, item: tuple[float, Hypothesis, Explanation, Decision]) -> str:
    _, hypothesis, explanation, _ = item
    if explanation.codes or hypothesis.codes:
        return " ".join(code_texts(game.position, hypothesis.codes + explanation.codes)) or "no change"
    return explanation.describe(game.position)


def _next_beam(joint: list[tuple[float, Hypothesis, Explanation, Decision]]) -> list[Hypothesis]:
    """The best few distinct move paths, kept while the board is unclear."""
    beam: dict[tuple[int, ...], Hypothesis] = {}
    for score, hypothesis, explanation, _ in joint:
        if explanation.kind not in BEAM_KINDS and not (
            explanation.kind in TRANSIENT_KINDS and not hypothesis.codes
        ):
            continue
        codes = hypothesis.codes + explanation.codes
        if len(codes) <= BEAM_DEPTH and codes not in beam:
            decent = hypothesis.decent and explanation.flaws <= DECENT_FLAWS
            beam[codes] = Hypothesis(codes, score, decent)
        if len(beam) == BEAM_WIDTH:
            break
    return list(beam.values()) or [ROOT]


class Reconciler:
    """Turns the stream of stable observations into the game and referee events.

    ``feed`` is called once per stable observation and returns the events it caused (often
    none). ``game`` is the game so far; a device passes ``game.position`` to the engine.
    """

    def __init__(
        self,
        variant: Variant | str = CLASSIC,
        game: Game | None = None,
        *,
        takeback: bool = True,
        new_game: bool = True,
        settings: Settings = DEFAULT_SETTINGS,
        clock: Callable[[], float] = time.time,
        unknowns: HiddenContents | None = None,
    ) -> None:
        if isinstance(variant, str):
            variant = Variant.from_spec(variant)
        self.game = game if game is not None else Game(variant)
        self.variant = self.game.variant
        self.takeback = takeback
        self.new_game = new_game
        self.settings = settings
        self._clock = clock
        self.unknowns = unknowns  # a game started mid-way: what the stacks may hide
        self._timestamp = 0.0
        self._pending: Event | None = None  # an illegal action waiting for the board to be restored
        self._lifted: Square | None = None  # a cup of the side to move seen in the air
        self._must_move: Square | None = None  # touch rule: a lifted cup was put back
        self._attention: tuple[int, ...] | None = None  # the reading last reported as unclear
        self.last_decision: Decision | None = None
        self._beam: list[Hypothesis] = [ROOT]
        self._unclear: list[Observation] = []  # readings not explained since the last accepted state

    @classmethod
    def mid_game(
        cls, variant: Variant | str, tops: dict[Square, tuple[int, int]], turn: int, **options
    ) -> Reconciler:
        """Start from a board already in play: only the tops are known. The game starts from
        the most likely full position; the rest stays open in ``unknowns`` and narrows each
        time a lift shows what a stack hid."""
        if isinstance(variant, str):
            variant = Variant.from_spec(variant)
        unknowns = HiddenContents(variant, tops, turn)
        game = Game(variant, start=unknowns.start_position())
        return cls(variant, game, unknowns=unknowns, **options)

    # ----- the public interface -----------------------------------------------------------

    @property
    def position(self):
        return self.game.position

    @property
    def awaiting_restore(self) -> Event | None:
        """The illegal event whose position the board must show again, if any."""
        return self._pending

    def feed(self, observation: Observation) -> list[Event]:
        """Take one stable observation; return the events it causes."""
        self._timestamp = observation.timestamp or self._clock()
        if observation.occluded:
            return []
        if observation.moved:
            return self._needs_attention("the board or the camera moved: calibrate again", observation)
        if self._pending is not None:
            return self._await_restore(observation)
        if self.game.is_over():
            return self._after_end(observation)
        return self._decode(observation)

    # ----- decoding with a beam of hypotheses --------------------------------------------

    def _decode(self, observation: Observation) -> list[Event]:
        """Score the observation from every live hypothesis; act on a clear winner.

        Normally the only hypothesis is the game itself. When an observation cannot be
        explained, the best few ways it might have come about (a move or two whose evidence
        was too weak, a placement hidden under a later gobble) stay alive, each with the
        log-likelihood of every observation since; later observations confirm one of them or
        keep the question open. A move is only accepted once one path beats every other."""
        joint: list[tuple[float, Hypothesis, Explanation, Decision]] = []
        for hypothesis in self._beam:
            decision = self._decide_from(hypothesis, observation)
            for explanation in decision.ranked:
                if hypothesis.codes and explanation.kind not in BEAM_KINDS:
                    continue
                score = hypothesis.score + decision.base + explanation.score
                joint.append((score, hypothesis, explanation, decision))
        joint.sort(key=lambda item: item[0], reverse=True)
        score, hypothesis, best, decision = joint[0]
        margin = min(
            (score - other[0] for other in joint[1:] if _path(other) != _path(joint[0])),
            default=float("inf"),
        )
        self.last_decision = decision
        # Moves assumed from earlier, unclear readings are accepted only along a path that
        # explained each of those readings but for a few misread squares: a path that had to
        # leave a reading unexplained may be a made-up one that merely ends in the right view.
        # (Nor may such a path call a square it moved a misread: only the game itself may.)
        trusted = not hypothesis.codes or hypothesis.decent
        path = hypothesis.codes + best.codes
        if decision.accepted is best and margin >= self.settings.margin and trusted \
                and len(path) <= PATH_LIMIT and self._consistent(path):
            self._beam = [ROOT]
            self._unclear = []
            self._attention = None
            if not hypothesis.codes:
                return self._act(best, decision)
            events = self._play(hypothesis.codes + best.codes, decision, late=True)
            if best.kind is Kind.LIFT and not self.game.is_over():
                events += self._lift(best.action)  # type: ignore[arg-type]
            return events
        self._beam = _next_beam(joint)
        if min(item[2].flaws for item in joint[:BEAM_WIDTH]) <= DECENT_FLAWS:
            self._unclear = [*self._unclear[-(UNCLEAR_KEPT - 1):], observation]
        reason = decision.reason if decision.accepted is None else (
            f"cannot tell {_describe(self.game, joint[0])} from {_describe(self.game, _runner_up(joint))}"
        )
        candidates = [
            {"explanation": _describe(self.game, item), "score": round(item[0] - score, 2)}
            for item in _distinct(joint, 3)
        ]
        return self._needs_attention(reason, observation, decision.contradicting, candidates)

    def _consistent(self, codes: tuple[int, ...]) -> bool:
        """Whether each unclear reading since the last accepted state shows the board at some
        point of this path (with a cup in the air at most, and a few misread squares).

        The readings a path skips past are its best check: after an unclear reading at least
        one move may have been made unseen, and a short path that ends in the right view can
        still be the wrong one; it must also have passed through what was seen on the way."""
        if not self._unclear or not codes:
            return True
        position = self.game.position
        seen = [False] * len(self._unclear)
        pushed = 0
        try:
            for k in range(len(codes) + 1):
                for i, observation in enumerate(self._unclear):
                    if not seen[i]:
                        decision = decide(
                            self.game, observation, self.settings,
                            moves=False, illegal=False, two_moves=False,
                        )
                        seen[i] = min(e.flaws for e in decision.ranked) <= DECENT_FLAWS
                if all(seen) or k == len(codes):
                    break
                position.push_code(codes[k])
                pushed += 1
        finally:
            for _ in range(pushed):
                position.pop_code()
        return all(seen)

    def _decide_from(self, hypothesis: Hypothesis, observation: Observation) -> Decision:
        """Decide from the position after the hypothesis' moves; only the game itself (no
        moves assumed) is checked for illegal actions, lifts, takebacks and a new game."""
        position = self.game.position
        root = not hypothesis.codes
        for code in hypothesis.codes:
            position.push_code(code)
        try:
            return decide(
                self.game, observation, self.settings,
                illegal=root, lifts=root, allow_misread=root,
                takeback=root and self.takeback and self.game.ply > 0,
                new_game=root and self.new_game and self.game.ply >= 2,
                reveal=self._reveal_options() if root else None,
            )
        finally:
            for _ in hypothesis.codes:
                position.pop_code()

    # ----- acting on an accepted explanation ---------------------------------------------

    def _act(self, explanation: Explanation, decision: Decision) -> list[Event]:
        kind = explanation.kind
        if kind is Kind.NO_CHANGE:
            return self._unchanged()
        if kind is Kind.LIFT:
            return self._lift(explanation.action)  # type: ignore[arg-type]
        if kind is Kind.ILLEGAL:
            return self._illegal(illegal_reason(self.game, explanation.action), explanation.action)  # type: ignore[arg-type]
        if kind is Kind.TAKEBACK:
            return self._take_back()
        if kind is Kind.NEW_GAME:
            return self._start_new_game()
        return self._play(explanation.codes, decision)

    def _unchanged(self) -> list[Event]:
        lifted, self._lifted = self._lifted, None
        if lifted is None:
            return []
        reason = put_back_reason(self.game, lifted)
        if reason is None:
            return []
        self._must_move = lifted
        return [self._event(
            EventType.ILLEGAL, reason=reason, squares=(square_name(lifted),),
            position=self.game.position.text(), detail={"must_move": square_name(lifted)},
        )]

    def _lift(self, action: Action) -> list[Event]:
        origin = action.origin
        assert origin is not None
        if self._lifted == origin:
            return []
        events = [self._lifted_event(origin)]
        peek = touch_reason(self.game, origin)
        if peek is not None:
            events.append(self._illegal(f"touch rule: {peek}", action)[0])
            return events
        if action.color == self.game.turn:
            self._lifted = origin
            forfeit = self.game.lift(origin)
            if forfeit is not None:
                events.append(self._outcome_event(forfeit))
        return events

    def _lifted_event(self, origin: Square) -> Event:
        position = self.game.position
        line = uncovered_line(position, origin)
        detail: dict[str, object] = {"color": color_name(position.top(origin)[0])}  # type: ignore[index]
        reason = None
        if line is not None:
            names = [square_name(sq) for sq in line.squares]
            detail["uncovers"] = names
            reason = (
                f"lifting {square_name(origin)} uncovers {color_name(position.turn ^ 1)}'s line "
                f"{' '.join(names)}: put the cup on a piece of that line or lose"
            )
        return self._event(EventType.LIFTED, squares=(square_name(origin),), reason=reason, detail=detail)

    def _illegal(self, reason: str, action: Action) -> list[Event]:
        event = self._event(
            EventType.ILLEGAL,
            move=action.move().text() if action.move() else None,  # type: ignore[union-attr]
            squares=action.squares(),
            reason=reason,
            position=self.game.position.text(),
            detail={"action": action.text(), "color": color_name(action.color)},
        )
        self._pending = event
        self._lifted = None
        return [event]

    def _take_back(self) -> list[Event]:
        move = self.game.pop()
        self._lifted = self._must_move = None
        return [self._event(
            EventType.TAKEBACK, move=move.text(), position=self.game.position.text(),
        )]

    def _start_new_game(self) -> list[Event]:
        self.game = Game(self.variant)
        self._lifted = self._must_move = None
        return [self._event(EventType.NEW_GAME, detail={"variant": self.variant.spec})]

    def _play(self, codes: tuple[int, ...], decision: Decision, late: bool = False) -> list[Event]:
        touched = self._must_move if self._must_move is not None else self._lifted
        first = codes[0]
        if touched is not None and self.variant.touch_rule and _origin(first) != touched:
            move = self.game.position.move_from_code(first)
            reason = wrong_piece_reason(self.game, touched, move.text())
            return self._illegal(reason, _action_of(self.game, first, move))
        self._lifted = self._must_move = None
        texts: list[str] = []
        events = []
        for code in codes:
            if self.game.is_over():
                break
            move = self.game.position.move_from_code(code)
            self._track_unknowns(move, decision)
            self.game.push(move, timestamp=self._timestamp)
            texts.append(move.text())
            events.append(self._move_event(move.text(), code, decision))
        if len(texts) > 1:
            why = "moves seen late: earlier readings were unclear" if late else \
                "two moves were made while the board was covered"
            events = [_with(e, moves=tuple(texts), reason=why) for e in events]
        self._follow_unknowns()
        outcome = self.game.outcome()
        if outcome is not None:
            events.append(self._outcome_event(outcome))
        return events

    # ----- a game started mid-way ---------------------------------------------------------

    def _reveal_options(self) -> dict[Square, list[int]] | None:
        """For each stack whose top hides an unknown part: every class a lift may show."""
        if self.unknowns is None:
            return None
        max_piece = self.variant.max_piece
        out = {}
        for sq, stack in self.unknowns.stacks.items():
            if len(stack.known) == 1 and stack.bound > 1:
                out[sq] = [
                    0 if p is None else 1 + p[0] * max_piece + p[1] - 1
                    for p in self.unknowns.under_top(sq)
                ]
        return out

    def _track_unknowns(self, move: Move, decision: Decision) -> None:
        """Tell the hidden-contents model what a move showed (before it is played)."""
        if self.unknowns is None:
            return
        if move.from_square is None:
            self.unknowns.put(move.to_square, (self.game.turn, move.size))  # type: ignore[arg-type]
            return
        origin = move.from_square
        shown = self.game.position.stack(origin)[-2] if len(self.game.position.stack(origin)) > 1 else None
        accepted = decision.accepted
        for sq, cls in accepted.changes if accepted is not None else ():
            if sq == origin:
                shown = class_top(cls, self.variant.max_piece)
        self.unknowns.move(origin, move.to_square, shown)

    def _follow_unknowns(self) -> None:
        """Replay the game from the most likely start if what was revealed changed it."""
        if self.unknowns is None:
            return
        start = self.unknowns.start_position()
        if start == self.game.start:
            return
        game = Game(self.variant, start=start, headers=self.game.headers)
        for played in self.game.played:
            game.push(played.move, played.timestamp, played.comment)
        self.game = game

    def _move_event(self, text: str, code: int, decision: Decision) -> Event:
        squares = [square_name(code & 0xFF)]
        if code & BOARD_FLAG:
            squares.insert(0, square_name(_origin(code)))
        detail: dict[str, object] = {
            "color": color_name(self.game.turn ^ 1),
            "margin": round(min(decision.margin, 99.0), 2),
        }
        if decision.misread is not None:
            detail["misread"] = square_name(decision.misread)
        return self._event(
            EventType.MOVE, move=text, squares=tuple(squares),
            position=self.game.position.text(), detail=detail,
        )

    def _outcome_event(self, outcome: Outcome) -> Event:
        if outcome.winner is None:
            kind = EventType.DRAW
        elif outcome.termination is Termination.LINE:
            kind = EventType.WIN
        else:
            kind = EventType.LOSS
        return self._event(
            kind,
            winner=outcome.winner_name,
            line=tuple(square_name(sq) for sq in outcome.line),
            reason=outcome.reason,
            position=self.game.position.text(),
            detail={"termination": str(outcome.termination)},
        )

    # ----- waiting states -----------------------------------------------------------------

    def _await_restore(self, observation: Observation) -> list[Event]:
        """After an illegal action only the last legal position (or a legal move from it,
        played once the board was put right) is accepted."""
        decision = decide(
            self.game, observation, self.settings,
            illegal=False, lifts=False, two_moves=False, allow_misread=False,
        )
        self.last_decision = decision
        accepted = decision.accepted
        if accepted is None or accepted.kind not in (Kind.NO_CHANGE, Kind.MOVE):
            return []
        self._pending = None
        self._attention = None
        self._beam = [ROOT]
        self._unclear = []
        restored = self._event(EventType.RESTORED, position=self.game.position.text())
        if accepted.kind is Kind.NO_CHANGE:
            return [restored]
        return [restored, *self._play(accepted.codes, decision)]

    def _after_end(self, observation: Observation) -> list[Event]:
        """A finished game: only a takeback or a new game (an emptied board) is looked for;
        whatever else happens on the board (clearing it away) is not the referee's business."""
        decision = decide(
            self.game, observation, self.settings,
            moves=False, illegal=False, lifts=False, two_moves=False,
            takeback=self.takeback and self.game.ply > 0, new_game=self.new_game,
        )
        self.last_decision = decision
        accepted = decision.accepted
        if accepted is None or accepted.kind is Kind.NO_CHANGE:
            return []
        return self._act(accepted, decision)

    def _needs_attention(
        self, reason: str | None, observation: Observation,
        squares: tuple[Square, ...] = (), candidates: list[dict[str, object]] | None = None,
    ) -> list[Event]:
        """Report an unclear board once per distinct reading, not on every observation."""
        reading = tuple(int(i) for i in observation.probabilities.argmax(axis=1))
        if reading == self._attention:
            return []
        self._attention = reading
        detail: dict[str, object] = {"candidates": candidates} if candidates else {}
        return [self._event(
            EventType.NEEDS_ATTENTION, reason=reason,
            squares=tuple(square_name(sq) for sq in squares), detail=detail,
        )]

    def _event(self, kind: EventType, **fields) -> Event:
        return Event(type=kind, ply=self.game.ply, timestamp=self._timestamp, **fields)


def _origin(code: int) -> Square:
    return (code >> 8) & 0xFF if code & BOARD_FLAG else -1


def _action_of(game: Game, code: int, move: Move) -> Action:
    position = game.position
    if code & BOARD_FLAG:
        color, size = position.top(_origin(code))  # type: ignore[misc]
        return Action(ActionKind.MOVE, color, size, to=move.to_square, origin=move.from_square)
    return Action(ActionKind.PLACE, game.turn, move.size, to=move.to_square)


def _with(event: Event, **fields) -> Event:
    return replace(event, **fields)
