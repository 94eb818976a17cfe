"""``benchmarks/diameter_census.py`` fits each cup by its diameters over radii spanning every
size of its colour: on a game the reader reads exactly, each cup must fit nearest its own
size and the reference cups in size order, or the census's counts of where the diameters and
the reader differ measure a broken fit, not the cue."""

from __future__ import annotations

from pathlib import Path

from benchmarks import diameter_census

SCENE = Path(__file__).resolve().parents[2] / "tests" / "data" / "bench" / "bench-11"


def test_each_cup_fits_nearest_its_own_size_on_a_game_read_exactly() -> None:
    cups, references = diameter_census.scene_fits(SCENE)
    assert len(cups) > 40 and all(cup.read == cup.truth for cup in cups)  # (the reader's: exact here)
    assert {cup.truth for cup in cups} >= {3, 4}  # both sizes the census is about
    for name, reference in references.items():
        for colour, radii in enumerate(reference):
            assert radii == sorted(radii), (name, colour)
    calibration = references["calibration"]
    for cup in cups:
        assert cup.by_diameters(calibration[cup.colour]) == cup.truth, (cup.where, cup.fit)
