"""Hidden cups when the companion starts mid-game: what each stack may hide, narrowed as cups
are lifted, and the most likely full position for the hint engine.

Without history only the tops are known. Under a top of size ``s`` lies a strictly growing
stack of smaller cups of either colour, possibly none. Which of those are possible is bound by
the piece counts: every cup not on the board is in its owner's external stacks, and those
must still be a set of stacks the variant deals out minus their tops (for classic: each
external stack is a tail ``k..1`` of ``4321``). Everything consistent with that is a
*hypothesis*; this module counts them with a dynamic programme over squares whose state is the
number of hidden cups of each colour and size, so it never lists them one by one.

When a cup is lifted and the square shows what it covered, ``reveal`` records that cup as
known (the unknown part below it shrinks to sizes under it), and the hypotheses narrow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise, product

import numpy as np
import numpy.ma  # np.unique imports it on first use: at start-up then, not in a resync

from companion.errors import CompanionError
from companion.rules.position import Piece, Position, Reserve, canonical_reserve
from companion.rules.square import COLOR_NAMES, Color, Square, square_name
from companion.rules.variant import Variant

Hidden = tuple[Piece, ...]  # a square's unknown part, bottom first
Counts = tuple[int, ...]    # hidden cups per (colour, size), index colour * S + size - 1


@dataclass
class StackKnowledge:
    """One square: the cups known (bottom first) and the size bound of the unknown part below
    them (every hidden cup is smaller than ``bound``; 1 or 0 means nothing can be hidden)."""

    known: list[Piece] = field(default_factory=list)
    bound: int = 0


class HiddenContents:
    """The set of full positions consistent with the visible tops and the piece counts."""

    def __init__(
        self, variant: Variant, tops: dict[Square, Piece], turn: Color = 0,
        known: dict[Square, list[Piece]] | None = None,
    ) -> None:
        """``known`` gives whole stacks (bottom first) already known, e.g. the stacks whose top
        did not change when the reconciler re-synchronises: nothing is hidden under them."""
        self.variant = variant
        self.turn = turn
        known = known or {}
        for sq, stack in known.items():
            if not stack or tuple(stack[-1]) != tuple(tops.get(sq, ())):
                raise CompanionError(f"the known stack of {square_name(sq)} does not end in its top")
        self.stacks: dict[Square, StackKnowledge] = {
            sq: StackKnowledge(list(known[sq]), 0) if sq in known else StackKnowledge([top], top[1])
            for sq, top in tops.items()
        }
        self._start_known = {sq: list(known.get(sq, [top])) for sq, top in tops.items()}
        self._placed = [0] * (2 * variant.max_piece)  # cups put on the board from the stacks since
        self._revealed: dict[Square, list[Piece]] = {}  # cups dug out of each start square, in order
        self._stale = True
        self.settle()

    def copy(self, turn: Color | None = None) -> HiddenContents:
        """An independent copy (with another side to move, if given), without counting again."""
        other = HiddenContents.__new__(HiddenContents)
        other.__dict__.update(self.__dict__)
        other.turn = self.turn if turn is None else turn
        other.stacks = {sq: StackKnowledge(list(k.known), k.bound) for sq, k in self.stacks.items()}
        other._start_known = {sq: list(v) for sq, v in self._start_known.items()}
        other._revealed = {sq: list(v) for sq, v in self._revealed.items()}
        other._placed = list(self._placed)
        return other

    # ----- narrowing ---------------------------------------------------------------------

    def move(self, origin: Square, to: Square, shown: Piece | None, solve: bool = True) -> None:
        """A cup moved from ``origin`` (which then showed ``shown``) to ``to``."""
        lifted = self.stacks[origin].known[-1] if origin in self.stacks else None
        if lifted is None:
            raise CompanionError(f"{square_name(origin)} holds no cup to move")
        self.reveal(origin, shown, solve=False)
        self.put(to, lifted, from_stacks=False, solve=solve)

    def reveal(self, sq: Square, shown: Piece | None, solve: bool = True) -> None:
        """The top cup of ``sq`` was lifted and the square now shows ``shown`` (None: empty).

        Only meaningful where the lifted cup was the last known one; elsewhere the history
        already says what is under it, and a contradiction is an error."""
        stack = self.stacks.get(sq)
        if stack is None or not stack.known:
            raise CompanionError(f"{square_name(sq)} holds no cup to lift")
        lifted = stack.known.pop()
        if stack.known:
            if stack.known[-1] != shown:
                raise CompanionError(f"{square_name(sq)} was known to hide {stack.known[-1]}, not {shown}")
        elif shown is None:
            stack.bound = 0
        else:
            if shown[1] >= min(stack.bound, lifted[1]) and stack.bound:
                raise CompanionError(f"{square_name(sq)} cannot hide a {shown[1]} under a {lifted[1]}")
            stack.known.append(shown)
            stack.bound = shown[1]
            self._revealed.setdefault(sq, []).append(shown)
        if not stack.known:
            del self.stacks[sq]
        self._stale = True
        if solve:
            self.settle()

    def put(self, sq: Square, piece: Piece, from_stacks: bool = True, solve: bool = True) -> None:
        """A known cup was put on ``sq``: a placement from the external stacks, or (not
        ``from_stacks``) the end of a move."""
        if from_stacks:
            self._placed[piece[0] * self.variant.max_piece + piece[1] - 1] += 1
        self.stacks.setdefault(sq, StackKnowledge()).known.append(piece)
        self._stale = True
        if solve:
            self.settle()

    def settle(self) -> None:
        """Count again after the changes made with ``solve=False`` (several moves announced
        at once, a replay after a correction are counted once, at the end); raises
        ``CompanionError`` when no hypothesis fits them. Every question asked settles first."""
        if self._stale:
            self._solve()
            self._stale = False

    # ----- what is known -----------------------------------------------------------------

    @property
    def count(self) -> int:
        """How many hypotheses (assignments of every hidden cup) remain."""
        self.settle()
        return self._count

    def options(self, sq: Square) -> list[Hidden]:
        """The hidden contents of ``sq`` that some hypothesis has (bottom first)."""
        self.settle()
        return list(self._options.get(sq, [()]))

    def under_top(self, sq: Square) -> set[Piece | None]:
        """What lifting the top of ``sq`` may show: the known cup below, or any possible top of
        the hidden part (None for nothing)."""
        stack = self.stacks.get(sq)
        if stack is None:
            return set()
        if len(stack.known) > 1:
            return {stack.known[-2]}
        return {hidden[-1] if hidden else None for hidden in self.options(sq)}

    def unknown(self) -> dict[str, list[str]]:
        """Square name -> the hidden contents still possible there, for squares with more than
        one possibility (what the device says is still unknown)."""
        out = {}
        for sq in sorted(self.stacks):
            options = self.options(sq)
            if len(options) > 1:
                out[square_name(sq)] = [_hidden_text(h) for h in options]
        return out

    def most_likely(self) -> dict[Square, Hidden]:
        """The hypothesis with the fewest hidden cups (cups are more often still in hand than
        buried early), ties broken by square order; what the engine should be given."""
        self.settle()
        return dict(self._best)

    def most_likely_position(self) -> Position:
        """The current position under the most likely hypothesis (side to move as at the start)."""
        self.settle()
        stacks = {sq: list(self._best.get(sq, ())) + stack.known for sq, stack in self.stacks.items()}
        return self._position(stacks)

    def start_position(self) -> Position:
        """The most likely position at the start, from what has been dug out of each start
        square since and the most likely rest: replaying the moves from it gives the game.

        Hidden parts never move (only tops do), so a start square's stack is its remaining
        unknown part, then the cups revealed from it (deepest last revealed), then its top."""
        self.settle()
        stacks: dict[Square, list[Piece]] = {}
        for sq, start in self._start_known.items():
            dug = list(reversed(self._revealed.get(sq, [])))
            stacks[sq] = list(self._best.get(sq, ())) + dug + start
        return self._position(stacks)

    def _position(self, stacks: dict[Square, list[Piece]]) -> Position:
        counts = [0] * (2 * self.variant.max_piece)
        for pieces in stacks.values():
            for color, size in pieces:
                counts[color * self.variant.max_piece + size - 1] += 1
        reserves = reserves_for(self.variant, tuple(counts))
        if reserves is None:
            raise CompanionError("no position fits the tops and the piece counts")
        return Position.from_parts(self.variant, stacks, reserves, self.turn)

    # ----- the dynamic programme ---------------------------------------------------------

    def _solve(self) -> None:
        """Count hypotheses, find each square's possible hidden contents and the best one.

        A state is the number of cups of each colour and size used so far, packed into one
        integer (one bit field per kind, offset so that going over the variant's supply of a
        kind sets the field's top bit): states over the supply are dropped as they arise."""
        max_piece = self.variant.max_piece
        base = [0] * (2 * max_piece)
        for stack in self.stacks.values():
            for color, size in stack.known:
                base[color * max_piece + size - 1] += 1
        # a square that can hide nothing has one option (nothing) and changes no count
        open_squares = tuple((sq, self.stacks[sq].bound) for sq in sorted(self.stacks) if self.stacks[sq].bound > 1)
        self._count, self._best, self._options = _solved(self.variant, open_squares, tuple(base), tuple(self._placed))


_SOLVED: dict[tuple, tuple[int, dict[Square, Hidden], dict[Square, list[Hidden]]]] = {}
_SOLVED_SIZE = 256


def _solved(
    variant: Variant, open_squares: tuple[tuple[Square, int], ...], base: Counts, placed: Counts
) -> tuple[int, dict[Square, Hidden], dict[Square, list[Hidden]]]:
    """``HiddenContents._solve``'s answer (count, most likely, options per square), kept for
    the same inputs: a board move whose origin hides nothing unknown, and the replay of a game
    after a correction, ask the same question again (a crowded board costs about a second)."""
    key = (variant.spec, open_squares, base, placed)
    found = _SOLVED.get(key)
    if found is None:
        found = _count_hypotheses(variant, open_squares, base, placed)
        if len(_SOLVED) >= _SOLVED_SIZE:
            _SOLVED.pop(next(iter(_SOLVED)))
        _SOLVED[key] = found
    return found  # shared: nothing changes a solution in place


def _count_hypotheses(
    variant: Variant, open_squares: tuple[tuple[Square, int], ...], base: Counts, placed: Counts
) -> tuple[int, dict[Square, Hidden], dict[Square, list[Hidden]]]:
    """The dynamic programme of ``HiddenContents._solve`` over the squares that may hide cups."""
    packing = _Packing.of(variant)
    start = packing.pack(base)
    if start is None:
        raise CompanionError("the visible cups are more than the variant has")
    squares = [sq for sq, _ in open_squares]
    choices = [_hidden_options(bound) for _, bound in open_squares]
    deltas = [np.array([packing.delta(option) for option in options], dtype=np.int64) for options in choices]
    bounds = [bound for _, bound in open_squares]
    supply = _holdable_table(variant)[0].tolist()
    room = [tuple(min(sum(b > size for b in bounds[i + 1:]), supply[size - 1]) for size in range(1, variant.max_piece + 1))
            for i in range(len(bounds))]
    layers = _forward(start, choices, deltas, packing.guard, lambda i, states: _completable(variant, packing, states, room[i]))
    # the stacks now and at the start (before the cups placed since were taken) must both
    # be what the variant's external stacks can hold
    last = layers[-1]
    if len(layers) <= len(choices) or not len(last.states):
        raise CompanionError("no position fits the visible tops and the piece counts")
    counts = packing.unpack_all(last.states)
    valid = _holdable(variant, counts)
    if any(placed):
        valid &= _holdable(variant, counts - np.array(placed, dtype=np.int64))
    if not valid.any():
        raise CompanionError("no position fits the visible tops and the piece counts")
    count = int(last.ways[valid].sum())
    best = _trace_best(layers, valid, counts, squares, choices)
    return count, best, _possible_options(layers, valid, squares, choices, deltas, packing.guard)


def _holdable(variant: Variant, counts: np.ndarray) -> np.ndarray:
    """For each row of cups on the board (per colour and size), whether the external stacks
    can hold exactly the rest (``reserves_for``): looked up in a table of every colour's
    counts, made once per variant."""
    max_piece = variant.max_piece
    supply, radix, table = _holdable_table(variant)
    ok = np.ones(len(counts), dtype=bool)
    for color in (0, 1):
        used = counts[:, color * max_piece:(color + 1) * max_piece]
        inside = ((used >= 0) & (used <= supply)).all(axis=1)
        ok &= inside & table[(np.clip(used, 0, supply) * radix).sum(axis=1)]
    return ok


def warm_up(variant: Variant) -> None:
    """Build the variant's tables once (about 15 ms for classic, with the tables that cut the
    count's dead states): a reconciler calls it when it is made, so the first resync or
    mid-game start does not pay for them."""
    supply = _holdable_table(variant)[0].tolist()
    _Packing.of(variant)
    # (a square that can hide a size can hide every smaller one; none can hide the largest)
    for room in product(*(range(size + 1) for size in supply[:-1]), (0,)):
        if all(a >= b for a, b in pairwise(room)):
            _completable_table(variant, room)


@cache
def _holdable_table(variant: Variant) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(supply per size, radix, table): ``table[sum(count * radix)]`` says whether a colour
    with those cups on the board (per size) leaves what its external stacks can hold."""
    max_piece = variant.max_piece
    supply = np.array([sum(s == size for stack in variant.stacks for s in stack)
                       for size in range(1, max_piece + 1)], dtype=np.int64)
    radix = np.cumprod(np.concatenate(([1], supply[:-1] + 1))).astype(np.int64)
    table = np.zeros(int(np.prod(supply + 1)), dtype=bool)
    for row in product(*(range(int(s) + 1) for s in supply)):
        index = sum(c * int(r) for c, r in zip(row, radix, strict=True))
        table[index] = _reserve_for(variant.stacks, variant.any_order, tuple(row)) is not None
    return supply, radix, table


@dataclass(frozen=True)
class _Layer:
    """The counts reachable after some squares (in the order a dict would first meet them),
    how many ways reach each, and the fewest hidden cups of a way there (with the state and
    option it came through: the first such way met)."""

    states: np.ndarray
    ways: np.ndarray
    cost: np.ndarray
    previous: np.ndarray  # index into the layer before
    option: np.ndarray    # index into the square's options


def _completable(variant: Variant, packing: _Packing, states: np.ndarray, room: tuple[int, ...]) -> np.ndarray:
    """Whether each state can still end where the external stacks hold the rest, with at most
    ``room`` more cups of each size per colour (one a square still to come): counts only grow,
    so a state with no holdable count between it and that much more leads to no hypothesis."""
    counts = packing.unpack_all(states)
    max_piece = variant.max_piece
    supply, radix, _ = _holdable_table(variant)
    table = _completable_table(variant, room)
    ok = np.ones(len(states), dtype=bool)
    for color in (0, 1):
        used = counts[:, color * max_piece:(color + 1) * max_piece]
        ok &= table[(np.clip(used, 0, supply) * radix).sum(axis=1)]
    return ok


@cache
def _completable_table(variant: Variant, room: tuple[int, ...]) -> np.ndarray:
    """``_holdable_table``'s index -> whether some holdable count lies between those counts
    and ``room`` more of each size."""
    supply, radix, table = _holdable_table(variant)
    grid = np.array(list(product(*(range(int(s) + 1) for s in supply))), dtype=np.int64)
    index = grid @ radix
    holdable = grid[table[index]]
    inside = (grid[:, None, :] <= holdable[None, :, :]) & (holdable[None, :, :] <= grid[:, None, :] + np.array(room))
    out = np.zeros(len(table), dtype=bool)
    out[index] = inside.all(axis=2).any(axis=1)
    return out


def _forward(
    start: int, choices: list, deltas: list[np.ndarray], guard: int,
    alive: Callable[[int, np.ndarray], np.ndarray] | None = None,
) -> list[_Layer]:
    """The forward pass over the squares, all states of a layer at once (a crowded board has
    thousands of states and 27 options a square: a loop over them took most of a second).
    ``alive(i, states)`` drops the states after square ``i`` that can lead to no valid end: a
    live state's every way in is live, so the live states, their ways, costs and the order
    they are first met in are as without it."""
    none = np.zeros(1, dtype=np.int64)
    layers = [_Layer(np.array([start], dtype=np.int64), np.ones(1, dtype=np.int64), none, none - 1, none - 1)]
    for i, (options, steps) in enumerate(zip(choices, deltas, strict=True)):
        layer = layers[-1]
        sizes = np.array([len(option) for option in options], dtype=np.int64)
        reached = (layer.states[:, None] + steps[None, :]).ravel()  # in the order a loop meets them
        at = np.flatnonzero((reached & guard) == 0)
        reached = reached[at]
        rows, columns = np.divmod(at, len(steps))
        cost = layer.cost[rows] + sizes[columns]
        # one stable sort by (state, cost): each state's run starts with its way in (the
        # fewest hidden cups, then the first met); the states are kept in the order they are
        # first met (as a dict would fill)
        shift = int(cost.max()).bit_length() if len(cost) else 0
        if reached.max(initial=0) < 1 << (62 - shift):
            order = np.argsort((reached << shift) | cost, kind="stable")
        else:
            order = np.lexsort((cost, reached))
        ordered = reached[order]
        starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
        first = np.minimum.reduceat(order, starts)
        rank = np.argsort(first, kind="stable")
        unique = ordered[starts][rank]
        ways = np.add.reduceat(layer.ways[rows][order], starts)[rank]
        leaders = order[starts][rank]
        if alive is not None:
            keep = alive(i, unique)
            unique, ways, leaders = unique[keep], ways[keep], leaders[keep]
        layers.append(_Layer(unique, ways, cost[leaders], rows[leaders], columns[leaders]))
        if not len(unique):
            break  # no way on (the caller finds no valid end)
    return layers


@dataclass(frozen=True)
class _Packing:
    """Counts per (colour, size) packed into one integer, one ``width``-bit field each."""

    width: int
    offsets: tuple[int, ...]
    guard: int

    @staticmethod
    @cache
    def of(variant: Variant) -> _Packing:
        max_piece = variant.max_piece
        supply = [sum(s == size for stack in variant.stacks for s in stack) for size in range(1, max_piece + 1)]
        caps = supply * 2
        width = max(caps).bit_length() + 1
        top = 1 << (width - 1)
        offsets = tuple(top - 1 - cap for cap in caps)
        guard = sum(top << (width * i) for i in range(len(caps)))
        return _Packing(width, offsets, guard)

    def pack(self, counts: list[int] | tuple[int, ...]) -> int | None:
        value = sum((offset + count) << (self.width * i) for i, (offset, count) in enumerate(zip(self.offsets, counts, strict=True)))
        return None if value & self.guard else value

    def unpack(self, value: int) -> Counts:
        mask = (1 << self.width) - 1
        return tuple(((value >> (self.width * i)) & mask) - offset for i, offset in enumerate(self.offsets))

    def unpack_all(self, values: np.ndarray) -> np.ndarray:
        """``unpack`` of every value: one row of counts each."""
        shifts = self.width * np.arange(len(self.offsets), dtype=np.int64)
        return ((values[:, None] >> shifts[None, :]) & ((1 << self.width) - 1)) - np.array(self.offsets, dtype=np.int64)

    def delta(self, option: Hidden) -> int:
        max_piece = len(self.offsets) // 2
        return sum(1 << (self.width * (color * max_piece + size - 1)) for color, size in option)


def _trace_best(
    layers: list[_Layer], valid: np.ndarray, counts: np.ndarray, squares: list[Square], choices: list
) -> dict[Square, Hidden]:
    """The valid end with the fewest hidden cups (then the smallest counts, in order), traced
    back through the way that first reached it with that few."""
    candidates = np.flatnonzero(valid)
    keys = [counts[candidates, k] for k in range(counts.shape[1] - 1, -1, -1)]
    at = int(candidates[np.lexsort((*keys, layers[-1].cost[candidates]))[0]])
    best: dict[Square, Hidden] = {}
    for i in range(len(squares), 0, -1):
        option = choices[i - 1][int(layers[i].option[at])]
        if option:
            best[squares[i - 1]] = option
        at = int(layers[i].previous[at])
    return best


def _possible_options(
    layers: list[_Layer], valid: np.ndarray, squares: list[Square], choices: list, deltas: list, guard: int
) -> dict[Square, list[Hidden]]:
    """Backward pass: an option is possible where a reachable state before the square leads
    through it to a state from which a valid end is reachable."""
    good = np.sort(layers[-1].states[valid])
    possible: dict[Square, list[Hidden]] = {}
    for i in range(len(squares) - 1, -1, -1):
        states = layers[i].states
        reached = states[:, None] + deltas[i][None, :]
        at = np.minimum(np.searchsorted(good, reached), max(len(good) - 1, 0))
        hit = ((reached & guard) == 0) & (good[at] == reached) if len(good) else np.zeros(reached.shape, dtype=bool)
        possible[squares[i]] = [choices[i][j] for j in np.flatnonzero(hit.any(axis=0)).tolist()]
        good = np.sort(states[hit.any(axis=1)])
    return possible


@cache
def _hidden_options(bound: int) -> tuple[Hidden, ...]:
    """Every strictly growing stack of cups smaller than ``bound``, either colour, fewest first."""
    sizes = range(1, max(bound, 1))
    out = []
    for colours in product((None, 0, 1), repeat=len(sizes)):
        out.append(tuple((c, s) for c, s in zip(colours, sizes, strict=True) if c is not None))
    return tuple(sorted(out, key=len))


def reserves_for(variant: Variant, on_board: Counts) -> tuple[Reserve, Reserve] | None:
    """Both players' external stacks given how many cups of each colour and size are on the
    board, or None when the variant's stacks cannot leave exactly the rest."""
    max_piece = variant.max_piece
    out = []
    for color in (0, 1):
        used = on_board[color * max_piece : (color + 1) * max_piece]
        reserve = _reserve_for(variant.stacks, variant.any_order, used)
        if reserve is None:
            return None
        out.append(reserve)
    return (out[0], out[1])


@cache
def _reserve_for(stacks: tuple[tuple[int, ...], ...], any_order: bool, used: Counts) -> Reserve | None:
    """External stacks that hold every cup not in ``used``: with pieces leaving tops first,
    each stack keeps a tail of itself; in any order, one pool of what is left."""
    sizes = len(used)
    total = [sum(s == size for stack in stacks for s in stack) for size in range(1, sizes + 1)]
    left = [t - u for t, u in zip(total, used, strict=True)]
    if min(left) < 0:
        return None
    if any_order:
        pool = tuple(size for size in range(sizes, 0, -1) for _ in range(left[size - 1]))
        return canonical_reserve((pool,), True)
    cut = _tails(stacks, sizes).get(tuple(left))
    if cut is None:
        return None
    return canonical_reserve(tuple(stack[k:] for stack, k in zip(stacks, cut, strict=True)), False)


@cache
def _tails(stacks: tuple[tuple[int, ...], ...], sizes: int) -> dict[tuple[int, ...], tuple[int, ...]]:
    """Cups left per size -> the first cut (cups taken from each stack, in ``product`` order)
    that leaves them: every cut is tried once per variant, not once per question."""
    out: dict[tuple[int, ...], tuple[int, ...]] = {}
    for cut in product(*(range(len(stack) + 1) for stack in stacks)):
        remaining = [0] * sizes
        for stack, k in zip(stacks, cut, strict=True):
            for size in stack[k:]:
                remaining[size - 1] += 1
        out.setdefault(tuple(remaining), cut)
    return out


def _hidden_text(hidden: Hidden) -> str:
    if not hidden:
        return "nothing"
    return " ".join(f"{COLOR_NAMES[c]} {s}" for c, s in reversed(hidden))
