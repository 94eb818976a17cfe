"""Decoding an observation against the rules: which action best explains what the camera sees.

The camera sees only tops, each as a probability over classes. Every candidate explanation
(no change, each legal move, each illegal physical action, a lift, a takeback, two legal moves
made while the board was covered) predicts the top of every square, and is scored by the
log-likelihood of that prediction under the observation. Because the full game is known, a
candidate predicts hidden cups too: lifting a stack shows exactly the cup it hid.

**The likelihood.** A square's reading is trusted as ``(1 - e) p + e / k``: the reader's
probability ``p`` of the predicted class, mixed with a floor ``e / k`` (``e`` = ``outlier``,
``k`` classes) for a reading that is simply wrong whatever its confidence. So one square can
never count for more than ``log(k / e)`` (about 6.1 nats at e = 0.02): a misread the reader is
sure of costs a bounded amount instead of vetoing the truth, and the reconciler knows that one
square of one reading never proves anything beyond doubt (the next reading re-reads it).

Scores are kept relative to "no change", so a candidate costs only the squares it changes:
``gain[row][cls]`` is what showing ``cls`` on ``row`` adds to the log-likelihood. Single actions
are scored all at once with numpy (every placement, board move and lift of either colour), and
only the best few become ``Explanation`` objects.

``decide`` accepts the best candidate of one reading only when it explains the whole board (or
all of it but one square it does not touch: a misread) and beats every other candidate by a
clear margin. The reconciler does more: it keeps every path of moves that is still plausible
and scores each by all the readings since (``reconciler.py``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any

import numpy as np

from companion.errors import CompanionError
from companion.reconciler.referee import Action, ActionKind
from companion.rules.game import Game
from companion.rules.position import BOARD_FLAG, Position, encode_board_move
from companion.rules.square import Square, board_squares, square_name
from companion.vision.observation import Observation, class_index, class_top


class Kind(StrEnum):
    NO_CHANGE = "no-change"
    MOVE = "move"  # one legal move
    TWO_MOVES = "two-moves"  # a legal move and the reply, made while the board was covered
    TAKEBACK = "takeback"  # the board shows the position before the last move
    LIFT = "lift"  # a top cup is in the air
    ILLEGAL = "illegal"  # a physical action the rules do not allow
    NEW_GAME = "new-game"  # the board shows the start position again
    AFTER_END = "after-end"  # the game is over: whatever the board shows is not the referee's business


# Log-odds (nats) against each kind before any evidence: a plain move or nothing is the normal
# case; a takeback, a lift, an illegal action, two moves at once are each rarer. All are below
# the margin, so they order near-ties but never decide between two explanations that predict
# the same view: those are reported as ambiguous.
PRIOR: dict[Kind, float] = {
    Kind.NO_CHANGE: 0.0,
    Kind.MOVE: 0.0,
    Kind.TAKEBACK: 0.5,
    Kind.LIFT: 0.5,
    Kind.TWO_MOVES: 3.5,
    Kind.NEW_GAME: 2.0,
    Kind.ILLEGAL: 1.0,
    Kind.AFTER_END: 6.0,
}


@dataclass(frozen=True)
class Settings:
    """The decoder's and the reconciler's thresholds, in nats (natural-log likelihood ratios)."""

    margin: float = 4.0  # announce: the best beats every other reading of the board 55 to 1
    outlier: float = 0.02  # chance that a square's reading is wrong whatever its confidence
    clean: float = 4.0  # residual below which an explanation accounts for the whole board
    misread: float = 2.0  # a square whose reading contradicts the explanation by more is a misread
    max_changed: int = 8  # more changed squares than this is not two moves: skip that search
    changed: float = 4.0  # a square may have changed when another class reads within this of its top
    keep: float = 10.0  # paths this far behind the best stay alive (two confident misreads)
    doubt: float = 7.0  # an earlier move is unsure while a path this close plays another
    width: int = 8  # paths kept at most
    lines: int = 6  # of them, different lines of moves at most (each costs a scoring of a reading)


DEFAULT_SETTINGS = Settings()
HIDDEN_FIRST = 3.0  # extra log-odds against two moves whose first cup the second one covers
_ROUNDING = (
    1e-6  # nats: more than the scores' rounding can differ by, summed in another order (~1e-16 of them)
)
CANDIDATES = 10  # single actions turned into explanations per position


@dataclass(slots=True)
class Explanation:
    """One way the board could have come to look as observed."""

    kind: Kind
    gain: float  # log-likelihood over "no change"
    changes: tuple[tuple[Square, int], ...]  # (square, class it shows afterwards)
    codes: tuple[int, ...] = ()  # legal move codes played, in order
    action: Action | None = None  # the physical action (ILLEGAL, LIFT)
    flaws: int = 0  # squares whose reading contradicts it (set when ranked)
    prior: float = 0.0  # log-odds against it beyond its kind's

    @property
    def score(self) -> float:
        return self.gain - PRIOR[self.kind] - self.prior

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


class Likelihood:
    """One observation's per-square log-likelihood of every class, floored (see the module)."""

    def __init__(self, observation: Observation, outlier: float) -> None:
        probs = np.clip(np.asarray(observation.probabilities, dtype=float), 0.0, None)
        probs /= np.maximum(probs.sum(axis=1, keepdims=True), 1e-12)
        k = probs.shape[1]
        self.size = observation.size
        self.max_piece = observation.max_piece
        self.log = np.log((1.0 - outlier) * probs + outlier / k)
        self.best = self.log.max(axis=1)
        self.reading = np.argmax(self.log, axis=1)
        self.rows = np.arange(self.log.shape[0])
        self._reading_list: list[int] | None = None

    @property
    def reading_list(self) -> list[int]:
        if self._reading_list is None:
            self._reading_list = self.reading.tolist()
        return self._reading_list


