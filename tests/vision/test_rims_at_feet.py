"""Each size's rim counted where it scores best: around where the region cue placed the cup,
or around that size's own foot (``edges.rims_either_place``, ``BoardReader._edge_scores``).

The bench's bench-44 (``tests/data/shadows/bench-44``: natural cups on birch, a low lamp at one
side). On 06b the white 4 on b3 stands beside its own long shadow: its lit wall reads as board and
its shaded side and the shadow as cup, so the region cue's silhouette slides 9 mm toward the shade
and reads a 3 by 0.2 logits. Its base says 4 by far; the rim searched 2 mm around the slid place
said 1 (a spread of 0.008, no size's circle there), and the sum needs the rim to agree. Around each
size's own foot the 4's rim scores 0.091 against at most 0.026 for the others at either place.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.edges import rim_scores, rims_at_feet, rims_either_place
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from tests.shared_calibrations import BOUNCED_SHADE, frame_read, frame_truth, frames_calibration, square_row

WHITE = 0


@pytest.mark.slow  # a calibration and a read: about 1 s of CPU
def test_each_sizes_rim_is_the_better_of_its_two_places() -> None:
    """``rims_at_feet`` gives, for each size, what ``rim_scores`` scores that size around its
    foot; the reader's rim is, size by size, the better of that and the rim around the region
    cue's place: one pass over the square's edges, the same numbers."""
    reader = BoardReader(frames_calibration(BOUNCED_SHADE))
    reading, trace = reader.read_traced(read_image(BOUNCED_SHADE / "06b-move.jpg"))
    assert reading.fits is not None
    maps, bank = reading.fits.maps, reading.fits.bank
    row = square_row("b3")
    cues = trace.squares[row]
    assert cues.feet is not None and cues.rim is not None
    rims = bank.rims[row]
    one_by_one = [
        rim_scores(maps.strength, maps.pad, rims, dy, dx, bank.rim_reach)[k]
        for k, (dy, dx) in enumerate(cues.feet.tolist())
    ]
    assert rims_at_feet(maps.strength, maps.pad, rims, cues.feet, bank.rim_reach).tolist() == one_by_one
    matched = rim_scores(maps.strength, maps.pad, rims, cues.match.dy, cues.match.dx, bank.rim_reach)
    both = np.maximum(matched, one_by_one)
    placed = (cues.match.dy, cues.match.dx)
    either = rims_either_place(maps.strength, maps.pad, rims, placed, cues.feet, bank.rim_reach)
    assert either.tolist() == both.tolist()
    assert cues.rim.tolist() == both.tolist()
    assert int(np.argmax(matched)) == 0 and int(np.argmax(one_by_one)) == 3  # the slid place said 1


@pytest.mark.slow  # a calibration and a read: about 1 s of CPU
def test_a_pale_cup_slid_toward_its_shadow_is_sized_by_the_rim_where_it_stands() -> None:
    """06b's b3: the region cue's silhouette lies 9 mm toward the cup's shadow and reads a 3;
    around each size's foot the 4's rim leads and, with its base, reads the 4. The rest of the
    board reads as before the change (b3 was its one square wrong)."""
    _, observation = frame_read(BOUNCED_SHADE, "06b-move")
    truth = frame_truth(BOUNCED_SHADE, "06b-move")
    assert truth["b3"] == (WHITE, 4)
    assert observation.top("b3") == (WHITE, 4)
    assert observation.confidence("b3") < 0.9  # the region cue disputes it: no surer than its own top
    assert {square: observation.top(square) for square in truth} == truth
    reader = BoardReader(frames_calibration(BOUNCED_SHADE))
    _, trace = reader.read_traced(read_image(BOUNCED_SHADE / "06b-move.jpg"))
    cues = trace.squares[square_row("b3")]
    assert cues.rim is not None and int(np.argmax(cues.rim)) == 3
    assert int(np.argmax(cues.region)) == 2  # the region cue alone still reads the 3
