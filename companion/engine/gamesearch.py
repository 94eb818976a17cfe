"""One alpha-beta search for every game behind the seam (``companion.rules.state.GameState``).

Gobblet has its own, faster search (``search.py`` on its ``SearchBoard``); any other game is
searched here, through the seam alone: legal codes, ``push_code``/``pop_code``, ``turn``,
``outcome`` and ``hash``. What it knows of a game comes from a ``GameEvaluation``: a static
score, the exact score of a finished game, and, where the game has one, an exact answer for
positions close to the end (an endgame solver).

The search is iterative deepening over negamax alpha-beta with a transposition table (the
hash move first, then the game's own order). A game where a player who cannot move passes
makes the pass itself: when the same side moves again, the child's score is not negated.
"""

from __future__ import annotations

import threading
import time as _time
from collections.abc import Callable
from typing import Any, Protocol

from companion.engine.search import Limits, SearchResult, SearchStopped, limits_reached
from companion.errors import CompanionError
from companion.rules.outcome import Outcome
from companion.rules.state import GameState

INFINITY = 1 << 30
EXACT, LOWER, UPPER = 0, 1, 2
TT_LIMIT = 400_000  # entries; cleared when full
CHECK_EVERY = 256  # nodes between two looks at the clock and the stop request
MAX_DEPTH = 64
State = GameState[Any]


class GameEvaluation(Protocol):
    """What the generic search needs to know of a game; scores from the side to move."""

    def score(self, state: State) -> int:
        """A static estimate of the position."""
        ...

    def final(self, state: State, outcome: Outcome) -> int:
        """The exact score of a finished game."""
        ...

    def exact(self, state: State) -> int | None:
        """The exact score where it is cheap to know (an endgame table), else None."""
        ...

    def order(self, state: State, codes: list[int]) -> list[int]:
        """The legal codes, the likeliest best first (the hash move goes before them all)."""
        ...


class GameSearcher:
    """Alpha-beta for one game's positions; keeps its table between the searches of a game."""

    def __init__(self, evaluation: GameEvaluation) -> None:
        self.evaluation = evaluation
        self.tt: dict[int, tuple[int, int, int, int]] = {}  # hash -> depth, score, bound, move
        self.nodes = 0
        self.on_iteration: Callable[[SearchResult], None] | None = None
        self._deadline: float | None = None
        self._node_limit: int | None = None
        self._stop: threading.Event = threading.Event()
        self._state: State | None = None

    # ----- the interface the Engine uses ---------------------------------------------------

    def search(self, position: State, limits: Limits, stop: threading.Event | None = None) -> SearchResult:
        """Iterative deepening within the limits; the deepest finished iteration answers."""
        state = self._prepare(position, limits, stop)
        start = _time.perf_counter()
        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        result: SearchResult | None = None
        for depth in range(1, max_depth + 1):
            try:
                score = self._node(state, depth, -INFINITY, INFINITY)
            except SearchStopped:
                break
            result = self._result(state, depth, score, start)
            if self.on_iteration is not None:
                self.on_iteration(result)
            if self._out_of_time(start):
                break
        if result is None:  # not even depth 1 finished: the first legal move, unscored
            code = state.legal_codes()[0]
            move = state.move_from_code(code)
            result = SearchResult(move, 0, 0, self.nodes, [move], _time.perf_counter() - start)
        return result

    def stop(self) -> None:
        """End a running search now (thread-safe): the deepest finished iteration answers."""
        self._stop.set()

    def score_moves(self, position: State, depth: int) -> list[tuple[int, int]]:
        """Every root move's code with its full-window score at ``depth`` (weaker levels)."""
        state = self._prepare(position, Limits(depth=depth), None)
        return [(code, self._child(state, code, depth, -INFINITY, INFINITY)) for code in state.legal_codes()]

    # ----- the tree -----------------------------------------------------------------------

    def _prepare(self, position: State, limits: Limits, stop: threading.Event | None) -> State:
        outcome = position.outcome()
        if outcome is not None:
            raise CompanionError(f"the game is over ({outcome.reason}): there is no move to find")
        self._state = position.copy()
        self._deadline = limits.deadline_after(_time.perf_counter())
        self._node_limit = limits.nodes
        self._stop = stop or threading.Event()
        self.nodes = 0
        if len(self.tt) > TT_LIMIT:
            self.tt.clear()
        return self._state

    def _child(self, state: State, code: int, depth: int, alpha: int, beta: int) -> int:
        """The mover's score after ``code``: negated when the turn passes, not when the same
        side moves again (the opponent passed). Scores are from the side to move, a finished
        game's too, so the turn alone decides."""
        mover = state.turn
        state.push_code(code)
        try:
            if state.turn == mover:
                return self._node(state, depth - 1, alpha, beta)
            return -self._node(state, depth - 1, -beta, -alpha)
        finally:
            state.pop_code()

    def _node(self, state: State, depth: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0:
            self._check()
        outcome = state.outcome()
        if outcome is not None:
            return self.evaluation.final(state, outcome)
        exact = self.evaluation.exact(state)
        if exact is not None:
            return exact
        if depth <= 0:
            return self.evaluation.score(state)
        key = state.hash
        entry = self.tt.get(key)
        hash_move = -1
        if entry is not None:
            stored_depth, stored, bound, hash_move = entry
            if stored_depth >= depth and (
                bound == EXACT or (bound == LOWER and stored >= beta) or (bound == UPPER and stored <= alpha)
            ):
                return stored
        codes = self.evaluation.order(state, state.legal_codes())
        if hash_move in codes:
            codes.remove(hash_move)
            codes.insert(0, hash_move)
        best, best_code, start_alpha = -INFINITY, codes[0], alpha
        for code in codes:
            score = self._child(state, code, depth, alpha, beta)
            if score > best:
                best, best_code = score, code
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        bound = LOWER if best >= beta else UPPER if best <= start_alpha else EXACT
        self.tt[key] = (depth, best, bound, best_code)
        return best

    def _check(self) -> None:
        if limits_reached(self._stop, self.nodes, self._node_limit, self._deadline):
            raise SearchStopped

    def _out_of_time(self, start: float) -> bool:
        if limits_reached(self._stop, self.nodes, self._node_limit, None):
            return True
        if self._deadline is None:
            return False
        # the next iteration takes several times this one: do not start what cannot finish
        spent = _time.perf_counter() - start
        return _time.perf_counter() + spent >= self._deadline

    # ----- the answer ---------------------------------------------------------------------

    def _result(self, state: State, depth: int, score: int, start: float) -> SearchResult:
        pv = self._principal_variation(state, depth)
        return SearchResult(pv[0], score, depth, self.nodes, pv, _time.perf_counter() - start)

    def _principal_variation(self, state: State, depth: int) -> list[Any]:
        """The moves the table expects, from the root; at least the root's best move."""
        line: list[Any] = []
        played = 0
        seen: set[int] = set()
        while len(line) < depth and state.outcome() is None and state.hash not in seen:
            seen.add(state.hash)
            entry = self.tt.get(state.hash)
            if entry is None or entry[3] not in state.legal_codes():
                break
            line.append(state.move_from_code(entry[3]))
            state.push_code(entry[3])
            played += 1
        for _ in range(played):
            state.pop_code()
        if not line:
            line.append(state.move_from_code(state.legal_codes()[0]))
        return line
