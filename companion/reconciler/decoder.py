"""Decoding an observation against the rules: which action best explains what the camera sees.

The camera sees only tops, each as a probability over classes. Every candidate explanation
(no change, each legal move, each illegal physical action, a lift, a takeback, two legal moves
made while the board was covered) predicts the top of every square, and is scored by the
log-likelihood of that prediction under the observation. Because the full game is known, a
candidate predicts hidden cups too: lifting a stack shows exactly the cup it hid.

Scores are kept relative to "no change", so a candidate costs only the squares it changes:
``gain[row][cls]`` is what showing ``cls`` on ``row`` adds to the log-likelihood. Each square's
likelihood mixes in a small outlier term, so one confidently misread square costs a bounded
amount instead of vetoing the truth.

A decision accepts the best candidate only when it explains the whole board (or all of it but
one square it does not touch: a misread) and beats every other candidate by a clear margin.
Otherwise the caller is told to wait and ask: a wrong move accepted silently corrupts every
hidden stack after it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from companion.errors import CompanionError
from companion.reconciler.referee import Action, ActionKind, legal_code_index
from companion.rules.game import Game
from companion.rules.position import BOARD_FLAG, Position
from companion.rules.square import Square, board_squares, square_name
from companion.vision.observation import Observation, class_top


class Kind(StrEnum):
    NO_CHANGE = "no-change"
    MOVE = "move"            # one legal move
    TWO_MOVES = "two-moves"  # a legal move and the reply, made while the board was covered
    TAKEBACK = "takeback"    # the board shows the position before the last move
    LIFT = "lift"            # a top cup is in the air
    ILLEGAL = "illegal"      # a physical action the rules do not allow
    NEW_GAME = "new-game"    # the board shows the start position again


# Log-odds (nats) against each kind before any evidence: a plain move or nothing is the normal
# case; a takeback, a lift, an illegal action, two moves at once are each rarer. All are well
# below the margin, so they order near-ties but never decide between two explanations that
# predict the same view: those are reported as ambiguous.
PRIOR: dict[Kind, float] = {
    Kind.NO_CHANGE: 0.0,
    Kind.MOVE: 0.0,
    Kind.TAKEBACK: 0.5,
    Kind.LIFT: 0.5,
    Kind.TWO_MOVES: 2.0,
    Kind.NEW_GAME: 2.0,
    Kind.ILLEGAL: 1.0,
}


@dataclass(frozen=True)
class Settings:
    """The decoder's thresholds, in nats (natural-log likelihood ratios)."""

    margin: float = 4.0    # the best must beat the runner-up 55 to 1
    outlier: float = 0.01  # chance that a square's reading is wrong whatever its confidence
    clean: float = 4.0     # residual below which an explanation accounts for the whole board
    misread: float = 2.0   # a square whose reading contradicts the explanation by more is a misread
    max_changed: int = 8   # more changed squares than this is not two moves: skip that search


DEFAULT_SETTINGS = Settings()


@dataclass(slots=True)
class Explanation:
    """One way the board could have come to look as observed."""

    kind: Kind
    gain: float                              # log-likelihood over "no change"
    changes: tuple[tuple[Square, int], ...]  # (square, class it shows afterwards)
    codes: tuple[int, ...] = ()              # legal move codes played, in order
    action: Action | None = None             # the physical action (ILLEGAL, LIFT)
    flaws: int = 0                           # squares whose reading contradicts it (set when ranked)

    @property
    def score(self) -> float:
        return self.gain - PRIOR[self.kind]

    def describe(self, position: Position) -> str:
        """Short text for logs and needs-attention events."""
        if self.codes:
            return " ".join(code_texts(position, self.codes))
        if self.action is not None:
            return f"{self.kind} {self.action.text()}"
        return str(self.kind)


@dataclass
class Decision:
    accepted: Explanation | None
    ranked: list[Explanation]
    margin: float
    residual: float
    reason: str | None = None
    contradicting: tuple[Square, ...] = ()
    misread: Square | None = None  # a square read against the accepted explanation
    base: float = 0.0  # log-likelihood of "no change": scores are relative to it


