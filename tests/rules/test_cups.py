"""Cups: the rules of docs/rules.md#cups, its notation and texts, and the seam it shares with
Gobblet (perft, records and the registry of games)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import Position, Termination, Variant, VariantError
from companion.rules.cups import CupsGame, CupsMove, CupsPosition, CupsVariant, PositionTextError, diagram
from companion.rules.fen import PositionSyntaxError
from companion.rules.games import (
    is_gobblet_spec,
    kind_of,
    new_game,
    position_from_text,
    start_position,
    variant_from_spec,
)
from companion.rules.move import IllegalMoveError, MoveSyntaxError
from companion.rules.perft import perft
from companion.rules.record import RecordSyntaxError, read_record, write_record
from companion.rules.state import GameState


def play(position: CupsPosition, moves: str) -> CupsPosition:
    for text in moves.split():
        position.push(position.parse_move(text))
    return position


def state(text: str) -> CupsPosition:
    return CupsPosition.from_text(text)


# ----- the seam ----------------------------------------------------------------------------------


def test_both_games_answer_every_question_of_the_seam() -> None:
    """mypy checks the types (``rules/games.py`` returns each start as a ``GameState``); this
    checks that the names are there at run time, the protocol's every member."""
    members = [name for name in dir(GameState) if not name.startswith("_")]
    assert {"legal_codes", "push_code", "pop_code", "outcome", "text", "hash", "turn"} <= set(members)
    for position in (Position(Variant.from_spec("classic")), CupsPosition()):
        assert all(hasattr(position, name) for name in members)
        code = position.legal_codes()[0]
        position.push_code(code)
        assert position.pop_code() == code and position.move_codes == []
        assert position.code_from_move(position.parse_move(position.move_from_code(code).text())) == code


def test_the_registry_finds_each_game_by_spec_and_text() -> None:
    assert isinstance(variant_from_spec("cups:cups=6"), CupsVariant)
    assert isinstance(variant_from_spec("junior"), Variant)
    assert kind_of(CupsVariant()).name == "cups" and kind_of(Variant.from_spec("classic")).name == "gobblet"
    assert isinstance(position_from_text(CupsPosition().text()), CupsPosition)
    assert isinstance(position_from_text(Position(Variant.from_spec("junior")).text()), Position)
    assert isinstance(new_game(CupsVariant(stock=8)), CupsGame)
    assert start_position(CupsVariant(cups=6)) == CupsPosition(CupsVariant(cups=6))
    assert is_gobblet_spec("classic:size=5") and is_gobblet_spec("nonsense") and not is_gobblet_spec("cups")
    with pytest.raises(VariantError, match=r"unknown variant .chess.*cups"):
        variant_from_spec("chess")


# ----- the variant ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "cups", "stock", "canonical"),
    [
        ("cups", 4, 40, "cups"),
        ("CUPS", 4, 40, "cups"),
        ("cups:cups=6", 6, 60, "cups:cups=6"),
        ("cups:stock=8", 4, 8, "cups:stock=8"),
        ("cups:cups=6,stock=60", 6, 60, "cups:cups=6"),
        ("cups: stock=40 ", 4, 40, "cups"),
    ],
)
def test_variant_specs_parse_and_round_trip(spec: str, cups: int, stock: int, canonical: str) -> None:
    variant = CupsVariant.from_spec(spec)
    assert (variant.cups, variant.stock, variant.spec) == (cups, stock, canonical)
    assert CupsVariant.from_spec(variant.spec) == variant


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("cups:cups=5", "even number"),
        ("cups:cups=2", "even number"),
        ("cups:cups=18", "even number"),
        ("cups:stock=0", "1..999"),
        ("cups:stock=x", "whole number"),
        ("cups:size=4", "use cups=N or stock=N"),
        ("cups:stock=8,stock=9", "given twice"),
        ("cups:stock", "use cups=N or stock=N"),
    ],
)
def test_bad_variant_specs_say_what_is_wrong(spec: str, words: str) -> None:
    with pytest.raises(VariantError, match=words):
        CupsVariant.from_spec(spec)


# ----- moves and rules -----------------------------------------------------------------------------


def test_perft_from_the_start_matches_the_issue() -> None:
    assert [perft(CupsPosition(), depth) for depth in range(1, 6)] == [4, 16, 67, 281, 1252]


def test_move_text_round_trips_and_bad_text_is_refused() -> None:
    for text in ("s1", "s4", "c1", "c12"):
        assert CupsMove.from_text(text).text() == text
        assert CupsMove.from_code(CupsMove.from_text(text).code) == CupsMove.from_text(text)
    assert CupsMove.from_text(" S3 ") == CupsMove("s", 3)
    for bad in ("s0", "c0", "x1", "s", "4a1", "s123", ""):
        with pytest.raises(MoveSyntaxError, match="not a Cups move"):
            CupsMove.from_text(bad)


