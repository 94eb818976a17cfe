"""A Gobblet position: every stack, hidden pieces included, both players' external stacks,
the side to move, and a move stack for push/pop.

Two interfaces over one state, as python-chess has ``pieces()`` beside ``pieces_mask()``. The
public one speaks ``Move`` values (``legal_moves``, ``check``, ``push``, ``pop``). The fast
one speaks ``int`` move codes (``legal_codes``, ``push_code``, ``pop_code``, ``count_moves``,
``winning_codes``) for perft, the engine's search and the reconciler, which make and unmake
hundreds of thousands of moves a second; ``codes.py`` says what a code holds. Codes are only
meaningful in the position that produced them (placements name a stack by its index in the
current external stacks).

The state the fast interface reads is public too, read only: ``piece_stacks`` (every square's
stack as piece codes ``size << 1 | colour``, bottom first), ``tops_mask(color)`` and
``size_tops_mask(size)`` (bitboards over the square numbers of ``square.py``), ``hash``,
``reserve_ids`` (the interned external stacks of ``reserves.py``), ``tables`` (the variant's
line tables of ``tables.py``), ``last_code`` and ``line_decided``.
"""

from __future__ import annotations

from collections.abc import Iterator

from companion.rules.codes import (
    BOARD_FLAG,
    CODE_BITS,
    ORIGIN_SHIFT,
    PLACED_PIECE_SHIFT,
    PLACED_SIZE_MASK,
    PLACEMENT_SHIFT,
    SIZE_SHIFT,
    SQUARE_MASK,
    STACK_SHIFT,
    MoveCode,
    PieceCode,
    code_from,
    code_size,
    code_stack,
    code_to,
    encode_board_move,
    encode_placement,
    is_board_move,
)
from companion.rules.fen import parse_position_text, position_text
from companion.rules.geometry import (
    ZOBRIST,
    ZOBRIST_BLACK_TO_MOVE,
    Geometry,
    geometry,
    reserve_key,
    squares_of,
)
from companion.rules.move import IllegalMoveError, Move
from companion.rules.outcome import Outcome, Termination
from companion.rules.reserves import (
    PLACEMENT_OPTIONS,
    RESERVE_KEYS,
    RESERVES,
    TAKES,
    Reserve,
    ReserveId,
    canonical_reserve,
    placement_options,
    reserve_id,
    take,
    take_from_reserve,
)
from companion.rules.square import (
    BLACK,
    WHITE,
    Color,
    Piece,
    Square,
    on_board,
)
from companion.rules.tables import CACHE_LIMIT, LineTables, VariantTables, tables_for
from companion.rules.variant import CLASSIC, Variant
from companion.rules.verdicts import examine

LineResult = tuple[Termination, Color, tuple[Square, ...]]  # a full line at the end of a turn
PositionKey = tuple[str, Color, tuple[tuple[PieceCode, ...], ...], tuple[Reserve, ...]]

__all__ = [
    "BOARD_FLAG",
    "CACHE_LIMIT",
    "LegalMoveView",
    "LineTables",
    "Piece",
    "Position",
    "Reserve",
    "canonical_reserve",
    "encode_board_move",
    "encode_placement",
    "placement_options",
    "take_from_reserve",
]


class LegalMoveView:
    """A lazy view of the legal moves that supports ``in``, ``len`` and iteration."""

    def __init__(self, position: Position) -> None:
        self._position = position

    def __iter__(self) -> Iterator[Move]:
        position = self._position
        if position.outcome() is not None:
            return iter(())
        return (position.move_from_code(code) for code in position.legal_codes())

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and self._position.is_legal(move)

    def __len__(self) -> int:
        return 0 if self._position.outcome() is not None else self._position.count_moves()

    def __bool__(self) -> bool:
        return len(self) > 0

    def __repr__(self) -> str:
        return f"<LegalMoveView ({', '.join(m.text() for m in self)})>"


