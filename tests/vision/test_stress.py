"""Conditions beyond the reference set (``SceneRenderer(stress=True)``): other woods, cups and
light, light changed after calibration, hands that do not cross the margin, small blurred
markers."""

import numpy as np
import pytest

from companion.vision.markers import detect_markers
from companion.vision.synth import SceneRenderer, random_tops


def test_stress_renderer_keeps_the_default_scenes():
    """``stress`` draws its own randomness: the default set-up of a seed is unchanged."""
    plain, stressed = SceneRenderer(3), SceneRenderer(3, stress=True)
    assert np.allclose(plain.centre, stressed.centre)
    assert not np.allclose(plain.look.board, stressed.look.board) or stressed.look.cup_scale[0] != 1.0


@pytest.mark.slow
def test_warm_light_and_larger_cups_then_a_tint_change(setup_for, rng):
    s = setup_for(1062, stress=True)  # strongly warm light, cups 7-11 % larger than docs/board.md's
    assert s.renderer.look.cup_scale.min() > 1.05
    reader = s.reader()
    for light in ({}, {"tint": (1.1, 1.0, 0.9), "brightness": 0.8}):
        tops = random_tops(rng, fill=0.6)
        observation = reader.read(s.renderer.render(tops, **light))
        assert not observation.occluded
        assert observation.tops() == s.renderer.truth(tops)


@pytest.mark.slow
def test_a_steep_arm_from_inside_the_grid_is_flagged(setup_for, rng):
    """A fist over the cups whose arm rises steeply toward the camera, missing the margin band.
    (A fist alone with no arm in view is still missed about one time in ten: see the README.)"""
    for seed in (1, 2):
        s = setup_for(seed)
        reader = s.reader()
        for _ in range(2):
            assert reader.read(s.renderer.render(random_tops(rng, fill=0.6), hand="steep")).occluded


@pytest.mark.slow
def test_long_low_light_shadows_are_not_taken_for_a_hand(setup_for, rng):
    """Strong low side light on a stress set-up: long cup shadows, the lamp turned or dimmed after
    calibration. The former occlusion test flagged two of these four hand-free frames (their dark
    shadows' colour strayed from the learned shadow tint by more than the lit board's noise);
    every hand kind on the same set-up is still flagged."""
    s = setup_for(1056, stress=True)
    reader = s.reader()
    for light in ({}, {"light_turn_deg": 30.0, "brightness": 0.8}, {"light_turn_deg": -30.0}, {"shade": 0.5}):
        tops = random_tops(rng, fill=0.6)
        observation = reader.read(s.renderer.render(tops, **light))
        assert not observation.occluded, light
        assert observation.tops() == s.renderer.truth(tops)
    for hand in ("arm", "steep", "fist"):
        assert reader.read(s.renderer.render(random_tops(rng, fill=0.6), hand=hand)).occluded, hand


def test_small_blurred_markers_are_found_at_calibration():
    """Seed 1030's board is small in the frame, its focus blur about 1 px: the plain pass
    misses a marker there on OpenCV 4.11 and 5.0 alike, the thorough one finds all four.
    (Seed 1005, used here before, missed one only on 5.0, by its stricter bit rule: see
    ``test_a_half_white_marker_cell_decodes_as_on_every_opencv``.)"""
    r = SceneRenderer(1030, stress=True)
    image = r.empty()
    assert len(detect_markers(image)) < 4
    found = detect_markers(image, thorough=True)
    assert sorted(found) == list(r.layout.marker_ids)
    for k, marker_id in enumerate(r.layout.marker_ids):
        truth = r.project(np.c_[r.layout.marker_corners(k), np.zeros(4)])
        assert (
            np.abs(np.sort(found[marker_id], axis=0) - np.sort(truth, axis=0)).max() < 2.0
        )  # sub-pixel refinement is rough on a blurred 20 px marker


def test_a_half_white_marker_cell_decodes_as_on_every_opencv():
    """Seed 1005's small blurred marker 0 has a cell exactly half white (8 of its 16 samples).
    OpenCV 4.x takes such a cell for black (a bit is white when more than half its pixels
    are) and finds the marker in the plain pass; 5.0 counts it wrong either way by default
    (``validBitIdThreshold`` 0.49) and, DICT_4X4_50 correcting no bit, rejected the marker,
    leaving it to the thorough pass's upscaled frame (other corners: a Pi's calibration
    parted from the tested one). ``markers._detector`` sets the threshold to 0.5: the
    plain pass finds all four on both."""
    r = SceneRenderer(1005, stress=True)
    assert sorted(detect_markers(r.empty())) == list(r.layout.marker_ids)


@pytest.mark.slow
def test_a_fist_the_matcher_reads_as_cups_is_flagged(setup_for):
    """The stress set's stress-44, frame 11 (``vision_accuracy.py --synthetic 60 --stress``): a
    pink fist alone over b2 and c2 in a dim room. The matcher takes anything that is not board
    for a cup and read the fist as white 4s, whose silhouettes then hid it from every occlusion
    cue. Nearly all of b2's silhouette is unlike the white cups' colour, so it explains nothing
    and the fist is flagged. The same board under the same light without the fist is not."""
    s = setup_for(1044, stress=True)
    reader = s.reader()
    tops = {"c1": (0, 1), "d1": (0, 4), "a3": (1, 2), "d3": (1, 1), "c4": (1, 1), "d4": (0, 4)}
    light = {"brightness": 0.75, "tint": (1.019, 0.962, 1.057)}
    reading = reader.read_details(s.renderer.render(tops, hand="fist", frame=14, **light))
    assert reading.matches[reading.observation.row("b2")].sizes.max() > 0  # still matched as a cup
    assert reading.observation.occluded
    assert not reader.read(s.renderer.render(tops, frame=15, **light)).occluded
