"""The alpha-beta search: tactics found, threats blocked, uncovers avoided, limits honoured."""

from __future__ import annotations

import gc
import random
import threading
import time

import pytest

from companion.engine import MATE, Engine
from companion.engine.search import Limits, Searcher
from companion.rules import PRESETS, Position
from companion.rules.codes import code_to
from tests.engine.helpers import (
    forced_win_in_3,
    is_uncover_loss,
    loses_at_once,
    random_position,
    winning_codes,
)


def positions_where(variant: str, accept, count: int, seed: int, plies=(4, 16)) -> list[Position]:
    rng = random.Random(seed)
    found = []
    for _ in range(5000):
        position = random_position(variant, rng.randint(*plies), rng)
        if position is not None and accept(position):
            found.append(position)
            if len(found) == count:
                break
    assert len(found) == count, "not enough test positions"
    return found


@pytest.mark.parametrize("variant", ["classic", "storer", "rogers", "junior"])
def test_finds_every_win_in_one(variant):
    engine = Engine(variant, seed=1)
    for position in positions_where(variant, lambda p: bool(winning_codes(p)), 12, seed=2):
        wins = winning_codes(position)
        result = engine.search(position, depth=2)
        assert position.code_from_move(result.move) in wins, position.text()
        assert result.score == MATE - 1 and result.value == "win"


@pytest.mark.parametrize("variant", ["junior"])  # brute force on 4x4 takes minutes
def test_finds_forced_wins_in_three_plies(variant):
    def accept(p: Position) -> bool:
        return not winning_codes(p) and bool(forced_win_in_3(p))

    engine = Engine(variant, seed=1)
    engine.solver = None  # the generic search, not the junior solver
    for position in positions_where(variant, accept, 8, seed=3, plies=(4, 10)):
        result = engine.searcher.search(position, Limits(depth=3))
        assert position.code_from_move(result.move) in forced_win_in_3(position), position.text()
        assert result.score == MATE - 3


def test_blocks_the_opponents_immediate_win():
    def accept(p: Position) -> bool:
        if winning_codes(p):
            return False
        p.push_code(p.legal_codes()[0])
        p.pop_code()
        threatened = _opponent_threatens(p)
        return threatened and any(not loses_at_once(p, c) for c in p.legal_codes())

    engine = Engine("classic", seed=1)
    for position in positions_where("classic", accept, 10, seed=4):
        result = engine.search(position, depth=2)
        assert not loses_at_once(position, position.code_from_move(result.move)), position.text()


def _opponent_threatens(position: Position) -> bool:
    """Would the opponent win at once if it were their move (a pass for the mover)?"""
    flipped = Position.from_text(
        position.text().replace(" w ", " X ").replace(" b ", " w ").replace(" X ", " b ")
    )
    return bool(winning_codes(flipped))


@pytest.mark.slow
def test_never_plays_a_losing_uncover_when_another_move_exists():
    def accept(p: Position) -> bool:
        codes = p.legal_codes()
        return any(is_uncover_loss(p, c) for c in codes) and not all(is_uncover_loss(p, c) for c in codes)

    engine = Engine("classic", seed=1)
    for position in positions_where("classic", accept, 10, seed=5, plies=(10, 30)):
        for limits in ({"depth": 1}, {"depth": 3}):
            result = engine.search(position, **limits)
            assert not is_uncover_loss(position, position.code_from_move(result.move)), position.text()


def test_time_limit_is_honoured_and_the_best_move_so_far_returned():
    position = random_position("classic", 12, random.Random(3))
    engine = Engine("classic")
    for budget in (0.1, 0.3):
        gc.collect()  # the search is timed, not a collection of what earlier tests left behind
        start = time.perf_counter()
        result = engine.search(position, time=budget)
        elapsed = time.perf_counter() - start
        # The hint's contract is 1.1 times the time asked; a shared, loaded machine may keep
        # the search off a core for a moment, so a half second of scheduling slack is allowed.
        # A classic middlegame never finishes its search early, so a search that ignored its
        # deadline would run on for many seconds and still fail here.
        assert elapsed < 1.1 * budget + 0.5, (budget, elapsed)
        assert result.seconds <= elapsed
        assert result.move in position.legal_moves


