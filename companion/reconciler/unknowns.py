"""Hidden cups when the companion starts mid-game: what each stack may hide, narrowed as cups
are lifted, and the most likely full position for the hint engine.

Without history only the tops are known. Under a top of size ``s`` lies a strictly growing
stack of smaller cups of either colour, possibly none. Which of those are possible is bound by
the piece counts: every cup not on the board is in its owner's external stacks, and those
must still be a set of stacks the variant deals out minus their tops (for classic: each
external stack is a tail ``k..1`` of ``4321``). Everything consistent with that is a
*hypothesis*; this module counts them per number of hidden cups of each colour and size, so it
never lists them one by one: a square hides at most one cup of each size below its top, of
either colour, whatever it hides of the other sizes, so the ways to hide given numbers of
cups multiply over the sizes (``_Grid``), and the piece counts only say which numbers fit.

When a cup is lifted and the square shows what it covered, ``reveal`` records that cup as
known (the unknown part below it shrinks to sizes under it), and the hypotheses narrow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from itertools import product
from math import comb, prod

import numpy as np

from companion.errors import CompanionError
from companion.rules.position import Piece, Position, Reserve, canonical_reserve
from companion.rules.square import COLOR_NAMES, Color, Square, square_name
from companion.rules.variant import Variant

Hidden = tuple[Piece, ...]  # a square's unknown part, bottom first
Counts = tuple[int, ...]  # hidden cups per (colour, size), index colour * S + size - 1


@dataclass
class StackKnowledge:
    """One square: the cups known (bottom first) and the size bound of the unknown part below
    them (every hidden cup is smaller than ``bound``; 1 or 0 means nothing can be hidden)."""

    known: list[Piece] = field(default_factory=list)
    bound: int = 0


class HiddenContents:
    """The set of full positions consistent with the visible tops and the piece counts."""

    def __init__(
        self,
        variant: Variant,
        tops: dict[Square, Piece],
        turn: Color = 0,
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

    # ----- counting ----------------------------------------------------------------------

    def _solve(self) -> None:
        """Count hypotheses, find each square's possible hidden contents and the best one."""
        max_piece = self.variant.max_piece
        base = [0] * (2 * max_piece)
        for stack in self.stacks.values():
            for color, size in stack.known:
                base[color * max_piece + size - 1] += 1
        # a square that can hide nothing has one option (nothing) and changes no count
        open_squares = tuple(
            (sq, self.stacks[sq].bound) for sq in sorted(self.stacks) if self.stacks[sq].bound > 1
        )
        self._count, self._best, self._options = _solved(
            self.variant, open_squares, tuple(base), tuple(self._placed)
        )


_SOLVED: dict[
    tuple[str, tuple[tuple[Square, int], ...], Counts, Counts],
    tuple[int, dict[Square, Hidden], dict[Square, list[Hidden]]],
] = {}
_SOLVED_SIZE = 256


def _solved(
    variant: Variant, open_squares: tuple[tuple[Square, int], ...], base: Counts, placed: Counts
) -> tuple[int, dict[Square, Hidden], dict[Square, list[Hidden]]]:
    """``HiddenContents._solve``'s answer (count, most likely, options per square), kept for
    the same inputs: a board move whose origin hides nothing unknown, and the replay of a game
    after a correction, ask the same question again (under a millisecond for classic, tens of
    milliseconds on a crowded moku board)."""
    key = (variant.spec, open_squares, base, placed)
    found = _SOLVED.get(key)
    if found is None:
        found = count_hypotheses(variant, open_squares, base, placed)
        if len(_SOLVED) >= _SOLVED_SIZE:
            _SOLVED.pop(next(iter(_SOLVED)))
        _SOLVED[key] = found
    return found  # shared: nothing changes a solution in place


