"""A ply in doubt is settled by readings that put its rival behind, never by the room the beam
has: a rival line still close to the best keeps its place however many variants of the
leader's own line (a size in doubt at the next ply, a lift, an illegal placement pending)
score above it."""

from __future__ import annotations

from companion.reconciler.accounts import Settings
from companion.rules import Game, Move
from companion.vision.observation import Observation
from tests.reconciler.helpers import played, read_as

W4, W3 = (0, 4), (0, 3)
NARROW = Settings(width=2, lines=2)  # room for the leader and one variant of it: crowded at once


def board(game: Game, latest: str) -> Observation:
    """The board as it is, but White's 3 on b1 read 0.75 a 4 (as on every board: the reader's
    error on that cup) and the cup just placed on ``latest`` read 0.6 as itself, 0.4 one size
    smaller: every move of the game is in doubt about its size for a reading."""
    observation = read_as(game, "b1", W4, 0.75, other=W3)
    probabilities = observation.probabilities.copy()
    row = observation.row(latest)
    top = int(probabilities[row].argmax())
    probabilities[row] = 0.0
    probabilities[row, top], probabilities[row, top - 1] = 0.6, 0.4
    return Observation(observation.size, observation.max_piece, probabilities, False)


def test_a_size_misread_on_every_board_is_not_settled_when_the_beam_is_full() -> None:
    # White places a 3 on b1, read 0.75 a 4 from then on: 4b1 is played, ply 3 unsure. Each
    # later cup is read between two sizes for one board, so the leader's line has a close
    # variant at every reading: with room for two paths only, the "3b1" line is crowded out
    # at the next reading although it stays 1-3 nats behind (before, "later readings settle
    # it: ply 3 was 4b1" came at once, with no reading telling b1's size any better)
    reconciler, game = played("classic", "4a1 4d4", settings=NARROW)
    game.push(Move.from_text("3b1"))
    events = reconciler.feed(read_as(game, "b1", W4, 0.75, other=W3))
    assert [e.move for e in events if e.type == "move"] == ["4b1"]
    said = []
    for text, square in (
        ("4c4", "c4"),
        ("4d1", "d1"),
        ("4a4", "a4"),
        ("3d3", "d3"),
        ("3c2", "c2"),
        ("2b3", "b3"),
    ):
        game.push(Move.from_text(text))
        said += reconciler.feed(board(game, square))
        assert {"3b1", "4b1"} <= set(reconciler.unsure.get(3, ())), text
    assert all("3" not in e.detail["settled"] for e in said if e.type == "settled")
    # the game is followed all the same: every later move as played
    assert [m.text() for m in reconciler.game.moves][3:] == [m.text() for m in game.moves][3:]
