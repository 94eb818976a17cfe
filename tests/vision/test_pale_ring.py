"""A pale cup that reads as a ring is sized where it stands: each size's climb also starts where
its base is found (``matching.climb``'s seeds, ``edges.BaseFits``), and a base inside a larger
size's base, where the region cue reads that larger size, is no cup's
(``BoardReader._cup_bases``).

The bench's bench-06 (pale cups on birch; ``tests/data/pale/bench-06``): b2's white 4 reads as a
ring, its shaded walls cup and its lit top nearly board, the strongest part a crescent at its
lower right. The region search starts at the evidence's centroid, toward that crescent; only
the two sizes leading there climbed, and the 2 climbed onto the crescent 11 mm from the square's
centre while the 4 was never scored where it stands. The 4's knob is a circle the size of a
white 1's base, which the base cue took for the 1's foot, inside the 4's base. So b2 read a
white 1 and the 4's outline, left unexplained, flagged the board as covered
(before the fix: 05b a white 1 at 0.38, 14b at 0.53, both boards covered)."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.rules.square import board_squares, square_name
from companion.vision.edges import BaseFits, edge_maps
from companion.vision.matching import evidence, match_square
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from tests.shared_calibrations import frame_truth, frames_calibration

BIRCH = Path(__file__).resolve().parents[1] / "data" / "pale" / "bench-06" / "frames"
ORDER = [square_name(sq) for sq in board_squares(4)]
WHITE = 0


def test_the_fours_climb_from_where_its_base_is_found_finds_where_it_stands() -> None:
    """On 05b, climbing from the centroid alone, the 2 leads on the crescent 11 mm from the
    square's centre; the 4, climbing from its own base, stands within 3 mm of it and scores
    0.7 rings above anything the climb from the centroid found."""
    reader = BoardReader(frames_calibration(BIRCH))
    assert reader.edges is not None
    ev = evidence(
        reader.rectified(read_image(BIRCH / "05b-move.jpg")),
        reader.background,
        reader.models.pixels,
        reader.bank.pad,
    )
    row = ORDER.index("b2")
    sq = reader.bank.squares[row]
    fits = BaseFits(edge_maps(ev.features, reader.edges.pad), reader.edges)
    alone = match_square(ev, sq, reader.bank.offset)
    seeded = match_square(ev, sq, reader.bank.offset, fits.seeds(row))
    assert (alone.colour, alone.size) == (WHITE, 2)
    assert max(abs(alone.dy), abs(alone.dx)) >= 7
    assert (seeded.colour, seeded.size) == (WHITE, 4)
    assert max(abs(seeded.dy), abs(seeded.dx)) <= 3
    ring_px = reader.models.cups.ring_px(reader.models.scale)
    assert seeded.sizes[3] > alone.sizes.max() + 0.5 * ring_px


@pytest.mark.slow  # a calibration and two reads: about 1 s of CPU
@pytest.mark.parametrize("name", ["05b-move", "14b-move"])
def test_a_pale_4_read_as_a_ring_is_a_4_and_no_hand(name: str) -> None:
    """b2's white 4 reads as a 4, every other square as it stands, and the board is not taken
    for a hand over it. On 14b the 4 scores under the 2 wherever it stands (1.7 rings against
    2.1): the edges settle it once the 1's base on the knob no longer counts."""
    observation = BoardReader(frames_calibration(BIRCH)).read(read_image(BIRCH / f"{name}.jpg"))
    truth = frame_truth(BIRCH, name)
    assert observation.top("b2") == (WHITE, 4)
    assert {sq: observation.top(sq) for sq in ORDER if observation.top(sq) != truth.get(sq)} == {}
    assert not observation.occluded
