"""The search's board agrees with the rules engine move for move, in every variant: the same
legal codes in the same order, the same hash, tops, end-of-turn result and win in one, the
same evaluation as recounting from scratch, and an exact undo."""

from __future__ import annotations

import random

import pytest

from companion.engine.board import SearchBoard
from companion.engine.evaluate import evaluator_for
from companion.rules import PRESETS, Position, Variant
from companion.rules.codes import code_to
from tests.budgets import budgets

VARIANTS = [
    "classic",
    "storer",
    "rogers",
    "junior",
    "moku",
    "classic:order=any",
    "classic:gobble=never",
    "storer:stacks=543.543.543",
]


def variant_of(spec: str) -> Variant:
    return PRESETS[spec] if spec in PRESETS else Variant.from_spec(spec)


def assert_same(board: SearchBoard, position: Position) -> None:
    tables = board.tables
    assert [tables.to_rules(c) for c in board.legal_codes()] == position.legal_codes()
    assert [tables.from_rules(c) for c in position.legal_codes()] == board.legal_codes()
    assert board.hash == position.hash
    assert board.turn == position.turn
    assert [tables.rules_mask(m) for m in board.tops] == [position.tops_mask(0), position.tops_mask(1)]
    assert [tables.rules_mask(m) for m in board.size_tops] == [
        position.size_tops_mask(s) for s in range(len(board.size_tops))
    ]
    assert board.rid == list(position.reserve_ids)
    assert board.seen == position.repetition_counts()
    decided = position.line_result()
    assert board.result == (None if decided is None else decided.winner)
    assert board.has_win() == bool(position.winning_codes(True))
    fresh = SearchBoard(position, board.piece_values)
    assert (
        board.material == fresh.material
        and board.stacks == fresh.stacks
        and board.size_tops == fresh.size_tops
    )


@pytest.mark.slow
@pytest.mark.parametrize("spec", VARIANTS)
def test_board_follows_the_rules_engine_through_random_games(spec):
    variant = variant_of(spec)
    values = evaluator_for(variant).piece_values
    rng = random.Random(11)
    small = variant.size <= 4
    for _ in range(3 if small else 1):
        position = Position(variant)
        board = SearchBoard(position, values)
        played = []
        while position.outcome() is None and len(played) < (50 if small else 12):
            codes = position.legal_codes()
            for code in codes:  # every move made and unmade on both
                undo = board.make(board.tables.from_rules(code))
                position.push_code(code)
                assert_same(board, position)
                position.pop_code()
                board.unmake(board.tables.from_rules(code), undo)
            assert_same(board, position)
            code = rng.choice(codes)
            played.append((code, board.make(board.tables.from_rules(code))))
            position.push_code(code)
        for code, undo in reversed(played):  # and the whole game taken back
            board.unmake(board.tables.from_rules(code), undo)
            position.pop_code()
            assert_same(board, position)


@pytest.mark.parametrize("games", budgets(3, 10))
@pytest.mark.parametrize("spec", VARIANTS)
def test_targets_killers_and_evaluation(spec, games):
    """Along random games: ``games`` of them on a 4x4 board (3 in the quick loop, 10 in the
    full suite), 2 on the larger boards."""
    variant = variant_of(spec)
    evaluator = evaluator_for(variant)
    rng = random.Random(12)
    every_code: set[int] = set()
    for _ in range(games if variant.size <= 4 else 2):
        position = Position(variant)
        for _ in range(rng.randint(0, 40)):
            if position.outcome() is not None:
                break
            codes = position.legal_codes()
            every_code.update(codes)
            board = SearchBoard(position, evaluator.piece_values)
            targets = rng.getrandbits(64)
            rules_targets = board.tables.rules_mask(targets)
            assert [board.tables.to_rules(c) for c in board.legal_codes(targets)] == [
                c for c in codes if rules_targets >> code_to(c) & 1
            ]
            for code in list(every_code)[:200]:  # codes of other positions: legal here or not
                assert board.is_legal(board.tables.from_rules(code)) == (code in codes)
            assert evaluator.score(board) == evaluator.evaluate(position)
            position.push_code(rng.choice(codes))
