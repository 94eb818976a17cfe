"""Starting mid-game: hidden contents unknown, narrowed as cups are lifted."""

from __future__ import annotations

import contextlib
from itertools import product
from math import prod

import pytest
from hypothesis import example
from hypothesis import strategies as st

from companion.errors import CompanionError
from companion.reconciler.reconciler import Reconciler
from companion.reconciler.unknowns import HiddenContents, count_hypotheses, hidden_options, reserves_for
from companion.rules import PRESETS, Game, Move, Variant, parse_square
from tests.budgets import property_test
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


# ----- the count against every assignment, one by one -------------------------------------

SMALL_VARIANTS = [
    CLASSIC,
    PRESETS["junior"],
    Variant.from_spec("classic:order=any"),
    Variant.from_spec("classic:stacks=4321.31"),
]


Question = tuple[Variant, tuple[tuple[int, int], ...], tuple[int, ...], tuple[int, ...]]


@st.composite
def questions(draw: st.DrawFn) -> Question:
    """A variant, a few open squares (square, bound), the cups known on the board (their tops
    among them) and the cups placed since: few enough assignments to list them all."""
    variant = draw(st.sampled_from(SMALL_VARIANTS))
    max_piece = variant.max_piece
    bounds = draw(
        st.lists(st.integers(2, max_piece), min_size=0, max_size=3).filter(
            lambda bs: prod(3 ** (b - 1) for b in bs) <= 729
        )
    )
    squares = sorted(
        draw(
            st.lists(
                st.integers(0, variant.size**2 - 1), min_size=len(bounds), max_size=len(bounds), unique=True
            )
        )
    )
    base = [0] * (2 * max_piece)
    for bound in bounds:
        base[draw(st.integers(0, 1)) * max_piece + bound - 1] += 1
    for kind in draw(st.lists(st.integers(0, 2 * max_piece - 1), max_size=6)):
        base[kind] += 1
    placed = [0] * (2 * max_piece)
    for kind in draw(st.lists(st.integers(0, 2 * max_piece - 1), max_size=2)):
        placed[kind] += 1
    return variant, tuple(zip(squares, bounds, strict=True)), tuple(base), tuple(placed)


def every_valid_assignment(
    variant: Variant,
    open_squares: tuple[tuple[int, int], ...],
    base: tuple[int, ...],
    placed: tuple[int, ...],
) -> list[tuple[tuple, ...]]:
    """Every choice of hidden contents per open square after which the external stacks can hold
    the rest, now and before the cups placed since."""
    max_piece = variant.max_piece

    def holdable(counts: list[int]) -> bool:
        return min(counts) >= 0 and reserves_for(variant, tuple(counts)) is not None

    out = []
    for assignment in product(*(hidden_options(bound) for _, bound in open_squares)):
        counts = list(base)
        for hidden in assignment:
            for color, size in hidden:
                counts[color * max_piece + size - 1] += 1
        if holdable(counts) and holdable([c - p for c, p in zip(counts, placed, strict=True)]):
            out.append(assignment)
    return out


@property_test(150, questions())
# a 2 of each colour shows: its stack's 3 is out, hidden under one of the two 4s (which one
# decides the most likely: the first square's first option, White's 3)
@example((CLASSIC, ((0, 4), (5, 4)), (0, 1, 0, 1, 0, 1, 0, 1), (0,) * 8))
def test_the_count_agrees_with_every_assignment_listed(question: Question) -> None:
    variant, open_squares, base, placed = question
    valid = every_valid_assignment(variant, open_squares, base, placed)
    if not valid:
        with pytest.raises(CompanionError):
            count_hypotheses(variant, open_squares, base, placed)
        return
    count, best, options = count_hypotheses(variant, open_squares, base, placed)
    assert count == len(valid)
    for i, (sq, bound) in enumerate(open_squares):
        order = hidden_options(bound)
        assert options[sq] == sorted({assignment[i] for assignment in valid}, key=order.index)

    # the most likely: the fewest hidden cups, then the smallest counts per colour and size,
    # then the first options square by square
    def rank(assignment: tuple) -> tuple:
        hidden = [0] * (2 * variant.max_piece)
        for contents in assignment:
            for color, size in contents:
                hidden[color * variant.max_piece + size - 1] += 1
        pairs = zip(open_squares, assignment, strict=True)
        indices = [hidden_options(bound).index(contents) for (_, bound), contents in pairs]
        return sum(hidden), hidden, indices

    first = min(valid, key=rank)
    assert best == {sq: contents for (sq, _), contents in zip(open_squares, first, strict=True) if contents}


def test_counts_past_two_to_the_63_are_exact() -> None:
    """A crowded moku board has more hypotheses than an int64 holds: the count must still be
    the sum, over what one square may hide, of the counts with that known (a wrapped or
    rounded count breaks the sum)."""
    moku = PRESETS["moku"]
    open_squares = tuple((sq, 5) for sq in range(10)) + tuple((sq, 4) for sq in range(10, 20))
    base = (0, 0, 0, 5, 5, 0, 0, 0, 5, 5)
    count = count_hypotheses(moku, open_squares, base, (0,) * 10)[0]
    assert count > 2**63
    # what square 19 (a 4 on top) hides is known in turn: nothing is open there then
    total = 0
    for hidden in hidden_options(4):
        known = list(base)
        for color, size in hidden:
            known[color * 5 + size - 1] += 1
        with contextlib.suppress(CompanionError):  # (that much hidden there fits no hypothesis)
            total += count_hypotheses(moku, open_squares[:-1], tuple(known), (0,) * 10)[0]
    assert total == count
