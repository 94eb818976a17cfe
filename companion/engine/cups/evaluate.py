"""The Cups evaluation: what a position is worth to the side to move, in hundredths of a bean.

The pots decide the game, so the score is the margin of the pots (100 a bean) plus what the
cups and stocks promise, each term from the rules' own consequences:

- a cup holding exactly the beans that reach the pot is **ripe**: emptying it is a sure bean
  for the pot whenever the player likes (``RIPE``);
- a cup holding fewer is still **growing**: sowing from the stock can make it ripe, so its
  beans are worth a little each (``GROWING``);
- a cup holding more is **blocked** for good (a cup only loses beans by being emptied, which
  needs the exact count, or by a capture): its beans can never reach its owner's pot, and an
  opponent who sows into the empty cup facing it takes them all (``BLOCKED``, a loss per bean);
- **captures**: the mover may take the largest capture on offer now (``CAPTURE_NOW`` of it);
  the opponent's best capture is a threat the mover can often but not always avoid
  (``CAPTURE_THREAT``);
- **stock**: beans in stock are moves in hand, which decide who runs out of moves first
  (``STOCK`` per bean of difference).

The weights were set by matches against the one-ply player (benchmarks/cups_match.py).
"""

from __future__ import annotations

from typing import Any

from companion.engine.cups.solver import CupsSolver
from companion.rules.cups import CUP_CODE, MAX_SOW, CupsPosition, Row
from companion.rules.outcome import Outcome
from companion.rules.state import GameState

BEAN = 100  # the unit of scores: a bean in the pot
RIPE = 60
GROWING = 10
BLOCKED = 30
CAPTURE_NOW = 90  # hundredths of the beans the best capture on offer takes
CAPTURE_THREAT = 45
STOCK = 4


def row_score(cups: Row) -> int:
    """Ripe, growing and blocked cups of one row."""
    n = len(cups)
    total = 0
    for i, beans in enumerate(cups):
        need = n - i
        if beans == need:
            total += RIPE
        elif beans < need:
            total += GROWING * beans
        else:
            total -= BLOCKED * beans
    return total


def best_capture(mine: Row, theirs: Row, stock: int) -> int:
    """The most beans one sowing from ``stock`` takes from ``theirs`` now."""
    n = len(mine)
    best = 0
    for k in range(1, min(MAX_SOW, stock) + 1):
        if mine[k - 1] == 0 and theirs[n - k] > best:
            best = theirs[n - k]
    return best


def static_score(position: CupsPosition) -> int:
    (rows, stocks, pots, turn) = position.state
    mine, theirs = rows[turn], rows[turn ^ 1]
    score = BEAN * (pots[turn] - pots[turn ^ 1])
    score += row_score(mine) - row_score(theirs)
    score += CAPTURE_NOW * best_capture(mine, theirs, stocks[turn])
    score -= CAPTURE_THREAT * best_capture(theirs, mine, stocks[turn ^ 1])
    return score + STOCK * (stocks[turn] - stocks[turn ^ 1])


def final_score(position: CupsPosition) -> int:
    """A finished game: the pots' margin, exactly."""
    (_, _, pots, turn) = position.state
    return BEAN * (pots[turn] - pots[turn ^ 1])


def as_cups(state: GameState[Any]) -> CupsPosition:
    if not isinstance(state, CupsPosition):
        raise TypeError(f"the Cups evaluation was given a {type(state).__name__}")
    return state


class CupsEvaluation:
    """The ``GameEvaluation`` of Cups; with a solver, exact wherever both stocks together
    hold at most ``exact_stock`` beans (the solver answers those in a few thousand nodes)."""

    def __init__(self, solver: CupsSolver | None = None, exact_stock: int = 0) -> None:
        self.solver = solver
        self.exact_stock = exact_stock if solver is not None else -1

    def score(self, state: GameState[Any]) -> int:
        return static_score(as_cups(state))

    def final(self, state: GameState[Any], outcome: Outcome) -> int:
        return final_score(as_cups(state))

    def order(self, state: GameState[Any], codes: list[int]) -> list[int]:
        """Captures first (the largest first), then cups emptied into the pot, the cup nearest
        the pot first (it disturbs the fewest cups), then the other sowings."""
        (rows, _, _, turn) = as_cups(state).state
        mine, theirs = rows[turn], rows[turn ^ 1]
        n = len(mine)

        def gain(code: int) -> int:
            if code >= CUP_CODE:
                return BEAN + code - CUP_CODE  # ahead of quiet sowings, c4 before c1
            return BEAN * 2 * theirs[n - code] if mine[code - 1] == 0 and theirs[n - code] else 0

        return sorted(codes, key=gain, reverse=True)

    def exact(self, state: GameState[Any]) -> int | None:
        (rows, stocks, pots, turn) = as_cups(state).state
        if self.solver is None or stocks[0] + stocks[1] > self.exact_stock:
            return None
        value = self.solver.value(rows[turn], rows[turn ^ 1], stocks[turn], stocks[turn ^ 1])
        return BEAN * (pots[turn] - pots[turn ^ 1] + value)
