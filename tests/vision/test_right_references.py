"""Right references the missing-cup check refused, of cups plainly there (``EDGE_ALONE``,
``BoardScene.unclear_within_fit``).

``tests/data/refs`` holds two of the bench's right-reference companions: the reference layout
again, each cup set at another offset, under the same camera and light as the game they
calibrate. bench-34-ref-c (glossy natural cups on maple) was refused as "no clear white size-1
cup on a1": the white 1's shaded side lies on the board's shadow line, and its evidence sums
below nothing (-1.17 of its area; 0.39 on bench-34's own reference), while its edges stand 46
times out of the empty squares'. bench-37-ref-c (natural cups on maple, dim warm light) was
refused as "no clear white size-3 cup on c1": its fit ran on to 22.7 mm into wood that reads
as neither cup nor board, where its evidence fills 0.47 of the silhouette (0.5 is clear), 0.66
of the 18.2 mm one. Each now calibrates, and reads its game's committed frames never sure and
wrong.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.rules.square import board_squares, square_name
from companion.vision.calibration import (
    EDGE_ALONE,
    EDGE_CLEAR,
    _within_fit,
    calibrate,
    not_shown,
    reference_layout,
)
from companion.vision.cups import CupSet
from companion.vision.observation import class_index
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from tests.shared_calibrations import frame_truth

DATA = Path(__file__).resolve().parents[1] / "data"
SURE = 0.9
REF = reference_layout(4, 4)


@pytest.mark.parametrize(
    ("reference", "game", "frames"),
    [
        ("bench-34-ref-c", DATA / "gloss" / "bench-34" / "frames", ("06b-move", "18b-move")),
        ("bench-37-ref-c", DATA / "woodlike" / "bench-37" / "frames", ("02b-move", "16b-move")),
    ],
)
def test_a_right_reference_calibrates_and_reads_its_game_never_sure_and_wrong(
    reference: str, game: Path, frames: tuple[str, ...]
) -> None:
    where = DATA / "refs" / reference / "frames"
    calibration = calibrate(read_image(where / "00-empty.jpg"), read_image(where / "01-reference.jpg"))
    assert calibration.reference and calibration.cups.first_not_growing() is None
    reader = BoardReader(calibration)
    for name in frames:
        obs = reader.read(read_image(game / f"{name}.jpg"))
        truth = frame_truth(game, name)
        for row, square in enumerate(board_squares(4)):
            right = class_index(truth.get(square_name(square)), 4)
            best = int(np.argmax(obs.probabilities[row]))
            assert best == right or obs.probabilities[row][best] < SURE, (name, square_name(square))


def test_edges_against_the_region_cue_must_stand_out_twice_as_far() -> None:
    """An unclear cup whose evidence sums to nothing or less is shown by its edges only where
    they stand out ``EDGE_ALONE`` times, not ``EDGE_CLEAR``; one whose evidence leans to a cup
    needs ``EDGE_CLEAR``."""
    leaning, against = {0: 100.0}, {0: -100.0}
    assert not_shown([0], leaning, {0: EDGE_CLEAR}) is None
    assert not_shown([0], against, {0: EDGE_CLEAR}) == 0
    assert not_shown([0], against, {0: EDGE_ALONE * 0.95}) == 0
    assert not_shown([0], against, {0: EDGE_ALONE}) is None
    assert not_shown([0], {0: 0.0}, {0: EDGE_ALONE * 0.95}) == 0


def test_a_cup_is_judged_clear_only_from_its_smaller_neighbours_fit_up_to_its_own() -> None:
    """The radii ``unclear_within_fit`` asks of: those scanned from the white 2's fit to the white
    3's; none for a size 1 (no smaller cup) nor for a cup fitted below its smaller neighbour
    (``stopped_short``: a sliver)."""
    cups = CupSet.default(60.0)
    raw = {row: cups.radii[colour][size - 1] for row, (colour, size) in REF.items()}
    raw[1], raw[2] = 18.05, 22.7  # bench-37-ref-c's white 2 and 3 (rows b1, c1)
    radii = _within_fit(2, raw, cups, REF)
    assert radii[0] == pytest.approx(18.2) and radii[-1] == pytest.approx(22.7)
    assert np.allclose(np.diff(radii), 0.5)
    assert _within_fit(0, raw, cups, REF) == []
    assert _within_fit(2, {**raw, 2: 17.7}, cups, REF) == []
