"""A Gobblet position: every stack, hidden pieces included, both players' external stacks,
the side to move, and a move stack for push/pop.

Two interfaces over one state. The public one speaks ``Move`` values (``legal_moves``,
``check``, ``push``, ``pop``). The fast one speaks ``int`` move codes (``legal_codes``,
``push_code``, ``pop_code``, ``count_moves``) for perft and the search, which make and
unmake hundreds of thousands of moves a second. Codes are only meaningful in the position
that produced them (placements name a stack by its index in the current external stacks).

Bitboards use the square numbers of ``square.py``: per colour, the squares whose top piece
is that colour; per size, the squares whose top piece has that size. A stack is a list of
piece codes ``size << 1 | colour``, bottom first.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from companion.rules.geometry import (
    ZOBRIST,
    ZOBRIST_BLACK_TO_MOVE,
    Geometry,
    geometry,
    reserve_key,
    squares_of,
)
from companion.rules.move import AmbiguousMoveError, IllegalMoveError, Move
from companion.rules.outcome import Outcome, Termination
from companion.rules.square import (
    BLACK,
    WHITE,
    Color,
    Square,
    color_name,
    on_board,
    square_name,
)
from companion.rules.variant import CLASSIC, GobbleRule, Stack, Variant

Reserve = tuple[Stack, ...]  # one player's external stacks in canonical order
Piece = tuple[Color, int]    # (colour, size)

BOARD_FLAG = 1 << 20
NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def encode_placement(size: int, stack_index: int, to_square: Square) -> int:
    return to_square | size << 8 | stack_index << 12


def encode_board_move(from_square: Square, to_square: Square) -> int:
    return to_square | from_square << 8 | BOARD_FLAG


def canonical_reserve(stacks: Reserve, any_order: bool) -> Reserve:
    """Equal positions must have equal reserves: sort stacks, drop empties; pool if any order."""
    if any_order:
        pool = tuple(sorted((s for stack in stacks for s in stack), reverse=True))
        return (pool,) if pool else ()
    return tuple(sorted((stack for stack in stacks if stack), reverse=True))


@cache
def placement_options(reserve: Reserve, any_order: bool) -> tuple[tuple[int, int, bool], ...]:
    """Distinct placements from these stacks: (size, stack index, stack must be named)."""
    if any_order:
        return tuple((s, 0, False) for s in sorted(set(reserve[0]), reverse=True)) if reserve else ()
    distinct = [(i, stack) for i, stack in enumerate(reserve) if i == 0 or reserve[i - 1] != stack]
    tops = [stack[0] for _, stack in distinct]
    return tuple((stack[0], i, tops.count(stack[0]) > 1) for i, stack in distinct)


@cache
def take_from_reserve(reserve: Reserve, stack_index: int, size: int, any_order: bool) -> Reserve:
    if any_order:
        pool = list(reserve[0])
        pool.remove(size)
        return (tuple(pool),) if pool else ()
    stacks = list(reserve)
    stacks[stack_index] = stacks[stack_index][1:]
    return canonical_reserve(tuple(stacks), False)


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
        "_seen",
        "_size_tops",
        "_stacks",
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
        self._reserve = [
            canonical_reserve(reserves[WHITE], self.variant.any_order),
            canonical_reserve(reserves[BLACK], self.variant.any_order),
        ]
        self._hash = reserve_key(WHITE, self._reserve[WHITE]) ^ reserve_key(BLACK, self._reserve[BLACK])
        if turn == BLACK:
            self._hash ^= ZOBRIST_BLACK_TO_MOVE
        for sq, pieces in stacks.items():
            for color, size in pieces:
                self._drop(sq, size << 1 | color)
        self._undo: list[tuple[int, Reserve | None, tuple | None]] = []
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
        from companion.rules.fen import parse_position

        return parse_position(text)

    def text(self) -> str:
        """The one-line position text (see ``fen.py``)."""
        from companion.rules.fen import position_text

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

    def key(self) -> tuple:
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

    def _lift(self, sq: Square) -> int:
        stack = self._stacks[sq]
        piece = stack.pop()
        b = 1 << sq
        self._color_tops[piece & 1] ^= b
        self._size_tops[piece >> 1] ^= b
        self._hash ^= ZOBRIST[piece][sq]
        if stack:
            under = stack[-1]
            self._color_tops[under & 1] |= b
            self._size_tops[under >> 1] |= b
        return piece

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

    def push_code(self, code: int) -> None:
        """Play a move code from ``legal_codes()`` (no legality check)."""
        mover = self.turn
        to = code & 0xFF
        if code & BOARD_FLAG:
            origin = (code >> 8) & 0xFF
            piece = self._lift(origin)
            old_reserve = None
        else:
            origin = -1
            size = (code >> 8) & 0xF
            old_reserve = self._reserve[mover]
            new_reserve = take_from_reserve(old_reserve, code >> 12, size, self.variant.any_order)
            self._reserve[mover] = new_reserve
            self._hash ^= reserve_key(mover, old_reserve) ^ reserve_key(mover, new_reserve)
            piece = size << 1 | mover
        self._drop(to, piece)
        self._hash ^= ZOBRIST_BLACK_TO_MOVE
        self.turn = mover ^ 1
        self.ply += 1
        self._undo.append((code, old_reserve, self._result))
        self._result = self._end_of_turn(mover, origin, to)
        self._seen[self._hash] = self._seen.get(self._hash, 0) + 1

    def pop_code(self) -> int:
        """Undo the last move; return its code."""
        code, old_reserve, result = self._undo.pop()
        count = self._seen[self._hash] - 1
        if count:
            self._seen[self._hash] = count
        else:
            del self._seen[self._hash]
        self.turn ^= 1
        self.ply -= 1
        self._hash ^= ZOBRIST_BLACK_TO_MOVE
        piece = self._lift(code & 0xFF)
        if code & BOARD_FLAG:
            self._drop((code >> 8) & 0xFF, piece)
        else:
            new_reserve = self._reserve[self.turn]
            self._reserve[self.turn] = old_reserve  # type: ignore[assignment]
            self._hash ^= reserve_key(self.turn, new_reserve) ^ reserve_key(self.turn, old_reserve)  # type: ignore[arg-type]
        self._result = result
        return code

    @property
    def move_codes(self) -> list[int]:
        """The codes pushed so far, oldest first."""
        return [entry[0] for entry in self._undo]

    # ----- the end-of-turn check (RULES.md point 6) -------------------------------------

    def _end_of_turn(self, mover: Color, origin: Square, to: Square) -> tuple | None:
        """After a put-down: the opponent's full line (only a lift can reveal one) beats the
        mover's own."""
        lines_through = self._geometry.lines_through
        if origin >= 0:
            theirs = self._color_tops[mover ^ 1]
            for line in lines_through[origin]:
                if theirs & line.mask == line.mask:
                    return (Termination.UNCOVER, mover ^ 1, line.squares)
        # The mover's new line runs through ``to``: a lift never reveals one, since the lifted
        # piece already showed the mover's colour on the origin.
        mine = self._color_tops[mover]
        for line in lines_through[to]:
            if mine & line.mask == line.mask:
                return (Termination.LINE, mover, line.squares)
        return None

    def _full_line_check(self, mover: Color) -> tuple | None:
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
        rule = self.variant.gobble_rule
        occupied = self._color_tops[0] | self._color_tops[1]
        if rule is GobbleRule.ALWAYS:
            return occupied
        if rule is GobbleRule.NEVER:
            return 0
        theirs = self._color_tops[color ^ 1]
        need = self.variant.win_length - 1
        mask = 0
        threat_only = rule is GobbleRule.THREAT_LINE
        for line in self._geometry.lines:
            hit = line.mask & theirs
            if hit.bit_count() >= need:
                mask |= hit if threat_only else line.mask
        return mask & occupied

    def legal_codes(self) -> list[int]:
        """Every legal move as a code; none once a line has decided the game. Repetition is
        not considered here (as in perft); ``outcome()`` and ``legal_moves`` consider it."""
        if self._result is not None:
            return []
        turn = self.turn
        own = self._color_tops[turn]
        empty = self._geometry.board_mask & ~(own | self._color_tops[turn ^ 1])
        lt = self._smaller_than(empty)
        codes: list[int] = []
        append = codes.append
        options = placement_options(self._reserve[turn], self.variant.any_order)
        if options:
            gobble = self.gobble_mask(turn)
            for size, index, _ in options:
                base = size << 8 | index << 12
                m = empty | (lt[size] & gobble)
                while m:
                    low = m & -m
                    append(base | (low.bit_length() - 1))
                    m ^= low
        stacks = self._stacks
        while own:
            low = own & -own
            origin = low.bit_length() - 1
            own ^= low
            base = BOARD_FLAG | origin << 8
            m = lt[stacks[origin][-1] >> 1]
            while m:
                low = m & -m
                append(base | (low.bit_length() - 1))
                m ^= low
        return codes

    def count_moves(self) -> int:
        """``len(legal_codes())`` without building the list (perft's leaf count)."""
        if self._result is not None:
            return 0
        turn = self.turn
        own = self._color_tops[turn]
        empty = self._geometry.board_mask & ~(own | self._color_tops[turn ^ 1])
        lt = self._smaller_than(empty)
        count = 0
        options = placement_options(self._reserve[turn], self.variant.any_order)
        if options:
            gobble = self.gobble_mask(turn)
            for size, _, _ in options:
                count += (empty | (lt[size] & gobble)).bit_count()
        size_tops = self._size_tops
        for s in range(1, len(size_tops)):
            mine = own & size_tops[s]
            if mine:
                count += mine.bit_count() * lt[s].bit_count()
        return count

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

    def move_from_code(self, code: int) -> Move:
        to = code & 0xFF
        if code & BOARD_FLAG:
            return Move.board((code >> 8) & 0xFF, to)
        size, index = (code >> 8) & 0xF, code >> 12
        options = placement_options(self._reserve[self.turn], self.variant.any_order)
        named = any(o[1] == index and o[2] for o in options)
        return Move.place(size, to, index + 1 if named else None)

    def code_from_move(self, move: Move) -> int:
        """The code of a legal move; ``IllegalMoveError`` (saying why) or ``AmbiguousMoveError``."""
        reason = self.check(move)
        if reason is not None:
            raise IllegalMoveError(f"{move.text()} is illegal: {reason}")
        return self._candidate_code(move)  # type: ignore[return-value]

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
        move = Move.from_text(text)
        reason = self.check(move)
        if reason is not None:
            raise IllegalMoveError(f"{move.text()} is illegal: {reason}")
        return self.move_from_code(self._candidate_code(move))  # type: ignore[arg-type]

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

    # ----- why a move is illegal --------------------------------------------------------

    def _candidate_code(self, move: Move) -> int | None:
        """The code this move would have, if its pieces exist; None when it names nothing."""
        if move.from_square is not None:
            return encode_board_move(move.from_square, move.to_square)
        index = self._placement_index(move)
        if isinstance(index, str):
            return None
        return encode_placement(move.size, index, move.to_square)  # type: ignore[arg-type]

    def _placement_index(self, move: Move) -> int | str:
        """The external stack a placement takes from, or the reason there is none."""
        reserve = self._reserve[self.turn]
        size = move.size
        if not reserve:
            return "all your pieces are on the board"
        if self.variant.any_order:
            if move.stack not in (None, 1):
                return "in this variant your pieces off the board count as one stack (1)"
            if size not in reserve[0]:
                return f"you have no {size} off the board; you have {_sizes_text(set(reserve[0]))}"
            return 0
        if move.stack is not None:
            if move.stack > len(reserve):
                return f"you have {len(reserve)} external stacks, not {move.stack}"
            stack = reserve[move.stack - 1]
            if stack[0] != size:
                return f"your stack {move.stack} shows a {stack[0]}, not a {size}"
            return reserve.index(stack)
        candidates = [o for o in placement_options(reserve, False) if o[0] == size]
        if not candidates:
            return f"your stacks show {_sizes_text({s[0] for s in reserve})}, not {size}"
        if len(candidates) > 1:
            numbers = " and ".join(str(o[1] + 1) for o in candidates)
            raise AmbiguousMoveError(
                f"{move.text()} is ambiguous: your stacks {numbers} all show a {size} but hold "
                f"different pieces; name one, as {size}({candidates[0][1] + 1}){square_name(move.to_square)}"
            )
        return candidates[0][1]

    def check(self, move: Move) -> str | None:
        """None if ``move`` is legal here; otherwise why not, in a player's words."""
        outcome = self.outcome()
        if outcome is not None:
            return f"the game is over ({outcome.reason})"
        for sq in (move.to_square, move.from_square):
            if sq is not None and not on_board(sq, self.size):
                return f"{square_name(sq)} is not on the {self.size}x{self.size} board"
        player = color_name(self.turn).capitalize()
        if move.from_square is None:
            index = self._placement_index(move)
            if isinstance(index, str):
                return index
            reason = self._landing_reason(move.to_square, move.size)  # type: ignore[arg-type]
            if reason is None and self._stacks[move.to_square]:
                reason = self._stack_gobble_reason(player, move.to_square)
        else:
            reason = self._board_move_reason(player, move.from_square, move.to_square)
        if reason is None and self._candidate_code(move) not in self.legal_codes():
            reason = "not a legal move here"  # a gap between check() and the generator: a bug
        return reason

    def _landing_reason(self, to: Square, size: int) -> str | None:
        stack = self._stacks[to]
        if stack and stack[-1] >> 1 >= size:
            word = "larger" if stack[-1] >> 1 > size else "same-size"
            return f"{square_name(to)} holds a {word} piece"
        return None

    def _stack_gobble_reason(self, player: str, to: Square) -> str | None:
        if (self.gobble_mask(self.turn) >> to) & 1:
            return None
        rule = self.variant.gobble_rule
        name = square_name(to)
        them = color_name(self.turn ^ 1)
        count = NUMBER_WORDS[self.variant.win_length - 1]
        if rule is GobbleRule.NEVER:
            return "a piece from an external stack may go only on an empty square"
        if rule is GobbleRule.STORER:
            return (
                f"{player} may gobble {name} from a stack only if {name} lies on a line "
                f"with {count} {them} pieces"
            )
        if self._stacks[to][-1] & 1 == self.turn:
            return f"{player} may not gobble its own piece on {name} from a stack"
        return (
            f"{player} may gobble {name} from a stack only if {name} is one of {count} "
            f"{them} pieces in a line"
        )

    def _board_move_reason(self, player: str, origin: Square, to: Square) -> str | None:
        stack = self._stacks[origin]
        if not stack:
            return f"{square_name(origin)} is empty"
        if stack[-1] & 1 != self.turn:
            touch = " or touch" if self.variant.touch_rule else ""
            return (
                f"{square_name(origin)} shows a {color_name(stack[-1] & 1)} piece: "
                f"{player} may move{touch} only stacks showing {color_name(self.turn)}"
            )
        if to == origin:
            return "a piece may not return to the square it was lifted from"
        return self._landing_reason(to, stack[-1] >> 1)


def _sizes_text(sizes: set[int]) -> str:
    ordered = [str(s) for s in sorted(sizes, reverse=True)]
    if len(ordered) == 1:
        return f"size {ordered[0]}"
    return "sizes " + ", ".join(ordered[:-1]) + " and " + ordered[-1]
