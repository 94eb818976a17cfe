"""The junior value proof: its draws are closed sets a defender can stay in, its wins and
losses agree with the distance search, and every answer comes within the time limit."""

from __future__ import annotations

import os
import random
import time

import pytest

from companion.engine import Engine
from companion.engine.junior import (
    JuniorSolver,
    canonical,
    expand,
    has_line_move,
    pack,
    threatens,
)
from companion.engine.junior.proof import ProofProcess
from companion.rules import PRESETS, Position
from companion.rules.codes import is_board_move
from tests.engine.helpers import random_positions

pytestmark = pytest.mark.slow  # proofs that take seconds each (and a module fixture that does)

JUNIOR = PRESETS["junior"]
# Found by the value proof; the distance search sees no forced line for either side in them.
DRAWS = ("junior B2,2/2,W2/1,W1,1 b 3321 33211 3", "junior 2,W1/3/1,W1,B2 b 3322 33211 5")
# Beyond the book (5 or more pieces on the board), among the slowest to settle: a loss in 14,
# a win in 15, a loss in 10, two draws.
HARD = (
    "junior W1,W1B3,1/2,W2/2,B3 b 332 2211 9",
    "junior 3/1,B3,B1/B1W2W3,2 w 3211 322 6",
    "junior 1,B3,1/3/W1W3,W1,B3 b 322 2211 5",
    "junior B3,2/3/B3,B1W2,W2 w 3311 221 8",
    "junior B1W3,2/W1,B2,W3/3 b 221 3321 5",
)


@pytest.fixture(scope="module")
def solver() -> JuniorSolver:
    """One solver that has proven both draws (the proofs take seconds)."""
    solver = JuniorSolver()
    for text in DRAWS:
        assert solver.prove(canonical(pack(Position.from_text(text)))) == "draw", text
    return solver


def test_draws_are_proven_by_closed_sets_that_survive_an_independent_check(solver):
    assert solver.cannot_win and solver.holds
    # the proven sets, checked afresh with nothing else known, lose no member
    fresh = JuniorSolver()
    fresh.verify(set(solver.cannot_win), dict(solver.holds))
    assert fresh.cannot_win == solver.cannot_win and fresh.holds == solver.holds
    # and a broken set is caught: drop one defender's answer and its attackers fall too
    broken = JuniorSolver()
    holds = dict(solver.holds)
    dropped = next(ck for ck, chosen in holds.items() if chosen != -1)
    del holds[dropped]
    broken.verify(set(solver.cannot_win), holds)
    assert len(broken.cannot_win) < len(solver.cannot_win)


def test_a_proven_draw_is_held_against_random_attacks_by_either_side(solver):
    rng = random.Random(3)
    for text in DRAWS:
        start = Position.from_text(text)
        assert solver.known(canonical(pack(start))) == "draw"
        for defender in (0, 1):
            for _ in range(40):
                k, mover = pack(start), start.turn  # packed, relative to the mover
                for _ply in range(60):
                    moves = expand(k)
                    ck = canonical(k)
                    if mover == defender:
                        assert ck in solver.holds, "the defender left its proven set"
                        chosen = solver.holds[ck]
                        if chosen == -1:
                            break  # the defender completes a line
                        k = next(c for _, c, _ in moves if canonical(c) == chosen)
                    else:
                        assert ck in solver.cannot_win, "an attacker's position outside the set"
                        assert moves is not None, "the attacker has a line at once"
                        if not moves:
                            break  # every attacker move uncovers the defender's line
                        k = rng.choice(moves)[1]
                    mover ^= 1


def test_value_proof_agrees_with_the_distance_search():
    compared = 0
    proof = JuniorSolver()
    for position in random_positions("junior", 50, seed=31, plies=(2, 14)):
        k = pack(position)
        value, _, _ = JuniorSolver().value(k, position.turn, set(), horizon=9)
        if value is None:
            continue
        assert proof.prove(canonical(k)) == value, position.text()
        compared += 1
    assert compared >= 20


