"""``Position.winning_codes()`` (the search's bitboard win-in-one detector) against brute
force: play every legal move and ask the end-of-turn check who won."""

from __future__ import annotations

import random

import pytest

from companion.rules import Position, Variant
from tests.engine.helpers import winning_codes
from tests.rules.helpers import setup

VARIANTS = [
    "classic",
    "junior",
    "storer",
    "rogers",
    "moku",
    "classic:order=any",
    "storer:stacks=543.543.543",
    "classic:gobble=never",
    "classic:size=5",
]


def brute_force_wins(position: Position) -> set[int]:
    return set(winning_codes(position))  # plays every legal move and asks line_result()


@pytest.mark.slow
@pytest.mark.parametrize("spec", VARIANTS)
def test_winning_codes_are_exactly_the_moves_that_win_at_once(spec):
    variant = Variant.from_spec(spec)
    rng = random.Random(spec)
    checked = with_wins = 0
    for _ in range(40 if variant.size > 5 else 150):
        position = Position(variant)
        for _ in range(rng.randint(1, 50)):
            codes = position.legal_codes()
            if not codes:
                break
            found = position.winning_codes()
            assert len(found) == len(set(found))
            expected = brute_force_wins(position)
            assert set(found) == expected, position.text()
            one = position.winning_codes(first=True)
            assert len(one) == (1 if expected else 0) and set(one) <= expected
            checked += 1
            with_wins += bool(expected)
            position.push_code(rng.choice(codes))
    assert checked > 500 and with_wins >= (5 if variant.size > 5 else 20)


def test_a_lift_that_uncovers_the_opponents_line_is_not_a_win():
    # White shows a1 b1 c1; the white 4 on d2 covers the black 1 that completes black's rank 2,
    # so d2-d1 completes White's rank 1 but uncovers Black's rank 2 and loses; 4d1 wins.
    position = setup(
        {"a1": "W2", "b1": "W2", "c1": "W2", "a2": "B1", "b2": "B1", "c2": "B1", "d2": "B1W4"},
        white="321.321.1",
        black="4321.432.32",
    )
    d1 = position.parse_move("d2-d1")
    code = position.code_from_move(d1)
    position.push_code(code)
    lost = position.line_result()
    position.pop_code()
    assert lost is not None and lost.winner == 1  # the uncover beats White's own line
    assert code not in position.winning_codes()
    assert set(position.winning_codes()) == brute_force_wins(position) != set()