@dataclass(slots=True, eq=False)
class Frame:
    """What a position shows and allows (cached per position): each square's top class, the
    class under it and the top's size, and the legal move codes. The cost in nats of every
    single action (``_costs``) and where each action's gain is read (``_gather``) are built
    from them when first asked: a frame built for its tops alone (a resync, ``reach``'s
    look-up) never needs them."""

    squares: tuple[Square, ...]
    row: dict[Square, int]
    turn: int
    max_piece: int
    codes: list[int]  # the legal move codes
    current: np.ndarray
    under: np.ndarray
    current_list: list[int]
    under_list: list[int]
    top_size: list[int]
    costs: dict[tuple, np.ndarray]
    gather: tuple[np.ndarray, np.ndarray] | None = None  # ``_gather`` for the frame's own tops
    undone: tuple[tuple[Square, int], ...] | None = None  # what taking the last move back shows
    placed: dict[int, list[int]] | None = None  # legal placement codes by size << 8 | square

    def placements(self, size: int, sq: Square) -> list[int]:
        """The legal codes that put a cup of ``size`` on ``sq`` (one per distinct external
        stack it may come from), grouped once per frame when first asked."""
        if self.placed is None:
            self.placed = {}
            for code in self.codes:
                if not code & BOARD_FLAG:
                    self.placed.setdefault(code & 0xFFF, []).append(code)
        return self.placed.get(size << 8 | sq, [])

    def fits_elsewhere(self, r: int) -> bool:
        """Whether the top of row ``r`` could be put down on another square (a smaller top
        or an empty square), legal or not."""
        size = self.top_size[r]
        return size > 0 and any(other < size for other in self.top_size)


_FRAMES: OrderedDict[tuple, Frame] = OrderedDict()
_FRAME_CACHE_SIZE = 256  # the lines of a few readings: more only slows the garbage collector
_SQUARES: dict[int, tuple[tuple[Square, ...], dict[Square, int]]] = {}


def _squares(size: int) -> tuple[tuple[Square, ...], dict[Square, int]]:
    entry = _SQUARES.get(size)
    if entry is None:
        squares = tuple(board_squares(size))
        entry = _SQUARES[size] = (squares, {sq: r for r, sq in enumerate(squares)})
    return entry


def _frame_key(position: Position) -> tuple:
    """A frame's cache key: the position's identity (pieces, reserves, side to move), whether
    the game is decided, and the last move (what a takeback shows)."""
    last = position._undo[-1][0] if position._undo else -1
    return (id(position._tables), position._hash, position.turn, position._result is None, last)


