"""The post-game review, checked against what it claims: in junior against the solver at the
root and against brute force with the rules alone; in classic on games built to hold a missed
win in one and a move that hands over a line, and on a game by ``strong`` against itself."""

from __future__ import annotations

import pytest

from companion.coach import (
    BLUNDER_SWING,
    INACCURACY_SWING,
    MISTAKE_SWING,
    GameReview,
    ReviewError,
    Value,
    Verdict,
    judge,
    review_game,
)
from companion.engine import MATE
from companion.engine.junior import JuniorSolver
from companion.rules import Game, Termination, Variant
from tests.coach.helpers import engine_game, game_of, loses_within, wins_within

JUNIOR_PAIRINGS = (
    ("easy", "medium", 0),
    ("easy", "medium", 2),
    ("medium", "easy", 2),
    ("easy", "easy", 1),
    ("greedy", "medium", 1),
    ("medium", "strong", 2),
)
SHORT = 3  # plies: distances brute force checks with the rules alone (at most ~30^3 moves)
CLASSIC_NODES = 1500  # the review's budget in these tests: small, and the same every run


@pytest.fixture(scope="module")
def junior_reviews() -> list[tuple[Game, GameReview]]:
    games = [engine_game("junior", white, black, seed) for white, black, seed in JUNIOR_PAIRINGS]
    return [(game, review_game(game)) for game in games]


@pytest.mark.slow
def test_junior_reviews_are_exact_and_cover_every_kind_of_verdict(junior_reviews):
    seen = set()
    for game, review in junior_reviews:
        assert review.exact and review.method == "exact (junior solver)"
        assert [p.move for p in review.plies] == [m.text() for m in game.moves]
        seen |= {p.verdict for p in review.plies}
    # the levels' games hold blunders, a missed win and only moves: the checks below see each
    assert {Verdict.BLUNDER, Verdict.MISSED_WIN, Verdict.ONLY_MOVE} <= seen


@pytest.mark.slow
def test_junior_values_are_the_solvers_at_the_root(junior_reviews):
    """Each ply's value before the move (the best of every move's value, one ply on) is what
    a separate solver answers for the position itself, distance included."""
    solver = JuniorSolver.with_book()
    for game, review in junior_reviews:
        position = game.start.copy()
        for ply, move in zip(review.plies, game.moves, strict=True):
            answer = solver.solve(position)
            assert ply.before.outcome == answer.value, (ply.ply, position.text())
            if answer.value in ("win", "loss"):
                assert ply.before.plies == answer.distance, (ply.ply, position.text())
            position.push(move)


@pytest.mark.slow
def test_junior_short_values_agree_with_brute_force_by_the_rules(junior_reviews):
    """Every value the review gives within ``SHORT`` plies, before and after each move, is
    checked by playing every line out on the rules' positions; every value it says is not
    decided that soon is checked not to be."""
    checked = 0
    for game, review in junior_reviews:
        position = game.start.copy()
        for ply, move in zip(review.plies, game.moves, strict=True):
            before = ply.before
            if before.outcome == "win" and before.plies is not None and before.plies <= SHORT:
                assert wins_within(position, before.plies) and not wins_within(position, before.plies - 2)
                checked += 1
            elif before.outcome == "loss" and before.plies is not None and before.plies <= SHORT - 1:
                assert loses_within(position, before.plies)
                assert before.plies < 2 or not loses_within(position, before.plies - 2)
                checked += 1
            else:
                assert not wins_within(position, SHORT) or before.outcome == "win"
            position.push(move)
            after, ended = ply.after, position.line_result()
            if ended is None and after.outcome == "loss" and (after.plies or SHORT + 2) <= SHORT + 1:
                assert wins_within(position, after.plies - 1)  # the opponent's win, one ply on
                checked += 1
    assert checked >= 20


@pytest.mark.slow
def test_junior_verdicts_follow_their_definitions(junior_reviews):
    """The verdicts re-derived from each move's value as the docs define them."""
    for _, review in junior_reviews:
        for ply in review.plies:
            before, after = ply.before, ply.after
            if before.outcome != "loss" and after.outcome == "loss":
                expected = Verdict.BLUNDER
            elif before.outcome == "win" and after.outcome != "win":
                expected = Verdict.MISSED_WIN
            else:
                expected = ply.verdict if ply.verdict is Verdict.ONLY_MOVE else None
            assert ply.verdict == expected, ply
            if ply.verdict is Verdict.MISSED_WIN:
                assert ply.missed_win == before.plies
            assert after.score <= before.score  # no move is better than the best


@pytest.mark.slow
def test_junior_only_moves_are_the_only_moves_that_do_not_lose():
    """A seeded game with only moves: at each, every other move loses (by the solver, one
    position at a time) and the one played does not."""
    game = engine_game("junior", "medium", "strong", 2)
    review = review_game(game)
    solver = JuniorSolver.with_book()
    position = game.start.copy()
    found = 0
    for ply, move in zip(review.plies, game.moves, strict=True):
        if ply.verdict is Verdict.ONLY_MOVE:
            found += 1
            played = position.code_from_move(move)
            for code in position.legal_codes():
                position.push_code(code)
                ended = position.line_result()
                if ended is not None:
                    lost = ended.winner == position.turn
                else:
                    lost = solver.solve(position).value == "win"
                position.pop_code()
                assert lost == (code != played), (ply.ply, position.move_from_code(code).text())
        position.push(move)
    assert found >= 2


