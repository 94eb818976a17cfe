"""Each size's rim scored around that size's own foot (``edges.rims_at_feet``,
``BoardReader._edge_scores``), not around where the region cue placed the cup.

The bench's bench-44 (``tests/data/shadows/bench-44``: natural cups on birch, a low lamp at one
side). On 06b the white 4 on b3 stands beside its own long shadow: its lit wall reads as board and
its shaded side and the shadow as cup, so the region cue's silhouette slides 9 mm toward the shade
and reads a 3 by 0.2 logits. Its base says 4 by far; the rim searched 2 mm around the slid place
said 1 (a spread of 0.008, no size's circle there), and the sum needs the rim to agree. Around each
size's own foot the 4's rim scores 0.091 against at most 0.017 for the others.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.edges import rim_scores, rims_at_feet
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from tests.shared_calibrations import BOUNCED_SHADE, frame_read, frame_truth, frames_calibration, square_row

WHITE = 0


@pytest.mark.slow  # a calibration and a read: about 1 s of CPU
def test_each_sizes_rim_is_its_rim_scored_around_its_own_foot() -> None:
    """``rims_at_feet`` gives, for each size, what ``rim_scores`` scores that size around its
    foot: one pass over the square's edges for every size, the same numbers."""
    reader = BoardReader(frames_calibration(BOUNCED_SHADE))
    reading, trace = reader.read_traced(read_image(BOUNCED_SHADE / "06b-move.jpg"))
    assert reading.fits is not None
    maps, bank = reading.fits.maps, reading.fits.bank
    row = square_row("b3")
    feet = trace.squares[row].feet
    assert feet is not None
    one_by_one = [
        rim_scores(maps.strength, maps.pad, bank.rims[row], dy, dx, bank.rim_reach)[k]
        for k, (dy, dx) in enumerate(feet.tolist())
    ]
    together = rims_at_feet(maps.strength, maps.pad, bank.rims[row], feet, bank.rim_reach)
    assert together.tolist() == one_by_one
    assert trace.squares[row].rim is not None and trace.squares[row].rim.tolist() == one_by_one


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