class View:
    """An observation scored against a position's visible tops."""

    def __init__(self, position: Position, observation: Observation, outlier: float) -> None:
        size, max_piece = position.size, position.variant.max_piece
        if (observation.size, observation.max_piece) != (size, max_piece):
            raise CompanionError(
                f"observation is of a {observation.size}x{observation.size} board with cups up to "
                f"{observation.max_piece}, the game is {size}x{size} with cups up to {max_piece}"
            )
        self.max_piece = max_piece
        self.squares = board_squares(size)
        self.row = {sq: r for r, sq in enumerate(self.squares)}
        probs = np.clip(np.asarray(observation.probabilities, dtype=float), 0.0, None)
        probs /= np.maximum(probs.sum(axis=1, keepdims=True), 1e-12)
        k = probs.shape[1]
        log = np.log((1.0 - outlier) * probs + outlier / k)
        current = np.array([self.piece_class(_top_code(position, sq)) for sq in self.squares])
        base = log[np.arange(len(self.squares)), current]
        self.current = current.tolist()
        self.reading = np.argmax(log, axis=1).tolist()
        self.gain: list[list[float]] = (log - base[:, None]).tolist()
        self.slack: list[float] = (log.max(axis=1) - base).tolist()
        self.total_slack = float(sum(self.slack))
        self.base = float(base.sum())

    def piece_class(self, piece: int | None) -> int:
        """Probability column of a piece code (``size << 1 | colour``), 0 for an empty square."""
        if piece is None:
            return 0
        return 1 + (piece & 1) * self.max_piece + (piece >> 1) - 1

    def changed_squares(self, margin: float) -> set[Square]:
        """Squares whose reading leaves another class within ``margin`` of the current one:
        the ones a move may have changed (a misread can make a changed square look the same)."""
        out = set()
        for sq, gains, current in zip(self.squares, self.gain, self.current, strict=True):
            if any(g > -margin for k, g in enumerate(gains) if k != current):
                out.add(sq)
        return out

    def after(self, explanation: Explanation) -> list[float]:
        """Each square's slack (how much its best reading beats the prediction) after it."""
        slack = list(self.slack)
        for sq, cls in explanation.changes:
            r = self.row[sq]
            slack[r] = self.slack[r] - self.gain[r][cls]
        return slack

    def reading_text(self, sq: Square) -> str:
        top = class_top(self.reading[self.row[sq]], self.max_piece)
        if top is None:
            return "empty"
        return f"{'WB'[top[0]]}{top[1]}"


# ----- candidates ---------------------------------------------------------------------------------


def code_texts(position: Position, codes: Iterable[int]) -> list[str]:
    """Texts of codes played in sequence from ``position`` (which is left unchanged)."""
    texts = []
    pushed = 0
    for code in codes:
        texts.append(position.move_from_code(code).text())
        position.push_code(code)
        pushed += 1
    for _ in range(pushed):
        position.pop_code()
    return texts


def _top_code(position: Position, sq: Square) -> int | None:
    """The top cup of a square as a piece code (the fast interface), None when empty."""
    stack = position._stacks[sq]
    return stack[-1] if stack else None


def _best_class(gains: list[float], classes: Iterable[int]) -> int:
    return max(classes, key=gains.__getitem__)


def single_explanations(
    game: Game,
    view: View,
    *,
    moves: bool = True,
    illegal: bool = True,
    lifts: bool = True,
    takeback: bool = False,
    new_game: bool = False,
    reveal: Mapping[Square, Iterable[int]] | None = None,
) -> list[Explanation]:
    """Every explanation made of at most one action, "no change" first.

    ``reveal`` names squares whose lone known cup hides unknown contents (a game started
    mid-way): lifting it may show any of the given classes, and the best-fitting one is taken.
    """
    position = game.position
    out = [Explanation(Kind.NO_CHANGE, 0.0, ())]
    legal = legal_code_index(position) if moves else {}
    if moves or illegal or lifts:
        _placements(position, view, legal, illegal, out)
        _board_actions(game, view, legal, illegal, lifts, takeback, reveal or {}, out)
    if takeback and game.ply:
        out.append(_takeback(position, view))
    if new_game:
        changes = tuple((sq, 0) for sq in view.squares if position._stacks[sq])
        gain = sum(view.gain[view.row[sq]][0] for sq, _ in changes)
        out.append(Explanation(Kind.NEW_GAME, gain, changes))
    return out


