"""The likelihood tables: a reading scored against what a position shows.

A square's reading is trusted as ``(1 - e) p + e / k``: the reader's probability ``p`` of the
predicted class, mixed with a floor ``e / k`` (``e`` = ``outlier``, ``k`` classes) for a
reading that is simply wrong whatever its confidence. So one square can never count for more
than ``log(k / e)`` (about 6.1 nats at e = 0.02): a misread the reader is sure of costs a
bounded amount instead of vetoing the truth (``Likelihood``).

Scores are kept relative to "no change", so an account costs only the squares it changes:
``View.G[row][cls]`` is what showing ``cls`` on ``row`` adds to the log-likelihood. What a
position shows and allows (its tops, the cups under them, its legal codes) is its
``PositionTops``, cached per position; the index tables that price and score every single
physical action of it at once with numpy (``action_costs``, ``gather``) are built from it.
``reach`` bounds what any account of a reading could gain from a position, from its tops
alone. The decoder (``decoder.py``) turns these scores into accounts.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from functools import cache

import numpy as np

from companion.errors import CompanionError
from companion.reconciler.accounts import DEFAULT_SETTINGS, PRIOR, ROUNDING, Explanation, Kind
from companion.rules.codes import (
    MoveCode,
    code_from,
    code_size,
    code_to,
    is_board_move,
    piece_color,
    piece_size,
)
from companion.rules.position import Position
from companion.rules.square import Square, board_squares
from companion.vision.observation import Observation, class_index, class_top


class Likelihood:
    """One observation's per-square log-likelihood of every class, floored (see the module)."""

    def __init__(self, observation: Observation, outlier: float) -> None:
        probs = np.clip(np.asarray(observation.probabilities, dtype=float), 0.0, None)
        probs /= np.maximum(probs.sum(axis=1, keepdims=True), 1e-12)
        k = probs.shape[1]
        self.size = observation.size
        self.max_piece = observation.max_piece
        self.probs = probs
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
class PositionTops:
    """What a position shows and allows (cached per position): each square's top class, the
    class under it and the top's size, and the legal move codes. The cost in nats of every
    single action (``action_costs``) and where each action's gain is read (``gather``) are built
    from them when first asked: tops built for themselves alone (a resync, ``reach``'s
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
    costs: dict[tuple[bool, bool, bool, bool], np.ndarray]  # by explain's options
    gather: tuple[np.ndarray, np.ndarray] | None = None  # ``gather`` for these tops
    undone: tuple[tuple[Square, int], ...] | None = None  # what taking the last move back shows
    placed: dict[tuple[int, Square], list[MoveCode]] | None = None  # legal placements by (size, square)

    def placements(self, size: int, sq: Square) -> list[int]:
        """The legal codes that put a cup of ``size`` on ``sq`` (one per distinct external
        stack it may come from), grouped once per position when first asked."""
        if self.placed is None:
            self.placed = {}
            for code in self.codes:
                if not is_board_move(code):
                    self.placed.setdefault((code_size(code), code_to(code)), []).append(code)
        return self.placed.get((size, sq), [])

    def fits_elsewhere(self, r: int) -> bool:
        """Whether the top of row ``r`` could be put down on another square (a smaller top
        or an empty square), legal or not."""
        size = self.top_size[r]
        return size > 0 and any(other < size for other in self.top_size)


TopsKey = tuple[int, int, int, bool, MoveCode | None]
_TOPS_CACHE: OrderedDict[TopsKey, PositionTops] = OrderedDict()
_TOPS_CACHE_SIZE = 256  # the lines of a few readings: more only slows the garbage collector
_SQUARES: dict[int, tuple[tuple[Square, ...], dict[Square, int]]] = {}


def _squares(size: int) -> tuple[tuple[Square, ...], dict[Square, int]]:
    entry = _SQUARES.get(size)
    if entry is None:
        squares = tuple(board_squares(size))
        entry = _SQUARES[size] = (squares, {sq: r for r, sq in enumerate(squares)})
    return entry


def _tops_key(position: Position) -> TopsKey:
    """The cache key of a position's tops: the position's identity (pieces, reserves, side to move), whether
    the game is decided, and the last move (what a takeback shows)."""
    return (id(position.tables), position.hash, position.turn, not position.line_decided, position.last_code)


def position_tops(position: Position) -> PositionTops:
    """The tops of ``position`` (cached by ``_tops_key``)."""
    key = _tops_key(position)
    cached = _TOPS_CACHE.get(key)
    if cached is not None:
        _TOPS_CACHE.move_to_end(key)
        return cached
    squares, row = _squares(position.size)
    current, under, top_size = _tops(position, squares)
    entry = PositionTops(
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
    _TOPS_CACHE[key] = entry
    if len(_TOPS_CACHE) > _TOPS_CACHE_SIZE:
        _TOPS_CACHE.popitem(last=False)
    return entry


def _tops(position: Position, squares: tuple[Square, ...]) -> tuple[list[int], list[int], list[int]]:
    """Each square's top class, the class under it, and the top's size (0: empty)."""
    classes = piece_classes(position.variant.max_piece)
    piece_stacks = position.piece_stacks
    stacks = [piece_stacks[sq] for sq in squares]
    current = [classes[stack[-1]] if stack else 0 for stack in stacks]
    under = [classes[stack[-2]] if len(stack) > 1 else 0 for stack in stacks]
    top_size = [piece_size(stack[-1]) if stack else 0 for stack in stacks]
    return current, under, top_size


@cache
def piece_classes(max_piece: int) -> tuple[int, ...]:
    """Probability column of each piece code (``View.piece_class``), by code; 0 (no piece) for
    an empty square."""
    return (
        0,
        0,
        *(
            class_index((piece_color(piece), piece_size(piece)), max_piece)
            for piece in range(2, (max_piece + 1) << 1)
        ),
    )


@dataclass(frozen=True, slots=True)
class Reach:
    """The most any account of a reading from a position could score, from its tops alone
    (no action scored, no explanation made): a line of moves whose best possible account
    falls further behind another line's actual one than the reconciler keeps need not be
    scored at all. Most lines the reconciler holds are alternatives a confident reading
    already contradicts on one square, and the next reading contradicts them again."""

    base: float  # log-likelihood of "no change"
    base_row: np.ndarray  # each square's part of it
    current: np.ndarray  # the tops it was scored against (``PositionTops.current``)
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
    def total_slack(self) -> float:
        """How far the tops fall short of the best reading, over every square."""
        return float(self.slack.sum())

    def never_clean(self, clean: float) -> bool:
        """Whether no single action can explain the board cleanly (``decoder.clean``: leave
        at most ``clean`` of its slack unexplained), the slack exceeding the most one could
        gain by more than that (and than rounding): its accounts need not be scored to know."""
        return float(self.slack.sum()) - self.single > clean + ROUNDING


def most_two(slack: np.ndarray) -> float:
    """Most two moves could gain, given what changing each square could add (``slack``):
    the four squares that disagree most."""
    return float(np.sort(slack)[-4:].sum())


def reach(position: Position, likelihood: Likelihood) -> Reach:
    """Upper bounds of the gains ``explain`` can find from ``position`` (before the game is
    over), ignoring legality and priors (both only lower a score): a cup of any class put on
    any square, any top moved to any square (its origin showing the cup under it), any top
    lifted, every square emptied (a new game); a takeback is one of those physically.
    (The tops are the position's cached ones: a line scored after all uses them, and
    building it for one that is not costs about what reading the tops twice did.)"""
    f = position_tops(position)
    current, under = f.current, f.under
    log, rows = likelihood.log, likelihood.rows
    base = log[rows, current]
    G = log - base[:, None]
    best_of = G.max(axis=0)  # the most showing each class anywhere can gain
    occupied = current > 0
    moved = (G[rows, under] + best_of[current])[occupied]  # lift, then (or not) put down
    single = max(float(best_of[1:].max()), float(moved.max(initial=0.0)), float(G[occupied, 0].sum()), 0.0)
    return Reach(float(base.sum()), base, current, single, likelihood.best - base)


def action_costs(
    position: Position, f: PositionTops, moves: bool, illegal: bool, lifts: bool, takeback: bool
) -> np.ndarray:
    """Costs of every placement (square x class 1..2S), board move (origin x destination)
    and lift (square) for these options, flat in that order (cached per position's tops): an action
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
    undo = reverse_of_last_move(position) if takeback and illegal else None
    if undo is not None:
        flat[n * width + f.row[undo[0]] * n + f.row[undo[1]]] = np.inf  # a takeback, not an illegal move
    if moves or illegal:
        flat[_legal_index(f)] = 0.0 if moves else np.inf
    placed = last_placement(position) if takeback else None
    if placed is not None:
        flat[lifted + f.row[placed]] = np.inf
    f.costs[key] = flat
    return flat


@cache
def _cost_tables(n: int, max_piece: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """For ``action_costs``' flat array, over the sizes of the tops (n squares), a 0, and the cups
    of each class: where the size of the cup each action moves is, where the size of what
    it goes on is (a lift: the 0), and the prior of the action if it can happen."""
    width = 2 * max_piece
    squares, classes = np.arange(n), n + 1 + np.arange(width)
    mover = np.concatenate((np.tile(classes, n), np.repeat(squares, n), squares))
    target = np.concatenate((np.repeat(squares, width), np.tile(squares, n), np.full(n, n)))
    prior = np.full(mover.size, PRIOR[Kind.ILLEGAL])
    prior[n * width + n * n :] = PRIOR[Kind.LIFT]
    return mover, target, prior, [0, *(list(range(1, max_piece + 1)) * 2)]


def _legal_index(f: PositionTops) -> list[int]:
    """The legal move codes as positions in ``action_costs``' flat array (looked up: the codes of
    a side recur from one position to the next)."""
    key = (len(f.squares), f.max_piece, f.turn)
    positions = _CODE_POSITIONS.get(key)
    if positions is None:
        positions = _CODE_POSITIONS[key] = _CodePositions(*key, f.row)
    return list(map(positions.__getitem__, f.codes))


class _CodePositions(dict[MoveCode, int]):
    """Move code -> its position in ``action_costs``' flat array, for one board and side to move,
    filled as codes are first asked for."""

    def __init__(self, n: int, max_piece: int, turn: int, row: dict[Square, int]) -> None:
        super().__init__()
        self.n, self.width, self.row = n, 2 * max_piece, row
        self.places = turn * max_piece - 1  # a placement's class, less its size

    def __missing__(self, code: int) -> int:
        row, to = self.row, code_to(code)
        if is_board_move(code):
            self[code] = position = self.n * self.width + row[code_from(code)] * self.n + row[to]
        else:
            self[code] = position = row[to] * self.width + self.places + code_size(code)
        return position


_CODE_POSITIONS: dict[tuple[int, int, int], _CodePositions] = {}  # by squares, cup sizes, side to move


def gather(f: PositionTops, under: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each single action's gain is read in the flat gain matrix (squares x classes),
    in ``action_costs``' order: a placement's on its square and class; a board move's on its
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
        self.tops = f = position_tops(position)
        self.squares = f.squares
        self.row = f.row
        self.likelihood = likelihood
        log = likelihood.log
        base = log[likelihood.rows, f.current]
        self.G = log - base[:, None]
        self.base_row = base
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
        return 0 if piece is None else piece_classes(self.max_piece)[piece]

    def changed_squares(self, margin: float) -> set[Square]:
        """Squares whose reading leaves another class within ``margin`` of the current one:
        the ones a move may have changed (a misread can make a changed square look the same)."""
        G = self.G.copy()
        G[self.likelihood.rows, self.tops.current] = -np.inf
        close = (-margin < G).any(axis=1)
        return {self.squares[r] for r in np.flatnonzero(close).tolist()}

    def likeliest_changed(self, margin: float, most: int) -> set[Square]:
        """``changed_squares``, but at most ``most`` of them: those read furthest from what
        the board shows now (the largest slack; ties by square). A dim or shadowed board
        leaves many squares with another class close to their top; two moves touch at most
        four squares, and the ones they touch are read as changed, so the squares read as
        the same (slack 0) are the ones a pair can spare. Searching none of them when there
        are many misses the moves a board never seen in between leaves."""
        changed = self.changed_squares(margin)
        if len(changed) <= most:
            return changed
        slack, row = self.slack, self.row
        return set(sorted(changed, key=lambda sq: (-slack[row[sq]], sq))[:most])

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


def reverse_of_last_move(position: Position) -> tuple[Square, Square] | None:
    """The board move that would undo the last move: a takeback, not an illegal move."""
    code = position.last_code
    if code is None or not is_board_move(code):
        return None
    return (code_to(code), code_from(code))


def last_placement(position: Position) -> Square | None:
    """Where the last move put a cup from off the board: lifting it looks like taking it back."""
    code = position.last_code
    if code is None or is_board_move(code):
        return None
    return code_to(code)
