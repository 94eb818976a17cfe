"""Notation, position text and record: exact round trips and clear refusals of bad input."""

from __future__ import annotations

import pytest

from companion.errors import CompanionError
from companion.rules import Game, Move, MoveSyntaxError, Position, Variant, VariantError, parse_square
from companion.rules.fen import PositionSyntaxError
from companion.rules.record import RecordSyntaxError, read_record, read_records, write_record
from tests.rules.helpers import play


@pytest.mark.parametrize("text", ["4a1", "1d4", "a1-c3", "h8-a1", "4(2)a1", "5e5"])
def test_move_text_round_trips(text: str) -> None:
    move = Move.from_text(text)
    assert move.text() == text
    assert eval(repr(move)) == move
    assert hash(move) == hash(Move.from_text(text))


def test_compact_board_move_is_accepted() -> None:
    assert (
        Move.from_text("a1c3")
        == Move.from_text("a1-c3")
        == Move.board(parse_square("a1"), parse_square("c3"))
    )


@pytest.mark.parametrize("text", ["", "a1", "0a1", "4z9", "a0-b1", "4a1-b2", "10a1", "4(0)a1", "a1--b2"])
def test_malformed_moves_are_refused(text: str) -> None:
    with pytest.raises(MoveSyntaxError):
        Move.from_text(text)


def test_off_board_square_is_illegal_not_malformed() -> None:
    assert Position().check(Move.from_text("4e5")) == "e5 is not on the 4x4 board"


def test_start_position_text() -> None:
    assert Position().text() == "classic 4/4/4/4 w 4321.4321.4321 4321.4321.4321 0"
    junior = Position(Variant.from_spec("junior"))
    assert junior.text() == "junior 3/3/3 w 332211 332211 0"


def test_position_text_keeps_hidden_pieces() -> None:
    game = play("4a1 4d4 3b1 d4-b1")
    text = game.position.text()
    assert "W3B4" in text
    again = Position.from_text(text)
    assert again.stack(parse_square("b1")) == game.position.stack(parse_square("b1"))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("classic 4/4/4 w 4321.4321.4321 4321.4321.4321", "3 ranks"),
        ("classic 4/4/4/4 x 4321.4321.4321 4321.4321.4321", "side to move"),
        ("nosuch 4/4/4/4 w 4321.4321.4321 4321.4321.4321", "unknown variant"),
        ("classic 4/4/4/4 w 4321.4321 4321.4321.4321", "white's pieces"),
        ("classic W4,3/4/4/4 w 4321.4321.4321 4321.4321.4321", "white's pieces"),
        ("classic W3W2,3/4/4/4 w 4321.4321.321 4321.4321.4321", "grow in size"),
        ("classic X4,3/4/4/4 w 4321.4321.321 4321.4321.4321", "not a stack"),
        ("classic 5/4/4/4 w 4321.4321.4321 4321.4321.4321", "5 squares"),
        ("classic 4/4/4/4 w 4321.4321.4312 4321.4321.4321", "cannot occur"),
        ("classic 4/4/4/4 w", "5 or 6 fields"),
    ],
)
def test_corrupt_position_text_is_refused_clearly(text: str, words: str) -> None:
    with pytest.raises(PositionSyntaxError) as raised:
        Position.from_text(text)
    assert words in str(raised.value)
    assert "\n" not in str(raised.value)


def test_variant_errors() -> None:
    for spec, words in [
        ("chess", "unknown variant"),
        ("classic:size=x", "bad value"),
        ("classic:win=9", "win length"),
        ("classic:colour=red", "unknown variant switch"),
        ("classic:stacks=123", "largest on top"),
        ("classic:order=all", "order must be any or top, not 'all'"),
        ("classic:touch=yes", "touch must be on or off, not 'yes'"),
    ]:
        with pytest.raises(VariantError) as raised:
            Variant.from_spec(spec)
        assert words in str(raised.value)