def _placements(
    position: Position,
    view: View,
    legal: dict[tuple[int, int, int], list[int]],
    illegal: bool,
    out: list[Explanation],
) -> None:
    turn, max_piece = position.turn, view.max_piece
    for r, sq in enumerate(view.squares):
        stack = position._stacks[sq]
        gains = view.gain[r]
        for size in range((stack[-1] >> 1 if stack else 0) + 1, max_piece + 1):
            for color in (0, 1):
                cls = 1 + color * max_piece + size - 1
                codes = legal.get((size, -1, sq)) if color == turn else None
                if codes:
                    out.extend(Explanation(Kind.MOVE, gains[cls], ((sq, cls),), (c,)) for c in codes)
                elif illegal:
                    action = Action(ActionKind.PLACE, color, size, to=sq)
                    out.append(Explanation(Kind.ILLEGAL, gains[cls], ((sq, cls),), action=action))


def _board_actions(
    game: Game,
    view: View,
    legal: dict[tuple[int, int, int], list[int]],
    illegal: bool,
    lifts: bool,
    takeback: bool,
    reveal: Mapping[Square, Iterable[int]],
    out: list[Explanation],
) -> None:
    position = game.position
    stacks = position._stacks
    undo = _reverse_of_last_move(position) if takeback else None
    placed = _last_placement(position) if takeback else None
    for r, origin in enumerate(view.squares):
        stack = stacks[origin]
        if not stack:
            continue
        piece = stack[-1]
        size, color, cls = piece >> 1, piece & 1, view.piece_class(piece)
        gains = view.gain[r]
        if origin in reveal and len(stack) == 1:
            under = _best_class(gains, reveal[origin])
        else:
            under = view.piece_class(stack[-2]) if len(stack) > 1 else 0
        lift_gain = gains[under]
        if lifts and origin != placed:
            action = Action(ActionKind.LIFT, color, size, origin=origin)
            out.append(Explanation(Kind.LIFT, lift_gain, ((origin, under),), action=action))
        for r2, to in enumerate(view.squares):
            below = stacks[to]
            if to == origin or (below and below[-1] >> 1 >= size):
                continue
            gain = lift_gain + view.gain[r2][cls]
            changes = ((origin, under), (to, cls))
            codes = legal.get((0, origin, to))
            if codes:
                out.append(Explanation(Kind.MOVE, gain, changes, (codes[0],)))
            elif illegal and (origin, to) != undo:
                action = Action(ActionKind.MOVE, color, size, to=to, origin=origin)
                out.append(Explanation(Kind.ILLEGAL, gain, changes, action=action))


def _reverse_of_last_move(position: Position) -> tuple[Square, Square] | None:
    """The board move that would undo the last move: a takeback, not an illegal move."""
    codes = position.move_codes
    if not codes or not codes[-1] & BOARD_FLAG:
        return None
    code = codes[-1]
    return (code & 0xFF, (code >> 8) & 0xFF)


def _last_placement(position: Position) -> Square | None:
    """Where the last move put a cup from off the board: lifting it looks like taking it back."""
    codes = position.move_codes
    if not codes or codes[-1] & BOARD_FLAG:
        return None
    return codes[-1] & 0xFF


def _takeback(position: Position, view: View) -> Explanation:
    code = position.move_codes[-1]
    squares = [code & 0xFF] + ([(code >> 8) & 0xFF] if code & BOARD_FLAG else [])
    position.pop_code()
    try:
        changes = tuple((sq, view.piece_class(_top_code(position, sq))) for sq in squares)
    finally:
        position.push_code(code)
    gain = sum(view.gain[view.row[sq]][cls] for sq, cls in changes)
    return Explanation(Kind.TAKEBACK, gain, changes)


def two_move_explanations(position: Position, view: View, changed: set[Square]) -> list[Explanation]:
    """A legal move and a legal reply whose every square is among ``changed``.

    Each move changes the square it lands on, and the square it leaves, in the final view
    (a later cup on top is larger, so it shows differently); so pruning to changed squares
    loses no pair that explains the board. A reply that lands on the first move's cup is left
    out: the first cup was never seen, so its size (or whether it is there at all) could only
    be guessed, and any one-square change could be "explained" that way.
    """
    out: list[Explanation] = []
    for first in position.legal_codes():
        if not _within(first, changed):
            continue
        position.push_code(first)
        try:
            if position.line_result() is None:
                for second in position.legal_codes():
                    if _within(second, changed) and second & 0xFF != first & 0xFF:
                        out.append(_scored_pair(position, view, first, second))
        finally:
            position.pop_code()
    return out


def _within(code: int, squares: set[Square]) -> bool:
    return code & 0xFF in squares and (not code & BOARD_FLAG or (code >> 8) & 0xFF in squares)


