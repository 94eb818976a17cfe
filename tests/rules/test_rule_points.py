"""One test (or more) for every numbered point of docs/rules.md, and for each point where the
rule texts disagree. Positions are set up from readable parts (see ``helpers.setup``)."""

from __future__ import annotations

import pytest

from companion.rules import (
    BLACK,
    PRESETS,
    WHITE,
    Game,
    IllegalMoveError,
    Move,
    Position,
    Termination,
    Variant,
    parse_square,
    square_name,
)
from tests.rules.helpers import play, setup, texts


def reason(position: Position, text: str) -> str | None:
    return position.check(Move.from_text(text))


# 1. Board, win length, pieces, who starts -----------------------------------------------


def test_1_classic_board_and_pieces() -> None:
    position = Position()
    assert position.size == 4 and position.variant.win_length == 4
    assert position.reserve(WHITE) == ((4, 3, 2, 1),) * 3 == position.reserve(BLACK)
    assert position.variant.pieces_per_player == 12
    assert position.turn == WHITE


def test_1_players_alternate() -> None:
    game = play("4a1")
    assert game.turn == BLACK
    with pytest.raises(IllegalMoveError):
        game.push(Move.from_text("a1-b1"))  # White may not move twice
    game.push_text("4b2")
    assert game.turn == WHITE


# 2. A turn is a placement or a move of your own top ---------------------------------------


def test_2a_placement_takes_a_top_piece() -> None:
    game = play("4a1 4b1")
    assert game.position.reserve(WHITE) == ((4, 3, 2, 1), (4, 3, 2, 1), (3, 2, 1))


def test_2b_move_own_top_to_a_different_square() -> None:
    position = setup({"a1": "W2", "b1": "B3"})
    moves = texts(position)
    assert "a1-c3" in moves and "b1-c3" not in moves and "a1-a1" not in moves
    assert (
        reason(position, "b1-c3")
        == "b1 shows a black piece: White may move or touch only stacks showing white"
    )


# 3. Gobbling: any smaller top, any colour --------------------------------------------------


def test_3_gobble_any_smaller_piece_of_either_colour() -> None:
    position = setup({"a1": "W4", "b1": "W1", "c1": "B3", "d1": "B4", "a2": "W4"})
    moves = texts(position)
    assert {"a1-b1", "a1-c1"} <= moves  # own smaller piece, opponent's smaller piece
    assert "a1-d1" not in moves and "a1-a2" not in moves
    assert reason(position, "a1-d1") == "d1 holds a same-size piece"
    assert reason(position, "b1-c1") == "c1 holds a larger piece"


def test_3_gobbled_pieces_stay_hidden_and_return_when_uncovered() -> None:
    game = play("4a1 4d4 3b1 d4-b1")
    assert game.position.stack(parse_square("b1")) == ((WHITE, 3), (BLACK, 4))
    assert game.position.top(parse_square("b1")) == (BLACK, 4)
    game.push_text("4c3")
    game.push_text("b1-d2")
    assert game.position.top(parse_square("b1")) == (WHITE, 3)


# 4. Gobbling from an external stack (the disagreement points) ------------------------------

THREAT = {"a4": "B1", "b4": "B1", "c4": "B2", "a1": "W1", "b2": "B1"}


def test_4_stack_may_gobble_opponent_piece_in_threat_line() -> None:
    position = setup(THREAT, white="4321.4321.321", black="4321.4321.432")
    assert {"4a4", "4b4", "4c4", "3a4"} <= texts(position)


def test_4_stack_may_not_gobble_opponent_piece_outside_threat_line() -> None:
    position = setup(THREAT, black="4321.4321.432")
    assert "4b2" not in texts(position)
    assert (
        reason(position, "4b2")
        == "White may gobble b2 from a stack only if b2 is one of three black pieces in a line"
    )


def test_4_stack_may_never_gobble_own_piece_in_classic() -> None:
    position = setup({**THREAT, "d4": "W1"}, black="4321.4321.432")  # d4 completes the line's square
    assert "4d4" not in texts(position)
    assert reason(position, "4d4") == "White may not gobble its own piece on d4 from a stack"
    assert reason(position, "4a1") == "White may not gobble its own piece on a1 from a stack"


def test_4_storer_gobbles_any_square_on_a_line_with_three_opponent_tops() -> None:
    position = setup({**THREAT, "d4": "W1"}, black="4321.4321.432", variant="storer")
    moves = texts(position)
    assert {"4a4", "4d4"} <= moves  # own piece on the threatened line: allowed in storer
    assert "4a1" not in moves  # own piece elsewhere: still refused
    assert (
        reason(position, "4a1")
        == "White may gobble a1 from a stack only if a1 lies on a line with three black pieces"
    )