def test_record_headers_and_results() -> None:
    game = play("4a1 4b1 4a2 4b2 4a3 4b3 3a4")
    game.headers.update({"White": 'Ann "the Hat"', "Black": "Bob", "Place": "Kitchen"})
    text = write_record(game)
    assert (
        '[White "Ann \\"the Hat\\""]' in text and '[Result "1-0"]' in text and '[Termination "line"]' in text
    )
    again = read_record(text)
    assert again.headers["White"] == 'Ann "the Hat"'
    assert again.outcome().winner == 0


def test_record_accepts_hand_edited_text() -> None:
    text = """[Variant "classic"]
[White "A"]

4a1 {opening} 4b1 a1-c3 {[%ts 2026-11-20T18:01:05Z] quick} *
"""
    game = read_record(text)
    assert [m.text() for m in game.moves] == ["4a1", "4b1", "a1-c3"]
    assert game.played[0].comment == "opening"
    assert game.played[2].comment == "quick" and game.played[2].timestamp == 1795197665.0


def test_record_annotation_symbols_and_evaluations_round_trip() -> None:
    """The coach's review travels in the record: symbols after moves, ``[%eval]`` in comments."""
    text = """[Variant "classic"]

1. 4a1! {[%eval 0.18]} 4d4?! {[%eval #-9] Inaccuracy} 2. 4b1 {[%ts 2026-11-20T18:01:05Z] [%eval -1.5]}
d4-c4?? *
"""
    game = read_record(text)
    assert [p.symbol for p in game.played] == ["!", "?!", None, "??"]
    assert [p.evaluation for p in game.played] == ["0.18", "#-9", "-1.5", None]
    assert game.played[1].comment == "Inaccuracy" and game.played[2].comment is None
    assert game.played[2].timestamp == 1795197665.0
    again = read_record(write_record(game))
    assert again.played == game.played
    assert "4d4?! {[%eval #-9] Inaccuracy}" in write_record(game)


@pytest.mark.parametrize("evaluation", ["+", "#", "#1.5", "win", "1,5"])
def test_record_refuses_an_evaluation_that_is_not_one(evaluation: str) -> None:
    with pytest.raises(RecordSyntaxError, match=r"\[%eval .*\] at ply 1 is not a score"):
        read_record(f'[Variant "classic"]\n\n4a1 {{[%eval {evaluation}]}} *\n')


def test_record_resignation_and_draw_replay() -> None:
    for result, termination in (("0-1", "resignation"), ("1/2-1/2", "agreed")):
        game = read_record(
            f'[Variant "classic"]\n[Result "{result}"]\n[Termination "{termination}"]\n\n4a1 {result}\n'
        )
        assert game.result == result and str(game.outcome().termination) == termination


def test_record_from_a_start_position() -> None:
    start = play("4a1 4b1").position
    game = Game(start=start)
    game.push(Move.from_text("3c1"))
    again = read_record(write_record(game))
    assert again.start == start and again.position == game.position


def test_several_records_in_one_text() -> None:
    one, two = play("4a1"), play("4d4 4a1")
    assert [g.moves for g in read_records(write_record(one) + "\n" + write_record(two))] == [
        one.moves,
        two.moves,
    ]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[Variant "classic"]\n\n4a1 4a1 *', "ply 2"),
        ('[Variant "classic"]\n\n4a1 zz *', "'zz'"),
        ('[Variant "nosuch"]\n\n4a1 *', "unknown variant"),
        ('[Variant "classic"\n\n4a1 *', "header"),
        ('[Variant "classic"]\n\n4a1 1-0 4b1', "last token"),
        ('[Variant "classic"]\n\n4a1 {open', "never closed"),
        ('[Variant "classic"]\n\n4a1 4b1 4a2 4b2 4a3 4b3 3a4 0-1', "record says 0-1"),
        ('[Variant "classic"]\n\n4a1 {[%ts yesterday]} *', "ISO 8601"),
    ],
)
def test_corrupt_records_are_refused_clearly(text: str, words: str) -> None:
    with pytest.raises(RecordSyntaxError) as raised:
        read_record(text)
    assert words in str(raised.value)


def test_every_bad_input_error_is_a_companion_error() -> None:
    for error in (MoveSyntaxError, PositionSyntaxError, RecordSyntaxError, VariantError):
        assert issubclass(error, CompanionError) and issubclass(error, ValueError)