def test_stop_from_another_thread_ends_the_search():
    position = random_position("classic", 12, random.Random(3))
    engine = Engine("classic")
    threading.Timer(0.1, engine.stop).start()
    start = time.perf_counter()
    result = engine.search(position, time=30)
    assert time.perf_counter() - start < 1.0
    assert result.move in position.legal_moves


def test_same_seed_and_depth_or_nodes_give_the_same_move():
    position = random_position("classic", 10, random.Random(8))
    for limits in ({"depth": 3}, {"nodes": 3000}):
        first = Engine("classic", seed=7).search(position, **limits)
        second = Engine("classic", seed=7).search(position, **limits)
        assert (first.move, first.score, first.nodes) == (second.move, second.score, second.nodes)


def test_search_does_not_touch_the_callers_position():
    position = random_position("classic", 9, random.Random(9))
    before = (position.text(), position.hash, position.move_codes, position.repetitions())
    Engine("classic").search(position, depth=3)
    assert (position.text(), position.hash, position.move_codes, position.repetitions()) == before


def test_result_fields_and_principal_variation_are_legal():
    position = Position(PRESETS["classic"])
    result = Searcher(PRESETS["classic"]).search(position, Limits(depth=4))
    assert result.depth == 4 and result.nodes > 0 and result.pv[0] == result.move
    replay = position.copy()
    for move in result.pv:
        replay.push(move)
    assert set(result.to_json()) == {"move", "score", "depth", "nodes", "pv", "seconds", "value"}


@pytest.mark.slow
@pytest.mark.parametrize("level", ["greedy", "easy", "medium"])
def test_weaker_levels_still_take_wins_and_block(level):
    engine = Engine("classic", level=level, seed=3)
    for position in positions_where("classic", lambda p: bool(winning_codes(p)), 5, seed=6):
        assert position.code_from_move(engine.search(position).move) in winning_codes(position)


def test_game_over_is_an_error():
    position = Position(PRESETS["junior"])
    for text in ("3a1", "1c3", "3a2", "1c2", "2a3"):
        position.push(position.parse_move(text))
    with pytest.raises(Exception, match="game is over"):
        Engine("junior").search(position)


def test_staged_move_order_is_blocks_then_killers_then_history():
    """The lazily staged order equals the eager definition: every move sorted by history
    (stable), blocks of the opponent's completing squares first, then the legal killers. Asked
    on the board a search leaves at its root; the history and killers are set here."""
    rng = random.Random(14)
    searcher = Searcher(PRESETS["classic"])
    for position in positions_where("classic", lambda p: True, 40, seed=15, plies=(2, 30)):
        searcher.search(position, Limits(depth=1))
        board = searcher.board
        assert board.hash == position.hash  # back at the root
        codes = board.legal_codes()
        history = searcher.history[board.turn]
        for code in rng.sample(codes, min(len(codes), 8)):
            history[code] = rng.randint(1, 50)
        killers = searcher.killers[0]
        killers[:] = rng.sample([*codes, 12345], 2)  # 12345: a code from nowhere (illegal)
        tt_move = rng.choice([*codes, 0])
        expected = sorted((c for c in codes if c != tt_move), key=history.__getitem__, reverse=True)
        blocks = searcher.completing_squares(board.tops[board.turn ^ 1])
        front = [c for c in expected if blocks >> code_to(c) & 1]
        front += [k for k in killers if k in expected and k not in front]
        expected = ([tt_move] if tt_move else []) + front + [c for c in expected if c not in front]
        assert list(searcher.move_order(tt_move, 0, True)) == expected
        assert list(searcher.move_order(tt_move, 0)) == expected


def test_a_search_restricted_to_some_moves_scores_only_those():
    """``only``: the coach scores the move played at the best move's depth. White has a win in
    one on d1 and plays elsewhere: the restricted search must answer for that move alone,
    and leave no root entry that a later full search would take for the position's value."""
    position = Position(PRESETS["classic"])
    for text in ["4a1", "4d4", "4b1", "4c4", "4c1", "4b4"]:
        position.push(position.parse_move(text))
    searcher = Searcher(position.variant)
    elsewhere = position.code_from_move(position.parse_move("3a4"))
    restricted = searcher.search(position, Limits(depth=2), None, [elsewhere])
    assert restricted.move.text() == "3a4" and restricted.score < MATE - 10
    full = searcher.search(position, Limits(depth=2))
    assert full.score == MATE - 1 and full.move.to_square == position.parse_move("3d1").to_square