def count_hypotheses(
    variant: Variant, open_squares: tuple[tuple[Square, int], ...], base: Counts, placed: Counts
) -> tuple[int, dict[Square, Hidden], dict[Square, list[Hidden]]]:
    """``HiddenContents._solve``'s count, most likely hidden contents and options per square,
    from the grid of hidden counts (``_Grid``): its valid cells are those the squares can hide
    and the external stacks can hold the rest of. Public: the count is this module's answer,
    and is checked against every assignment listed one by one (``hidden_options``)."""
    grid = _Grid.of(variant, open_squares, base)
    # the stacks now and at the start (before the cups placed since were taken) must both
    # be what the variant's external stacks can hold
    valid = grid.reachable() & grid.holdable(variant, base)
    if any(placed):
        valid &= grid.holdable(variant, [b - p for b, p in zip(base, placed, strict=True)])
    if not valid.any():
        raise CompanionError("no position fits the visible tops and the piece counts")
    count = int(grid.ways()[valid].sum())
    return count, _most_likely(grid, valid, open_squares), _possible_options(grid, valid, open_squares)


def warm_up(variant: Variant) -> None:
    """Build the variant's tables once (about 3 ms for classic) and ask one question (a top of
    the largest size alone: numpy's first uses of what the count calls cost ~0.4 ms more than
    later ones): a reconciler calls it when it is made, so the first resync or mid-game start
    pays for neither."""
    for bound in range(2, variant.max_piece + 1):
        _product_positions(bound)
    max_piece = variant.max_piece
    top = tuple(int(kind == max_piece - 1) for kind in range(2 * max_piece))
    count_hypotheses(variant, ((0, max_piece),) if max_piece > 1 else (), top, (0,) * (2 * max_piece))


@cache
def _holdable_table(variant: Variant) -> tuple[tuple[int, ...], np.ndarray]:
    """(supply per size, table): ``table[k1 + 1, k2 + 1, ...]`` says whether a colour with
    ``k1`` cups of size 1, ``k2`` of size 2... on the board leaves what its external stacks
    can hold; one more cell at either end of every axis, False, for counts out of range."""
    max_piece = variant.max_piece
    supply = tuple(
        sum(s == size for stack in variant.stacks for s in stack) for size in range(1, max_piece + 1)
    )
    table = np.zeros([s + 3 for s in supply], dtype=bool)
    for row in product(*(range(s + 1) for s in supply)):
        table[tuple(c + 1 for c in row)] = _reserve_for(variant.stacks, variant.any_order, row) is not None
    return supply, table


