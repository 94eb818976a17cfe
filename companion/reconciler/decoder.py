"""Decoding an observation against the rules: which action best explains what the camera sees.

The camera sees only tops, each as a probability over classes. Every candidate explanation
(no change, each legal move, each illegal physical action, a lift, a takeback, two legal moves
made while the board was covered) predicts the top of every square, and is scored by the
log-likelihood of that prediction under the observation (the tables of ``likelihood.py``).
Because the full game is known, a candidate predicts hidden cups too: lifting a stack shows
exactly the cup it hid.

Single actions are scored all at once with numpy (every placement, board move and lift of
either colour), and only the best few become ``Explanation`` objects.

``decide`` accepts the best candidate of one reading only when it explains the whole board (or
all of it but one square it does not touch: a misread) and beats every other candidate by a
clear margin. The reconciler does more: it keeps every path of moves that is still plausible
and scores each by all the readings since (``reconciler.py``, ``paths.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from companion.reconciler.accounts import (
    DEFAULT_SETTINGS,
    ROUNDING,
    Explanation,
    Kind,
    Settings,
)
from companion.reconciler.likelihood import (
    View,
    action_costs,
    gather,
    piece_classes,
)
from companion.reconciler.referee import Action, ActionKind
from companion.rules.codes import (
    code_from,
    code_squares,
    code_to,
    encode_board_move,
    is_board_move,
    piece_code,
    piece_color,
    piece_size,
    placed_piece,
)
from companion.rules.game import Game
from companion.rules.position import Position
from companion.rules.square import Square, square_name
from companion.vision.observation import Observation

HIDDEN_FIRST = 3.0  # extra log-odds against two moves whose first cup the second one covers
CANDIDATES = 10  # single actions turned into explanations per position


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


# ----- candidates ---------------------------------------------------------------------------------


def explain(
    position: Position,
    view: View,
    *,
    moves: bool = True,
    illegal: bool = True,
    lifts: bool = True,
    takeback: bool = False,
    new_game: bool = False,
    reveal: Mapping[Square, Iterable[int]] | None = None,
    limit: int = CANDIDATES,
) -> list[Explanation]:
    """The best ``limit`` explanations made of at most one action, best first, and "no change".

    ``reveal`` names squares whose lone known cup hides unknown contents (a game started
    mid-way): lifting it may show any of the given classes, and the best-fitting one is taken.
    """
    out = [Explanation(Kind.NO_CHANGE, 0.0, ())]
    if moves or illegal or lifts:
        out += _single_actions(position, view, moves, illegal, lifts, takeback, reveal or {}, limit)
    if takeback and position.last_code is not None:
        out.append(_takeback(position, view))
    if new_game:
        stacks = position.piece_stacks
        changes = tuple((sq, 0) for sq in view.squares if stacks[sq])
        gain = sum(view.gain[view.row[sq]][0] for sq, _ in changes)
        out.append(Explanation(Kind.NEW_GAME, gain, changes))
    out.sort(key=_score, reverse=True)
    return out


def _single_actions(
    position: Position,
    view: View,
    moves: bool,
    illegal: bool,
    lifts: bool,
    takeback: bool,
    reveal: Mapping[Square, Iterable[int]],
    limit: int,
) -> list[Explanation]:
    """Every placement, board move and lift of either colour, scored at once; the best few
    become explanations (legal ones as moves, the others as illegal actions)."""
    f = view.tops
    squares, max_piece = f.squares, view.max_piece
    n = len(squares)
    costs = action_costs(position, f, moves, illegal, lifts, takeback)
    under = f.under
    if reveal:
        under = under.copy()
        for sq, options in reveal.items():
            r = f.row[sq]
            if len(position.piece_stacks[sq]) == 1:
                under[r] = max(options, key=view.gain[r].__getitem__)
        first, second = gather(f, under)
    else:
        if f.gather is None:
            f.gather = gather(f, under)
        first, second = f.gather
    n_place, n_board = n * 2 * max_piece, n * n
    # placements and lifts gain one entry of G, board moves two (origin, then destination)
    flat = view.G.ravel()
    gains = flat.take(first)
    gains[n_place : n_place + n_board] += flat.take(second)
    scores = gains - costs
    count = min(limit, scores.size)
    top = np.argpartition(scores, scores.size - count)[scores.size - count :]
    out: list[Explanation] = []
    turn = position.turn
    stacks = position.piece_stacks
    current = f.current_list
    under_list = under.tolist()
    for i, gain, cost in zip(top.tolist(), gains[top].tolist(), costs[top].tolist(), strict=True):
        if cost == np.inf:
            continue
        if i < n_place:
            r, j = divmod(i, 2 * max_piece)
            sq, cls = squares[r], j + 1
            color, size = divmod(j, max_piece)
            size += 1
            codes = f.placements(size, sq) if color == turn and cost == 0.0 else None
            if codes:
                out.extend(Explanation(Kind.MOVE, gain, ((sq, cls),), (c,)) for c in codes)
            else:
                action = Action(ActionKind.PLACE, color, size, to=sq)
                out.append(Explanation(Kind.ILLEGAL, gain, ((sq, cls),), action=action))
        elif i < n_place + n_board:
            r, t = divmod(i - n_place, n)
            origin, to = squares[r], squares[t]
            piece = stacks[origin][-1]
            changes = ((origin, under_list[r]), (to, current[r]))
            if cost == 0.0:
                out.append(Explanation(Kind.MOVE, gain, changes, (encode_board_move(origin, to),)))
            else:
                action = Action(ActionKind.MOVE, piece_color(piece), piece_size(piece), to=to, origin=origin)
                out.append(Explanation(Kind.ILLEGAL, gain, changes, action=action))
        else:
            r = i - n_place - n_board
            origin = squares[r]
            piece = stacks[origin][-1]
            action = Action(ActionKind.LIFT, piece_color(piece), piece_size(piece), origin=origin)
            out.append(Explanation(Kind.LIFT, gain, ((origin, under_list[r]),), action=action))
    return out


def _takeback(position: Position, view: View) -> Explanation:
    f = view.tops
    changes = f.undone
    if changes is None:
        # read off the stacks, not by popping the move: the square it landed on shows the cup
        # under the one it put there, and the square it left (a board move) that cup again
        code = position.last_code
        assert code is not None
        stack = position.piece_stacks[code_to(code)]
        shown = [(code_to(code), stack[-2] if len(stack) > 1 else None)]
        if is_board_move(code):
            shown.append((code_from(code), stack[-1]))
        changes = f.undone = tuple((sq, view.piece_class(piece)) for sq, piece in shown)
    gain = sum(view.gain[f.row[sq]][cls] for sq, cls in changes)
    return Explanation(Kind.TAKEBACK, gain, changes)


def after_end(view: View) -> Explanation:
    """The game is over: the board may show anything (it is being cleared away)."""
    changes = tuple((sq, view.reading[r]) for r, sq in enumerate(view.squares) if view.slack[r] > 0)
    return Explanation(Kind.AFTER_END, view.total_slack, changes)


def two_move_explanations(
    position: Position, view: View, changed: set[Square], least: float = -np.inf
) -> list[Explanation]:
    """A legal move and a legal reply whose every square is among ``changed``, gaining at
    least ``least`` beyond their own prior (the caller's floor: pairs below it are left out,
    and pairs that cannot reach it are never scored; ``ROUNDING`` below it still
    count, so that a caller comparing the full score to the same floor decides the ties).

    Each move changes the square it lands on, and the square it leaves, in the final view
    (a later cup on top is larger, so it shows differently); so pruning to changed squares
    loses no pair that explains the board. A reply may land on the cup the first move put
    down: what that cup was is then hidden, and every such pair predicts the same view (the
    reconciler keeps them all until a lift shows which it was). Such a pair is a rarer event
    than two moves that both show (``HIDDEN_FIRST``): it looks exactly like a move of the
    opponent's cup or a second move in a row, and those are called illegal first.

    A pair gains at most the slack of the squares it touches (what their best reading beats
    the current top by), so a first move whose squares plus the two best others cannot reach
    ``least`` is skipped without generating the replies, and so is each such reply.
    (The reconciler drops whatever falls below its floor anyway: most pairs do, and are
    not made into explanations at all.)
    """
    out: list[Explanation] = []
    slack, row, gain = view.slack, view.row, view.gain
    worth = {sq: slack[row[sq]] for sq in changed}
    best_two = sum(sorted(worth.values(), reverse=True)[:2])
    # the square the first move lands on ends up showing its cup, or a cup of the reply's
    # colour on top of it (the reply cannot move it away)
    max_piece, turn = view.max_piece, position.turn
    classes = piece_classes(max_piece)
    replies = [classes[piece_code(turn ^ 1, size)] for size in range(1, max_piece + 1)]
    covered = {sq: max(gain[row[sq]][cls] for cls in replies) for sq in changed}
    current, under = view.tops.current_list, view.tops.under_list
    within = 0
    for sq in changed:
        within |= 1 << sq
    gains = {sq: gain[row[sq]] for sq in changed}  # (the rows the pairs are scored on)
    by_worth = sorted(worth.items(), key=_second, reverse=True)
    for first in position.legal_codes(within):
        to = code_to(first)
        if is_board_move(first):
            origin = code_from(first)
            shown, reach = current[row[origin]], worth[origin]
        else:
            origin, shown, reach = -1, classes[placed_piece(first, turn)], 0.0
        if reach + max(gain[row[to]][shown], covered[to]) + best_two < least - ROUNDING:
            continue
        left = under[row[origin]] if origin >= 0 else 0
        if _pair_bound(to, shown, origin, left, gains, worth, covered, by_worth) < least - ROUNDING:
            continue
        position.push_code(first)
        try:
            if position.line_result() is None:
                out += _scored_replies(position, view, first, within, gains, worth, least)
        finally:
            position.pop_code()
    return out


def _pair_bound(
    to: Square,
    shown: int,
    origin: Square,
    left: int,
    gains: dict[Square, list[float]],
    worth: dict[Square, float],
    covered: dict[Square, float],
    by_worth: list[tuple[Square, float]],
) -> float:
    """The most a pair can gain whose first move lands on ``to`` showing class ``shown``
    there (from ``origin`` showing ``left`` after it; -1 for a placement), before its replies
    are generated: the reply leaves both squares as the first move did, or covers ``to``
    (gaining at most ``covered`` there), or lands on or leaves ``origin`` (at most its slack);
    each other square it touches gains at most its slack (``by_worth``: best first)."""
    others = [w for sq, w in by_worth if sq != to and sq != origin][:2]
    one = others[0] if others else 0.0
    two = one + others[1] if len(others) > 1 else one
    at_to = gains[to][shown]
    if origin < 0:
        return max(at_to + two, covered[to] + one)
    return max(at_to + gains[origin][left] + two, max(covered[to], at_to) + worth[origin] + one)


def _second(item: tuple[Square, float]) -> float:
    return item[1]


def _scored_replies(
    position: Position,
    view: View,
    first: int,
    within: int,
    gains: dict[Square, list[float]],
    worth: dict[Square, float],
    least: float,
) -> list[Explanation]:
    """Every reply to ``first`` (already pushed) within the changed squares (``within``;
    ``gains`` and ``worth`` by square) whose squares' slack, then gain (less the pair's
    prior), reach ``least``, scored as a pair. What a pair shows is read off the stacks (no
    push): the square the reply lands on shows its cup, the square it leaves the cup under
    it, a square only the first move touched its top after it. (The first move's part is
    computed once: this is the search's innermost loop.)"""
    stacks, turn = position.piece_stacks, position.turn
    classes = piece_classes(view.max_piece)
    first_to = code_to(first)
    touched = code_squares(first)[::-1]  # (destination, origin) or (destination,)
    after_first = {sq: classes[stacks[sq][-1]] if stacks[sq] else 0 for sq in touched}
    first_changes = tuple(after_first.items())
    out = []
    for second in position.legal_codes(within):
        to = code_to(second)
        if is_board_move(second):
            origin = code_from(second)
            stack = stacks[origin]
            reply: tuple[tuple[Square, int], ...] = (
                (to, classes[stack[-1]]),
                (origin, classes[stack[-2]] if len(stack) > 1 else 0),
            )
        else:
            origin = -1
            reply = ((to, classes[placed_piece(second, turn)]),)
        # the squares in order: the first move's (destination, origin), then the reply's new ones
        if to in after_first or origin in after_first:
            shows = dict(reply)
            changes = tuple((sq, shows.get(sq, cls)) for sq, cls in first_changes) + tuple(
                change for change in reply if change[0] not in after_first
            )
        else:
            changes = first_changes + reply
        if sum([worth[sq] for sq, _ in changes]) < least:
            continue
        pair_gain = sum([gains[sq][cls] for sq, cls in changes])
        hidden = HIDDEN_FIRST if to == first_to else 0.0
        if pair_gain - hidden < least - ROUNDING:
            continue
        out.append(Explanation(Kind.TWO_MOVES, pair_gain, changes, (first, second), prior=hidden))
    return out


# ----- deciding -----------------------------------------------------------------------------------


def decide(
    game: Game,
    observation: Observation,
    settings: Settings = DEFAULT_SETTINGS,
    *,
    two_moves: bool = True,
    allow_misread: bool = True,
    **options: Any,
) -> Decision:
    """Score every candidate against one ``observation`` and accept one only if it is clearly right.

    ``options`` are ``explain``'s (moves, illegal, lifts, takeback, new_game, reveal). Two
    moves are tried only when no single action explains the board cleanly, or the best
    single one is illegal (the opponent's reply while the board was covered can look like an
    illegal second move by one side). Accepting an explanation that leaves one square it does
    not touch unexplained (a misread) is allowed only when nothing explains the board cleanly.
    """
    position = game.position
    view = View(position, observation, settings.outlier)
    ranked = explain(position, view, **options)
    moves = options.get("moves", True)
    best = ranked[0]
    if two_moves and moves and (not clean(view, best, settings) or best.kind is Kind.ILLEGAL):
        changed = view.likeliest_changed(settings.changed, settings.max_changed)
        ranked.extend(two_move_explanations(position, view, changed))
    ranked.sort(key=_score, reverse=True)
    ranked = ranked[:8]
    for explanation in ranked:
        explanation.flaws = sum(s > settings.misread for s in view.after(explanation))
    return _decision(position, view, ranked, settings, allow_misread)


def _score(explanation: Explanation) -> float:
    return explanation.score


def clean(view: View, explanation: Explanation, settings: Settings) -> bool:
    """True when the explanation accounts for every square of the board."""
    slack = view.after(explanation)
    return sum(slack) <= settings.clean and max(slack) <= settings.misread


def fits(
    view: View, explanation: Explanation, settings: Settings
) -> tuple[bool, tuple[Square, ...], Square | None]:
    """Whether the explanation accounts for the board but for at most one misread square that
    it does not change; the squares that contradict it; that misread square, if any."""
    slack = view.after(explanation)
    contradicting = tuple(sq for sq, s in zip(view.squares, slack, strict=True) if s > settings.misread)
    if sum(slack) <= settings.clean and not contradicting:
        return True, contradicting, None
    misread = _lone_misread(explanation, contradicting, slack, view, settings)
    return misread is not None, contradicting, misread


def _residual(view: View, explanation: Explanation) -> float:
    return view.total_slack - explanation.gain


def _decision(
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
        decision.reason = unexplained_reason(view, contradicting)
        return decision
    if margin < settings.margin:
        decision.reason = f"cannot tell {ranked[0].describe(position)} from {ranked[1].describe(position)}"
        return decision
    decision.accepted = best
    decision.misread = misread
    return decision


def _lone_misread(
    best: Explanation,
    contradicting: tuple[Square, ...],
    slack: list[float],
    view: View,
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


def unexplained_reason(view: View, contradicting: tuple[Square, ...]) -> str:
    shown = ", ".join(f"{square_name(sq)} reads {view.reading_text(sq)}" for sq in contradicting[:6])
    return f"no move explains the board ({shown})" if shown else "no move explains the board"
