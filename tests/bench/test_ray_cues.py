"""``benchmarks/ray_cues.py`` counts each cue's say on the light 3s and 4s against the reading
before the reader turned any: a cup the reader turned must count as the misread it was, with
the four cues that turned it all saying its true size."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import ray_cues

SCENE = Path(__file__).resolve().parents[2] / "tests" / "data" / "shadows" / "bench-32"


@pytest.mark.slow  # a calibration and four reads: a few seconds of CPU
def test_a_cup_the_reader_turned_counts_as_the_misread_it_was() -> None:
    cups = {cup.where: cup for cup in ray_cues.scene_cups(SCENE)}
    c2 = cups["bench-32/06b-move c2"]  # a white 3 read a 4 at 0.59 before the rays
    assert c2.turned and c2.read == c2.truth == 0
    assert ray_cues.read_before(c2) == 1
    assert all(c2.says[cue] == 0 for cue in ray_cues.CUES)
    assert all(ray_cues.read_before(cup) == cup.read for cup in cups.values() if not cup.turned)
