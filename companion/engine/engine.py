"""``Engine``: the one object the rest of the product asks for a move.

It picks the tool for the job: the junior solver for the 3x3 game at full strength, the
game's own search otherwise (``games.searcher_for``: Gobblet's alpha-beta, or Cups' solver and
search), and the weaker levels' loose choice among nearly-best moves.
It never touches the caller's position, and ``stop()`` (from any thread) ends a running
search with the best move found so far, which the device uses to cancel a stale hint.
"""

from __future__ import annotations

import random
import threading
import time as _time
from collections.abc import Callable
from typing import Any

from companion.engine.evaluate import MATE_BOUND
from companion.engine.games import searcher_for
from companion.engine.junior import JuniorSolver
from companion.engine.levels import DEFAULT_TIME, Level, level_named
from companion.engine.search import MATE, Limits, SearchResult, mate_value
from companion.errors import CompanionError
from companion.rules import Position
from companion.rules.games import variant_from_spec
from companion.rules.state import GameState, GameVariant

UNKNOWN_DISTANCE = 999  # plies: MATE - 999 is still a mate score (MATE_BOUND = MATE - 1000)


class Engine:
    def __init__(self, variant: GameVariant | str, level: str = "strong", seed: int = 0) -> None:
        self.variant = variant_from_spec(variant) if isinstance(variant, str) else variant
        self.level: Level = level_named(level)
        self.rng = random.Random(seed)
        self.searcher = searcher_for(self.variant, self.level)
        self.solver = JuniorSolver.with_book() if self.uses_solver else None
        self._stop = threading.Event()

    @property
    def uses_solver(self) -> bool:
        return self.level.solver and self.variant.spec == "junior"

    def stop(self) -> None:
        """Ask a running ``search`` to return now (thread-safe)."""
        self._stop.set()
        self.searcher.stop()  # the compiled search polls a flag of its own

    def new_game(self) -> None:
        """Forget what the tables learnt (a new opponent, or a fresh benchmark)."""
        self.searcher = searcher_for(self.variant, self.level)

    def search(
        self,
        position: GameState[Any],
        time: float | None = None,
        depth: int | None = None,
        nodes: int | None = None,
        on_iteration: Callable[[SearchResult], None] | None = None,
    ) -> SearchResult:
        """The move to play in ``position`` (a copy is searched) within the limits given;
        with no limit at all, the level's own (``DEFAULT_TIME`` seconds for ``strong``)."""
        if position.variant != self.variant:
            raise ValueError(f"this engine plays {self.variant.spec}, not {position.variant.spec}")
        outcome = position.outcome()
        if outcome is not None:
            raise CompanionError(f"the game is over ({outcome.reason}): there is no move to find")
        self._stop = threading.Event()
        if self.level.depth is not None:
            return self._loose_choice(
                position, self.level.depth if depth is None else min(depth, self.level.depth)
            )
        if time is None and depth is None and nodes is None:
            time = DEFAULT_TIME
        if self.solver is not None and depth is None and nodes is None and isinstance(position, Position):
            return self._solve(self.solver, position, time)
        self.searcher.on_iteration = on_iteration
        return self.searcher.search(position, Limits(time=time, depth=depth, nodes=nodes), self._stop)

    def _solve(self, solver: JuniorSolver, position: Position, time: float | None) -> SearchResult:
        start = _time.perf_counter()
        answer = solver.solve(position, time, self._stop)
        if answer.code is None:  # the solver has no move only in a finished game, refused above
            raise CompanionError("the junior solver found no move")
        move = position.move_from_code(answer.code)
        # a proven result whose distance was not found in time scores as "mate 999"
        distance = answer.distance if answer.distance is not None else UNKNOWN_DISTANCE
        if answer.value == "win":
            score = MATE - distance
        elif answer.value == "loss":
            score = -(MATE - distance)
        else:
            score = 0
        return SearchResult(
            move=move,
            score=score,
            depth=answer.horizon,
            nodes=answer.nodes,
            pv=[move],
            seconds=_time.perf_counter() - start,
            value=answer.value,
        )

    def _loose_choice(self, position: GameState[Any], depth: int) -> SearchResult:
        """A random move among those within the level's noise of the best at a shallow depth;
        a win is always taken and a move that loses is never chosen over one that does not."""
        start = _time.perf_counter()
        scored = self.searcher.score_moves(position, depth)
        best = max(score for _, score in scored)
        margin = 0 if best >= MATE_BOUND or best <= -MATE_BOUND else self.level.noise
        candidates = sorted(code for code, score in scored if score >= best - margin and score > -MATE_BOUND)
        code = self.rng.choice(candidates or [code for code, score in scored if score == best])
        score = dict(scored)[code]
        move = position.move_from_code(code)
        return SearchResult(
            move=move,
            score=score,
            depth=depth,
            nodes=self.searcher.nodes,
            pv=[move],
            seconds=_time.perf_counter() - start,
            value=mate_value(score),
        )
