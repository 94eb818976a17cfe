"""The search's own board: the rules engine's position in a form made for making and
unmaking moves millions of times.

Why not search ``Position`` itself: its stacks are lists (a method call per lift and drop),
its end-of-turn check builds the outcome's details, and nothing in it knows the evaluation.
Here a stack is one ``int``: since sizes strictly increase upwards, a stack is the sequence of
its piece codes (``size << 1 | colour``, 5 bits each) with the top in the lowest bits, so the
top is ``stack & 31``, the piece under it ``stack >> 5 & 31`` (0: none), a lift ``stack >> 5``
and a drop ``stack << 5 | piece``. Squares are numbered compactly, ``file + size * rank``
(the rules engine's numbers have a stride of 16, so a 4x4 board's bitboards reach bit 51):
up to a 5x5 board every bitboard then fits in one 30-bit digit of a Python int, where
``&``, ``|`` and ``^`` take a fast path without allocating. Move codes have the rules engine's
layout over compact squares (``to_rules``/``from_rules`` translate at the root); the Zobrist
hash and the interned external stacks are the rules engine's own, so hashes and seen positions
carry over unchanged. The board also keeps ``material`` (the evaluation's per-top values,
white minus black) up to date in every move, so the evaluation does not recount it.

``make``/``unmake`` keep the seen positions (repetition); the search's last ply makes and
unmakes its leaves inline (see ``Searcher._frontier``), which is why the state is
plain public attributes. Everything here is checked move for move against ``Position`` in
``tests/engine/test_board.py``.
"""

from __future__ import annotations

from functools import cache

from companion.rules import Position, Variant
from companion.rules.codes import (
    BOARD_FLAG,
    CODE_BITS,
    ORIGIN_SHIFT,
    PLACED_PIECE_SHIFT,
    PLACED_SIZE_MASK,
    PLACEMENT_SHIFT,
    SIZE_MASK,
    SIZE_SHIFT,
    SQUARE_MASK,
    STACK_SHIFT,
    MoveCode,
    translate_code,
)
from companion.rules.geometry import ZOBRIST, ZOBRIST_BLACK_TO_MOVE, geometry
from companion.rules.reserves import PLACEMENT_OPTIONS, TAKES, take
from companion.rules.square import square
from companion.rules.tables import BoundedCache, LineTables

PIECE_BITS = 5
PIECE_MASK = 31