def test_4_rogers_and_junior_gobble_from_stacks_freely() -> None:
    assert "4b2" in texts(setup(THREAT, black="4321.4321.432", variant="rogers"))
    junior = setup({"b2": "W1"}, turn="b", white="32.321", black="321.321", variant="junior")
    assert {"2b2", "3b2"} <= texts(junior)


def test_4_gobble_never_switch() -> None:
    position = setup(THREAT, black="4321.4321.432", variant="classic:gobble=never")
    assert not any(m[0].isdigit() and m[1:] in ("a4", "b4", "c4") for m in texts(position))
    assert reason(position, "4a4") == "a piece from an external stack may go only on an empty square"


def test_4_moku_threat_is_four_of_five() -> None:
    stacks = {"a1": "B1", "b1": "B1", "c1": "B1", "d1": "B1", "h8": "W1"}
    position = setup(
        stacks, white="54321.54321.54321.54321.54321", black="54321.54321.54321.5432.5432", variant="moku"
    )
    moves = texts(position)
    assert {"5a1", "5d1"} <= moves and "5h8" not in moves
    three = setup(
        {"a1": "B1", "b1": "B1", "c1": "B1"},
        white="54321.54321.54321.54321.54321",
        black="54321.54321.54321.5432.5432",
        variant="moku",
    )
    assert "5a1" not in texts(three)


# 5. External stacks: tops only -------------------------------------------------------------


def test_5_only_tops_of_external_stacks_may_be_played() -> None:
    game = play("4a1 4b1")
    assert reason(game.position, "2c3") == "your stacks show sizes 4 and 3, not 2"
    position = setup({}, white="321.1")
    assert reason(position, "4a1") == "your stacks show sizes 3 and 1, not 4"


def test_5_equal_stacks_give_one_move_per_size_and_square() -> None:
    assert len(Position().legal_moves) == 16


def test_5_different_stacks_with_same_top_are_named() -> None:
    position = setup({}, white="42.4", variant="classic:stacks=42.4")
    moves = texts(position)
    assert {"4(1)a1", "4(2)a1"} <= moves and "4a1" not in moves
    from companion.rules import AmbiguousMoveError

    with pytest.raises(AmbiguousMoveError):
        position.parse_move("4a1")
    position.push(Move.from_text("4(1)a1"))
    assert position.reserve(WHITE) == ((4,), (2,))


def test_5_stacks_in_any_order_switch() -> None:
    position = setup({}, white="4321.4321.4321", variant="classic:order=any")
    assert {"1a1", "2a1", "3a1", "4a1"} <= texts(position)


def test_5_all_pieces_used_reason() -> None:
    position = setup({"a1": "W1"}, white="-")
    assert reason(position, "4b1") == "all your pieces are on the board"


# 6. End of turn: both colours are checked ---------------------------------------------------


def test_6_completing_a_line_wins() -> None:
    position = setup({"a1": "W4", "b1": "W4", "c1": "W4"}, white="321.321.321")
    position.push(Move.from_text("3d1"))
    outcome = position.outcome()
    assert outcome.termination == Termination.LINE and outcome.winner == WHITE
    assert [square_name(s) for s in outcome.line] == ["a1", "b1", "c1", "d1"]


def test_6_losing_uncover_names_the_revealed_line() -> None:
    # White's 4 on d1 covers Black's 1, the last of Black's bottom row.
    position = setup({"a1": "B1", "b1": "B1", "c1": "B1", "d1": "B1W4"})
    position.push(Move.from_text("d1-d3"))
    outcome = position.outcome()
    assert outcome.termination == Termination.UNCOVER and outcome.winner == BLACK
    assert "a1 b1 c1 d1" in outcome.reason and "uncovered" in outcome.reason


def test_6_uncover_then_cover_a_different_piece_of_the_same_line_is_safe() -> None:
    position = setup({"a1": "B1", "b1": "B1", "c1": "B1", "d1": "B1W4"})
    position.push(Move.from_text("d1-a1"))
    assert position.outcome() is None


def test_6_both_colours_show_a_line_the_mover_loses() -> None:
    # Lifting White's 4 from d1 reveals Black's row 1 and completes White's column d.
    position = setup({"a1": "B1", "b1": "B1", "c1": "B1", "d1": "B1W4", "a4": "W3", "b4": "W3", "c4": "W3"})
    position.push(Move.from_text("d1-d4"))
    outcome = position.outcome()
    assert outcome.winner == BLACK and outcome.termination == Termination.UNCOVER


