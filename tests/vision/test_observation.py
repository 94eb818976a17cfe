import numpy as np
import pytest

from companion.errors import CompanionError
from companion.vision.observation import Observation, class_index, class_top


def test_from_tops_round_trips_every_square():
    tops = {"a1": (0, 3), "d4": (1, 1), "b2": None}
    obs = Observation.from_tops(tops)
    assert obs.top("a1") == (0, 3)
    assert obs.top("d4") == (1, 1)
    assert obs.top("b2") is None and obs.top("c3") is None
    assert obs.top(0) == (0, 3)  # rows are board_squares order: a1 first
    assert np.allclose(obs.probabilities.sum(axis=1), 1.0)
    assert obs.confidence("a1") == pytest.approx(0.999)


def test_json_matches_the_cli_record():
    record = Observation.from_tops({"c2": (1, 4)}, occluded=True).to_json(image="x.jpg")
    assert list(record) == ["image", "occluded", "squares"]
    assert record["occluded"] is True
    assert record["squares"]["c2"] == {"color": "black", "size": 4, "confidence": 0.999}
    assert record["squares"]["a1"] is None
    assert len(record["squares"]) == 16


def test_class_columns_are_empty_then_white_then_black():
    assert [class_index(t, 4) for t in (None, (0, 1), (0, 4), (1, 1), (1, 4))] == [0, 1, 4, 5, 8]
    assert all(class_top(class_index(t, 3), 3) == t for t in (None, (0, 2), (1, 3)))


def test_bad_shapes_and_squares_are_refused():
    with pytest.raises(CompanionError):
        Observation(4, 4, np.zeros((16, 5)), False)
    with pytest.raises(CompanionError):
        Observation.from_tops({"e5": (0, 1)})
    with pytest.raises(CompanionError):
        Observation.from_tops({"a1": (0, 5)})


def test_other_board_sizes():
    obs = Observation.from_tops({"c3": (1, 3)}, size=3, max_piece=3)
    assert obs.probabilities.shape == (9, 7)
    assert obs.tops()["c3"] == (1, 3)