def _touched(code: int) -> tuple[Square, ...]:
    return (code & 0xFF, (code >> 8) & 0xFF) if code & BOARD_FLAG else (code & 0xFF,)


def _scored_pair(position: Position, view: View, first: int, second: int) -> Explanation:
    position.push_code(second)
    try:
        squares = dict.fromkeys(_touched(first) + _touched(second))
        changes = tuple((sq, view.piece_class(_top_code(position, sq))) for sq in squares)
    finally:
        position.pop_code()
    gain = sum(view.gain[view.row[sq]][cls] for sq, cls in changes)
    return Explanation(Kind.TWO_MOVES, gain, changes, (first, second))


# ----- deciding -----------------------------------------------------------------------------------


def decide(
    game: Game,
    observation: Observation,
    settings: Settings = DEFAULT_SETTINGS,
    *,
    moves: bool = True,
    illegal: bool = True,
    lifts: bool = True,
    takeback: bool = False,
    new_game: bool = False,
    two_moves: bool = True,
    allow_misread: bool = True,
    reveal: Mapping[Square, Iterable[int]] | None = None,
) -> Decision:
    """Score every candidate against ``observation`` and accept one only if it is clearly right.

    Two moves are tried only when no single action explains the board cleanly, or the best
    single one is illegal (the opponent's reply while the board was covered can look like an
    illegal second move by one side). Accepting an explanation that leaves one square it does
    not touch unexplained (a misread) is allowed only when nothing explains the board cleanly.
    """
    view = View(game.position, observation, settings.outlier)
    ranked = single_explanations(
        game, view, moves=moves, illegal=illegal, lifts=lifts, takeback=takeback,
        new_game=new_game, reveal=reveal,
    )
    best = max(ranked, key=_score)
    if two_moves and moves and (not _clean(view, best, settings) or best.kind is Kind.ILLEGAL):
        changed = view.changed_squares(settings.margin)
        if len(changed) <= settings.max_changed:
            ranked.extend(two_move_explanations(game.position, view, changed))
    ranked.sort(key=_score, reverse=True)
    ranked = ranked[:8]
    for explanation in ranked:
        explanation.flaws = sum(s > settings.misread for s in view.after(explanation))
    return _judge(game.position, view, ranked, settings, allow_misread)


def _score(explanation: Explanation) -> float:
    return explanation.score


def _clean(view: View, explanation: Explanation, settings: Settings) -> bool:
    """True when the explanation accounts for every square of the board."""
    slack = view.after(explanation)
    return sum(slack) <= settings.clean and max(slack) <= settings.misread


def _residual(view: View, explanation: Explanation) -> float:
    return view.total_slack - explanation.gain


def _judge(
    position: Position, view: View, ranked: list[Explanation], settings: Settings, allow_misread: bool
) -> Decision:
    best = ranked[0]
    residual = _residual(view, best)
    margin = best.score - ranked[1].score if len(ranked) > 1 else float("inf")
    slack = view.after(best)
    contradicting = tuple(sq for sq, s in zip(view.squares, slack, strict=True) if s > settings.misread)
    decision = Decision(None, ranked, margin, residual, contradicting=contradicting, base=view.base)
    misread = _lone_misread(best, contradicting, slack, view, settings) if allow_misread else None
    if (residual > settings.clean or contradicting) and misread is None:
        decision.reason = _unexplained_reason(view, contradicting)
        return decision
    if margin < settings.margin:
        decision.reason = (
            f"cannot tell {ranked[0].describe(position)} from {ranked[1].describe(position)}"
        )
        return decision
    decision.accepted = best
    decision.misread = misread
    return decision


def _lone_misread(
    best: Explanation, contradicting: tuple[Square, ...], slack: list[float], view: View,
    settings: Settings,
) -> Square | None:
    """The one square the explanation leaves unexplained, if it is only one, is not a square
    the explanation changes, and the rest of the board fits cleanly."""
    if len(contradicting) != 1:
        return None
    sq = contradicting[0]
    if any(sq == changed for changed, _ in best.changes):
        return None
    rest = sum(slack) - slack[view.row[sq]]
    return sq if rest <= settings.clean else None


def _unexplained_reason(view: View, contradicting: tuple[Square, ...]) -> str:
    shown = ", ".join(f"{square_name(sq)} reads {view.reading_text(sq)}" for sq in contradicting[:6])
    return f"no move explains the board ({shown})" if shown else "no move explains the board"
