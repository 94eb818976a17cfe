"""A doubt confined to one square's size: the referee goes on with the likelier size, says the
ply is unsure, follows the moves made elsewhere, and lets later readings settle the size."""

from __future__ import annotations

from companion.rules import Game, Move, square_name
from companion.testing.faults import tops_of
from companion.vision.observation import Observation, class_index
from tests.reconciler.helpers import observe, played, types

W3, W4 = (0, 3), (0, 4)
Top = tuple[int, int]


def between(game: Game, square: str, likely: Top, other: Top, p: float) -> Observation:
    """The board as it is, but ``square`` read as ``likely`` with probability ``p`` and as
    ``other`` (the neighbouring size) with the rest: a reading between two sizes."""
    tops = {square_name(sq): t for sq, t in tops_of(game.position).items()}
    observation = Observation.from_tops(tops, game.position.size, game.variant.max_piece)
    probabilities = observation.probabilities.copy()
    row = observation.row(square)
    probabilities[row] = 0.0
    probabilities[row, class_index(likely, game.variant.max_piece)] = p
    probabilities[row, class_index(other, game.variant.max_piece)] = 1.0 - p
    return Observation(observation.size, observation.max_piece, probabilities, False)


def moves_of(reconciler) -> list[str]:
    return [m.text() for m in reconciler.game.moves]


def test_a_placement_between_two_sizes_is_played_unsure_and_the_game_goes_on() -> None:
    # White places a 4 on b1 (a 3 is on top of a stack too: 3b1 is as legal), read 0.84 a
    # 4 and 0.16 a 3, reading after reading. The referee plays 4b1 at once, unsure, and
    # follows Black's 4c4 on the next reading instead of stopping the game to ask for help.
    reconciler, game = played("classic", "4a1 4d4")
    game.push(Move.from_text("4b1"))
    events = reconciler.feed(between(game, "b1", W4, W3, 0.84))
    assert [e.move for e in events if e.type == "move"] == ["4b1"]
    assert reconciler.unsure == {3: ["3b1", "4b1"]}
    assert "needs-attention" in types(events)  # the doubt is said
    game.push(Move.from_text("4c4"))
    events = reconciler.feed(between(game, "b1", W4, W3, 0.84))
    assert [e.move for e in events if e.type == "move"] == ["4c4"]
    assert "help" not in types(events) and reconciler.help_squares is None
    assert moves_of(reconciler) == ["4a1", "4d4", "4b1", "4c4"]
    # the same reading of b1 again and again settles it: the ply is no longer in doubt
    for text in ("4d1", "4a4", "3d3"):
        game.push(Move.from_text(text))
        reconciler.feed(between(game, "b1", W4, W3, 0.84))
    assert moves_of(reconciler) == [m.text() for m in game.moves]
    assert reconciler.unsure == {} and reconciler.attention is None


def test_a_size_played_unsure_is_corrected_when_later_readings_show_the_other() -> None:
    # The same doubt, but the cup is a 3: once b1 reads a 3, the referee says 3b1 was played
    # (a correction), and the moves since stay.
    reconciler, game = played("classic", "4a1 4d4")
    game.push(Move.from_text("3b1"))
    events = reconciler.feed(between(game, "b1", W4, W3, 0.84))
    assert [e.move for e in events if e.type == "move"] == ["4b1"] and 3 in reconciler.unsure
    game.push(Move.from_text("4c4"))
    events = reconciler.feed(observe(game.position))
    assert types(events)[:2] == ["correction", "move"] and events[0].detail["withdrawn"] == ["4b1"]
    assert moves_of(reconciler) == ["4a1", "4d4", "3b1", "4c4"]
    game.push(Move.from_text("4d1"))
    reconciler.feed(observe(game.position))
    assert moves_of(reconciler) == ["4a1", "4d4", "3b1", "4c4", "4d1"] and reconciler.unsure == {}


def test_a_move_onto_a_cup_of_its_colour_read_between_the_two_sizes_is_played_unsure() -> None:
    # White's 4 moves from c4 onto its own 3 on a1; a1 reads 0.82 a 4 and 0.18 a 3: the move,
    # or the 4 still in the hand with a1 showing the 3. Only the size on a1 tells them apart:
    # the move is played at once, unsure, and Black's next move is followed.
    reconciler, game = played("classic", "4c4 4d4 4b1 4d3 3a1 3d2")
    game.push(Move.from_text("c4-a1"))
    events = reconciler.feed(between(game, "a1", W4, W3, 0.82))
    assert [e.move for e in events if e.type == "move"] == ["c4-a1"] and 7 in reconciler.unsure
    game.push(Move.from_text("3c2"))
    events = reconciler.feed(between(game, "a1", W4, W3, 0.82))
    assert [e.move for e in events if e.type == "move"] == ["3c2"] and reconciler.help_squares is None