# 7. Touch rule ----------------------------------------------------------------------------


def test_7_a_piece_may_not_return_to_its_square() -> None:
    position = setup({"a1": "W2"})
    assert reason(position, "a1-a1") == "a piece may not return to the square it was lifted from"


def test_7_may_not_touch_a_stack_showing_the_opponent() -> None:
    game = Game(start=setup({"a1": "W1B2"}))
    assert game.touch_violation(parse_square("a1")) == "White may not touch a1: it shows a black piece"
    assert Game(start=setup({"a1": "W1B2"}, variant="rogers")).touch_violation(parse_square("a1")) is None


# A full board with no line for either colour: rows alternate WWBB / BBWW.
NO_LINE_PATTERN = {
    f"{f}{r}": ("W" if (i // 2 + (r - 1)) % 2 == 0 else "B")
    for r in range(1, 5)
    for i, f in enumerate("abcd")
}


def full_board(sizes: dict[str, int], default: int = 4) -> dict[str, str]:
    return {sq: f"{color}{sizes.get(sq, default)}" for sq, color in NO_LINE_PATTERN.items()}


def test_7_lifting_a_piece_with_no_destination_loses() -> None:
    board = full_board({"a1": 1})
    assert board["a1"] == "W1"
    game = Game(start=setup(board))
    assert game.outcome() is None
    outcome = game.lift(parse_square("a1"))
    assert outcome is not None and outcome.termination == Termination.TOUCH and outcome.winner == BLACK
    assert game.is_over() and "cannot move" in outcome.reason
    assert game.lift(parse_square("a1")) is None  # already over: nothing more happens
    rogers = Game(start=setup(board, variant="rogers"))
    assert rogers.lift(parse_square("a1")) is None and not rogers.is_over()


def test_7_lifting_a_piece_that_can_move_is_no_forfeit() -> None:
    game = Game(start=setup(full_board({"a1": 1, "b2": 2}, default=3)))
    assert game.lift(parse_square("c1")) is None  # c1 shows black: not the lifter's piece
    assert game.lift(parse_square("a3")) is None and not game.is_over()  # a W3 may gobble b2's 2


def test_7_no_legal_move_loses() -> None:
    position = setup(full_board({}), white="-")
    outcome = position.outcome()
    assert outcome.termination == Termination.NO_MOVES and outcome.winner == BLACK
    assert list(position.legal_moves) == []


# 8. Draws ---------------------------------------------------------------------------------


def test_8_threefold_repetition_draws_on_the_third_occurrence() -> None:
    game = play("4a1 4d4")
    shuffle = ["a1-a2", "d4-d3", "a2-a1", "d3-d4"]
    for move in shuffle:
        game.push_text(move)
    assert game.outcome() is None  # second occurrence: play on
    for move in shuffle[:3]:
        game.push_text(move)
        assert game.outcome() is None
    game.push_text(shuffle[3])  # third occurrence
    outcome = game.outcome()
    assert outcome.termination == Termination.REPETITION and outcome.winner is None
    assert list(game.legal_moves) == []
    game.pop()
    assert game.outcome() is None


def test_8_agreed_draw_and_resignation() -> None:
    game = play("4a1")
    assert game.agree_draw().result == "1/2-1/2"
    with pytest.raises(IllegalMoveError):
        game.push_text("4b1")
    resigned = play("4a1")
    assert resigned.resign(BLACK).winner == WHITE


# 9. All pieces on the board: play on by moving -------------------------------------------


def test_9_play_continues_by_moving_when_all_pieces_are_placed() -> None:
    position = setup(
        {"a1": "W1W2W3W4", "b1": "W1W2W3W4", "c3": "W1W2W3W4", "d2": "B4"}, white="-", black="4321.4321.321"
    )
    moves = texts(position)
    assert moves and all("-" in m for m in moves)


# Variants ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_round_trips_its_spec(name: str) -> None:
    variant = PRESETS[name]
    assert Variant.from_spec(variant.spec) == variant


def test_junior_preset() -> None:
    junior = PRESETS["junior"]
    assert (junior.size, junior.win_length, junior.any_order, junior.touch_rule) == (3, 3, True, False)
    assert sorted(s for st in junior.stacks for s in st) == [1, 1, 2, 2, 3, 3]


def test_switches_compose() -> None:
    variant = Variant.from_spec("storer:stacks=543.543.543,touch=off,size=5")
    assert (variant.size, variant.win_length, variant.max_piece, variant.touch_rule) == (5, 4, 5, False)
    assert Variant.from_spec(variant.spec) == variant
