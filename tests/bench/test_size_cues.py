"""``benchmarks/size_cues.py`` weighs the reader's size cues again, kept as the reader used them:
weighed as the reader weighs them they must give back its own readings, or every figure the
probe prints for another weighing is measured against something the reader never did."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import size_cues

SCENE = Path(__file__).resolve().parents[2] / "tests" / "data" / "lamp" / "bench-24"


def test_the_cues_kept_give_back_the_readers_own_readings() -> None:
    cups = [sq for sq in size_cues.scene_cues(SCENE) if sq.read is not None]
    assert any(sq.cues.softening > 1.0 for sq in cups)  # rough frames: a size the edges move is softened
    for sq in cups:
        top, confidence = size_cues.reread(sq, size_cues.as_read)  # (the reader's logits: float32)
        assert (top, confidence) == (sq.read, pytest.approx(sq.confidence, abs=1e-6)), sq.where