class Position:
    __slots__ = (
        "_color_tops",
        "_geometry",
        "_hash",
        "_reserve",
        "_result",
        "_rid",
        "_seen",
        "_size_tops",
        "_stacks",
        "_tables",
        "_undo",
        "ply",
        "turn",
        "variant",
    )

    def __init__(self, variant: Variant = CLASSIC) -> None:
        self.variant = variant
        self._geometry: Geometry = geometry(variant.size, variant.win_length)
        reserve = canonical_reserve(variant.stacks, variant.any_order)
        self._setup({}, (reserve, reserve), WHITE, 0)

    # ----- construction -------------------------------------------------------------------

    def _setup(
        self,
        stacks: dict[Square, list[Piece]],
        reserves: tuple[Reserve, Reserve],
        turn: Color,
        ply: int,
    ) -> None:
        self.turn = turn
        self.ply = ply
        self._stacks: list[list[int]] = [[] for _ in range(self._geometry.squares[-1] + 1)]
        self._color_tops = [0, 0]
        self._size_tops = [0] * (self.variant.max_piece + 2)
        self._tables = tables_for(self.variant)
        any_order = self.variant.any_order
        self._rid = [
            reserve_id(canonical_reserve(reserves[WHITE], any_order), any_order),
            reserve_id(canonical_reserve(reserves[BLACK], any_order), any_order),
        ]
        self._reserve = [RESERVES[self._rid[WHITE]], RESERVES[self._rid[BLACK]]]
        self._hash = reserve_key(WHITE, self._reserve[WHITE]) ^ reserve_key(BLACK, self._reserve[BLACK])
        if turn == BLACK:
            self._hash ^= ZOBRIST_BLACK_TO_MOVE
        for sq, pieces in stacks.items():
            for color, size in pieces:
                self._drop(sq, size << 1 | color)
        # (code, the mover's reserve id before a placement or -1, the line result before)
        self._undo: list[tuple[MoveCode, ReserveId, LineResult | None]] = []
        self._seen: dict[int, int] = {self._hash: 1}
        self._result = self._full_line_check(mover=turn ^ 1)

    @classmethod
    def from_parts(
        cls,
        variant: Variant,
        stacks: dict[Square, list[Piece]],
        reserves: tuple[Reserve, Reserve],
        turn: Color = WHITE,
        ply: int = 0,
    ) -> Position:
        """A position from its parts; used by the text format and by tests."""
        position = cls.__new__(cls)
        position.variant = variant
        position._geometry = geometry(variant.size, variant.win_length)
        position._setup(stacks, reserves, turn, ply)
        return position

    @classmethod
    def from_text(cls, text: str) -> Position:
        """A position from its one-line text (see ``fen.py``); ``PositionSyntaxError`` names
        what is wrong with a malformed text or an impossible position."""
        parts = parse_position_text(text)
        return cls.from_parts(parts.variant, parts.stacks, parts.reserves, parts.turn, parts.ply)

    def text(self) -> str:
        """The one-line position text (see ``fen.py``)."""
        return position_text(self)

    def copy(self) -> Position:
        """An independent position with the same state, move stack and seen positions, so the
        copy can be searched, popped and checked for repetition like the original."""
        other = Position.from_parts(self.variant, self.stacks(), self.reserves(), self.turn, self.ply)
        other._seen = dict(self._seen)
        other._undo = list(self._undo)  # entries are immutable tuples
        other._result = self._result
        return other

    # ----- views ------------------------------------------------------------------------

    @property
    def size(self) -> int:
        return self.variant.size

    @property
    def squares(self) -> tuple[Square, ...]:
        return self._geometry.squares

    @property
    def geometry(self) -> Geometry:
        return self._geometry

    @property
    def hash(self) -> int:
        """Zobrist hash of every stack, both reserves and the side to move (updated per move)."""
        return self._hash

    @property
    def piece_stacks(self) -> list[list[PieceCode]]:
        """Every square's stack as piece codes (``size << 1 | colour``, see ``codes.py``),
        bottom first, indexed by square number (off-board numbers hold empty lists). The live
        state, for the fast readers (the reconciler's decoder): read it, never change it;
        ``stack(sq)`` gives a square's pieces as ``(colour, size)`` values."""
        return self._stacks

    @property
    def reserve_ids(self) -> tuple[ReserveId, ReserveId]:
        """White's and Black's external stacks as ids of the interned table of
        ``reserves.py`` (``RESERVES[id]`` is the reserve ``reserve(color)`` gives)."""
        return (self._rid[WHITE], self._rid[BLACK])

    @property
    def tables(self) -> VariantTables:
        """The variant's line tables (``tables.py``), shared by every position of it."""
        return self._tables

    @property
    def last_code(self) -> MoveCode | None:
        """The code of the last move pushed, None when there is none (a position set up from
        parts or text starts with no moves; a ``copy`` keeps the original's)."""
        return self._undo[-1][0] if self._undo else None

    @property
    def line_decided(self) -> bool:
        """Whether a full line decided the game at the end of the last turn: ``line_result()
        is not None`` without building the ``Outcome``."""
        return self._result is not None

    def repetition_counts(self) -> dict[int, int]:
        """A copy of how often each position (by ``hash``) has occurred in this position's
        history: what threefold repetition counts, for a search that keeps its own."""
        return dict(self._seen)

    def stack(self, sq: Square) -> tuple[Piece, ...]:
        """The pieces on a square, bottom first, hidden ones included."""
        return tuple((p & 1, p >> 1) for p in self._stacks[sq])

    def top(self, sq: Square) -> Piece | None:
        stack = self._stacks[sq]
        return (stack[-1] & 1, stack[-1] >> 1) if stack else None

    def stacks(self) -> dict[Square, list[Piece]]:
        return {sq: list(self.stack(sq)) for sq in self.squares if self._stacks[sq]}

    def reserve(self, color: Color) -> Reserve:
        """One player's external stacks (top first), in the order the position text lists them."""
        return self._reserve[color]

    def reserves(self) -> tuple[Reserve, Reserve]:
        return (self._reserve[WHITE], self._reserve[BLACK])

    def tops_mask(self, color: Color) -> int:
        """Bitboard of the squares whose top piece is ``color``."""
        return self._color_tops[color]

    def size_tops_mask(self, size: int) -> int:
        """Bitboard of the squares whose top piece has ``size``."""
        return self._size_tops[size]

    def key(self) -> PositionKey:
        """Exact identity of the position (what repetition compares)."""
        return (
            self.variant.spec,
            self.turn,
            tuple(tuple(self._stacks[sq]) for sq in self.squares),
            tuple(self._reserve),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable, like python-chess's Board

    def __repr__(self) -> str:
        return f"Position.from_text({self.text()!r})"

    def repetitions(self) -> int:
        """How many times the current position has occurred in this position's history."""
        return self._seen.get(self._hash, 0)

    # ----- making and unmaking moves (the fast interface) -------------------------------

    def _drop(self, sq: Square, piece: int) -> None:
        stack = self._stacks[sq]
        b = 1 << sq
        if stack:
            under = stack[-1]
            self._color_tops[under & 1] ^= b
            self._size_tops[under >> 1] ^= b
        stack.append(piece)
        self._color_tops[piece & 1] |= b
        self._size_tops[piece >> 1] |= b
        self._hash ^= ZOBRIST[piece][sq]

    def push_code(self, code: MoveCode) -> None:
        """Play a move code from ``legal_codes()`` (no legality check)."""
        # Lift, drop and the end-of-turn check are written out here, and the code's fields
        # read with the bit operations of codes.py's layout: this runs at every node.
        mover = self.turn
        to = code & SQUARE_MASK
        tops = self._color_tops
        size_tops = self._size_tops
        stacks = self._stacks
        h = self._hash ^ ZOBRIST_BLACK_TO_MOVE
        if code & BOARD_FLAG:
            origin = code >> ORIGIN_SHIFT & SQUARE_MASK
            stack = stacks[origin]
            piece = stack.pop()
            b = 1 << origin
            tops[piece & 1] ^= b
            size_tops[piece >> 1] ^= b
            h ^= ZOBRIST[piece][origin]
            if stack:
                under = stack[-1]
                tops[under & 1] |= b
                size_tops[under >> 1] |= b
            old_rid = -1
        else:
            origin = -1
            old_rid = self._rid[mover]
            entry = TAKES[old_rid].get(code >> PLACEMENT_SHIFT) or take(old_rid, code >> PLACEMENT_SHIFT)
            self._rid[mover] = entry[0]
            self._reserve[mover] = RESERVES[entry[0]]
            h ^= entry[1 + mover]
            piece = (code >> PLACED_PIECE_SHIFT & PLACED_SIZE_MASK) | mover  # size << 1 | colour
        stack = stacks[to]
        b = 1 << to
        if stack:
            under = stack[-1]
            tops[under & 1] ^= b
            size_tops[under >> 1] ^= b
        stack.append(piece)
        tops[piece & 1] |= b
        size_tops[piece >> 1] |= b
        h ^= ZOBRIST[piece][to]
        self._hash = h
        self.turn = mover ^ 1
        self.ply += 1
        self._undo.append((code, old_rid, self._result))
        # The end-of-turn check (docs/rules.md, point 6): the opponent's full line (only a lift can
        # reveal one, through the origin) beats the mover's own (which runs through ``to``:
        # a lift never reveals one, since the lifted piece already showed the mover's colour).
        result = None
        line_masks = self._tables.line_masks
        if origin >= 0 and tops[mover ^ 1] >> origin & 1:
            theirs = tops[mover ^ 1]
            for mask in line_masks[origin]:
                if theirs & mask == mask:
                    result = (Termination.UNCOVER, mover ^ 1, self._tables.line_squares[mask])
                    break
        if result is None:
            mine = tops[mover]
            for mask in line_masks[to]:
                if mine & mask == mask:
                    result = (Termination.LINE, mover, self._tables.line_squares[mask])
                    break
        self._result = result
        seen = self._seen
        seen[h] = seen.get(h, 0) + 1

    def pop_code(self) -> MoveCode:
        """Undo the last move; return its code."""
        # The inverse of push_code, written out the same way (lift from ``to``, drop back).
        code, old_rid, result = self._undo.pop()
        h = self._hash
        seen = self._seen
        count = seen[h] - 1
        if count:
            seen[h] = count
        else:
            del seen[h]
        mover = self.turn ^ 1
        self.turn = mover
        self.ply -= 1
        h ^= ZOBRIST_BLACK_TO_MOVE
        tops = self._color_tops
        size_tops = self._size_tops
        to = code & SQUARE_MASK
        stack = self._stacks[to]
        piece = stack.pop()
        b = 1 << to
        tops[piece & 1] ^= b
        size_tops[piece >> 1] ^= b
        h ^= ZOBRIST[piece][to]
        if stack:
            under = stack[-1]
            tops[under & 1] |= b
            size_tops[under >> 1] |= b
        if code & BOARD_FLAG:
            origin = code >> ORIGIN_SHIFT & SQUARE_MASK
            stack = self._stacks[origin]
            b = 1 << origin
            if stack:
                under = stack[-1]
                tops[under & 1] ^= b
                size_tops[under >> 1] ^= b
            stack.append(piece)
            tops[piece & 1] |= b
            size_tops[piece >> 1] |= b
            h ^= ZOBRIST[piece][origin]
        else:
            current = self._rid[mover]
            self._rid[mover] = old_rid
            self._reserve[mover] = RESERVES[old_rid]
            h ^= RESERVE_KEYS[old_rid][mover] ^ RESERVE_KEYS[current][mover]
        self._hash = h
        self._result = result
        return code

    @property
    def move_codes(self) -> list[MoveCode]:
        """The codes pushed so far, oldest first."""
        return [entry[0] for entry in self._undo]

    # ----- the end-of-turn check (docs/rules.md, point 6; the per-move check is in push_code) -----

    def _full_line_check(self, mover: Color) -> LineResult | None:
        """The end-of-turn check over every line, for a position set up from parts: a line of
        the side to move can only have been revealed by the last mover's lift."""
        for color, termination in ((mover ^ 1, Termination.UNCOVER), (mover, Termination.LINE)):
            tops = self._color_tops[color]
            for line in self._geometry.lines:
                if tops & line.mask == line.mask:
                    return (termination, color, line.squares)
        return None

    def line_result(self) -> Outcome | None:
        """A full line decided at the end of the last turn (repetition not considered)."""
        if self._result is None:
            return None
        termination, winner, line = self._result
        return Outcome(termination, winner, line)

    # ----- move generation --------------------------------------------------------------

    def _smaller_than(self, empty: int) -> list[int]:
        """``lt[s]``: squares a piece of size ``s`` may go on (empty or a smaller top)."""
        size_tops = self._size_tops
        lt = [empty] * (len(size_tops))
        acc = empty
        for s in range(1, len(size_tops)):
            lt[s] = acc
            acc |= size_tops[s]
        return lt

    def gobble_mask(self, color: Color) -> int:
        """Occupied squares that a piece from ``color``'s external stacks may cover (rule 4)."""
        tops = self._color_tops
        return self._tables.gobble_squares(tops[color ^ 1], tops[0] | tops[1])

    def legal_codes(self, within: int | None = None) -> list[MoveCode]:
        """Every legal move as a code; none once a line has decided the game. Repetition is
        not considered here (as in perft); ``outcome()`` and ``legal_moves`` consider it.

        With ``within`` (a bitboard), only the moves whose squares (destination, and origin
        for a board move) all lie in it, in the same order: a caller that wants only those
        (the reconciler's two-move search, within the squares a reading changed) does not
        build the rest."""
        if self._result is not None:
            return []
        turn = self.turn
        tables = self._tables
        own = self._color_tops[turn]
        empty = tables.board_mask & ~(own | self._color_tops[turn ^ 1])
        size_tops = self._size_tops
        lt = [empty]  # lt[s]: squares a piece of size s may go on (empty or a smaller top)
        acc = empty
        for s in range(1, tables.sizes):
            lt.append(acc)
            acc |= size_tops[s]
        if within is not None:  # (one test when absent: perft calls this at every node)
            lt = [m & within for m in lt]
            empty = lt[0]
            own &= within
        cache = tables.codes
        codes: list[int] = []
        options = PLACEMENT_OPTIONS[self._rid[turn]]
        if options:
            gobble = self.gobble_mask(turn)
            for size, index, _ in options:
                m = empty | (lt[size] & gobble)
                if m:
                    base = size << SIZE_SHIFT | index << STACK_SHIFT
                    key = m << CODE_BITS | base
                    got = cache.get(key)
                    codes += got if got is not None else tables.move_codes(key, base, m)
        stacks = self._stacks
        while own:
            low = own & -own
            origin = low.bit_length() - 1
            own ^= low
            m = lt[stacks[origin][-1] >> 1]
            if m:
                base = BOARD_FLAG | origin << ORIGIN_SHIFT
                key = m << CODE_BITS | base
                got = cache.get(key)
                codes += got if got is not None else tables.move_codes(key, base, m)
        return codes

    def count_moves(self) -> int:
        """``len(legal_codes())`` without building the list (perft's leaf count)."""
        if self._result is not None:
            return 0
        turn = self.turn
        tables = self._tables
        own = self._color_tops[turn]
        empty = tables.board_mask & ~(own | self._color_tops[turn ^ 1])
        size_tops = self._size_tops
        count = 0
        acc = empty
        options = PLACEMENT_OPTIONS[self._rid[turn]]
        if options:
            gobble = self.gobble_mask(turn)
            lt = [empty]
            for s in range(1, tables.sizes):
                lt.append(acc)
                acc |= size_tops[s]
            for size, _, _ in options:
                count += (empty | (lt[size] & gobble)).bit_count()
            acc = empty
        for s in range(1, tables.sizes):
            mine = own & size_tops[s]
            if mine:
                count += mine.bit_count() * acc.bit_count()
            acc |= size_tops[s]
        return count

    def winning_codes(self, first: bool = False) -> list[MoveCode]:
        """The legal moves after which the side to move wins at once (docs/rules.md, point 6, gives
        the mover the game), in no particular order; the same set as playing every legal
        move and asking ``line_result()``, found with bitboards: only the squares that
        complete a line of W-1 of the mover's tops are looked at, so most positions answer
        in a dictionary look-up. With ``first``, stop at the first one found (a list of at
        most one move: the search only asks whether there is one)."""
        if self._result is not None:
            return []
        turn = self.turn
        tables = self._tables
        tops = self._color_tops
        own = tops[turn]
        threats = tables.threats.get(own)
        if threats is None:
            threats = tables.threat_squares(own)
        if not threats:
            return []
        stacks = self._stacks
        options = PLACEMENT_OPTIONS[self._rid[turn]]
        wins: list[int] = []
        for x, xb, lines, span in threats:
            xstack = stacks[x]
            movers = own
            if xstack:  # an opponent's top (x never shows the mover's colour)
                xsize = xstack[-1] >> 1
                size_tops = self._size_tops
                for s in range(1, xsize + 1):
                    movers &= ~size_tops[s]
                placing = options and self.gobble_mask(turn) & xb
            else:
                xsize = 0
                placing = options
            if placing:
                for size, index, _ in options:
                    if size > xsize:  # a placement lifts nothing, so it cannot uncover
                        wins.append(encode_placement(size, index, x))
                        if first:
                            return wins
            while movers:
                b = movers & -movers
                movers ^= b
                origin = b.bit_length() - 1
                stack = stacks[origin]
                under = stack[-2] & 1 if len(stack) > 1 else -1
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
                wins.append(encode_board_move(origin, x))
                if first:
                    return wins
        return wins

    def destinations(self, origin: Square) -> list[Square]:
        """Where the piece on ``origin`` may go (empty if it may not be lifted or cannot move)."""
        stack = self._stacks[origin] if on_board(origin, self.size) else []
        if not stack or stack[-1] & 1 != self.turn or self._result is not None:
            return []
        empty = self._geometry.board_mask & ~(self._color_tops[0] | self._color_tops[1])
        return squares_of(self._smaller_than(empty)[stack[-1] >> 1])

    # ----- the public, Move-based interface ---------------------------------------------

    @property
    def legal_moves(self) -> LegalMoveView:
        return LegalMoveView(self)

    def move_from_code(self, code: MoveCode) -> Move:
        """The ``Move`` of a code of this position (its stack named where it must be)."""
        to = code_to(code)
        if is_board_move(code):
            return Move.board(code_from(code), to)
        size, index = code_size(code), code_stack(code)
        options = placement_options(self._reserve[self.turn], self.variant.any_order)
        named = any(o[1] == index and o[2] for o in options)
        return Move.place(size, to, index + 1 if named else None)

    def code_from_move(self, move: Move) -> MoveCode:
        """The code of a legal move; ``IllegalMoveError`` (saying why) or ``AmbiguousMoveError``."""
        verdict = examine(self, move)
        if isinstance(verdict, str):
            raise IllegalMoveError(f"{move.text()} is illegal: {verdict}")
        return verdict

    def is_legal(self, move: Move) -> bool:
        return self.check(move) is None

    def push(self, move: Move) -> None:
        """Play a legal move; raises ``IllegalMoveError`` with the reason otherwise."""
        self.push_code(self.code_from_move(move))

    def pop(self) -> Move:
        """Undo the last move and return it."""
        code = self.pop_code()
        return self.move_from_code(code)

    def parse_move(self, text: str) -> Move:
        """Text to a legal move here, or an error naming the move and saying why."""
        return self.move_from_code(self.code_from_move(Move.from_text(text)))

    def outcome(self) -> Outcome | None:
        """How the game stands: a full line, threefold repetition, or no legal move."""
        decided = self.line_result()
        if decided is not None:
            return decided
        if self._seen.get(self._hash, 0) >= 3:
            return Outcome(Termination.REPETITION, None)
        if not self.legal_codes():
            return Outcome(Termination.NO_MOVES, self.turn ^ 1)
        return None

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    # ----- why a move is illegal (the words are in verdicts.py) -------------------------

    def check(self, move: Move) -> str | None:
        """None if ``move`` is legal here; otherwise why not, in a player's words."""
        verdict = examine(self, move)
        return verdict if isinstance(verdict, str) else None