@dataclass(frozen=True)
class _Grid:
    """Every number of hidden cups per colour and size, as a dense grid: one axis per kind a
    square may hide (each colour and size below the largest, in kind order, so the flat order
    of the cells is the order of their counts), each as long as the cups of that kind the
    variant has left and the squares can hide.

    A square hides at most one cup of each size below its bound, of either colour, whatever
    it hides of the other sizes: so which cells the squares can hide, and in how many ways,
    is a matter of each size alone. ``room[s - 1]`` squares can hide a cup of size s; ``k0``
    of colour 0 and ``k1`` of colour 1 fit when ``k0 + k1 <= room``, in room! / (k0! k1!
    (room - k0 - k1)!) ways (which squares hide which colour); a cell's ways are the product
    over the sizes."""

    max_piece: int
    shape: tuple[int, ...]
    room: tuple[int, ...]

    @staticmethod
    def of(variant: Variant, open_squares: tuple[tuple[Square, int], ...], base: Counts) -> _Grid:
        max_piece = variant.max_piece
        supply = _holdable_table(variant)[0]
        left = [supply[kind % max_piece] - count for kind, count in enumerate(base)]
        if min(left) < 0:
            raise CompanionError("the visible cups are more than the variant has")
        room = tuple(sum(bound > size for _, bound in open_squares) for size in range(1, max_piece))
        shape = tuple(
            min(left[color * max_piece + size - 1], room[size - 1]) + 1
            for color in (0, 1)
            for size in range(1, max_piece)
        )
        return _Grid(max_piece, shape, room)

    def axes(self, size: int) -> tuple[int, int]:
        """The axes of the hidden cups of ``size``, colour 0 then colour 1."""
        return size - 1, self.max_piece - 1 + size - 1

    def holdable(self, variant: Variant, known: Counts | list[int]) -> np.ndarray:
        """Whether the external stacks can hold exactly the rest (``reserves_for``) of the cups
        on the board in each cell: ``known`` (per colour and size) plus the hidden ones. Each
        colour's own counts say it: looked up in the variant's table for each, then paired."""
        max_piece = self.max_piece
        supply, table = _holdable_table(variant)
        halves = []
        for color in (0, 1):
            lines = []
            for size in range(1, max_piece + 1):
                lowest = known[color * max_piece + size - 1]
                hidden = self.shape[color * (max_piece - 1) + size - 1] if size < max_piece else 1
                counts = range(lowest, lowest + hidden)
                lines.append([min(max(count, -1), supply[size - 1] + 1) + 1 for count in counts])
            halves.append(table[np.ix_(*lines)][..., 0])
        both: np.ndarray = halves[0].reshape(halves[0].shape + (1,) * halves[1].ndim) & halves[1]
        return both

    def reachable(self) -> np.ndarray:
        """Whether the open squares can hide each cell's cups."""
        out = np.ones(self.shape, dtype=bool)
        for size in range(1, self.max_piece):
            out &= self._per_size(size, self.size_tables(size)[0] > 0)
        return out

    def ways(self) -> np.ndarray:
        """In how many ways the open squares can hide each cell's cups: int64 where even
        the whole grid's sum fits (classic, by far), else Python integers (a crowded moku
        board has more than 2**63 hypotheses)."""
        tables = [self.size_tables(size)[0] for size in range(1, self.max_piece)]
        bound = prod(self.shape) * prod(max(int(t.max()), 1) for t in tables)
        exact = bound < 2**63
        out = np.ones(self.shape, dtype=np.int64 if exact else object)
        for size, table in enumerate(tables, start=1):
            out = out * self._per_size(size, table.astype(np.int64) if exact else table)
        return out

    def size_tables(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """``_size_tables`` for the cups of ``size``."""
        first, second = self.axes(size)
        return _size_tables(self.room[size - 1], self.shape[first], self.shape[second])

    def by_size(self, values: np.ndarray) -> np.ndarray:
        """``values`` over the grid with one axis per size, smallest first (its colours' axes
        flattened together, colour 0's the outer)."""
        pairs = [self.axes(size) for size in range(1, self.max_piece)]
        order = [axis for pair in pairs for axis in pair]
        return values.transpose(order).reshape(
            [self.shape[first] * self.shape[second] for first, second in pairs]
        )

    def _per_size(self, size: int, table: np.ndarray) -> np.ndarray:
        """A table over the two colours' counts of ``size``, shaped to broadcast to the grid."""
        line = [1] * len(self.shape)
        for axis in self.axes(size):
            line[axis] = self.shape[axis]
        return table.reshape(line)


@cache
def _size_tables(room: int, colour0: int, colour1: int) -> tuple[np.ndarray, np.ndarray]:
    """For ``room`` squares that can hide a cup of one size, and ``k0 < colour0``, ``k1 <
    colour1`` of them hidden of each colour: (the ways to hide them, 0 where they do not fit;
    for what one of the squares hides of that size, nothing, colour 0 or colour 1 (the order
    of ``_product_options``), whether the others can hide the rest, with the counts flattened)."""
    ways = np.array(
        [[comb(room, k0) * comb(room - k0, k1) for k1 in range(colour1)] for k0 in range(colour0)],
        dtype=object,
    ).reshape(colour0, colour1)
    k0, k1 = np.meshgrid(np.arange(colour0), np.arange(colour1), indexing="ij")
    choices = np.stack([k0 + k1 <= room - 1, k0 >= 1, k1 >= 1])
    return ways, choices.reshape(3, -1).astype(np.float64)


def _most_likely(
    grid: _Grid, valid: np.ndarray, open_squares: tuple[tuple[Square, int], ...]
) -> dict[Square, Hidden]:
    """The hypothesis with the fewest hidden cups, then the smallest counts in kind order
    (the first such cell in flat order), then the first options square by square (each
    square's options in order: fewest cups first): what the engine is given, and the same
    every time. Square by square, the first option after which the squares still to come can
    hide the rest: one cup of a size only where they cannot hide all left of it, of colour 0
    where one is left, since what a square hides of one size does not limit the others."""
    cells = np.flatnonzero(valid)
    hidden_cups = np.indices(grid.shape).sum(axis=0).ravel()
    left = [int(count) for count in np.unravel_index(cells[np.argmin(hidden_cups[cells])], grid.shape)]
    room = list(grid.room)
    chosen = []
    for sq, bound in open_squares:
        option = []
        for size in range(1, bound):
            room[size - 1] -= 1
            axes = grid.axes(size)
            if left[axes[0]] + left[axes[1]] > room[size - 1]:
                color = 0 if left[axes[0]] else 1
                left[axes[color]] -= 1
                option.append((color, size))
        chosen.append((sq, tuple(option)))
    return {sq: option for sq, option in reversed(chosen) if option}


def _possible_options(
    grid: _Grid, valid: np.ndarray, open_squares: tuple[tuple[Square, int], ...]
) -> dict[Square, list[Hidden]]:
    """The options of each square that some hypothesis has: those that leave a valid cell's
    rest to the other squares. That depends on the square only through its bound (the others
    are the squares that can hide each size but one of them), so it is found once per bound."""
    bounds = {bound for _, bound in open_squares}
    by_bound = {bound: _possible_with_bound(grid, valid, bound) for bound in bounds}
    return {sq: list(by_bound[bound]) for sq, bound in reversed(open_squares)}


def _possible_with_bound(grid: _Grid, valid: np.ndarray, bound: int) -> list[Hidden]:
    """``_possible_options`` for a square of ``bound``: per option, how many valid cells the
    others can hide the rest of, summed over the cells one size at a time (an option is a
    choice per size, and each size's choice constrains that size's counts alone)."""
    by_size = grid.by_size(valid)
    # the sizes it cannot hide constrain nothing more than ``valid`` does: summed first
    left = by_size.reshape(1, *by_size.shape[: bound - 1], -1).any(axis=-1).astype(np.float64)
    for size in range(1, bound):  # axes: the choices so far, this size's counts, the sizes after
        choices = grid.size_tables(size)[1]
        chosen = np.matmul(choices, left.reshape(left.shape[0], choices.shape[1], -1))
        left = chosen.reshape(-1, *left.shape[2:])
    found = left.ravel() > 0  # per choice of every size, in product order
    positions = zip(hidden_options(bound), _product_positions(bound), strict=True)
    return [option for option, at in positions if found[at]]


@cache
def hidden_options(bound: int) -> tuple[Hidden, ...]:
    """Every strictly growing stack of cups smaller than ``bound``, either colour, fewest first:
    what a square under a top of size ``bound`` may hide, in the order ``HiddenContents.options``
    lists them (public for a caller that lists or checks them)."""
    return tuple(sorted(_product_options(bound), key=len))


@cache
def _product_options(bound: int) -> tuple[Hidden, ...]:
    """The stacks of ``hidden_options`` in product order: per size, smallest first, nothing,
    colour 0 or colour 1."""
    sizes = range(1, max(bound, 1))
    return tuple(
        tuple((c, s) for c, s in zip(colours, sizes, strict=True) if c is not None)
        for colours in product((None, 0, 1), repeat=len(sizes))
    )


@cache
def _product_positions(bound: int) -> tuple[int, ...]:
    """Where each of ``hidden_options(bound)`` stands in product order."""
    position = {option: at for at, option in enumerate(_product_options(bound))}
    return tuple(position[option] for option in hidden_options(bound))


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
