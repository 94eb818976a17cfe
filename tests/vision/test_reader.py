"""The board reader on synthetic scenes: each condition the issue names has a test here."""

import cv2
import numpy as np
import pytest

from companion.errors import CompanionError
from companion.vision.reader import BoardReader
from companion.vision.synth import SceneRenderer, random_tops


def read_right(setup, tops, **render):
    observation = setup.reader().read(setup.renderer.render(tops, **render))
    assert not observation.occluded
    assert observation.tops() == setup.renderer.truth(tops)
    return observation


def test_random_boards_are_read_right(setup_for, rng):
    for seed in (1, 2):
        s = setup_for(seed)
        reader = s.reader()
        for _ in range(3):
            tops = random_tops(rng, fill=0.7)
            observation = reader.read(s.renderer.render(tops))
            assert observation.tops() == s.renderer.truth(tops)
            assert np.allclose(observation.probabilities.sum(axis=1), 1.0)


def test_adjacent_sizes_side_by_side(setup_for):
    s = setup_for(2)
    read_right(
        s,
        {
            "a1": (0, 1),
            "b1": (0, 2),
            "c1": (0, 3),
            "d1": (0, 4),
            "a2": (1, 4),
            "b2": (1, 3),
            "c2": (1, 2),
            "d2": (1, 1),
            "a3": (0, 3),
            "b3": (0, 4),
            "c3": (1, 3),
            "d3": (1, 4),
            "a4": (1, 2),
            "b4": (0, 2),
            "c4": (0, 1),
            "d4": (1, 1),
        },
    )


@pytest.mark.parametrize("rotation", [90, pytest.param(180, marks=pytest.mark.slow)])
def test_board_rotated_in_the_image(setup_for, rng, rotation):
    s = setup_for(4, rotation_deg=rotation)
    read_right(s, random_tops(rng, fill=0.6))


@pytest.mark.slow
def test_light_cups_on_light_wood(setup_for, rng):
    pale = SceneRenderer(6).look.board * 1.12
    s = setup_for(6, look_overrides={"light_cup": tuple(np.clip(pale, 0, 1))})
    tops = {"a1": (0, 1), "b2": (0, 2), "c3": (0, 3), "d4": (0, 4), "a4": (0, 4), "d1": (0, 3), "c2": (1, 2)}
    read_right(s, tops)


@pytest.mark.slow
def test_dark_cups_in_shadow(setup_for):
    s = setup_for(7)
    tops = {"a1": (1, 1), "a2": (1, 2), "b3": (1, 3), "b4": (1, 4), "a4": (0, 2), "c1": (1, 4)}
    read_right(s, tops, shade=0.75)  # one side of the board loses most of its direct light


@pytest.mark.parametrize("brightness", [0.8, 1.2])
def test_brightness_change_after_calibration(setup_for, rng, brightness):
    read_right(setup_for(3), random_tops(rng, fill=0.6), brightness=brightness)


@pytest.mark.slow
def test_1280x960(setup_for, rng):
    s = setup_for(8, resolution=(1280, 960))
    read_right(s, random_tops(rng, fill=0.6))


@pytest.mark.slow
def test_hands_are_flagged_occluded(setup_for, rng):
    for seed in (1, 2, 3):
        s = setup_for(seed)
        reader = s.reader()
        for _ in range(2):
            assert reader.read(s.renderer.render(random_tops(rng), hand=True)).occluded


def test_a_covered_marker_means_occluded(setup_for):
    s = setup_for(1)
    frame = s.renderer.render({"b2": (0, 3)})
    centre = s.renderer.project(np.array([[257.5, 257.5, 0.0]]))[0]
    cv2.circle(frame, tuple(int(v) for v in centre), 25, (60, 80, 110), -1)
    assert s.reader().read(frame).occluded


def test_a_nudged_board_is_found_again(setup_for, rng):
    s = setup_for(3)
    reader = s.reader()
    tops = random_tops(rng, fill=0.6)
    shift = np.float32([[np.cos(0.03), -np.sin(0.03), 6], [np.sin(0.03), np.cos(0.03), -4]])
    nudged = cv2.warpAffine(s.renderer.render(tops), shift, (640, 480), borderMode=cv2.BORDER_REPLICATE)
    first = reader.read(nudged)
    assert first.moved and not first.occluded
    assert first.tops() == s.renderer.truth(tops)
    again = reader.read(
        cv2.warpAffine(s.renderer.render(tops), shift, (640, 480), borderMode=cv2.BORDER_REPLICATE)
    )
    assert not again.moved and again.tops() == s.renderer.truth(tops)


def test_frames_at_another_resolution(setup_for):
    s = setup_for(1)
    reader = s.reader()
    tops = {"a1": (0, 4), "c3": (1, 2)}
    big = cv2.resize(s.renderer.render(tops), (1280, 960), interpolation=cv2.INTER_LINEAR)
    assert reader.read(big).tops() == s.renderer.truth(tops)
    with pytest.raises(CompanionError, match="another aspect ratio"):
        reader.read(np.zeros((480, 480, 3), np.uint8))


@pytest.mark.slow
def test_a_3x3_board_with_three_sizes(rng):
    from companion.vision.calibration import calibrate
    from companion.vision.geometry import BoardLayout

    r = SceneRenderer(11, size=3, max_piece=3)
    reader = BoardReader(calibrate(r.empty(), r.reference(), layout=BoardLayout(size=3), max_piece=3), size=3)
    tops = {"a1": (0, 3), "b2": (1, 1), "c3": (1, 2), "c1": (0, 1)}
    observation = reader.read(r.render(tops))
    assert observation.probabilities.shape == (9, 7)
    assert observation.tops() == r.truth(tops)