def frame(position: Position) -> Frame:
    """The frame of ``position`` (cached by ``_frame_key``)."""
    key = _frame_key(position)
    cached = _FRAMES.get(key)
    if cached is not None:
        _FRAMES.move_to_end(key)
        return cached
    squares, row = _squares(position.size)
    current, under, top_size = _tops(position, squares)
    entry = Frame(
        squares,
        row,
        position.turn,
        position.variant.max_piece,
        position.legal_codes(),
        np.array(current),
        np.array(under),
        current,
        under,
        top_size,
        {},
    )
    _FRAMES[key] = entry
    if len(_FRAMES) > _FRAME_CACHE_SIZE:
        _FRAMES.popitem(last=False)
    return entry


def _tops(position: Position, squares: tuple[Square, ...]) -> tuple[list[int], list[int], list[int]]:
    """Each square's top class, the class under it, and the top's size (0: empty)."""
    classes = _piece_classes(position.variant.max_piece)
    stacks = [position._stacks[sq] for sq in squares]
    current = [classes[stack[-1]] if stack else 0 for stack in stacks]
    under = [classes[stack[-2]] if len(stack) > 1 else 0 for stack in stacks]
    top_size = [stack[-1] >> 1 if stack else 0 for stack in stacks]
    return current, under, top_size


@cache
def _piece_classes(max_piece: int) -> tuple[int, ...]:
    """Probability column of each piece code (``View.piece_class``), by code; 0 (no piece) for
    an empty square."""
    return (
        0,
        0,
        *(class_index((piece & 1, piece >> 1), max_piece) for piece in range(2, (max_piece + 1) << 1)),
    )


@dataclass(frozen=True, slots=True)
class Reach:
    """The most any account of a reading from a position could score, from its tops alone
    (no action scored, no explanation made): a line of moves whose best possible account
    falls further behind another line's actual one than the reconciler keeps need not be
    scored at all. Most lines the reconciler holds are alternatives a confident reading
    already contradicts on one square, and the next reading contradicts them again."""

    base: float  # log-likelihood of "no change"
    single: float  # most one action (a takeback, a new game) could gain over it
    slack: np.ndarray  # each square's best reading over its top

    @property
    def best(self) -> float:
        return self.base + self.single

    @property
    def ended(self) -> float:
        """The score of "the game is over, the board is being cleared" (``after_end``)."""
        return self.base + float(self.slack.sum()) - PRIOR[Kind.AFTER_END]

    @property
    def two(self) -> float:
        """Most two moves could gain: the four squares that disagree most."""
        return float(np.sort(self.slack)[-4:].sum())

    def never_clean(self, clean: float) -> bool:
        """Whether no single action can explain the board cleanly (``decoder.clean``: leave
        at most ``clean`` of its slack unexplained), the slack exceeding the most one could
        gain by more than that (and than rounding): its accounts need not be scored to know."""
        return float(self.slack.sum()) - self.single > clean + _ROUNDING


def reach(position: Position, likelihood: Likelihood) -> Reach:
    """Upper bounds of the gains ``explain`` can find from ``position`` (before the game is
    over), ignoring legality and priors (both only lower a score): a cup of any class put on
    any square, any top moved to any square (its origin showing the cup under it), any top
    lifted, every square emptied (a new game); a takeback is one of those physically.
    (The tops are the position's frame's: a line scored after all uses that frame, and
    building it for one that is not costs about what reading the tops twice did.)"""
    f = frame(position)
    current, under = f.current, f.under
    log, rows = likelihood.log, likelihood.rows
    base = log[rows, current]
    G = log - base[:, None]
    best_of = G.max(axis=0)  # the most showing each class anywhere can gain
    occupied = current > 0
    moved = (G[rows, under] + best_of[current])[occupied]  # lift, then (or not) put down
    single = max(float(best_of[1:].max()), float(moved.max(initial=0.0)), float(G[occupied, 0].sum()), 0.0)
    return Reach(float(base.sum()), single, likelihood.best - base)


