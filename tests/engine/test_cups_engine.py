"""The Cups AI: the solver against a brute force over the rules, the generic search against the
solver, the levels, and the engine protocol speaking Cups."""

from __future__ import annotations

import io
import random
from functools import cache
from typing import Any

import pytest

from companion.engine import Engine
from companion.engine.cups import CupsSearcher, principal_line
from companion.engine.cups.evaluate import BEAN, CupsEvaluation, static_score
from companion.engine.cups.solver import CupsSolver
from companion.engine.gamesearch import GameSearcher
from companion.engine.match import engine_player, random_player, run_match
from companion.engine.protocol import ProtocolSession
from companion.engine.search import Limits
from companion.rules.cups import CupsPosition, CupsVariant, State
from companion.rules.state import GameMove, GameState


def brute_force(position: CupsPosition) -> int:
    """The final pots' margin for the side to move under perfect play, by plain minimax over
    the rules' own positions (no table, nothing shared with the solver but the rules)."""
    outcome = position.outcome()
    if outcome is not None:
        assert outcome.pots is not None
        return outcome.pots[position.turn] - outcome.pots[position.turn ^ 1]
    mover, best = position.turn, None
    for code in position.legal_codes():
        position.push_code(code)
        value = brute_force(position)
        again = position.turn == mover  # the opponent passes: the same side moves again
        position.pop_code()
        assert position.turn == mover, "pop restores the side to move"
        mine = value if again else -value
        best = mine if best is None else max(best, mine)
    assert best is not None
    return best


def solved(solver: CupsSolver, state: State) -> int:
    rows, stocks, pots, turn = state
    return (
        pots[turn] - pots[turn ^ 1] + solver.value(rows[turn], rows[turn ^ 1], stocks[turn], stocks[turn ^ 1])
    )


def every_position(variant: CupsVariant) -> list[CupsPosition]:
    """Every position reachable from the start (each once), finished ones excluded."""
    seen: dict[State, CupsPosition] = {}
    todo = [CupsPosition(variant)]
    while todo:
        position = todo.pop()
        if position.state in seen or position.outcome() is not None:
            continue
        seen[position.state] = position
        for code in position.legal_codes():
            child = position.copy()
            child.push_code(code)
            todo.append(child)
    return list(seen.values())


@pytest.mark.parametrize("spec", ["cups:stock=3", "cups:stock=4", "cups:cups=6,stock=4"])
def test_the_solver_agrees_with_brute_force_on_every_reachable_position(spec: str) -> None:
    variant = CupsVariant.from_spec(spec)
    solver = CupsSolver()
    positions = every_position(variant)
    assert len(positions) > 20
    for position in positions:
        assert solved(solver, position.state) == brute_force(position.copy()), position.text()


def test_the_solver_agrees_with_brute_force_on_random_endgames() -> None:
    rng = random.Random(5)
    solver = CupsSolver()
    checked = 0
    while checked < 25:
        position = CupsPosition()
        while position.outcome() is None and position.stock(0) + position.stock(1) > 5:
            position.push_code(rng.choice(position.legal_codes()))
        if position.outcome() is None:
            assert solved(solver, position.state) == brute_force(position.copy()), position.text()
            checked += 1


def test_the_small_variant_is_solved_a_draw() -> None:
    """n = 4 with stocks of 8: the full game tree, solved (docs/benchmarks.md has the count)."""
    solver = CupsSolver()
    assert solved(solver, CupsPosition(CupsVariant.from_spec("cups:stock=8")).state) == 0
    assert 30_000 < len(solver.table) < 40_000


def test_the_principal_line_plays_a_game_to_its_solved_result() -> None:
    solver = CupsSolver()
    position = CupsPosition(CupsVariant.from_spec("cups:stock=6"))
    value = solved(solver, position.state)
    for code in principal_line(solver, position.state):
        position.push_code(code)
    outcome = position.outcome()
    assert outcome is not None and outcome.pots is not None
    assert outcome.pots[0] - outcome.pots[1] == value


@cache
def endgame(seed: int) -> CupsPosition:
    rng = random.Random(seed)
    while True:
        position = CupsPosition()
        while position.outcome() is None and position.stock(0) + position.stock(1) > 7:
            position.push_code(rng.choice(position.legal_codes()))
        if position.outcome() is None:
            return position