def test_the_seed_texts_example_opening() -> None:
    """Lower sows four; upper sows three and captures a bean; lower empties its cup 4."""
    position = play(CupsPosition(), "s4")
    assert position.cups(0) == (1, 1, 1, 1) and position.stock(0) == 36
    play(position, "s3")  # Black's cup 3 was empty and faces White's cup 2
    assert position.cups(1) == (1, 1, 1, 0) and position.cups(0) == (1, 0, 1, 1)
    assert position.pot(1) == 1 and position.turn == 0
    play(position, "c4")
    assert position.cups(0) == (1, 0, 1, 0) and position.pot(0) == 1
    assert position.text() == "cups 1.0.1.0/1.1.1.0 b 36/37 1/1 3"


def test_no_capture_when_the_last_cup_was_not_empty_or_the_facing_cup_is() -> None:
    position = play(CupsPosition(), "s2 s1")  # Black's cup 1 faces White's empty cup 4
    assert position.pot(1) == 0 and position.cups(0) == (1, 1, 0, 0)
    play(position, "s1")  # White's cup 1 was not empty: no capture of Black's cup 4
    assert position.cups(0) == (2, 1, 0, 0) and position.pot(0) == 0


def test_emptying_a_cup_sows_towards_the_pot() -> None:
    position = state("cups 0.3.0.0/0.0.0.0 w 37/40 0/0 1")
    assert "c2" in [m.text() for m in position.legal_moves]
    play(position, "c2")
    assert position.cups(0) == (0, 0, 1, 1) and position.pot(0) == 1


@pytest.mark.parametrize(
    ("text", "move", "words"),
    [
        ("cups 0.2.0.0/0.0.0.0 w 38/40 0/0 1", "c2", "holds 2 beans.*exactly 3"),
        ("cups 0.0.0.0/0.0.0.0 w 40/40 0/0 0", "s5", "at most 4"),
        ("cups 1.1.0.0/0.0.0.0 w 2/40 36/0 4", "s3", "only 2 beans in stock"),
        ("cups 0.0.0.0/0.0.0.0 w 40/40 0/0 0", "c9", "only 4 cups"),
    ],
)
def test_illegal_moves_say_why(text: str, move: str, words: str) -> None:
    position = state(text)
    with pytest.raises(IllegalMoveError, match=words):
        position.parse_move(move)


def test_a_player_who_cannot_move_passes() -> None:
    # Black has no stock and no cup with exactly the beans that reach its pot: it passes.
    position = state("cups 0.0.0.0/2.0.0.0 w 3/0 35/40 0")
    play(position, "s1")
    assert position.turn == 0, "Black cannot move: White moves again"
    assert position.ply == 1
    position.pop_code()
    assert position.turn == 0 and position.text() == "cups 0.0.0.0/2.0.0.0 w 3/0 35/40 0"


def test_a_text_naming_a_side_that_cannot_move_is_read_with_the_other_to_move() -> None:
    position = state("cups 0.0.0.0/2.0.0.0 b 3/0 35/40 0")
    assert position.turn == 0 and " w " in position.text()


def test_the_game_ends_when_neither_can_move_and_the_fuller_pot_wins() -> None:
    position = state("cups 0.0.0.1/0.0.0.0 w 0/0 40/39 0")
    assert position.outcome() is None and [m.text() for m in position.legal_moves] == ["c4"]
    play(position, "c4")
    outcome = position.outcome()
    assert outcome is not None and outcome.termination is Termination.POTS
    assert outcome.winner == 0 and outcome.pots == (41, 39) and outcome.result == "1-0"
    assert outcome.reason == "White wins 41 to 39: neither player can move"
    assert position.legal_codes() == []
    drawn = state("cups 0.0.0.0/0.0.0.0 w 0/0 40/40 9").outcome()
    assert drawn is not None and drawn.winner is None and drawn.result == "1/2-1/2"
    assert "40 beans in each pot" in drawn.reason


def test_the_six_cup_variant_and_its_captures() -> None:
    position = CupsPosition(CupsVariant.from_spec("cups:cups=6"))
    assert position.stock(0) == 60 and len(position.cups(0)) == 6
    play(position, "s4 s3")  # Black's cup 3 faces White's cup 4
    assert position.pot(1) == 1 and position.cups(0) == (1, 1, 1, 0, 0, 0)