def _costs(
    position: Position, f: Frame, moves: bool, illegal: bool, lifts: bool, takeback: bool
) -> np.ndarray:
    """Costs of every placement (square x class 1..2S), board move (origin x destination)
    and lift (square) for these options, flat in that order (cached per frame): an action
    whose cup is larger than the top it goes on (or the square is empty) costs the illegal
    prior, or nothing when it is a legal move; lifting a top costs the lift prior; anything
    else cannot happen. (A handful of numpy calls over index tables: this runs once per new
    position of every line, and numpy costs per call at this size.)"""
    key = (moves, illegal, lifts, takeback)
    cached = f.costs.get(key)
    if cached is not None:
        return cached
    n, width = len(f.squares), 2 * f.max_piece
    lifted = n * width + n * n  # where the lifts start
    mover, target, prior, class_sizes = _cost_tables(n, f.max_piece)
    sizes = np.array(f.top_size + class_sizes)
    flat = np.where(sizes.take(mover) > sizes.take(target), prior, np.inf)
    if not illegal:
        flat[:lifted] = np.inf
    if not lifts:
        flat[lifted:] = np.inf
    undo = _reverse_of_last_move(position) if takeback and illegal else None
    if undo is not None:
        flat[n * width + f.row[undo[0]] * n + f.row[undo[1]]] = np.inf  # a takeback, not an illegal move
    if moves or illegal:
        flat[_legal_index(f)] = 0.0 if moves else np.inf
    placed = _last_placement(position) if takeback else None
    if placed is not None:
        flat[lifted + f.row[placed]] = np.inf
    f.costs[key] = flat
    return flat