def test_draws_have_no_forced_line_within_the_distance_searchs_reach():
    for text in DRAWS:
        position = Position.from_text(text)
        assert JuniorSolver().value(pack(position), position.turn, set(), horizon=11)[0] is None


# The hint's contract (issue 17) is an answer within 1.1 times the time asked. On a machine
# loaded by other work the wall clock also counts the time this process waits for a core
# (0.31-0.33 s was seen for 0.3 s at load 10-15), so the bound allows a fixed scheduling
# slack on top. What it still catches is an answer held past its deadline (a search or a
# wait on the proof process that does not stop). These positions now settle untimed in
# 0.1-0.5 s here, so an overrun of the 0.3 s budget by the proof alone stays within the bound.
HINT_CONTRACT = 1.1
SCHEDULING_SLACK = 0.5


def test_every_answer_comes_within_the_time_limit():
    engine = Engine("junior")
    for text in HARD:
        position = Position.from_text(text)
        for budget in (1.0, 0.3):
            engine.solver = JuniorSolver.with_book()  # nothing learnt from the last answer
            start = time.perf_counter()
            result = engine.search(position, time=budget)
            elapsed = time.perf_counter() - start
            assert elapsed < budget * HINT_CONTRACT + SCHEDULING_SLACK, (text, budget, elapsed)
            assert result.seconds <= elapsed, text  # the engine reports the time it took
            assert result.move in position.legal_moves


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the second process is forked")
def test_the_value_proof_in_a_second_process_answers_as_this_one():
    """What a timed answer uses once the quick distance search has not settled: the proof,
    its distance and its move made in a forked copy (given all the time it needs here)
    agree with the solver alone, and the move keeps the value."""
    after = {"win": "loss", "loss": "win", "draw": "draw"}
    for text in ("junior 3/1,B3,B1/B1W2W3,2 w 3211 322 6", "junior B1W3,2/W1,B2,W3/3 b 221 3321 5"):
        position = Position.from_text(text)
        k = pack(position)
        far = time.perf_counter() + 3600
        proof = ProofProcess.start(
            JuniorSolver.with_book(), (k, canonical(k), expand(k), position.turn), (far, far)
        )
        value, distance, code = proof.result(far)
        alone = JuniorSolver.with_book().solve(position)
        assert (value, distance) == (alone.value, alone.distance), text
        position.push_code(code)
        reply = JuniorSolver.with_book().solve(position)
        assert reply.value == after[value], text
        assert distance is None or reply.distance == distance - 1, text


def test_out_of_time_it_still_avoids_giving_an_immediate_line():
    checked = 0
    for position in random_positions("junior", 300, seed=17, plies=(3, 12)):
        k = pack(position)
        moves = expand(k)
        if not moves:
            continue
        safe = [code for _, child, code in moves if expand(child) is not None]
        if not safe or len(safe) == len(moves):
            continue
        answer = JuniorSolver().solve(position, time_limit=0.002)
        assert answer.code in safe or answer.value == "loss", position.text()
        checked += 1
    assert checked >= 30


def test_the_distance_searchs_shortcuts_agree_with_expand():
    """``has_line_move`` is ``expand(k) is None``; when ``threatens`` says no, every placement
    of the mover leaves the other player without a line move."""
    rng = random.Random(8)
    checked = quiet = 0
    for _ in range(600):
        k = 0
        for _ply in range(rng.randint(0, 30)):
            moves = expand(k)
            assert has_line_move(k) == (moves is None), k
            checked += 1
            if not moves:
                break
            if not threatens(k):
                placements = [child for _, child, code in moves if not is_board_move(code)]
                assert placements and not any(has_line_move(child) for child in placements), k
                quiet += 1
            k = rng.choice(moves)[1]
    assert checked > 3000 and quiet > 1000