class BoardTables(LineTables):
    """One variant's lines and caches in compact square numbers (what ``Position``'s own
    tables are in the rules engine's numbers): line masks, move codes by destination mask,
    and, from ``LineTables``, the squares rule 4 lets a placement gobble and the squares
    completing a line of W-1."""

    __slots__ = (
        "board_mask",
        "codes",
        "compact_square",
        "line_masks",
        "rules_square",
        "size",
        "sizes",
        "zobrist",
    )

    def __init__(self, variant: Variant) -> None:
        size = variant.size
        self.size = size
        self.rules_square = tuple(square(i % size, i // size) for i in range(size * size))
        self.compact_square = {sq: i for i, sq in enumerate(self.rules_square)}
        geo = geometry(size, variant.win_length)
        super().__init__(variant, tuple(self.compact(line.mask) for line in geo.lines))
        self.board_mask = (1 << size * size) - 1
        self.line_masks = tuple(tuple(m for m in self.lines if m >> i & 1) for i in range(size * size))
        self.sizes = variant.max_piece + 2
        self.zobrist = tuple(tuple(keys[sq] for sq in self.rules_square) for keys in ZOBRIST)
        self.codes: BoundedCache[int, tuple[int, ...]] = BoundedCache()

    def compact(self, rules_mask: int) -> int:
        """A rules-engine bitboard in compact square numbers."""
        return sum(1 << i for i, sq in enumerate(self.rules_square) if rules_mask >> sq & 1)

    def rules_mask(self, mask: int) -> int:
        """A compact bitboard in the rules engine's square numbers."""
        return sum(1 << sq for i, sq in enumerate(self.rules_square) if mask >> i & 1)

    def to_rules(self, code: MoveCode) -> MoveCode:
        """A board code as the rules engine's code (same layout, the rules' square numbers)."""
        return translate_code(code, self.rules_square)

    def from_rules(self, code: MoveCode) -> MoveCode:
        """The board code of a rules engine's code."""
        return translate_code(code, self.compact_square)

    def move_codes(self, key: int, base: MoveCode, mask: int) -> tuple[MoveCode, ...]:
        codes = []
        while mask:
            low = mask & -mask
            codes.append(base | low.bit_length() - 1)
            mask ^= low
        return self.codes.remember(key, tuple(codes))


@cache
def board_tables_for(variant: Variant) -> BoardTables:
    return BoardTables(variant)


class SearchBoard:
    """A position for the search: see the module docstring for the representation."""

    __slots__ = (
        "board_mask",
        "hash",
        "line_masks",
        "material",
        "piece_values",
        "result",
        "rid",
        "seen",
        "size_tops",
        "sizes",
        "stacks",
        "tables",
        "tops",
        "turn",
        "zobrist",
    )

    def __init__(self, position: Position, piece_values: tuple[int, ...]) -> None:
        """The state of ``position`` (history of seen positions included); ``piece_values[p]``
        is what a visible top of piece code ``p`` adds to ``material``."""
        self.tables = tables = board_tables_for(position.variant)
        self.board_mask = tables.board_mask
        self.line_masks = tables.line_masks
        self.zobrist = tables.zobrist
        self.sizes = tables.sizes
        self.piece_values = piece_values
        self.stacks = [0] * len(tables.rules_square)
        self.tops = [0, 0]
        self.size_tops = [0] * tables.sizes
        for i, sq in enumerate(tables.rules_square):
            for piece in position.piece_stacks[sq]:
                self.stacks[i] = self.stacks[i] << PIECE_BITS | piece
            if self.stacks[i]:
                top = self.stacks[i] & PIECE_MASK
                self.tops[top & 1] |= 1 << i
                self.size_tops[top >> 1] |= 1 << i
        self.rid = list(position.reserve_ids)
        self.hash = position.hash
        self.turn = position.turn
        self.seen = position.repetition_counts()
        decided = position.line_result()
        self.result = None if decided is None else decided.winner
        self.material = sum(piece_values[stack & PIECE_MASK] for stack in self.stacks if stack)

    # ----- making and unmaking --------------------------------------------------------------

    def make(self, code: int) -> int:
        """Play a legal move code (in a position the game goes on in); ``result`` is then the
        winner's colour or None. Returns what ``unmake`` needs besides the code (the caller
        keeps both: a move stack here would cost a tuple per move)."""
        mover = self.turn
        to = code & SQUARE_MASK
        tops, size_tops, stacks, values = self.tops, self.size_tops, self.stacks, self.piece_values
        zobrist = self.zobrist
        h = self.hash ^ ZOBRIST_BLACK_TO_MOVE
        material = self.material
        origin = -1
        old_rid = -1
        if code & BOARD_FLAG:
            origin = code >> ORIGIN_SHIFT & SQUARE_MASK
            b = 1 << origin
            stack = stacks[origin]
            piece = stack & PIECE_MASK
            rest = stack >> PIECE_BITS
            stacks[origin] = rest
            tops[mover] ^= b
            size_tops[piece >> 1] ^= b
            material -= values[piece]
            h ^= zobrist[piece][origin]
            if rest:
                under = rest & PIECE_MASK
                tops[under & 1] |= b
                size_tops[under >> 1] |= b
                material += values[under]
        else:
            old_rid = self.rid[mover]
            entry = TAKES[old_rid].get(code >> PLACEMENT_SHIFT) or take(old_rid, code >> PLACEMENT_SHIFT)
            self.rid[mover] = entry[0]
            h ^= entry[1 + mover]
            piece = (code >> PLACED_PIECE_SHIFT & PLACED_SIZE_MASK) | mover
        b = 1 << to
        below = stacks[to]
        if below:
            covered = below & PIECE_MASK
            tops[covered & 1] ^= b
            size_tops[covered >> 1] ^= b
            material -= values[covered]
        stacks[to] = below << PIECE_BITS | piece
        tops[mover] |= b
        size_tops[piece >> 1] |= b
        material += values[piece]
        self.hash = h ^ zobrist[piece][to]
        self.material = material
        self.turn = mover ^ 1
        # The end-of-turn check (docs/rules.md, point 6): the opponent's line revealed by the lift
        # wins for the opponent before the mover's own line, which can only run through ``to``.
        result = None
        line_masks = self.line_masks
        theirs = tops[mover ^ 1]
        if origin >= 0 and theirs >> origin & 1:
            for mask in line_masks[origin]:
                if theirs & mask == mask:
                    result = mover ^ 1
                    break
        if result is None:
            mine = tops[mover]
            for mask in line_masks[to]:
                if mine & mask == mask:
                    result = mover
                    break
        self.result = result
        seen = self.seen
        seen[self.hash] = seen.get(self.hash, 0) + 1
        return old_rid

    def unmake(self, code: int, old_rid: int) -> None:
        """Undo the last ``make``, which played ``code`` and returned ``old_rid``."""
        # make's lift and drop written out again the other way round (lift from ``to``, drop
        # back on the origin), as Position.pop_code does: a call per lift and drop is what
        # this board exists to avoid (the module docstring).
        seen = self.seen
        count = seen[self.hash] - 1
        if count:
            seen[self.hash] = count
        else:
            del seen[self.hash]
        mover = self.turn ^ 1
        self.turn = mover
        self.result = None
        tops, size_tops, stacks, values = self.tops, self.size_tops, self.stacks, self.piece_values
        zobrist = self.zobrist
        h = self.hash ^ ZOBRIST_BLACK_TO_MOVE
        material = self.material
        to = code & SQUARE_MASK
        b = 1 << to
        above = stacks[to]
        piece = above & PIECE_MASK
        below = above >> PIECE_BITS
        stacks[to] = below
        tops[mover] ^= b
        size_tops[piece >> 1] ^= b
        material -= values[piece]
        h ^= zobrist[piece][to]
        if below:
            covered = below & PIECE_MASK
            tops[covered & 1] |= b
            size_tops[covered >> 1] |= b
            material += values[covered]
        if code & BOARD_FLAG:
            origin = code >> ORIGIN_SHIFT & SQUARE_MASK
            b = 1 << origin
            rest = stacks[origin]
            if rest:
                under = rest & PIECE_MASK
                tops[under & 1] ^= b
                size_tops[under >> 1] ^= b
                material -= values[under]
            stacks[origin] = rest << PIECE_BITS | piece
            tops[mover] |= b
            size_tops[piece >> 1] |= b
            material += values[piece]
            h ^= zobrist[piece][origin]
        else:
            entry = TAKES[old_rid][code >> PLACEMENT_SHIFT]
            self.rid[mover] = old_rid
            h ^= entry[1 + mover]
        self.hash = h
        self.material = material

    # ----- move generation (the same codes in the same order as Position.legal_codes) ------

    def gobble_mask(self, color: int) -> int:
        """Occupied squares a piece from ``color``'s external stacks may cover (rule 4)."""
        tops = self.tops
        return self.tables.gobble_squares(tops[color ^ 1], tops[0] | tops[1])

    def legal_codes(self, targets: int = -1) -> list[int]:
        """Every legal move code (none once a line has decided the game); with ``targets``,
        only those landing on these squares (in the same relative order)."""
        if self.result is not None:
            return []
        turn = self.turn
        tables = self.tables
        tops = self.tops
        own = tops[turn]
        empty = self.board_mask & ~(own | tops[turn ^ 1])
        size_tops = self.size_tops
        lt = [empty & targets]  # lt[s]: squares a piece of size s may go on (empty or a smaller top)
        acc = empty
        for s in range(1, self.sizes):
            lt.append(acc & targets)
            acc |= size_tops[s]
        cache = tables.codes
        codes: list[int] = []
        options = PLACEMENT_OPTIONS[self.rid[turn]]
        if options:
            gobble = self.gobble_mask(turn)
            for size, index, _ in options:
                m = (empty & targets) | (lt[size] & gobble)
                if m:
                    base = size << SIZE_SHIFT | index << STACK_SHIFT
                    key = m << CODE_BITS | base
                    got = cache.get(key)
                    codes += got if got is not None else tables.move_codes(key, base, m)
        stacks = self.stacks
        while own:
            low = own & -own
            origin = low.bit_length() - 1
            own ^= low
            m = lt[(stacks[origin] & PIECE_MASK) >> 1]
            if m:
                base = BOARD_FLAG | origin << ORIGIN_SHIFT
                key = m << CODE_BITS | base
                got = cache.get(key)
                codes += got if got is not None else tables.move_codes(key, base, m)
        return codes

    def is_legal(self, code: int) -> bool:
        """Is this code (from another position: a killer move) among ``legal_codes()``?"""
        if self.result is not None:
            return False
        turn = self.turn
        to = code & SQUARE_MASK
        if not self.board_mask >> to & 1:
            return False
        below = self.stacks[to] & PIECE_MASK
        if code & BOARD_FLAG:
            top = self.stacks[code >> ORIGIN_SHIFT & SQUARE_MASK] & PIECE_MASK
            return bool(top) and top & 1 == turn and top >> 1 > below >> 1  # (and so origin != to)
        size = code >> SIZE_SHIFT & SIZE_MASK
        if not any(
            option[0] == size and option[1] == code >> STACK_SHIFT
            for option in PLACEMENT_OPTIONS[self.rid[turn]]
        ):
            return False
        return not below or (below >> 1 < size and bool(self.gobble_mask(turn) >> to & 1))

    def has_win(self) -> bool:
        """Does the side to move have a move that wins at once? (``Position.winning_codes``
        with ``first``: only the squares completing a line of W-1 of the mover's tops are
        looked at, lift and uncover included.)"""
        if self.result is not None:
            return False
        turn = self.turn
        tables = self.tables
        tops = self.tops
        own = tops[turn]
        threats = tables.threats.get(own)
        if threats is None:
            threats = tables.threat_squares(own)
        if not threats:
            return False
        stacks = self.stacks
        options = PLACEMENT_OPTIONS[self.rid[turn]]
        for x, xb, lines, span in threats:
            xstack = stacks[x]
            movers = own
            if xstack:  # an opponent's top (x never shows the mover's colour)
                xsize = (xstack & PIECE_MASK) >> 1
                size_tops = self.size_tops
                for s in range(1, xsize + 1):
                    movers &= ~size_tops[s]
                placing = options and self.gobble_mask(turn) & xb
            else:
                xsize = 0
                placing = options
            if placing:
                for size, _, _ in options:
                    if size > xsize:  # a placement lifts nothing, so it cannot uncover
                        return True
            while movers:
                b = movers & -movers
                movers ^= b
                origin = b.bit_length() - 1
                under_piece = stacks[origin] >> PIECE_BITS & PIECE_MASK
                under = under_piece & 1 if under_piece else -1
                if b & span and under != turn:  # the lift takes a top off a line x completes
                    after = (own ^ b) | xb
                    for line in lines:
                        if after & line == line:
                            break
                    else:
                        continue  # the lift broke every line this square would complete
                if under == turn ^ 1:  # the lift reveals an opponent piece: a line of theirs?
                    revealed = (tops[turn ^ 1] | b) & ~xb
                    if any(revealed & mask == mask for mask in tables.line_masks[origin]):
                        continue
                return True
        return False
