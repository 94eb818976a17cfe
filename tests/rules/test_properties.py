"""Property tests: the text formats round-trip, every piece is always somewhere, push then
pop restores the position, and ``check`` agrees with the generator."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import strategies as st

from companion.rules import AmbiguousMoveError, Game, Move, Position, Variant
from companion.rules.codes import code_squares
from companion.rules.record import read_record, write_record
from tests.budgets import property_test
from tests.rules.helpers import ALL_PRESETS

VARIANTS = [
    *ALL_PRESETS,
    Variant.from_spec("storer:stacks=543.543.543,order=any"),
    Variant.from_spec("classic:stacks=42.4.31"),
]


@st.composite
def games(draw: st.DrawFn, max_plies: int = 60) -> Game:
    variant = draw(st.sampled_from(VARIANTS))
    seed = draw(st.integers(0, 2**32 - 1))
    plies = draw(st.integers(0, max_plies if variant.size <= 4 else 20))
    rng = random.Random(seed)
    game = Game(variant)
    clock = 1_700_000_000.0
    for _ in range(plies):
        position = game.position
        if position.outcome() is not None:
            break
        clock += rng.randint(1, 90_000) / 1000
        # a random legal move (legal_codes lists what legal_moves does, as codes: cheaper)
        game.push(position.move_from_code(rng.choice(position.legal_codes())), timestamp=clock)
    return game


def piece_counts(position: Position, color: int) -> Counter:
    counts = Counter(s for sq in position.squares for c, s in position.stack(sq) if c == color)
    counts.update(s for stack in position.reserve(color) for s in stack)
    return counts


@property_test(150, games())
def test_position_text_round_trips(game: Game) -> None:
    text = game.position.text()
    again = Position.from_text(text)
    assert again == game.position
    assert again.text() == text
    assert again.hash == game.position.hash


@property_test(100, games())
def test_record_round_trips_and_replays(game: Game) -> None:
    text = write_record(game)
    again = read_record(text)
    assert again.position == game.position
    assert [p.move for p in again.played] == [p.move for p in game.played]
    for read, written in zip(again.played, game.played, strict=True):
        assert abs(read.timestamp - written.timestamp) <= 0.0005 + 1e-6  # kept to the millisecond
    assert write_record(again) == text


@property_test(150, games())
def test_every_piece_is_always_somewhere(game: Game) -> None:
    variant = game.variant
    full = Counter(s for stack in variant.stacks for s in stack)
    for color in (0, 1):
        assert piece_counts(game.position, color) == full
    if variant.name == "classic" and variant == Variant.from_spec("classic"):
        assert sum(full.values()) == 12


@property_test(150, games(), st.integers(0, 2**16))
def test_push_then_pop_restores_the_position(game: Game, seed: int) -> None:
    position = game.position
    before_text, before_hash, before_key = position.text(), position.hash, position.key()
    moves = list(position.legal_moves)
    if not moves:
        return
    move = random.Random(seed).choice(moves)
    position.push(move)
    assert position.text() != before_text
    assert position.pop() == move
    assert (position.text(), position.hash, position.key()) == (before_text, before_hash, before_key)


@property_test(100, games(), st.integers(0, 2**16))
def test_check_agrees_with_the_generator(game: Game, seed: int) -> None:
    position = game.position
    legal = set(position.legal_moves)
    rng = random.Random(seed)
    size = position.size
    files = "abcdefgh"[:size]
    for _ in range(40):
        a = f"{rng.choice(files)}{rng.randint(1, size)}"
        b = f"{rng.choice(files)}{rng.randint(1, size)}"
        text = rng.choice([f"{rng.randint(1, 5)}{b}", f"{a}-{b}"])
        move = Move.from_text(text)
        try:
            reason = position.check(move)
        except AmbiguousMoveError:  # a placement that must name its stack: never in legal_moves
            assert move not in legal
            continue
        assert (reason is None) == (move in legal), (position.text(), text, reason)
        assert reason != "not a legal move here"


@property_test(80, games())
def test_hash_is_a_function_of_the_position(game: Game) -> None:
    fresh = Position.from_text(game.position.text())
    assert fresh.hash == game.position.hash


@property_test(60, games(max_plies=30))
def test_a_copy_is_independent_and_can_be_popped(game: Game) -> None:
    original = game.position
    copy = original.copy()
    assert copy == original and copy.hash == original.hash
    assert copy.repetitions() == original.repetitions()
    if game.played:
        copy.pop()
        assert copy != original and original.text() == game.position.text()
        assert copy.text() == Position.from_text(copy.text()).text()


@property_test(150, games(), st.integers(0, 2**32 - 1))
def test_legal_codes_within_squares_are_the_legal_codes_there(game: Game, seed: int) -> None:
    position = game.position
    rng = random.Random(seed)
    squares = set(rng.sample(position.squares, rng.randint(0, len(position.squares))))
    within = sum(1 << sq for sq in squares)
    expected = [code for code in position.legal_codes() if set(code_squares(code)) <= squares]
    assert position.legal_codes(within) == expected
