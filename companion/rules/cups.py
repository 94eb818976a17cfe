"""Cups (the Amberstones, 1965): a two-rank, single-lap mancala, as docs/rules.md#cups decides it.

Each player has ``n`` cups in a row (cup 1 farthest from their pot) and a pot at the row's
right-hand end; a player's cup ``i`` faces the opponent's cup ``n + 1 - i``. A turn either
sows 1..4 beans from the stock into cups 1..k (the last bean landing in an empty cup takes
the beans of the cup facing it into the pot), or empties a cup holding exactly the beans that
reach the pot (``n - i + 1`` in cup ``i``), the last one into the pot. A player who cannot move
passes, made here by the position itself: ``turn`` is always the side that moves. The game
ends when neither can move; the fuller pot wins.

Everything the seam asks (``companion.rules.state.GameState``) is here: ``CupsVariant`` (spec
``cups``, ``cups:cups=6``, ``cups:stock=8``), ``CupsMove`` (``s3``, ``c2``), ``CupsPosition``
with move codes, push/pop, outcome, a hash and a one-line text that round-trips.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from companion.rules.fen import PositionSyntaxError
from companion.rules.game import BaseGame
from companion.rules.move import IllegalMoveError, MoveSyntaxError
from companion.rules.outcome import Outcome, Termination
from companion.rules.square import BLACK, WHITE, Color, color_name
from companion.rules.variant import VariantError

GAME_NAME = "cups"
DEFAULT_CUPS = 4
MAX_CUPS = 16  # cups per player a spec may ask for
BEANS_PER_CUP = 10  # a player's stock is ten beans for each of their cups, unless a spec says
MAX_STOCK = 999
MAX_SOW = 4  # beans a turn may sow from the stock
SOW, EMPTY = "s", "c"
CUP_CODE = 32  # move codes: 1..4 sow that many from the stock; CUP_CODE + i empties cup i
SIDE_LETTERS = ("w", "b")

Row = tuple[int, ...]  # a player's cups, cup 1 first
Pair = tuple[int, int]  # White's, Black's
State = tuple[tuple[Row, Row], Pair, Pair, Color]  # both rows of cups, stocks, pots, side to move


class PositionTextError(PositionSyntaxError):
    """A Cups position text that does not parse or cannot occur; the message names the field."""


# ----- the variant ----------------------------------------------------------------------------


@dataclass(frozen=True)
class CupsVariant:
    """``cups`` cups per player and ``stock`` beans of stock each (ten a cup by default)."""

    cups: int = DEFAULT_CUPS
    stock: int = BEANS_PER_CUP * DEFAULT_CUPS
    name: str = GAME_NAME

    def __post_init__(self) -> None:
        if self.cups < DEFAULT_CUPS or self.cups % 2 or self.cups > MAX_CUPS:
            raise VariantError(
                f"cups={self.cups}: Cups needs an even number of cups, {DEFAULT_CUPS}..{MAX_CUPS}"
            )
        if not 1 <= self.stock <= MAX_STOCK:
            raise VariantError(f"stock={self.stock}: give 1..{MAX_STOCK} beans per player")

    @property
    def beans(self) -> int:
        """Every bean in play: both stocks at the start."""
        return 2 * self.stock

    @cached_property
    def spec(self) -> str:
        switches = []
        if self.cups != DEFAULT_CUPS:
            switches.append(f"cups={self.cups}")
        if self.stock != BEANS_PER_CUP * self.cups:
            switches.append(f"stock={self.stock}")
        return GAME_NAME + (":" + ",".join(switches) if switches else "")

    @classmethod
    def from_spec(cls, spec: str) -> CupsVariant:
        """``cups`` or ``cups:cups=N,stock=S``; ``VariantError`` saying what is wrong."""
        name, _, switches = spec.strip().partition(":")
        if name.strip().lower() != GAME_NAME:
            raise VariantError(f"{spec!r} is not a Cups variant")
        values: dict[str, int] = {}
        for item in switches.split(",") if switches.strip() else []:
            key, eq, value = item.partition("=")
            key, value = key.strip().lower(), value.strip()
            if not eq or key not in ("cups", "stock"):
                raise VariantError(f"Cups switch {item.strip()!r}: use cups=N or stock=N")
            if key in values:
                raise VariantError(f"Cups switch {key!r} is given twice in {spec!r}")
            if not (value.isascii() and value.isdigit()) or len(value) > 4:
                raise VariantError(f"Cups switch {key}={value!r} needs a whole number")
            values[key] = int(value)
        cups = values.get("cups", DEFAULT_CUPS)
        return cls(cups, values.get("stock", BEANS_PER_CUP * cups))


# ----- moves ----------------------------------------------------------------------------------

_MOVE = re.compile(r"^([sc])(\d{1,2})$", re.ASCII)


@dataclass(frozen=True, slots=True)
class CupsMove:
    """``s3``: sow three beans from the stock; ``c2``: empty cup 2 towards the pot."""

    kind: str  # SOW or EMPTY
    count: int  # beans sown, or the cup emptied

    @staticmethod
    def from_text(text: str) -> CupsMove:
        match = _MOVE.match(text.strip().lower())
        if match is None or int(match.group(2)) == 0:
            raise MoveSyntaxError(
                f"{text.strip()!r} is not a Cups move: write s1..s4 (sow from the stock) "
                "or c1, c2, ... (empty a cup)"
            )
        return CupsMove(match.group(1), int(match.group(2)))

    @property
    def code(self) -> int:
        return self.count if self.kind == SOW else CUP_CODE + self.count

    @staticmethod
    def from_code(code: int) -> CupsMove:
        return CupsMove(SOW, code) if code < CUP_CODE else CupsMove(EMPTY, code - CUP_CODE)

    def text(self) -> str:
        return f"{self.kind}{self.count}"

    def __str__(self) -> str:
        return self.text()


# ----- the rules on a plain state (pure helpers, shared with the engine's solver) ---------------


def can_move(cups: Row, stock: int) -> bool:
    """Whether a player with these cups and this stock has any move."""
    return stock > 0 or any(beans == len(cups) - i for i, beans in enumerate(cups))


def mover_codes(cups: Row, stock: int) -> list[int]:
    """The move codes of a player with these cups and stock: sowing first, then cups."""
    n = len(cups)
    codes = list(range(1, min(MAX_SOW, stock) + 1))
    codes.extend(CUP_CODE + i + 1 for i, beans in enumerate(cups) if beans == n - i)
    return codes


def apply_code(mine: Row, theirs: Row, code: int) -> tuple[Row, Row, int, int]:
    """Play a code for the player owning ``mine``: (their cups, the opponent's, beans taken
    from the stock, beans added to the pot). The code must be legal."""
    n = len(mine)
    cups = list(mine)
    if code < CUP_CODE:
        last_was_empty = cups[code - 1] == 0
        for i in range(code):
            cups[i] += 1
        facing = n - code
        if last_was_empty and theirs[facing]:
            captured = theirs[facing]
            return tuple(cups), (*theirs[:facing], 0, *theirs[facing + 1 :]), code, captured
        return tuple(cups), theirs, code, 0
    cup = code - CUP_CODE - 1
    cups[cup] = 0
    for i in range(cup + 1, n):
        cups[i] += 1
    return tuple(cups), theirs, 0, 1


def next_state(state: State, code: int) -> State:
    """The state after ``code`` (legal for the side to move), the next mover chosen: the
    opponent if they can move, else the mover again (the opponent passes)."""
    rows, stocks, pots, turn = list(state[0]), list(state[1]), list(state[2]), state[3]
    mine, theirs, taken, gained = apply_code(rows[turn], rows[turn ^ 1], code)
    rows[turn], rows[turn ^ 1] = mine, theirs
    stocks[turn] -= taken
    pots[turn] += gained
    other = turn ^ 1
    nxt = other if can_move(rows[other], stocks[other]) or not can_move(mine, stocks[turn]) else turn
    return (rows[0], rows[1]), (stocks[0], stocks[1]), (pots[0], pots[1]), nxt


def start_state(variant: CupsVariant) -> State:
    empty = (0,) * variant.cups
    return (empty, empty), (variant.stock, variant.stock), (0, 0), WHITE


# ----- the position ---------------------------------------------------------------------------


class CupsPosition:
    """A Cups position with its history: the seam's ``GameState`` for Cups."""

    def __init__(self, variant: CupsVariant | None = None, state: State | None = None, ply: int = 0) -> None:
        self.variant = variant or CupsVariant()
        self._state: State = start_state(self.variant) if state is None else _with_mover(state)
        self.ply = ply
        self._undo: list[tuple[State, int]] = []

    # ----- views ------------------------------------------------------------------------------

    @property
    def state(self) -> State:
        return self._state

    @property
    def turn(self) -> Color:
        return self._state[3]

    @property
    def hash(self) -> int:
        return hash(self._state)

    def cups(self, color: Color) -> Row:
        """A player's cups, cup 1 (farthest from their pot) first."""
        return self._state[0][color]

    def stock(self, color: Color) -> int:
        return self._state[1][color]

    def pot(self, color: Color) -> int:
        return self._state[2][color]

    def beans(self) -> int:
        """Every bean on the table: stocks, cups and pots of both (constant in a game)."""
        rows, stocks, pots, _ = self._state
        return sum(map(sum, rows)) + sum(stocks) + sum(pots)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CupsPosition) and (self.variant, self._state) == (
            other.variant,
            other._state,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable; ``hash`` is the state's

    def __repr__(self) -> str:
        return f"CupsPosition.from_text({self.text()!r})"

    # ----- moves ------------------------------------------------------------------------------

    def legal_codes(self) -> list[int]:
        """The side to move's codes; none only when the game is over (the side to move is
        always one that can move until then)."""
        rows, stocks, _, turn = self._state
        return mover_codes(rows[turn], stocks[turn])

    def count_moves(self) -> int:
        return len(self.legal_codes())

    @property
    def legal_moves(self) -> tuple[CupsMove, ...]:
        return tuple(CupsMove.from_code(code) for code in self.legal_codes())

    def push_code(self, code: int) -> None:
        self._undo.append((self._state, code))
        self._state = next_state(self._state, code)
        self.ply += 1

    def pop_code(self) -> int:
        if not self._undo:
            raise IllegalMoveError("there is no move to take back")
        self._state, code = self._undo.pop()
        self.ply -= 1
        return code

    @property
    def move_codes(self) -> list[int]:
        return [code for _, code in self._undo]

    def move_from_code(self, code: int) -> CupsMove:
        return CupsMove.from_code(code)

    def check(self, move: CupsMove) -> str | None:
        """None if ``move`` is legal here; otherwise why not, in a player's words."""
        if self.outcome() is not None:
            return "the game is over"
        turn, n = self.turn, self.variant.cups
        stock = self.stock(turn)
        if move.kind == SOW:
            if move.count > MAX_SOW:
                return f"a turn sows at most {MAX_SOW} beans from the stock"
            if move.count > stock:
                return f"{color_name(turn).capitalize()} has only {stock} beans in stock"
            return None
        if move.count > n:
            return f"there are only {n} cups a side"
        beans, needed = self.cups(turn)[move.count - 1], n - move.count + 1
        if beans != needed:
            return f"cup {move.count} holds {beans} beans; it empties into the pot only with exactly {needed}"
        return None

    def code_from_move(self, move: CupsMove) -> int:
        reason = self.check(move)
        if reason is not None:
            raise IllegalMoveError(f"{move.text()} is illegal: {reason}")
        return move.code

    def parse_move(self, text: str) -> CupsMove:
        move = CupsMove.from_text(text)
        self.code_from_move(move)
        return move

    def push(self, move: CupsMove) -> None:
        self.push_code(self.code_from_move(move))

    def pop(self) -> CupsMove:
        return CupsMove.from_code(self.pop_code())

    def outcome(self) -> Outcome | None:
        """The end: neither player can move; the fuller pot wins."""
        rows, stocks, pots, _ = self._state
        if can_move(rows[WHITE], stocks[WHITE]) or can_move(rows[BLACK], stocks[BLACK]):
            return None
        winner = None if pots[0] == pots[1] else (WHITE if pots[0] > pots[1] else BLACK)
        return Outcome(Termination.POTS, winner, pots=(pots[0], pots[1]))

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    # ----- text -------------------------------------------------------------------------------

    def copy(self) -> CupsPosition:
        other = CupsPosition(self.variant, self._state, self.ply)
        other._undo = list(self._undo)
        return other

    def text(self) -> str:
        """``cups 1.1.1.0/0.0.0.0 b 37/40 0/0 1``: spec, White's cups / Black's (cup 1 first),
        side to move, stocks, pots, ply."""
        rows, stocks, pots, turn = self._state
        cups = "/".join(".".join(map(str, row)) for row in rows)
        return (
            f"{self.variant.spec} {cups} {SIDE_LETTERS[turn]} {stocks[0]}/{stocks[1]} "
            f"{pots[0]}/{pots[1]} {self.ply}"
        )

    @classmethod
    def from_text(cls, text: str) -> CupsPosition:
        """A position from its text; ``PositionTextError`` names the field that is wrong. A
        side to move that cannot move passes: the text is read with the other side to move."""
        fields = text.split()
        if len(fields) not in (5, 6):
            raise PositionTextError(
                "a Cups position text has 5 or 6 fields (spec cups side stocks pots [ply]), "
                f"not {len(fields)}"
            )
        try:
            variant = CupsVariant.from_spec(fields[0])
        except VariantError as error:
            raise PositionTextError(f"position text: {error}") from None
        white, black = _halves(fields[1], "cups")
        rows = (_row(white, variant.cups), _row(black, variant.cups))
        if fields[2].lower() not in SIDE_LETTERS:
            raise PositionTextError(f"side to move {fields[2]!r}: write w or b")
        stocks = _pair(fields[3], "stocks")
        pots = _pair(fields[4], "pots")
        ply = _count(fields[5], "ply") if len(fields) == 6 else 0
        state: State = (rows, stocks, pots, SIDE_LETTERS.index(fields[2].lower()))
        total = sum(map(sum, rows)) + sum(stocks) + sum(pots)
        if total != variant.beans:
            raise PositionTextError(
                f"the text holds {total} beans; {variant.spec} is played with {variant.beans}"
            )
        if max(stocks) > variant.stock:
            raise PositionTextError(f"a stock above {variant.stock}, the stock {variant.spec} starts with")
        return cls(variant, state, ply)


def _with_mover(state: State) -> State:
    """The state with the side that moves named: a side to move that cannot move passes."""
    rows, stocks, pots, turn = state
    if can_move(rows[turn], stocks[turn]) or not can_move(rows[turn ^ 1], stocks[turn ^ 1]):
        return state
    return rows, stocks, pots, turn ^ 1


def _count(text: str, what: str = "count") -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 6:
        raise PositionTextError(f"{what} {text!r} is not a whole number")
    return int(text)


def _row(text: str, cups: int) -> Row:
    parts = text.split(".")
    if len(parts) != cups:
        raise PositionTextError(f"cups {text!r}: a row has {cups} cups, separated by dots")
    return tuple(_count(part, "cup") for part in parts)


def _halves(text: str, what: str) -> tuple[str, str]:
    first, slash, second = text.partition("/")
    if not slash or "/" in second:
        raise PositionTextError(f"{what} {text!r}: write White's, a slash, then Black's")
    return first, second


def _pair(text: str, what: str) -> tuple[int, int]:
    first, second = _halves(text, what)
    return _count(first, what), _count(second, what)


# ----- text for people ------------------------------------------------------------------------

CELL = 4
MOVE_HELP = "s3, c2         play a move (s3: sow three beans from the stock; c2: empty cup 2)"


def diagram(position: CupsPosition) -> str:
    """The table as the players see it from White's side: Black's row on top, facing the
    other way (Black's cup 1 over White's cup n), each pot at its row's right-hand end."""
    n = position.variant.cups
    white, black = position.cups(WHITE), position.cups(BLACK)
    pot_width = CELL + 2
    lines = [
        " " * pot_width + "".join(f"{'c' + str(n - j):>{CELL}}" for j in range(n)),
        f"{position.pot(BLACK):>{pot_width - 1}} "
        + "".join(f"{black[n - 1 - j]:>{CELL}}" for j in range(n))
        + f"      Black: stock {position.stock(BLACK)}",
        " " * pot_width
        + "".join(f"{beans:>{CELL}}" for beans in white)
        + f"  {position.pot(WHITE):>3}"
        + f"  White: stock {position.stock(WHITE)}",
        " " * pot_width + "".join(f"{'c' + str(j + 1):>{CELL}}" for j in range(n)),
    ]
    outcome = position.outcome()
    lines.append(outcome.reason if outcome is not None else f"{color_name(position.turn)} to move")
    return "\n".join(lines)


class CupsGame(BaseGame):
    """A game of Cups: ``BaseGame`` with Cups positions and moves (no ending off the board
    but an agreed draw and a resignation)."""

    start: CupsPosition
    position: CupsPosition
    variant: CupsVariant

    def __init__(
        self,
        variant: CupsVariant | None = None,
        start: CupsPosition | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(start if start is not None else CupsPosition(variant), headers)
        self.headers["Game"] = GAME_NAME
