"""The junior solver's position: 54 bits relative to the side to move, its symmetries and its
moves, computed with 9-bit masks and tables of all 512 of them.

A position is packed as six 9-bit masks (bit ``i`` is square ``i % 3, i // 3``): for each size
(small, medium, large) the mover's pieces, then (from bit 27) the opponent's, hidden pieces
included: a square holds at most one piece of each size, and which piece shows is the largest.
Being relative to the mover, colour symmetry is free; the 8 board symmetries are folded by
taking the smallest of the 8 images (``canonical``). ``SIDE_BIT`` (above the 54) marks which
colour moves where a search needs to tell (its repetition path).

``expand`` generates the mover's moves as (priority, child key, move code): the codes are the
rules engine's (``companion.rules.codes``) for the position ``unpack`` gives, so a solver
answer plays on a ``Position`` as it is. The tests check ``expand`` against the rules engine
by perft and random games.
"""

from __future__ import annotations

from operator import itemgetter
from typing import TypeAlias

from companion.rules import PRESETS, Position
from companion.rules.codes import BOARD_FLAG, ORIGIN_SHIFT, SIZE_SHIFT

M27 = (1 << 27) - 1
LINES = (0o7, 0o70, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124)
HAS_LINE = tuple(any(m & line == line for line in LINES) for m in range(512))
BITS = tuple(tuple(1 << i for i in range(9) if m >> i & 1) for m in range(512))
POP = tuple(bin(m).count("1") for m in range(512))
BIT_SQUARE = {1 << i: i % 3 + 16 * (i // 3) for i in range(9)}  # bit -> rules square number
PIECES_PER_SIZE = 2
SIDE_BIT = 1 << 54  # above the 54 bits: which colour moves (on a search path)
Moves: TypeAlias = list[tuple[int, int, int]]  # expand's (priority, child key, move code), best first


def _completing_squares(mask: int) -> int:
    """Squares that would complete a line together with the tops in ``mask``."""
    squares = 0
    for line in LINES:
        rest = line & ~mask
        if rest and rest & (rest - 1) == 0:
            squares |= rest
    return squares


WIN_SQUARES = tuple(_completing_squares(m) for m in range(512))
THREATS = tuple(POP[squares] for squares in WIN_SQUARES)  # squares completing a line, counted


def _symmetry_tables() -> tuple[tuple[int, ...], ...]:
    """For each of the 8 board symmetries, the image of every 9-bit mask."""
    maps = (
        lambda x, y: (x, y),
        lambda x, y: (2 - x, y),
        lambda x, y: (x, 2 - y),
        lambda x, y: (2 - x, 2 - y),
        lambda x, y: (y, x),
        lambda x, y: (2 - y, x),
        lambda x, y: (y, 2 - x),
        lambda x, y: (2 - y, 2 - x),
    )
    tables = []
    for f in maps:
        image = [0] * 9
        for i in range(9):
            x, y = f(i % 3, i // 3)
            image[i] = x + 3 * y
        tables.append(tuple(sum(1 << image[i] for i in range(9) if m >> i & 1) for m in range(512)))
    return tuple(tables)


SYMMETRIES = _symmetry_tables()
_OTHER_SYMMETRIES = SYMMETRIES[1:]


def canonical(k: int) -> int:
    """The smallest of the 8 board-symmetric images of a packed position. An image whose
    highest field (the opponent's large pieces) is above the best one's is larger whatever
    the rest: it is skipped without being put together."""
    f0, f1, f2 = k & 511, k >> 9 & 511, k >> 18 & 511
    f3, f4, f5 = k >> 27 & 511, k >> 36 & 511, k >> 45
    best = k
    top = f5
    for t in _OTHER_SYMMETRIES:
        high = t[f5]
        if high > top:
            continue
        c = t[f0] | t[f1] << 9 | t[f2] << 18 | t[f3] << 27 | t[f4] << 36 | high << 45
        if c < best:
            best, top = c, high
    return best


def pack(position: Position) -> int:
    """The packed 54-bit key of a junior position, from the side to move's view."""
    mover = position.turn
    key = 0
    for sq in position.squares:
        bit = 1 << (sq % 16 + 3 * (sq // 16))
        for color, size in position.stack(sq):
            key |= bit << (9 * (size - 1) + (0 if color == mover else 27))
    return key


def expand(k: int) -> Moves | None:
    """The mover's moves as (priority, child key, move code), best-looking first; None when
    the mover has a move that completes a line (the search needs nothing more then).

    Moves that uncover an opponent line lose at once and are left out; a position whose
    list is empty is lost for the mover (no move, or only losing ones)."""
    mine = k & M27
    theirs = k >> 27
    a1, a2, a3 = mine & 511, mine >> 9 & 511, mine >> 18
    b1, b2, b3 = theirs & 511, theirs >> 9 & 511, theirs >> 18
    o3 = a3 | b3
    o23 = o3 | a2 | b2
    visible = a3 | a2 & ~o3 | a1 & ~o23
    targets = (511 & ~(o23 | a1 | b1), 511 & ~o23, 511 & ~o3)
    out: Moves = []
    for size, own in ((1, a1), (2, a2), (3, a3)):
        if POP[own] < PIECES_PER_SIZE:
            shift = 9 * (size - 1)
            placement = size << SIZE_SHIFT  # the placement's code but for its square
            for t in BITS[targets[size - 1]]:
                seen = visible | t
                if HAS_LINE[seen]:
                    return None
                out.append((THREATS[seen], theirs | (mine | t << shift) << 27, BIT_SQUARE[t] | placement))
    for size, own, cover in ((1, a1, o23), (2, a2, o3), (3, a3, 0)):
        shift = 9 * (size - 1)
        for f in BITS[own & ~cover]:
            origin = BIT_SQUARE[f] << ORIGIN_SHIFT | BOARD_FLAG
            # the tops once f is lifted; the drop on t then shows the mover at t and covers
            # whatever showed there (every piece at a target is smaller)
            lifted = mine ^ f << shift
            n1, n2, n3 = lifted & 511, lifted >> 9 & 511, lifted >> 18
            p3 = n3 | b3
            p23 = p3 | n2 | b2
            mine_lifted = n3 | n2 & ~p3 | n1 & ~p23
            theirs_lifted = b3 | b2 & ~p3 | b1 & ~p23
            for t in BITS[targets[size - 1] & ~f]:
                their_seen = theirs_lifted & ~t
                if HAS_LINE[their_seen]:
                    continue
                seen = mine_lifted | t
                if HAS_LINE[seen]:
                    return None
                priority = THREATS[seen] - THREATS[their_seen]
                out.append((priority, theirs | (lifted | t << shift) << 27, BIT_SQUARE[t] | origin))
    out.sort(key=_PRIORITY, reverse=True)
    return out


def has_line_move(k: int) -> bool:
    """``expand(k) is None`` without generating the moves: can the mover complete a line?
    Only the squares that complete a line with the mover's tops (after the lift, for a board
    move) are tried, so the leaves of the distance search cost a fraction of ``expand``."""
    # expand's unpacking, written out again: shared as a helper (a call and a tuple), it cost
    # this test 8-21 % more CPU on 1,617 positions of random junior games.
    mine = k & M27
    theirs = k >> 27
    a1, a2, a3 = mine & 511, mine >> 9 & 511, mine >> 18
    b1, b2, b3 = theirs & 511, theirs >> 9 & 511, theirs >> 18
    o3 = a3 | b3
    o23 = o3 | a2 | b2
    targets = (511 & ~(o23 | a1 | b1), 511 & ~o23, 511 & ~o3)
    completing = WIN_SQUARES[a3 | a2 & ~o3 | a1 & ~o23]
    if completing:  # a placement lifts nothing: it wins wherever it completes a line
        if POP[a1] < PIECES_PER_SIZE and targets[0] & completing:
            return True
        if POP[a2] < PIECES_PER_SIZE and targets[1] & completing:
            return True
        if POP[a3] < PIECES_PER_SIZE and targets[2] & completing:
            return True
    for size, own, cover in ((1, a1, o23), (2, a2, o3), (3, a3, 0)):
        shift = 9 * (size - 1)
        for f in BITS[own & ~cover]:
            nm = mine ^ f << shift  # the tops once f is lifted
            n1, n2, n3 = nm & 511, nm >> 9 & 511, nm >> 18
            p3 = n3 | b3
            p23 = p3 | n2 | b2
            candidates = targets[size - 1] & ~f & WIN_SQUARES[n3 | n2 & ~p3 | n1 & ~p23]
            if candidates:
                their_seen = b3 | b2 & ~p3 | b1 & ~p23
                for t in BITS[candidates]:
                    if not HAS_LINE[their_seen & ~t]:  # the drop must not leave their line shown
                        return True
    return False


def threatens(k: int) -> bool:
    """Might the player *not* to move in ``k`` complete a line on their next move, whatever
    the mover does? False only when it surely cannot: no square completes a line of its
    visible tops and the mover has a piece to place. (A placement only covers; afterwards the
    other player's tops are a subset of these, even after lifting one of its own pieces, and
    a subset completes no more lines.) When the mover cannot place, its board moves might
    reveal pieces, so the answer is True."""
    mover, other = k & M27, k >> 27
    b1, b2, b3 = other & 511, other >> 9 & 511, other >> 18
    a1, a2, a3 = mover & 511, mover >> 9 & 511, mover >> 18
    o3 = a3 | b3
    o23 = o3 | a2 | b2
    if WIN_SQUARES[b3 | b2 & ~o3 | b1 & ~o23]:
        return True
    return not (
        (POP[a1] < PIECES_PER_SIZE and 511 & ~(o23 | a1 | b1))
        or (POP[a2] < PIECES_PER_SIZE and 511 & ~o23)
        or (POP[a3] < PIECES_PER_SIZE and 511 & ~o3)
    )


_PRIORITY = itemgetter(0)  # a move's priority, the sort key of ``expand``


def piece_count(k: int) -> int:
    return (k & (SIDE_BIT - 1)).bit_count()


def unpack(k: int, turn: int = 0) -> Position:
    """A rules position for a packed key, ``turn`` to move (for checks and tests)."""

    stacks: dict[int, list[tuple[int, int]]] = {}
    reserves: list[list[int]] = [[3, 3, 2, 2, 1, 1], [3, 3, 2, 2, 1, 1]]
    for size in (1, 2, 3):
        for half, color in ((0, turn), (27, turn ^ 1)):
            for bit in BITS[k >> (half + 9 * (size - 1)) & 511]:
                stacks.setdefault(BIT_SQUARE[bit], []).append((color, size))
                reserves[color].remove(size)
    for pieces in stacks.values():
        pieces.sort(key=lambda piece: piece[1])
    return Position.from_parts(
        PRESETS["junior"], stacks, ((tuple(reserves[0]),), (tuple(reserves[1]),)), turn
    )
