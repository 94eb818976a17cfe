"""The fast layer's public API: move codes decode to what ``Position`` means by them, the
reserve table gives what a placement leaves, and the accessors show the position's state."""

from __future__ import annotations

import random

import pytest

from companion.rules import Move, Position, Variant, parse_square
from companion.rules.codes import (
    BOARD_FLAG,
    code_from,
    code_origin,
    code_size,
    code_squares,
    code_stack,
    code_to,
    encode_board_move,
    encode_placement,
    is_board_move,
    piece_code,
    piece_color,
    piece_size,
    placed_piece,
    placement_key,
)
from companion.rules.reserves import PLACEMENT_OPTIONS, RESERVES, TAKES, reserve_id, take
from companion.rules.tables import tables_for
from tests.budgets import budgets
from tests.rules.helpers import ALL_PRESETS, random_game

VARIANTS = [*ALL_PRESETS, Variant.from_spec("classic:stacks=42.4.31"), Variant.from_spec("classic:size=16")]


def positions(variant: Variant, count: int = 12) -> list[Position]:
    rng = random.Random(variant.spec)
    return [random_game(variant, rng, rng.randint(0, 30)) for _ in range(count)]


@pytest.mark.parametrize("count", budgets(4, 12))
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.spec)
def test_every_legal_code_decodes_to_its_move(variant: Variant, count: int) -> None:
    """In ``count`` random positions: 4 in the quick loop, 12 in the full suite."""
    for position in positions(variant, count):
        for code in position.legal_codes():
            move = position.move_from_code(code)
            assert code_to(code) == move.to_square
            if is_board_move(code):
                assert code & BOARD_FLAG and move.from_square == code_from(code) == code_origin(code)
                assert code_squares(code) == (move.from_square, move.to_square)
                assert encode_board_move(code_from(code), code_to(code)) == code
            else:
                assert move.from_square is None and code_origin(code) == -1
                assert code_size(code) == move.size
                assert code_squares(code) == (move.to_square,)
                assert encode_placement(code_size(code), code_stack(code), code_to(code)) == code
            assert position.code_from_move(move) == code


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.spec)
def test_a_placement_puts_down_its_piece_and_leaves_what_the_reserve_table_says(variant: Variant) -> None:
    for position in positions(variant):
        mover = position.turn
        rid = position.reserve_ids[mover]
        assert RESERVES[rid] == position.reserve(mover)
        placements = [code for code in position.legal_codes() if not is_board_move(code)]
        assert {code_size(c) for c in placements} <= {size for size, _, _ in PLACEMENT_OPTIONS[rid]}
        for code in placements:
            before = position.hash
            new_rid, white_change, black_change = take(rid, placement_key(code))
            assert TAKES[rid][placement_key(code)] == (new_rid, white_change, black_change)
            position.push_code(code)
            assert position.piece_stacks[code_to(code)][-1] == placed_piece(code, mover)
            assert position.reserve_ids[mover] == new_rid and RESERVES[new_rid] == position.reserve(mover)
            position.pop_code()
            assert position.hash == before


def test_piece_codes() -> None:
    for color in (0, 1):
        for size in range(1, 10):
            piece = piece_code(color, size)
            assert (piece_color(piece), piece_size(piece)) == (color, size)


def test_reserve_ids_are_interned_once() -> None:
    reserve = ((4, 3, 2, 1), (3, 2, 1))
    assert reserve_id(reserve, False) == reserve_id(((4, 3, 2, 1), (3, 2, 1)), False)
    assert reserve_id(reserve, False) != reserve_id(((3, 2, 1, 3, 2, 1, 4),), True)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.spec)
def test_accessors_show_the_state(variant: Variant) -> None:
    for position in positions(variant):
        for sq in position.squares:
            stack = position.piece_stacks[sq]
            assert [piece_code(c, s) for c, s in position.stack(sq)] == stack
            shows_mover = bool(stack) and piece_color(stack[-1]) == position.turn
            assert position.tops_mask(position.turn) >> sq & 1 == shows_mover
        assert position.tables is tables_for(variant)
        assert position.line_decided == (position.line_result() is not None)
        assert position.last_code == (position.move_codes[-1] if position.move_codes else None)
        counts = position.repetition_counts()
        assert counts[position.hash] == position.repetitions()
        counts.clear()
        assert position.repetitions() >= 1  # a copy: the position's own counts are untouched


def test_last_code_follows_push_and_pop() -> None:
    position = Position()
    assert position.last_code is None
    position.push(Move.from_text("4a1"))
    first = position.last_code
    assert first is not None and not is_board_move(first)
    assert (code_size(first), code_to(first)) == (4, parse_square("a1"))
    position.push(Move.from_text("4d4"))
    assert position.last_code == position.move_codes[-1] != first
    position.pop()
    assert position.last_code == first
    assert position.copy().last_code == first
