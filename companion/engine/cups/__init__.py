"""The Cups AI: the exact solver where it reaches, the generic alpha-beta search elsewhere.

``CupsSearcher`` is what ``Engine`` uses for Cups. At full strength (a level with ``solver``),
once both stocks together hold at most ``ROOT_SOLVE_STOCK`` beans (earlier the solver has no
chance: benchmarks/cups_bench.py reach), it first tries to solve the position outright, within
a node budget worth ``ROOT_SHARE`` of the time given (``SOLVER_RATE`` nodes a second) and never
past that share on the clock, which a loaded machine needs. A solved position answers with its
exact value. Otherwise it searches with ``gamesearch.GameSearcher`` and the evaluation of
``evaluate.py``, whose leaves are exact wherever both stocks hold at most ``LEAF_EXACT_STOCK``
beans. The weaker levels search without the solver. See docs/engine.md#cups.
"""

from __future__ import annotations

import threading
import time as _time
from typing import Any

from companion.engine.cups.evaluate import BEAN, CupsEvaluation, as_cups
from companion.engine.cups.solver import CupsSolver, SolveStopped
from companion.engine.gamesearch import GameSearcher
from companion.engine.search import Limits, SearchResult
from companion.rules.cups import CupsMove, State, can_move, next_state
from companion.rules.state import GameState

SOLVER_RATE = 50_000  # solver nodes a second: a quarter of the development PC's rate (a Pi 4 is 3-4x slower)
ROOT_SHARE = 0.5  # of the time given, spent on trying to solve the position outright
FIXED_SOLVE_NODES = 20_000  # the budget when the search is limited by depth or nodes, not time
LEAF_EXACT_STOCK = 6  # leaves with at most this many beans in both stocks are solved exactly
ROOT_SOLVE_STOCK = 32  # the root is tried only with at most this many beans in both stocks


def margin_value(margin: int) -> str:
    return "win" if margin > 0 else "loss" if margin < 0 else "draw"


class CupsSearcher(GameSearcher):
    """The search ``Engine`` uses for Cups; with ``endgame``, the solver first."""

    def __init__(self, endgame: bool = True) -> None:
        self.solver = CupsSolver()
        self.endgame = endgame
        super().__init__(CupsEvaluation(self.solver if endgame else None, LEAF_EXACT_STOCK))

    def search(
        self, position: GameState[Any], limits: Limits, stop: threading.Event | None = None
    ) -> SearchResult:
        start = _time.perf_counter()
        stocks = as_cups(position).state[1]
        if self.endgame and stocks[0] + stocks[1] <= ROOT_SOLVE_STOCK:
            budget = FIXED_SOLVE_NODES if limits.time is None else int(SOLVER_RATE * ROOT_SHARE * limits.time)
            if limits.nodes is not None:
                budget = min(budget, limits.nodes)
            deadline = None if limits.time is None else start + ROOT_SHARE * limits.time
            solved = self.solve(position, budget, stop, deadline)
            if solved is not None:
                return solved
        if limits.time is not None:
            limits = Limits(
                max(0.001, limits.time - (_time.perf_counter() - start)), limits.depth, limits.nodes
            )
        return super().search(position, limits, stop)

    def solve(
        self,
        position: GameState[Any],
        budget: int,
        stop: threading.Event | None,
        deadline: float | None = None,
    ) -> SearchResult | None:
        """The exact answer if the solver finishes within ``budget`` nodes (and by ``deadline``,
        a ``perf_counter`` time), else None; what it proved on the way stays in its table."""
        start = _time.perf_counter()
        state = as_cups(position).state
        if position.outcome() is not None:
            return None
        solver = self.solver
        solver.nodes, solver.budget, solver.deadline, solver.stop_event = 0, budget, deadline, stop
        try:
            code, value = best_move(solver, state)
            line = principal_line(solver, state)
        except SolveStopped:
            return None
        finally:
            solver.budget, solver.deadline, solver.stop_event = None, None, None
        _, _, pots, turn = state
        margin = pots[turn] - pots[turn ^ 1] + value
        moves = [CupsMove.from_code(c) for c in line]
        return SearchResult(
            move=CupsMove.from_code(code),
            score=BEAN * margin,
            depth=len(line),
            nodes=solver.nodes,
            pv=moves,
            seconds=_time.perf_counter() - start,
            value=margin_value(margin),
        )


def best_move(solver: CupsSolver, state: State) -> tuple[int, int]:
    """The best code of the side to move and its exact value (future gains' margin)."""
    rows, stocks, _, turn = state
    return solver.best(rows[turn], rows[turn ^ 1], stocks[turn], stocks[turn ^ 1])[0]


def principal_line(solver: CupsSolver, state: State) -> list[int]:
    """The moves of perfect play from ``state`` to the end of the game."""
    line: list[int] = []
    while True:
        rows, stocks, _, turn = state
        if not can_move(rows[turn], stocks[turn]):  # the side to move always can, until the end
            return line
        code, _ = best_move(solver, state)
        line.append(code)
        state = next_state(state, code)