@cache
def _cost_tables(n: int, max_piece: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """For ``_costs``' flat array, over the sizes of the tops (n squares), a 0, and the cups
    of each class: where the size of the cup each action moves is, where the size of what
    it goes on is (a lift: the 0), and the prior of the action if it can happen."""
    width = 2 * max_piece
    squares, classes = np.arange(n), n + 1 + np.arange(width)
    mover = np.concatenate((np.tile(classes, n), np.repeat(squares, n), squares))
    target = np.concatenate((np.repeat(squares, width), np.tile(squares, n), np.full(n, n)))
    prior = np.full(mover.size, PRIOR[Kind.ILLEGAL])
    prior[n * width + n * n :] = PRIOR[Kind.LIFT]
    return mover, target, prior, [0, *(list(range(1, max_piece + 1)) * 2)]


def _legal_index(f: Frame) -> list[int]:
    """The legal move codes as positions in ``_costs``' flat array (looked up: the codes of
    a side recur from one position to the next)."""
    key = (len(f.squares), f.max_piece, f.turn)
    positions = _CODE_POSITIONS.get(key)
    if positions is None:
        positions = _CODE_POSITIONS[key] = _CodePositions(*key, f.row)
    return list(map(positions.__getitem__, f.codes))


class _CodePositions(dict):
    """Move code -> its position in ``_costs``' flat array, for one board and side to move,
    filled as codes are first asked for."""

    def __init__(self, n: int, max_piece: int, turn: int, row: dict[Square, int]) -> None:
        super().__init__()
        self.n, self.width, self.row = n, 2 * max_piece, row
        self.places = turn * max_piece - 1  # a placement's class, less its size

    def __missing__(self, code: int) -> int:
        row, to = self.row, code & 0xFF
        if code & BOARD_FLAG:
            self[code] = position = self.n * self.width + row[(code >> 8) & 0xFF] * self.n + row[to]
        else:
            self[code] = position = row[to] * self.width + self.places + ((code >> 8) & 0xF)
        return position


_CODE_POSITIONS: dict[tuple[int, int, int], _CodePositions] = {}  # by squares, cup sizes, side to move


def _gather(f: Frame, under: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each single action's gain is read in the flat gain matrix (squares x classes),
    in ``_costs``' order: a placement's on its square and class; a board move's on its
    origin (the cup ``under`` it shows) plus, second, on its destination (the top moved
    there); a lift's on its origin. Two take() calls then score every action."""
    n = len(f.squares)
    rows, place = _gather_parts(n, 2 * f.max_piece + 1)
    lift = rows + under
    first = np.concatenate((place, np.repeat(lift, n), lift))
    second = (rows[None, :] + f.current[:, None]).ravel()  # origin x destination
    return first, second


@cache
def _gather_parts(n: int, classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's start in the flat gain matrix, and every placement's position in it."""
    rows = np.arange(n) * classes
    return rows, (rows[:, None] + np.arange(1, classes)).ravel()


class View:
    """An observation scored against a position's visible tops."""

    def __init__(
        self,
        position: Position,
        observation: Observation | None,
        outlier: float = DEFAULT_SETTINGS.outlier,
        likelihood: Likelihood | None = None,
    ) -> None:
        size, max_piece = position.size, position.variant.max_piece
        if likelihood is None:
            assert observation is not None
            likelihood = Likelihood(observation, outlier)
        if (likelihood.size, likelihood.max_piece) != (size, max_piece):
            raise CompanionError(
                f"observation is of a {likelihood.size}x{likelihood.size} board with cups up to "
                f"{likelihood.max_piece}, the game is {size}x{size} with cups up to {max_piece}"
            )
        self.max_piece = max_piece
        self.frame = f = frame(position)
        self.squares = f.squares
        self.row = f.row
        self.likelihood = likelihood
        log = likelihood.log
        base = log[likelihood.rows, f.current]
        self.G = log - base[:, None]
        self.current = f.current_list
        self.under = f.under_list
        self.top_size = f.top_size
        self.slack_array = likelihood.best - base
        self.base = float(base.sum())
        self.total_slack = float(self.slack_array.sum())
        self._gain: list[list[float]] | None = None
        self._slack: list[float] | None = None

    @property
    def gain(self) -> list[list[float]]:
        if self._gain is None:
            self._gain = self.G.tolist()
        return self._gain

    @property
    def slack(self) -> list[float]:
        if self._slack is None:
            self._slack = self.slack_array.tolist()
        return self._slack

    @property
    def reading(self) -> list[int]:
        return self.likelihood.reading_list

    def piece_class(self, piece: int | None) -> int:
        """Probability column of a piece code (``size << 1 | colour``), 0 for an empty square."""
        return 0 if piece is None else _piece_classes(self.max_piece)[piece]

    def changed_squares(self, margin: float) -> set[Square]:
        """Squares whose reading leaves another class within ``margin`` of the current one:
        the ones a move may have changed (a misread can make a changed square look the same)."""
        G = self.G.copy()
        G[self.likelihood.rows, self.frame.current] = -np.inf
        close = (-margin < G).any(axis=1)
        return {self.squares[r] for r in np.flatnonzero(close).tolist()}

    def after(self, explanation: Explanation) -> list[float]:
        """Each square's slack (how much its best reading beats the prediction) after it."""
        slack = list(self.slack)
        gain, row = self.gain, self.row
        for sq, cls in explanation.changes:
            r = row[sq]
            slack[r] -= gain[r][cls]
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
    if takeback and position._undo:
        out.append(_takeback(position, view))
    if new_game:
        changes = tuple((sq, 0) for sq in view.squares if position._stacks[sq])
        gain = sum(view.gain[view.row[sq]][0] for sq, _ in changes)
        out.append(Explanation(Kind.NEW_GAME, gain, changes))
    out.sort(key=_score, reverse=True)
    return out


def single_explanations(game: Game, view: View, **options) -> list[Explanation]:
    """``explain`` on a game's position (kept for callers of the first version)."""
    return explain(game.position, view, **options)


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
    f = view.frame
    squares, max_piece = f.squares, view.max_piece
    n = len(squares)
    costs = _costs(position, f, moves, illegal, lifts, takeback)
    under = f.under
    if reveal:
        under = under.copy()
        for sq, options in reveal.items():
            r = f.row[sq]
            if len(position._stacks[sq]) == 1:
                under[r] = max(options, key=view.gain[r].__getitem__)
        first, second = _gather(f, under)
    else:
        if f.gather is None:
            f.gather = _gather(f, under)
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
    stacks = position._stacks
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
                action = Action(ActionKind.MOVE, piece & 1, piece >> 1, to=to, origin=origin)
                out.append(Explanation(Kind.ILLEGAL, gain, changes, action=action))
        else:
            r = i - n_place - n_board
            origin = squares[r]
            piece = stacks[origin][-1]
            action = Action(ActionKind.LIFT, piece & 1, piece >> 1, origin=origin)
            out.append(Explanation(Kind.LIFT, gain, ((origin, under_list[r]),), action=action))
    return out


def _reverse_of_last_move(position: Position) -> tuple[Square, Square] | None:
    """The board move that would undo the last move: a takeback, not an illegal move."""
    code = _last_code(position)
    if code is None or not code & BOARD_FLAG:
        return None
    return (code & 0xFF, (code >> 8) & 0xFF)


def _last_placement(position: Position) -> Square | None:
    """Where the last move put a cup from off the board: lifting it looks like taking it back."""
    code = _last_code(position)
    if code is None or code & BOARD_FLAG:
        return None
    return code & 0xFF


def _last_code(position: Position) -> int | None:
    """The last move's code (``move_codes`` would copy them all)."""
    return position._undo[-1][0] if position._undo else None


def _takeback(position: Position, view: View) -> Explanation:
    f = view.frame
    changes = f.undone
    if changes is None:
        # read off the stacks, not by popping the move: the square it landed on shows the cup
        # under the one it put there, and the square it left (a board move) that cup again
        code = position._undo[-1][0]
        stack = position._stacks[code & 0xFF]
        shown = [(code & 0xFF, stack[-2] if len(stack) > 1 else None)]
        if code & BOARD_FLAG:
            shown.append(((code >> 8) & 0xFF, stack[-1]))
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
    and pairs that cannot reach it are never scored; ``_ROUNDING`` below it still
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
    classes = _piece_classes(max_piece)
    replies = [classes[size << 1 | turn ^ 1] for size in range(1, max_piece + 1)]
    covered = {sq: max(gain[row[sq]][cls] for cls in replies) for sq in changed}
    current, under = view.frame.current_list, view.frame.under_list
    within = 0
    for sq in changed:
        within |= 1 << sq
    gains = {sq: gain[row[sq]] for sq in changed}  # (the rows the pairs are scored on)
    by_worth = sorted(worth.items(), key=_second, reverse=True)
    for first in position.legal_codes(within):
        to = first & 0xFF
        if first & BOARD_FLAG:
            origin = (first >> 8) & 0xFF
            shown, reach = current[row[origin]], worth[origin]
        else:
            origin, shown, reach = -1, classes[((first >> 8) & 0xF) << 1 | turn], 0.0
        if reach + max(gain[row[to]][shown], covered[to]) + best_two < least - _ROUNDING:
            continue
        left = under[row[origin]] if origin >= 0 else 0
        if _pair_bound(to, shown, origin, left, gains, worth, covered, by_worth) < least - _ROUNDING:
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
    stacks, turn = position._stacks, position.turn
    classes = _piece_classes(view.max_piece)
    first_to = first & 0xFF
    touched = (first_to, (first >> 8) & 0xFF) if first & BOARD_FLAG else (first_to,)
    after_first = {sq: classes[stacks[sq][-1]] if stacks[sq] else 0 for sq in touched}
    first_changes = tuple(after_first.items())
    out = []
    for second in position.legal_codes(within):
        to = second & 0xFF
        if second & BOARD_FLAG:
            origin = (second >> 8) & 0xFF
            stack = stacks[origin]
            reply: tuple[tuple[Square, int], ...] = (
                (to, classes[stack[-1]]),
                (origin, classes[stack[-2]] if len(stack) > 1 else 0),
            )
        else:
            origin = -1
            reply = ((to, classes[((second >> 8) & 0xF) << 1 | turn]),)
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
        if pair_gain - hidden < least - _ROUNDING:
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
        changed = view.changed_squares(settings.changed)
        if len(changed) <= settings.max_changed:
            ranked.extend(two_move_explanations(position, view, changed))
    ranked.sort(key=_score, reverse=True)
    ranked = ranked[:8]
    for explanation in ranked:
        explanation.flaws = sum(s > settings.misread for s in view.after(explanation))
    return _judge(position, view, ranked, settings, allow_misread)


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
