"""Perft: docs/rules.md's figures from the start, and agreement with the independent reference
generator from many mid-game positions of every preset."""

from __future__ import annotations

import random
import zlib

import pytest

from companion.rules import PRESETS, Position, Variant, perft
from companion.rules.perft import divide
from tests.budgets import budgets
from tests.rules import reference
from tests.rules.helpers import ALL_PRESETS, random_game, texts

CLASSIC_PERFT = {1: 16, 2: 240, 3: 10080, 4: 406560}
JUNIOR_PERFT = {1: 27, 2: 675, 3: 20313, 4: 572472}


@pytest.mark.parametrize(("depth", "nodes"), CLASSIC_PERFT.items())
def test_classic_perft_from_start(depth: int, nodes: int) -> None:
    assert perft(Position(), depth) == nodes


@pytest.mark.slow
def test_classic_perft_depth_5_from_start() -> None:
    assert perft(Position(), 5) == 19024320


@pytest.mark.parametrize(("depth", "nodes"), JUNIOR_PERFT.items())
def test_junior_perft_from_start(depth: int, nodes: int) -> None:
    assert perft(Position(PRESETS["junior"]), depth) == nodes


def test_divide_sums_to_perft() -> None:
    position = Position()
    split = divide(position, 3)
    assert len(split) == 16
    assert sum(split.values()) == CLASSIC_PERFT[3]


def test_perft_leaves_position_unchanged() -> None:
    position = random_game(PRESETS["classic"], random.Random(5), 12)
    before = position.text()
    perft(position, 3)
    assert position.text() == before


VARIANTS_UNDER_TEST = [
    *ALL_PRESETS,
    Variant.from_spec("classic:gobble=never"),
    Variant.from_spec("classic:order=any"),
    Variant.from_spec("storer:stacks=543.543.543"),
    Variant.from_spec("classic:size=5,win=4"),
    Variant.from_spec("junior:gobble=threat-line"),
]


@pytest.mark.parametrize("games", budgets(1, 6))
@pytest.mark.parametrize("variant", VARIANTS_UNDER_TEST, ids=lambda v: v.spec)
def test_move_lists_match_reference_in_random_games(variant: Variant, games: int) -> None:
    """Along random games: the first in the quick loop; 6 in the full suite (2 on larger
    boards)."""
    rng = random.Random(zlib.crc32(variant.spec.encode()))  # the same games in every process
    plies = 60 if variant.size <= 5 else 25
    for game in range(min(games, 6 if variant.size <= 5 else 2)):
        position = Position(variant)
        for _ in range(plies):
            expected = set(reference.legal_moves(reference.from_position(position)))
            assert texts(position) == expected or position.repetitions() >= 3, position.text()
            codes = position.legal_codes()
            if not codes:
                break
            position.push_code(rng.choice(codes))
        assert game >= 0


MIDGAMES = [
    pytest.param(v, seed, plies, marks=[pytest.mark.slow] if plies > 14 else [])
    for v in ("classic", "junior", "storer", "rogers")
    for seed, plies in ((1, 8), (2, 14), (3, 20))
]
"""Every preset after 8 and 14 random plies; after 20 (the most moves) in the full suite."""


@pytest.mark.parametrize(("name", "seed", "plies"), MIDGAMES)
def test_midgame_perft_matches_reference(name: str, seed: int, plies: int) -> None:
    position = random_game(PRESETS[name], random.Random(seed), plies)
    depth = 2
    assert perft(position, depth) == reference.perft(reference.from_position(position), depth)


@pytest.mark.slow
def test_moku_perft_depth_2_matches_reference() -> None:
    position = random_game(PRESETS["moku"], random.Random(9), 4)
    assert perft(position, 2) == reference.perft(reference.from_position(position), 2)
