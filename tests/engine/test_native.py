"""The compiled core (``native.c``) against the rules engine and the Python search.

Its board must agree with ``Position`` move for move in every variant: the same legal codes
in the same order, the same hash, the same end-of-turn result (an uncovered line of the
opponent's first: the losing uncover), the same win in one and the same evaluation, and an
exact undo. Its search is a port of ``Searcher``: at a fixed depth both must visit the same
number of nodes and give the same move and score. Both paths run in every test session: the
Python search in its own tests, the compiled one through ``Engine`` and here.

Without the compiled core (no compiler where the package was installed) these tests are
skipped, saying so; CI sets COMPANION_REQUIRE_NATIVE so that a core missing there fails.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import Engine, compiled
from companion.engine.compiled import NATIVE, CompiledSearcher, searcher_for
from companion.engine.evaluate import evaluator_for
from companion.engine.search import Limits, Searcher
from companion.rules import PRESETS, Position, Variant
from tests.budgets import budgets
from tests.rules.helpers import random_game

VARIANTS = [
    *PRESETS,
    "classic:order=any",
    "classic:gobble=never",
    "classic:gobble=always",
    "storer:stacks=543.543.543",
    "classic:size=5",
    "moku:win=3",
]

needs_native = pytest.mark.skipif(NATIVE is None, reason="the compiled core is not built here")


def test_ci_has_the_compiled_core():
    if os.environ.get("COMPANION_REQUIRE_NATIVE") and NATIVE is None:
        pytest.fail("the compiled core was not built (is a C compiler and Python.h installed?)")


def variant_of(spec: str) -> Variant:
    return PRESETS[spec] if spec in PRESETS else Variant.from_spec(spec)


def assert_same(searcher: CompiledSearcher, position: Position) -> None:
    core, tables = searcher.core, searcher.tables
    assert [tables.to_rules(c) for c in core.legal_codes()] == position.legal_codes()
    state = core.state()
    assert state["hash"] == position.hash
    assert state["turn"] == position.turn
    assert state["rid"] == position.reserve_ids
    assert [tables.rules_mask(m) for m in state["tops"]] == [position.tops_mask(0), position.tops_mask(1)]
    decided = position.line_result()
    assert state["result"] == (-1 if decided is None else decided.winner)
    assert core.has_win() == bool(position.winning_codes(True))
    assert core.repetitions(position.hash) == position.repetition_counts()[position.hash]
    if decided is None:
        assert core.evaluate() == evaluator_for(position.variant).evaluate(position)


@pytest.mark.slow
@needs_native
@pytest.mark.parametrize("spec", VARIANTS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_board_follows_the_rules_engine_through_random_games(spec, seed):
    variant = variant_of(spec)
    rng = random.Random(seed)
    searcher = CompiledSearcher(variant, tt_bits=8)
    position = Position(variant)
    searcher.set_position(position)
    core = searcher.core
    played = []
    while position.outcome() is None and len(played) < (40 if variant.size <= 4 else 10):
        codes = position.legal_codes()
        for code in codes:  # every move made and unmade on both
            board_code = searcher.tables.from_rules(code)
            undo = core.make(board_code)
            position.push_code(code)
            assert_same(searcher, position)
            position.pop_code()
            core.unmake(board_code, undo)
        assert_same(searcher, position)
        code = rng.choice(codes)
        played.append((code, core.make(searcher.tables.from_rules(code))))
        position.push_code(code)
    assert_same(searcher, position)
    for code, undo in reversed(played):  # and the whole game taken back
        core.unmake(searcher.tables.from_rules(code), undo)
        position.pop_code()
        assert_same(searcher, position)


@needs_native
@pytest.mark.parametrize("count", budgets(12, 40))
@pytest.mark.parametrize("spec", VARIANTS)
def test_targets_and_killer_legality(spec, count):
    """In ``count`` random positions: 12 in the quick loop, 40 in the full suite."""
    variant = variant_of(spec)
    searcher = CompiledSearcher(variant, tt_bits=8)
    rng = random.Random(12)
    every_code: set[int] = set()
    for _ in range(count):
        position = random_position(variant, rng, rng.randint(0, 30))
        codes = position.legal_codes()
        every_code.update(codes)
        searcher.set_position(position)
        targets = rng.getrandbits(variant.size**2)
        rules_targets = searcher.tables.rules_mask(targets)
        assert [searcher.tables.to_rules(c) for c in searcher.core.legal_codes(targets)] == [
            c for c in codes if rules_targets >> (c & 0xFF) & 1
        ]
        for code in sorted(every_code)[:150]:  # codes of other positions: legal here or not
            assert searcher.core.is_legal(searcher.tables.from_rules(code)) == (code in codes)


def random_position(variant: Variant, rng: random.Random, plies: int) -> Position:
    """Random play, taken back to the last position where the game goes on."""
    position = random_game(variant, rng, plies)
    while position.outcome() is not None:
        position.pop_code()
    return position


@pytest.mark.slow
@needs_native
@pytest.mark.parametrize("spec", VARIANTS)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 14))
def test_compiled_search_is_the_python_search(spec, seed, plies):
    """Node for node: the same tree, so the same move, score, depth and node count."""
    variant = variant_of(spec)
    position = random_position(variant, random.Random(seed), plies)
    depth = 3 if variant.size <= 4 else 2
    python = Searcher(variant).search(position, Limits(depth=depth))
    native = CompiledSearcher(variant).search(position, Limits(depth=depth))
    assert (native.move, native.score, native.depth, native.nodes, native.pv) == (
        python.move,
        python.score,
        python.depth,
        python.nodes,
        python.pv,
    )
    assert Searcher(variant).score_moves(position, 2) == CompiledSearcher(variant).score_moves(position, 2)


@needs_native
@pytest.mark.parametrize("moves", budgets(3, 8))
def test_a_game_of_searches_keeps_agreeing(moves):
    """Tables kept between the moves of a game (killers, hash moves) change nothing either
    (the quick loop follows the game's first three moves, the full suite eight)."""
    variant = PRESETS["classic"]
    python, native = Searcher(variant), CompiledSearcher(variant)
    position = random_position(variant, random.Random(4), 4)
    for _ in range(moves):
        if position.outcome() is not None:
            break
        a = python.search(position, Limits(depth=4))
        b = native.search(position, Limits(depth=4))
        assert (a.move, a.score, a.nodes) == (b.move, b.score, b.nodes)
        position.push(a.move)


@needs_native
def test_limits_and_stop():
    engine = Engine("classic")
    assert isinstance(engine.searcher, CompiledSearcher)
    position = Position(PRESETS["classic"])
    result = engine.search(position, nodes=5000)
    assert 5000 <= result.nodes < 5000 + 200
    again = Engine("classic").search(position, nodes=5000)
    assert (again.move, again.nodes) == (result.move, result.nodes)  # a node limit is deterministic
    start = time.perf_counter()
    timed = engine.search(position, time=0.2)
    assert time.perf_counter() - start < 0.2 * 1.1
    assert timed.depth >= 5
    threading.Timer(0.1, engine.stop).start()
    start = time.perf_counter()
    stopped = engine.search(position, time=30.0)
    assert time.perf_counter() - start < 1.0
    assert stopped.move in position.legal_moves


def test_the_python_search_is_used_and_announced_once_without_the_core(monkeypatch, caplog):
    monkeypatch.setattr(compiled, "NATIVE", None)
    monkeypatch.setattr(compiled, "_warned", threading.Event())
    with caplog.at_level(logging.WARNING, logger="gobblet-companion.engine"):
        first = searcher_for(PRESETS["classic"])
        second = searcher_for(PRESETS["moku"])
    assert type(first) is Searcher and type(second) is Searcher
    assert [r.message for r in caplog.records].count(caplog.records[0].message) == 1
    assert "pure-Python" in caplog.records[0].message
    with pytest.raises(ValueError):
        CompiledSearcher(PRESETS["classic"])
    engine = Engine("classic")
    assert engine.search(Position(PRESETS["classic"]), depth=2).move is not None


@needs_native
def test_boards_beyond_the_core_use_the_python_search():
    big = Variant.from_spec("classic:size=9")
    assert type(searcher_for(big)) is Searcher
