"""A game: a position with its history, the record's headers and time stamps, and the endings
that are not on the board (agreed draw, resignation, the touch rule's forfeit).

``BaseGame`` is what every game shares, spoken through the seam (``companion.rules.state``);
``Game`` is Gobblet's, with the touch rule, and ``companion.rules.cups.CupsGame`` Cups'."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.rules.move import IllegalMoveError, Move
from companion.rules.outcome import Outcome, Termination
from companion.rules.position import LegalMoveView, Position
from companion.rules.square import Color, Square, color_name, square_name
from companion.rules.state import GameMove, GameState, GameVariant
from companion.rules.variant import CLASSIC, Variant

OFF_BOARD_ENDINGS = (Termination.AGREED, Termination.RESIGNATION, Termination.TOUCH)


@dataclass(frozen=True)
class PlayedMove:
    move: Any  # the game's move (``Move`` in Gobblet): a GameMove
    timestamp: float | None = None  # seconds since the epoch, when the move was made
    comment: str | None = None
    symbol: str | None = None  # the record's annotation symbol: "!", "?", "??", "?!", ...
    evaluation: str | None = None  # the record's [%eval]: "0.35", "#7", "#-4" (White's view)


class BaseGame:
    """A game of any game the seam knows: its start, position, moves, headers and ending."""

    start: GameState[Any]
    position: GameState[Any]
    variant: GameVariant

    def __init__(self, start: GameState[Any], headers: dict[str, str] | None = None) -> None:
        self.start = start.copy()
        self.variant = start.variant
        self.position = start.copy()
        self.headers: dict[str, str] = dict(headers or {})
        self.headers["Variant"] = self.variant.spec
        self.played: list[PlayedMove] = []
        self._ending: Outcome | None = None

    @property
    def moves(self) -> list[Any]:
        return [p.move for p in self.played]

    @property
    def turn(self) -> Color:
        return self.position.turn

    @property
    def ply(self) -> int:
        return len(self.played)

    @property
    def legal_moves(self) -> tuple[GameMove, ...]:
        """The position's legal moves; none once the game ended off the board."""
        if self._ending is not None:
            return ()
        return tuple(self.position.move_from_code(code) for code in self.position.legal_codes())

    def outcome(self) -> Outcome | None:
        return self._ending or self.position.outcome()

    def is_over(self) -> bool:
        return self.outcome() is not None

    def check(self, move: Any) -> str | None:
        if self._ending is not None:
            return f"the game is over ({self._ending.reason})"
        return self.position.check(move)

    def push(self, move: Any, timestamp: float | None = None, comment: str | None = None) -> Any:
        """Play a move (``IllegalMoveError`` saying why if it is not legal); returns it as the
        position names it."""
        reason = self.check(move)
        if reason is not None:
            raise IllegalMoveError(f"{move.text()} is illegal: {reason}")
        code = self.position.code_from_move(move)
        named = self.position.move_from_code(code)
        self.position.push_code(code)
        self.played.append(PlayedMove(named, timestamp, comment))
        return named

    def push_text(self, text: str, timestamp: float | None = None) -> Any:
        """Play a move written in the game's notation (``MoveError`` saying what is wrong)."""
        if self._ending is not None:
            raise IllegalMoveError(f"{text.strip()} is illegal: the game is over ({self._ending.reason})")
        return self.push(self.position.parse_move(text), timestamp)

    def pop(self) -> Any:
        """Undo the last move (and any ending declared after it)."""
        if not self.played:
            raise IllegalMoveError("there is no move to take back")
        self._ending = None
        self.position.pop_code()
        return self.played.pop().move

    # ----- endings off the board --------------------------------------------------------

    def agree_draw(self) -> Outcome:
        return self.declare(Outcome(Termination.AGREED, None))

    def resign(self, color: Color) -> Outcome:
        return self.declare(Outcome(Termination.RESIGNATION, color ^ 1))

    def declare(self, outcome: Outcome) -> Outcome:
        """End the game off the board: an agreed draw, a resignation or a touch-rule forfeit."""
        if outcome.termination not in OFF_BOARD_ENDINGS:
            raise IllegalMoveError(f"{outcome.termination} is decided on the board, not declared")
        ended = self.outcome()
        if ended is not None:
            raise IllegalMoveError(f"the game is already over ({ended.reason})")
        self._ending = outcome
        return outcome

    @property
    def result(self) -> str:
        outcome = self.outcome()
        return outcome.result if outcome else "*"


class Game(BaseGame):
    """A game of Gobblet: ``BaseGame`` with its positions and moves, and the touch rule."""

    start: Position
    position: Position
    variant: Variant

    def __init__(
        self,
        variant: Variant = CLASSIC,
        start: Position | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(start if start is not None else Position(variant), headers)

    @property
    def moves(self) -> list[Move]:
        return [p.move for p in self.played]

    @property
    def legal_moves(self) -> LegalMoveView | tuple[Move, ...]:  # type: ignore[override]
        """The position's legal moves; none once the game ended off the board."""
        return () if self._ending is not None else self.position.legal_moves

    def push(self, move: Move, timestamp: float | None = None, comment: str | None = None) -> Move:
        named: Move = super().push(move, timestamp, comment)
        return named

    def pop(self) -> Move:
        move: Move = super().pop()
        return move

    def touch_violation(self, sq: Square) -> str | None:
        """Why the side to move may not lift the stack on ``sq`` (touch rule), if it may not."""
        top = self.position.top(sq)
        if top is None:
            return f"{square_name(sq)} is empty"
        if top[0] != self.turn and self.variant.touch_rule:
            return (
                f"{color_name(self.turn).capitalize()} may not touch {square_name(sq)}: "
                f"it shows a {color_name(top[0])} piece"
            )
        return None

    def lift(self, sq: Square) -> Outcome | None:
        """The side to move lifted its piece on ``sq``. Under the touch rule, a piece that has
        no legal destination loses the game for the lifter; returns that outcome."""
        if self.is_over() or not self.variant.touch_rule:
            return None
        top = self.position.top(sq)
        if top is not None and top[0] == self.turn and not self.position.destinations(sq):
            return self.declare(Outcome(Termination.TOUCH, self.turn ^ 1))
        return None
