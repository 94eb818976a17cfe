"""A learning step works the frame out once: its features, texture and the margin's light field
(``Background.seen``) serve every part of it (the cups' evidence, ``learning._learned_cups``;
the board learned, ``learning._learned_board``), where each part worked them out again."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision import learning
from companion.vision.learning import LabelledFrame, Learner
from companion.vision.pixels import Background
from companion.vision.reader import BoardReader
from tests.shared_calibrations import bench_calibration, bench_frame


def counted(monkeypatch: pytest.MonkeyPatch, owner: type, name: str) -> list[int]:
    """A list that grows by one at each call of ``owner.name``."""
    calls: list[int] = []
    original = getattr(owner, name)

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


def test_a_learning_step_sees_the_frame_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """bench-08's 06b labelled with its own reading, every cup fitted again (which were misread
    unknown): one look at the frame, one light field (before: two looks and three fields)."""
    reader = BoardReader(bench_calibration("bench-08"))
    image = bench_frame("bench-08", "06b-move")
    reading = reader.read_details(image)
    tops = {row: top for row, top in enumerate(reading.observation.tops().values()) if top is not None}
    frame = LabelledFrame(reader.rectified(image), tops, fits=reading.fits)  # (``misread`` unknown)
    seen = counted(monkeypatch, Background, "seen")
    fields = counted(monkeypatch, Background, "light_field")
    Learner(reader).learn(frame)
    assert len(seen) == 1
    assert len(fields) == 1


def test_the_board_moves_toward_the_frame_where_lit_as_gathered_and_scattered() -> None:
    """``_toward`` adds where ``lit`` says: the numbers that gathering the lit pixels, moving
    them and scattering them back gave."""
    rng = np.random.default_rng(5)
    board = rng.uniform(0, 255, (40, 30, 3)).astype(np.float32)
    seen = rng.integers(0, 256, (40, 30, 3), dtype=np.uint8)
    lit = rng.random((40, 30)) > 0.4
    for rate in (1 / 3, 0.1, 0.05):
        expected = board.copy()
        frame = seen.astype(np.float32)
        expected[lit] += rate * (frame[lit] - expected[lit])
        want = np.clip(np.rint(expected), 0, 255).astype(np.uint8)
        # (private: one step of the board learned, against the way it was done before)
        assert np.array_equal(learning._toward(board.copy(), seen, lit, rate), want)