# ----- classic --------------------------------------------------------------------------------


def test_a_missed_win_in_one_is_marked_a_missed_win():
    """White has a full rank 1 waiting on d1 and plays 3a4 instead."""
    game = game_of("classic", "4a1 4d4 4b1 4c4 4c1 4b4 3a4")
    last = review_game(game, nodes=CLASSIC_NODES).plies[-1]
    assert last.verdict is Verdict.MISSED_WIN and last.missed_win == 1
    assert last.best.endswith("d1") and last.before.text() == "#1"
    assert last.symbol == "?" and "a win in 1 ply" in last.describe()


def test_a_move_that_hands_over_a_line_in_one_is_a_blunder():
    """White threatens d1; Black plays 3a4 instead of blocking it."""
    review = review_game(game_of("classic", "4a1 4d4 4b1 4c4 4c1 3a4"), nodes=CLASSIC_NODES)
    last = review.plies[-1]
    assert last.verdict is Verdict.BLUNDER and last.after.text() == "#-2"
    assert last.before.outcome is None and last.best.endswith("d1")
    assert review.summary(1).blunders == 1 and review.summary(0).blunders == 0
    blocked = review_game(game_of("classic", "4a1 4d4 4b1 4c4 4c1 4d1"), nodes=CLASSIC_NODES)
    assert blocked.plies[-1].verdict is None


def test_a_losing_uncover_is_named():
    """Black's 4 covers White's 3 on d1, the last square of White's rank: lifting it off the
    rank shows White's line and loses on the spot."""
    game = game_of("classic", "4a1 4a4 3d1 4c4 4b1 c4-d1 3c1 d1-d2")
    assert game.outcome() is not None and game.outcome().termination is Termination.UNCOVER
    last = review_game(game, nodes=CLASSIC_NODES).plies[-1]
    assert last.verdict is Verdict.LOSING_UNCOVER and last.symbol == "??"
    assert last.uncover == "White's line a1 b1 c1 d1"
    assert "uncovered White's line a1 b1 c1 d1" in last.describe()


@pytest.mark.slow
def test_a_game_by_strong_against_itself_shows_no_blunders():
    """Both sides and the review search the same fixed number of nodes (at 10,000 nodes a
    move, strong's own game does hold a real blunder, a loss in 5 the review proves)."""
    game = engine_game("classic", "strong", "strong", 0, nodes=5000)
    review = review_game(game, nodes=5000)
    assert game.ply >= 20
    for color in (0, 1):
        summary = review.summary(color)
        assert summary.blunders == 0 and summary.missed_wins == 0, review.to_json()


def test_the_search_review_is_the_same_every_time_and_says_how_it_was_made():
    game = game_of("classic", "4a1 4d4 4b1 4c4 4c1 3a4")
    first, second = review_game(game, nodes=800), review_game(game, nodes=800)
    assert first == second and not first.exact
    assert first.method == "search, 800 nodes per position"
    timed = review_game(game, seconds=0.05)
    assert timed.method == "search, 0.05 s per position (not repeatable)"


# ----- the pieces -----------------------------------------------------------------------------


def test_thresholds_decide_the_verdicts_of_estimated_values():
    level = Value(0)
    assert judge(level, Value(-INACCURACY_SWING + 1), False, None) is None
    assert judge(level, Value(-INACCURACY_SWING), False, None) is Verdict.INACCURACY
    assert judge(level, Value(-MISTAKE_SWING), False, None) is Verdict.MISTAKE
    assert judge(level, Value(-BLUNDER_SWING), False, None) is Verdict.BLUNDER
    assert judge(Value(MATE - 3), Value(250), False, None) is Verdict.MISSED_WIN
    assert judge(Value(MATE - 3), Value(-(MATE - 2)), False, None) is Verdict.BLUNDER
    assert judge(level, level, True, None) is Verdict.ONLY_MOVE
    assert judge(level, Value(MATE - 1), False, Termination.UNCOVER) is Verdict.LOSING_UNCOVER
    # exact values: a kept draw has no swing, however the scores are written
    assert judge(Value(0, True), Value(0, True), False, None) is None


def test_values_read_as_players_write_them():
    assert Value(MATE - 7).text() == "#7" and Value(-(MATE - 4)).text() == "#-4"
    assert Value(35).text() == "+0.35" and Value(0, True).text() == "="
    assert Value(MATE - 7).plies == 7 and Value(35).plies is None


@pytest.mark.slow
def test_a_review_survives_json_and_refuses_what_is_not_one(junior_reviews):
    _, review = junior_reviews[0]
    assert GameReview.from_json(review.to_json()) == review
    data = review.to_json()
    data["version"] = 99
    with pytest.raises(ReviewError, match="version 99"):
        GameReview.from_json(data)
    with pytest.raises(ReviewError, match="does not read"):
        GameReview.from_json({"version": 1, "plies": "nope", "exact": True})


def test_a_game_without_moves_is_refused():
    with pytest.raises(ReviewError, match="no move"):
        review_game(Game(Variant.from_spec("junior")))
