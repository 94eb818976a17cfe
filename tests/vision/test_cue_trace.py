"""A read's size cues, traced on request (``BoardReader.read_traced``, ``vision/trace.py``).

Probes that measure the cues (``benchmarks/size_cues.py``) or weigh them another way take them
from the trace, so the trace must be what the reader combined, not a copy of it: weighed again
the cues give the reading's probabilities, a weight changed in the trace gives what the reader
reads with that weight, and asking for the trace changes no reading. The frames are the vision
bench's bench-24 (``tests/data/lamp/bench-24``): the reference under the calibration's lamp, then
boards and a hand under a low lamp that moved since, where the region cue's trust is capped,
frames read rough and cups are sized where their bases stand as well.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from companion.vision.calibration import Calibration
from companion.vision.reader import BoardReader, Reading
from companion.vision.sources import read_image
from companion.vision.trace import CueTrace, ReadTrace
from tests.shared_calibrations import frames_calibration

pytestmark = pytest.mark.slow  # a calibration and a dozen reads: about 3 s of CPU

LAMP = Path(__file__).resolve().parents[1] / "data" / "lamp" / "bench-24" / "frames"
FRAMES = ("01-reference", "16b-move", "19b-move", "21a-hand", "24b-move")


def traced(calibration: Calibration) -> Iterator[tuple[Reading, ReadTrace]]:
    """Every frame of ``FRAMES`` read in turn by one fresh reader, its cues traced."""
    reader = BoardReader(calibration)
    for k, name in enumerate(FRAMES):
        yield reader.read_traced(read_image(LAMP / f"{name}.jpg"), float(k))


def weighed_again(cues: CueTrace) -> np.ndarray:
    """The square's probabilities made again from its traced cues, as the reader makes them:
    empty against each size by the region cue, the cup's probability split between the sizes
    by the shares weighed again (``CueTrace.reweighed``), each size between the colours."""
    logits = np.concatenate([[0.0], cues.region])
    p = np.exp(logits - logits.max())
    empty = p[0] / p.sum()
    cup = (1.0 - empty) * cues.reweighed()
    out = np.concatenate([[empty], cup * cues.white, cup * (1.0 - cues.white)])
    return out / out.sum()


def test_asking_for_the_trace_changes_no_reading() -> None:
    """The same frames read by a reader that traces and one that does not: the same readings,
    and each trace's probabilities are its reading's, row for row."""
    plain = BoardReader(frames_calibration(LAMP))
    for k, (reading, trace) in enumerate(traced(frames_calibration(LAMP))):
        again = plain.read_details(read_image(LAMP / f"{FRAMES[k]}.jpg"), float(k))
        assert np.array_equal(reading.observation.probabilities, again.observation.probabilities)
        assert reading.observation.occluded == again.observation.occluded
        obs = reading.observation
        assert [cues.square for cues in trace.squares] == list(obs.tops())
        for row, cues in enumerate(trace.squares):
            assert np.array_equal(cues.probabilities, obs.probabilities[row]), cues.square


def test_the_traced_cues_weigh_back_to_the_reading() -> None:
    """Weighed again as the reader weighs them, every square's traced cues give its shares and
    its probabilities, on frames whose cues the reader took every way it takes them."""
    seen = {"rough": False, "smooth": False, "placed anew": False, "trust capped": False}
    for _, trace in traced(frames_calibration(LAMP)):
        for cues in trace.squares:
            assert np.array_equal(cues.reweighed(), cues.shares), cues.square
            assert np.allclose(weighed_again(cues), cues.probabilities, rtol=0, atol=1e-12), cues.square
            seen["rough" if cues.softening > 1.0 else "smooth"] = True
            seen["placed anew"] |= not np.array_equal(cues.placed, cues.region)
            seen["trust capped"] |= cues.trust < 1.0
    assert all(seen.values()), seen


def test_a_region_cue_weighed_at_zero_in_the_trace_reads_as_the_reader_would() -> None:
    """The region cue's weight set to 0 in the trace (``reweighed(trust=0)``) gives the shares a
    reader whose calibration weighs it at 0 reads, square for square; and that weight moved
    sizes, so the trace's weight is one the reader uses."""
    calibration = frames_calibration(LAMP)
    assert calibration.outline is not None
    unheard = dataclasses.replace(
        calibration, outline=dataclasses.replace(calibration.outline, region_trust=(0.0, 0.0))
    )
    moved = 0
    for (_, trace), (_, zero) in zip(traced(calibration), traced(unheard), strict=True):
        for cues, without in zip(trace.squares, zero.squares, strict=True):
            assert without.trust == 0.0 and without.weights["region"] == 0.0
            if without.softening != cues.softening:
                continue  # (the occlusion test judged the frame otherwise: other temperatures)
            assert np.array_equal(cues.reweighed(trust=0.0), without.shares), cues.square
            moved += int(np.argmax(cues.shares) != np.argmax(without.shares))
    assert moved > 0


def test_without_an_outline_the_trace_has_the_region_cue_alone() -> None:
    """A calibration without an outline has no edge cue: no base, rim or feet traced, no
    weights, and the sizes share the cup's probability as the region cue alone has them."""
    calibration = dataclasses.replace(frames_calibration(LAMP), outline=None)
    for _, trace in traced(calibration):
        for cues in trace.squares:
            assert cues.base is None and cues.rim is None and cues.feet is None and cues.weights == {}
            assert np.array_equal(cues.placed, cues.region)
            logits = cues.region.astype(np.float64) - cues.region.max()
            assert np.allclose(cues.shares, np.exp(logits) / np.exp(logits).sum(), rtol=0, atol=1e-12)
            with pytest.raises(ValueError):
                cues.reweighed()
