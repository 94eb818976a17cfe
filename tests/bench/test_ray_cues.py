"""``benchmarks/ray_cues.py`` counts each cue's say on the light 3s and 4s: on the bench's
bench-32 (``tests/data/shadows/bench-32``: natural cups on pale maple, a lamp low beyond the far
side) 06b's white 3 on c2, read a 4 at 0.59, is one of the misreads on which all four cues (base,
rim, and the rays from each size's foot on the log-odds and on the texture) say its true size."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import ray_cues

SCENE = Path(__file__).resolve().parents[2] / "tests" / "data" / "shadows" / "bench-32"


@pytest.mark.slow  # a calibration and four reads: a few seconds of CPU
def test_all_four_cues_say_the_misread_3_on_c2() -> None:
    cups = {cup.where: cup for cup in ray_cues.scene_cups(SCENE)}
    c2 = cups["bench-32/06b-move c2"]
    assert (c2.truth, c2.read) == (0, 1)
    assert c2.confidence < ray_cues.UNSURE
    assert all(c2.says[cue] == 0 for cue in ray_cues.CUES)