# ----- texts -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("cups 0.0.0.0/0.0.0.0 w 40/40 0/0 0 1", "5 or 6 fields"),
        ("cups 0.0.0/0.0.0.0 w 40/40 0/0 0", "a row has 4 cups"),
        ("cups 0.0.0.0 w 40/40 0/0 0", "slash"),
        ("cups 0.0.0.0/0.0.0.0 x 40/40 0/0 0", "write w or b"),
        ("cups 0.0.0.0/0.0.0.0 w 40/39 0/0 0", "holds 79 beans"),
        ("cups 0.0.0.0/0.0.0.0 w 41/39 0/0 0", "a stock above 40"),
        ("cups 0.0.0.0/0.0.0.a w 40/40 0/0 0", "not a whole number"),
        ("cups:cups=3 0.0.0/0.0.0 w 40/40 0/0 0", "even number"),
    ],
)
def test_bad_position_texts_name_the_field(text: str, words: str) -> None:
    with pytest.raises(PositionTextError, match=words):
        CupsPosition.from_text(text)
    with pytest.raises(PositionSyntaxError):
        position_from_text(text)


def test_the_diagram_shows_both_rows_pots_and_stocks() -> None:
    drawn = diagram(play(CupsPosition(), "s4 s3"))
    lines = drawn.splitlines()
    assert lines[0].split() == ["c4", "c3", "c2", "c1"]  # Black's row runs the other way
    assert lines[1].split()[:5] == ["1", "0", "1", "1", "1"] and "Black: stock 37" in lines[1]
    assert lines[2].split()[:5] == ["1", "0", "1", "1", "0"] and "White: stock 36" in lines[2]
    assert lines[-1] == "white to move"


# ----- properties --------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    spec=st.sampled_from(["cups", "cups:cups=6", "cups:stock=8", "cups:cups=6,stock=9"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_beans_are_conserved_and_every_ply_undoes_and_round_trips(spec: str, seed: int) -> None:
    rng = random.Random(seed)
    position = CupsPosition(CupsVariant.from_spec(spec))
    total = position.variant.beans
    texts = [position.text()]
    while position.outcome() is None:
        codes = position.legal_codes()
        assert codes and position.count_moves() == len(codes)
        for code in codes:
            assert position.check(position.move_from_code(code)) is None
        position.push_code(rng.choice(codes))
        assert position.beans() == total
        assert (
            min(position.cups(0) + position.cups(1)) >= 0 and min(position.stock(0), position.stock(1)) >= 0
        )
        text = position.text()
        again = CupsPosition.from_text(text)
        assert again.text() == text and again.hash == position.hash and again == position
        texts.append(text)
    assert position.ply <= 2 * position.variant.stock + position.variant.beans, "a game always ends"
    while position.ply:
        assert position.text() == texts[position.ply]
        position.pop_code()
    assert position.text() == texts[0]


# ----- records -------------------------------------------------------------------------------------------


def random_game(seed: int, spec: str = "cups") -> CupsGame:
    rng = random.Random(seed)
    game = CupsGame(CupsVariant.from_spec(spec), headers={"White": "Ann", "Black": "Bob"})
    clock = 1_700_000_000.0
    while not game.is_over():
        clock += rng.randint(1, 9000) / 1000
        game.push(rng.choice(game.legal_moves), timestamp=clock)
    return game


@pytest.mark.parametrize("spec", ["cups", "cups:cups=6,stock=13"])
def test_records_of_cups_games_round_trip(spec: str) -> None:
    game = random_game(7, spec)
    text = write_record(game)
    assert text.startswith('[Game "cups"]\n[Variant "' + CupsVariant.from_spec(spec).spec + '"]')
    again: Any = read_record(text)
    assert isinstance(again, CupsGame)
    assert [m.text() for m in again.moves] == [m.text() for m in game.moves]
    assert again.position == game.position and again.result == game.result
    assert [p.timestamp for p in again.played] == pytest.approx([p.timestamp for p in game.played], abs=1e-3)
    assert write_record(again) == text


def test_a_record_from_a_cups_position_keeps_its_start() -> None:
    start = state("cups 0.3.0.0/0.0.0.0 w 37/40 0/0 1")
    game = CupsGame(start.variant, start=start)
    game.push_text("c2")
    again: Any = read_record(write_record(game))
    assert again.start == start and again.position == game.position


def test_record_headers_that_disagree_are_refused() -> None:
    with pytest.raises(RecordSyntaxError, match="not a variant of cups"):
        read_record('[Game "cups"]\n[Variant "classic"]\n\n*\n')
    with pytest.raises(RecordSyntaxError, match="unknown game"):
        read_record('[Game "chess"]\n\n*\n')
    with pytest.raises(RecordSyntaxError, match="ply 2"):
        read_record('[Game "cups"]\n\n1. s4 s9 *\n')
    assert isinstance(read_record('[Game "cups"]\n\n1. s4 s3 *\n'), CupsGame)
