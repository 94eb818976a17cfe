"""The junior solver: its move generation agrees with the rules, it knows the solved facts,
and it wins every game it should, against random play and against itself."""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys

import pytest

from companion.engine import Engine
from companion.engine.junior import (
    BOOK_PIECES,
    SYMMETRIES,
    JuniorSolver,
    book_positions,
    canonical,
    expand,
    pack,
    piece_count,
    unpack,
)
from companion.engine.junior.book import BOOK_PATH, load_book, write_book
from companion.engine.junior.builder import build_book
from companion.rules import PRESETS, Position, perft
from tests.engine.helpers import random_positions

JUNIOR = PRESETS["junior"]


def packed_perft(k: int, depth: int) -> int:
    """Perft in the solver's representation (finished games are leaves), via ``unpack``."""
    if depth == 1:
        return len(unpack(k).legal_codes())
    return sum(1 if finished else packed_perft(child, depth - 1) for child, finished in _all_children(k))


def _all_children(k: int) -> list[tuple[int, bool]]:
    position = unpack(k)
    out = []
    for code in position.legal_codes():
        position.push_code(code)
        out.append((pack(position), position.line_result() is not None))
        position.pop_code()
    return out


def test_packed_representation_round_trips_and_matches_perft():
    start = Position(JUNIOR)
    assert pack(start) == 0 and unpack(0) == start
    assert [packed_perft(0, d) for d in (1, 2, 3)] == [perft(start, d) for d in (1, 2, 3)] == [27, 675, 20313]


def test_expand_agrees_with_the_rules_along_random_games():
    checked = 0
    for position in random_positions("junior", 300, seed=11, plies=(0, 20)):
        rules_children, rules_win = set(), False
        mover = position.turn
        for code in position.legal_codes():
            position.push_code(code)
            result = position.line_result()
            if result is None:
                rules_children.add(pack(position))
            elif result.winner == mover:
                rules_win = True
            position.pop_code()
        moves = expand(pack(position))
        if rules_win:
            assert moves is None
        else:
            assert {child for _, child, _ in moves} == rules_children
            for _, child, code in moves:
                position.push_code(code)
                assert pack(position) == child
                position.pop_code()
        checked += 1
    assert checked > 150


def test_canonical_is_the_same_for_all_eight_symmetric_positions():
    texts = ("3/1,W3,1/B2,2", "3/1,W3,1/2,B2", "B2,2/1,W3,1/3", "2,B2/1,W3,1/3", "3/1,W3,B2/3")
    keys = [pack(Position.from_text(f"junior {board} w 32211 33211 2")) for board in texts]
    assert len({canonical(k) for k in keys[:4]}) == 1
    assert canonical(keys[4]) != canonical(keys[0])


def test_canonical_is_the_smallest_image_and_the_children_cache_is_expand():
    solver = JuniorSolver()
    for position in random_positions("junior", 200, seed=5, plies=(0, 20)):
        k = pack(position)
        fields = [k >> 9 * i & 511 for i in range(6)]
        images = [sum(t[f] << 9 * i for i, f in enumerate(fields)) for t in SYMMETRIES]
        assert canonical(k) == min(images)
        moves = expand(k)
        for _ in range(2):  # generated, then from the cache (private: the cache itself is checked)
            assert solver._kids(k) == (None if moves is None else tuple(child for _, child, _ in moves))


@pytest.mark.slow
def test_solved_facts_first_player_wins_and_a_medium_first_move_loses():
    solver = JuniorSolver()
    start = Position(JUNIOR)
    answer = solver.solve(start)
    assert (answer.value, answer.distance) == ("win", 13)
    for text, first_player_wins in (
        ("3b2", True),
        ("1a1", True),
        ("3a1", True),
        ("2b2", False),
        ("2a1", False),
        ("2b1", False),
    ):
        position = Position(JUNIOR)
        position.push(position.parse_move(text))
        reply = JuniorSolver.with_book().solve(position, time_limit=1.0)
        assert reply.value == ("loss" if first_player_wins else "win"), text


def test_book_agrees_with_the_solver_without_it():
    """Sampled entries solved afresh: short wins and losses with their distance by the
    distance search, long ones and draws by the value proof."""
    book = JuniorSolver.with_book().book
    rng = random.Random(4)
    short = [key for key, (value, distance, _) in book.items() if value != "draw" and distance <= 11]
    others = [key for key, (value, distance, _) in book.items() if value == "draw" or distance >= 15]
    assert len(book) > 1000 and len(others) > 20
    for key in rng.sample(short, 3):
        value, distance, _ = book[key]
        assert JuniorSolver().value(key, 0, set(), horizon=distance)[:2] == (value, distance)
    solver = JuniorSolver()
    for key in rng.sample(others, 2):
        assert solver.prove(key) == book[key][0]


