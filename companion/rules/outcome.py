"""How a game ended: one value with the termination, the winner and, where it applies, the line."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from companion.rules.square import Color, Square, color_name, square_name


class Termination(StrEnum):
    LINE = "line"  # the mover completed a line of their colour
    UNCOVER = "uncover"  # the mover's lift revealed the opponent's line (the losing uncover)
    NO_MOVES = "no-moves"  # the side to move has no legal move: it loses
    REPETITION = "repetition"  # the same position for the third time: draw
    AGREED = "agreed"  # the players agreed a draw
    RESIGNATION = "resignation"
    TOUCH = "touch"  # touch rule: a lifted piece had no legal destination: the lifter loses
    POTS = "pots"  # Cups: neither player can move; the fuller pot wins, equal pots draw


@dataclass(frozen=True)
class Outcome:
    termination: Termination
    winner: Color | None
    line: tuple[Square, ...] = ()
    pots: tuple[int, int] | None = None  # Cups: the beans in each player's pot at the end

    @property
    def result(self) -> str:
        """The record's result token: ``1-0``, ``0-1`` or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner == 0 else "0-1"

    @property
    def winner_name(self) -> str | None:
        return None if self.winner is None else color_name(self.winner)

    def line_text(self) -> str:
        return " ".join(square_name(sq) for sq in self.line)

    @property
    def reason(self) -> str:
        """Words a player understands."""
        if self.termination == Termination.POTS and self.pots is not None:
            return self._pots_reason(self.pots)
        if self.winner is None:
            return {
                Termination.REPETITION: "draw by threefold repetition",
                Termination.AGREED: "draw agreed",
            }.get(self.termination, "draw")
        winner = color_name(self.winner).capitalize()
        loser = color_name(self.winner ^ 1).capitalize()
        match self.termination:
            case Termination.LINE:
                return f"{winner} wins with a full line {self.line_text()}"
            case Termination.UNCOVER:
                return f"{winner} wins: {loser}'s lift uncovered {winner}'s line {self.line_text()}"
            case Termination.NO_MOVES:
                return f"{winner} wins: {loser} has no legal move"
            case Termination.RESIGNATION:
                return f"{winner} wins: {loser} resigned"
            case Termination.TOUCH:
                return f"{winner} wins: {loser} lifted a piece that cannot move"
        return f"{winner} wins"

    def _pots_reason(self, pots: tuple[int, int]) -> str:
        if self.winner is None:
            return f"draw: neither player can move, {pots[0]} beans in each pot"
        return (
            f"{color_name(self.winner).capitalize()} wins {pots[self.winner]} to {pots[self.winner ^ 1]}: "
            "neither player can move"
        )

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "winner": self.winner_name,
            "reason": self.reason,
            "termination": str(self.termination),
        }
        if self.line:
            data["line"] = [square_name(sq) for sq in self.line]
        if self.pots is not None:
            data["pots"] = list(self.pots)
        return data