@pytest.mark.parametrize("seed", range(6))
def test_the_generic_search_to_the_end_finds_the_solved_value(seed: int) -> None:
    """Without the solver's help, alpha-beta searched past the end of the game scores what
    the solver proves (passes included: the same side moving again is not negated)."""
    position = endgame(seed)
    searcher = GameSearcher(CupsEvaluation())
    result = searcher.search(position, Limits(depth=40))
    assert result.score == BEAN * solved(CupsSolver(), position.state)
    child = position.copy()
    child.push(result.move)
    mover = position.turn
    after = solved(CupsSolver(), child.state)
    assert (after if child.turn == mover else -after) == result.score // BEAN, "the move keeps the value"


def test_strong_answers_solved_positions_with_their_value() -> None:
    position = endgame(1)
    result = Engine("cups", "strong").search(position, time=1.0)
    margin = solved(CupsSolver(), position.state)
    assert result.score == BEAN * margin
    assert result.value == ("win" if margin > 0 else "loss" if margin < 0 else "draw")
    assert result.pv and result.pv[0] == result.move


def test_a_search_beyond_the_solvers_budget_is_heuristic_and_keeps_its_deadline() -> None:
    searcher = CupsSearcher(endgame=True)
    result = searcher.search(CupsPosition(), Limits(time=0.3))
    assert result.value is None and result.depth >= 3
    assert result.seconds < 0.3 * 1.5
    assert result.move in CupsPosition().legal_moves


@pytest.mark.parametrize("level", ["greedy", "easy", "medium", "strong"])
def test_every_level_plays_a_legal_move_and_is_repeatable_by_depth(level: str) -> None:
    position = CupsPosition()
    for text in ["s4", "s3", "c4", "s2"]:
        position.push(position.parse_move(text))
    first = Engine("cups", level, seed=3).search(position, depth=4)
    again = Engine("cups", level, seed=3).search(position, depth=4)
    assert first.move in position.legal_moves and first.move == again.move


def test_the_evaluation_prefers_a_ripe_cup_and_fears_a_blocked_one() -> None:
    base = static_score(CupsPosition.from_text("cups 0.0.0.0/0.0.0.0 w 40/40 0/0 0"))
    ripe = static_score(CupsPosition.from_text("cups 0.0.0.1/0.0.0.0 w 39/40 0/0 1"))
    blocked = static_score(CupsPosition.from_text("cups 0.0.0.3/0.0.0.0 w 37/40 0/0 3"))
    assert ripe > base > blocked


@pytest.mark.slow
def test_strong_beats_random_and_greedy_in_a_short_match() -> None:
    """The benchmark (benchmarks/engine_match.py) plays 200 games; a few here catch a
    search that has gone badly wrong. By depth, not time, so a loaded machine plays the same."""
    variant = CupsVariant()
    engine = Engine(variant, "strong")

    def strong(position: GameState[Any]) -> GameMove:
        return engine.search(position, nodes=2000).move

    assert run_match(variant, strong, random_player(1), 2, seed=2).wins == 2
    assert run_match(variant, strong, engine_player(variant, "greedy", None), 2, seed=3).wins == 2


def test_the_protocol_plays_cups() -> None:
    out = io.StringIO()
    session = ProtocolSession(out, variant="cups")
    session.run(
        ["position startpos moves s4 s3\n", "go depth 3\n", "position startpos moves s4 s9\n", "quit\n"]
    )
    lines = out.getvalue().splitlines()
    best = [line for line in lines if line.startswith("bestmove")]
    assert len(best) == 1 and best[0].split()[1] in ("s1", "s2", "s3", "s4", "c4")
    assert any("s9 is illegal: a turn sows at most 4" in line for line in lines)
    session = ProtocolSession(io.StringIO(), variant="classic")
    session.handle("variant cups:cups=6")
    assert session.position.text() == "cups:cups=6 0.0.0.0.0.0/0.0.0.0.0.0 w 60/60 0/0 0"
    session.handle("position text cups 0.3.0.0/0.0.0.0 w 37/40 0/0 1 moves c2")
    assert session.position.text() == "cups 0.0.1.1/0.0.0.0 b 37/40 1/0 2"