@pytest.mark.slow
def test_book_holds_every_position_with_few_pieces_and_keeps_its_values():
    """Every position with at most ``BOOK_PIECES`` pieces, and each entry's move is legal
    and keeps the value: a win in d goes to a loss in d-1, a loss in d to a win in d-1, a
    draw to a draw (checked wherever the move leaves a position the book holds)."""
    book = JuniorSolver.with_book().book
    assert set(book) == set(book_positions(BOOK_PIECES))
    after = {"win": "loss", "loss": "win", "draw": "draw"}
    checked = 0
    for key, (value, distance, child) in book.items():
        children = [canonical(c) for _, c, _ in expand(key) or ()]
        if not children:  # a line at once, or every move uncovers the opponent's line
            assert (value, distance) in (("win", 1), ("loss", 1)), key
            continue
        assert child in children, key
        if child in book:
            assert book[child][0] == after[value], key
            if value != "draw":
                assert book[child][1] == distance - 1, key
            checked += 1
    assert checked > 3000


def test_value_ignores_the_games_history():
    """A position reached with board moves (so earlier positions of the game could come
    back) has the value of the same position set up afresh, as in the published analyses."""
    position = Position(JUNIOR)
    for text in ("3b2", "1a1", "b2-c3", "1b2"):
        position.push(position.parse_move(text))
    fresh = Position.from_text(position.text())
    assert piece_count(pack(position)) == 3
    played, alone = JuniorSolver.with_book().solve(position), JuniorSolver().solve(fresh)
    assert (played.value, played.distance) == (alone.value, alone.distance)
    assert played.value in ("win", "loss", "draw")


def test_wins_every_game_as_first_player_against_random_play():
    """The solver without a time limit: the result rests on its proofs, not on the speed of
    the machine running the test."""
    solver = JuniorSolver.with_book()
    rng = random.Random(12)
    for _ in range(300):
        position = Position(JUNIOR)
        while position.outcome() is None:
            if position.turn == 0:
                position.push_code(solver.solve(position).code)
            else:
                position.push_code(rng.choice(position.legal_codes()))
        assert position.outcome().winner == 0


def play_out(engine: Engine, position: Position, limit: int = 60) -> Position:
    for _ in range(limit):
        if position.outcome() is not None:
            break
        position.push(engine.search(position, time=1.0).move)
    return position


def test_wins_against_itself_from_the_start_in_thirteen_plies():
    position = play_out(Engine("junior"), Position(JUNIOR))
    assert position.outcome().winner == 0 and position.ply == 13


@pytest.mark.slow
def test_from_every_won_position_it_wins_against_full_strength_defence():
    """Positions reached by random play (a few hundred games' worth): wherever the solver
    says the side to move wins in d plies, self-play at full strength (the slowest loss
    against the fastest win, no time limit: proofs, not the machine's speed, decide) ends in
    that side's line after exactly d plies."""
    solver = JuniorSolver.with_book()
    won = 0
    for position in random_positions("junior", 300, seed=13, plies=(1, 16)):
        answer = solver.solve(position)
        if answer.value != "win":
            continue
        winner, start = position.turn, position.ply
        while position.outcome() is None and position.ply < start + 60:
            position.push_code(solver.solve(position).code)
        assert position.outcome() is not None and position.outcome().winner == winner, position.text()
        assert position.ply - start == answer.distance, position.text()
        won += 1
    assert won >= 100


@pytest.mark.parametrize("level", ["easy", "medium"])
def test_weaker_levels_play_legal_moves_in_junior(level):
    engine = Engine("junior", level=level, seed=2)
    position = Position(JUNIOR)
    while position.outcome() is None and position.ply < 40:
        position.push(engine.search(position).move)


@pytest.mark.slow
def test_the_book_reads_back_as_it_is_written(tmp_path):
    shipped = load_book()
    copy = tmp_path / "book.json.gz"
    assert write_book(shipped, copy) == len(shipped) > 1000
    assert load_book(copy) == shipped
    assert json.loads(gzip.decompress(copy.read_bytes())) == json.loads(
        gzip.decompress(BOOK_PATH.read_bytes())
    )
    assert load_book(tmp_path / "missing.json.gz") == {}


def test_the_shipped_book_is_read_once_and_again_when_rewritten(tmp_path):
    copy = tmp_path / "book.json.gz"
    write_book({1: ("win", 3, 2)}, copy)
    first = JuniorSolver.with_book(copy).book
    assert first == {1: ("win", 3, 2)} and JuniorSolver.with_book(copy).book is first  # shared
    write_book({1: ("win", 3, 2), 5: ("draw", 9, 6)}, copy)
    assert JuniorSolver.with_book(copy).book == {1: ("win", 3, 2), 5: ("draw", 9, 6)}
    assert JuniorSolver.with_book(tmp_path / "missing.json.gz").book == {}


def test_the_builder_solves_layer_by_layer_into_the_same_entries():
    """With the shipped book to lean on, every position the builder solves answers from it:
    the builder's layers, chunks and entries reproduce the book's own."""
    shipped = load_book()
    seen: list[tuple[int, int]] = []
    built = build_book(dict(shipped), 2, jobs=1, progress=lambda done, total: seen.append((done, total)))
    wanted = book_positions(2)
    assert seen[-1] == (len(wanted), len(wanted))
    assert {key: built[key] for key in wanted} == {key: shipped[key] for key in wanted}


def test_the_module_runs_as_a_command():
    done = subprocess.run(
        [sys.executable, "-m", "companion.engine.junior", "--jobs", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--jobs must be 1 or more" in done.stderr
