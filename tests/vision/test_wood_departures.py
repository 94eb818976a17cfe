"""A cup the wood's colour is told from the wood's noise by how far its own set's reference cups
stood out from the board (``CupOutline.departures``, ``reader.wood_departures``).

On the vision bench's bench-88 (glossy natural cups on birch, 640x480;
``tests/data/woodlike/bench-88``) the white cups have the wood's look, and the real ones depart
from it over only 0.48-0.68 of their silhouettes: tested against the fixed share
(``WOOD_DEPARTURE``, set where bench-37's cups on maple departed 0.67 or more), a white 4 was
taken for the wood's noise and read empty on seven boards, and the referee was lost 17.6 s. Its
reference's white cups departed 0.56 or more, so the test is scaled to that."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.errors import CompanionError
from companion.vision.edges import CupOutline
from companion.vision.reader import REFERENCE_DEPARTURE, WOOD_DEPARTURE, wood_departures
from tests.shared_calibrations import frame_read, frame_truth, frames_calibration

WOODLIKE = Path(__file__).resolve().parents[1] / "data" / "woodlike"
GLOSSY = WOODLIKE / "bench-88" / "frames"
MAPLE = WOODLIKE / "bench-37" / "frames"


def test_calibration_measures_how_far_a_wood_like_set_stands_out() -> None:
    """Only a colour with the wood's look is measured; the other keeps 1 (no test applies)."""
    glossy = frames_calibration(GLOSSY)
    assert glossy.pixels.wood_like() == (True, False)
    assert glossy.outline is not None
    white, black = glossy.outline.departures
    assert 0.5 < white < 0.62 and black == 1.0
    maple = frames_calibration(MAPLE).outline
    assert maple is not None and maple.departures[0] > 0.7


def test_the_test_is_lowered_only_where_the_reference_cups_departed_less() -> None:
    glossy, maple = frames_calibration(GLOSSY).outline, frames_calibration(MAPLE).outline
    assert wood_departures(glossy)[0] == pytest.approx(REFERENCE_DEPARTURE * glossy.departures[0])
    assert wood_departures(glossy)[0] < WOOD_DEPARTURE
    assert wood_departures(maple) == (WOOD_DEPARTURE, WOOD_DEPARTURE)
    assert wood_departures(None) == (WOOD_DEPARTURE, WOOD_DEPARTURE)


@pytest.mark.parametrize("name", ["04b-move", "13b-move"])
def test_glossy_white_cups_on_birch_read_as_cups(name: str) -> None:
    """04b: the white 4 on b3; 13b: the white 4 on a4 and the white 3 on d1 (each read empty
    by the fixed share). Every square read right."""
    _, obs = frame_read(GLOSSY, name)
    assert not obs.occluded
    assert {sq: top for sq, top in obs.tops().items() if top is not None} == frame_truth(GLOSSY, name)


def test_departures_are_saved_and_an_older_file_loads_without_them() -> None:
    outline = CupOutline(1.0, 0.8, 0.7, departures=(0.56, 1.0))
    assert CupOutline.from_json(outline.to_json()) == outline
    older = outline.to_json()
    del older["departures"]
    assert CupOutline.from_json(older).departures == (1.0, 1.0)
    with pytest.raises(CompanionError, match="outline is malformed"):
        CupOutline.from_json({**outline.to_json(), "departures": [1.5, 1.0]})
