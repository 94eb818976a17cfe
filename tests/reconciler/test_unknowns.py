"""Starting mid-game: hidden contents unknown, narrowed as cups are lifted."""

from __future__ import annotations

import pytest

from companion.errors import CompanionError
from companion.reconciler.reconciler import Reconciler
from companion.reconciler.unknowns import HiddenContents
from companion.rules import PRESETS, Game, Move, parse_square
from tests.reconciler.helpers import observe

CLASSIC = PRESETS["classic"]


def true_game() -> Game:
    """A game whose stacks hide cups: W3 under B4 on c1, B2 under W4 on b2."""
    game = Game(CLASSIC)
    for text in ["4a1", "4d4", "3c1", "d4-c1", "4b3", "3a4", "4a3", "2b2", "b3-b2"]:
        game.push(Move.from_text(text))
    return game


def tops(game: Game) -> dict[int, tuple[int, int]]:
    position = game.position
    return {sq: position.top(sq) for sq in position.squares if position.top(sq)}


def test_unknowns_cover_the_truth_and_narrow_when_a_cup_is_lifted() -> None:
    game = true_game()
    hidden = HiddenContents(CLASSIC, tops(game), game.turn)
    c1, b2 = parse_square("c1"), parse_square("b2")
    assert ((0, 3),) in hidden.options(c1)
    assert ((1, 2),) in hidden.options(b2)
    before = hidden.count
    assert before > 1 and "c1" in hidden.unknown()
    hidden.move(c1, parse_square("d2"), (0, 3))  # Black's 4 leaves c1: a white 3 shows
    assert hidden.count < before
    assert hidden.stacks[c1].known == [(0, 3)]


def test_impossible_tops_are_refused() -> None:
    # three white 1s on the board mean every white 4 has left its stack; only one shows and
    # nothing can hide a 4
    a = {parse_square(n): (0, 1) for n in ("a1", "b1", "c1")}
    with pytest.raises(CompanionError):
        HiddenContents(CLASSIC, {**a, parse_square("d4"): (0, 4)}, 0)


def test_most_likely_position_fits_the_tops() -> None:
    game = true_game()
    hidden = HiddenContents(CLASSIC, tops(game), game.turn)
    position = hidden.most_likely_position()
    for sq, top in tops(game).items():
        assert position.top(sq) == top


def test_reconciler_started_mid_game_narrows_as_cups_are_revealed() -> None:
    game = true_game()
    reconciler = Reconciler.mid_game(CLASSIC, tops(game), game.turn)
    unknown_before = reconciler.unknowns.unknown()
    count_before = reconciler.unknowns.count
    assert "c1" in unknown_before
    game.push(Move.from_text("c1-d2"))  # Black lifts its 4 off c1: the hidden white 3 shows
    events = reconciler.feed(observe(game.position))
    assert [e.move for e in events if e.type == "move"] == ["c1-d2"]
    c1 = parse_square("c1")
    assert len(reconciler.unknowns.options(c1)) < len(unknown_before["c1"])
    assert all(size < 3 for hidden in reconciler.unknowns.options(c1) for _, size in hidden)
    assert reconciler.unknowns.count < count_before
    # the game was replayed from a start that has the white 3 under c1
    assert reconciler.game.position.top(parse_square("c1")) == (0, 3)
    assert reconciler.game.start.stack(parse_square("c1"))[-2:] == ((0, 3), (1, 4))


def test_known_stacks_keep_their_cups() -> None:
    # a resync keeps whole stacks whose top did not change: nothing is unknown under them
    game = true_game()
    c1, b2 = parse_square("c1"), parse_square("b2")
    known = {c1: list(game.position.stack(c1))}
    hidden = HiddenContents(CLASSIC, tops(game), game.turn, known=known)
    assert hidden.options(c1) == [()]
    assert hidden.start_position().stack(c1) == game.position.stack(c1)
    assert ((1, 2),) in hidden.options(b2)
    assert hidden.count < HiddenContents(CLASSIC, tops(game), game.turn).count
    with pytest.raises(CompanionError):
        HiddenContents(CLASSIC, tops(game), game.turn, known={c1: [(0, 1)]})


def test_the_start_must_fit_the_stacks_before_the_cups_placed_since() -> None:
    # Black shows one 4 and nothing else; it then places a 3 from its stacks. A start in
    # which its stacks could not have offered that 3 on top is not a start at all.
    a1, d4 = parse_square("a1"), parse_square("d4")
    hidden = HiddenContents(CLASSIC, {a1: (1, 4)}, 1)
    hidden.put(d4, (1, 3))
    start = hidden.start_position()
    assert start.top(a1) == (1, 4) and start.top(d4) is None
    assert 3 in {stack[0] for stack in start.reserve(1)}


def test_changes_counted_at_once_give_the_same_answer() -> None:
    """Several moves recorded without counting (``solve=False``) and counted once at the end
    narrow exactly as counting after each."""
    game = true_game()
    eager = HiddenContents(CLASSIC, tops(game), turn=game.position.turn)
    lazy = eager.copy()
    for unknowns, solve in ((eager, True), (lazy, False)):
        unknowns.put(parse_square("d1"), (1, 4), solve=solve)
        unknowns.move(parse_square("c1"), parse_square("d2"), (0, 3), solve=solve)
    lazy.settle()
    assert lazy.count == eager.count
    assert lazy.unknown() == eager.unknown()
    assert lazy.start_position() == eager.start_position()
