"""Glossy pale cups on pale maple: a reference cup the colour barely sees, vouched for by its edges.

The frames are the vision bench's bench-34 (glossy natural cups on maple, 640x480;
``tests/data/gloss/bench-34``: its calibration frames and two game frames). Under the gloss the
white cups' lit bodies are no brighter than the wood, and their shaded side lies on the board's
own shadow line: a small white 1 shows the camera little else, and less than half its area reads
as cup. Calibration refused the set ("no clear white size-1 cup on a1"); the white 1's base and
rim, which follow its outline in board millimetres whatever its colour, stand out of the
frame's empty squares by far, so it now calibrates, and the game's cups read right or in doubt.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.errors import CompanionError
from companion.rules.square import board_squares, square_name
from companion.vision import calibration
from companion.vision.calibration import EDGE_CLEAR, calibrate, not_shown, reference_layout, unseen_colour
from companion.vision.cups import CupSet
from companion.vision.observation import class_index
from companion.vision.pixels import PixelModel
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from companion.vision.synth import SceneRenderer
from tests.shared_calibrations import frame_truth, frames_calibration

GLOSS = Path(__file__).resolve().parents[1] / "data" / "gloss" / "bench-34" / "frames"
GAME = ("06b-move", "18b-move")
"""Two white 4s and a white 3 with black 4s; three white 4s, a white 3 and black 4s."""
SURE = 0.9


def test_the_glossy_pale_set_calibrates():
    calibration = frames_calibration(GLOSS)
    assert calibration.reference
    assert calibration.cups.first_not_growing() is None


def test_its_game_frames_read_right_and_never_sure_wrong():
    """Every square's top right, none flagged; a square read wrong would be under ``SURE``."""
    reader = BoardReader(frames_calibration(GLOSS))
    for name in GAME:
        obs = reader.read(read_image(GLOSS / f"{name}.jpg"))
        truth = frame_truth(GLOSS, name)
        assert not obs.occluded, name
        assert {sq: top for sq, top in obs.tops().items() if top is not None} == truth, name
        for row, square in enumerate(board_squares(4)):
            right = class_index(truth.get(square_name(square)), 4)
            best = int(np.argmax(obs.probabilities[row]))
            assert best == right or obs.probabilities[row][best] < SURE, (name, square_name(square))


def test_a_missing_white_one_is_still_refused():
    """a1 shown as the empty board: nothing there for the edges to vouch for."""
    empty, reference = (read_image(GLOSS / f"{n}.jpg") for n in ("00-empty", "01-reference"))
    corners = json.loads((GLOSS / "01-reference.json").read_text())["grid_corners_px"]
    a1, d1, a4 = (np.array(corners[k]) for k in ("a1", "d1", "a4"))
    quad = np.array([a1, a1 + (d1 - a1) / 4, a1 + (d1 - a1) / 4 + (a4 - a1) / 4, a1 + (a4 - a1) / 4])
    mask = np.zeros(reference.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    mask = cv2.dilate(mask, np.ones((9, 9), np.uint8)).astype(bool)
    reference[mask] = empty[mask]
    with pytest.raises(CompanionError, match="no clear white size-1 cup on a1"):
        calibrate(empty, reference)


@pytest.mark.slow
def test_a_neighbours_shadow_over_a_missing_cup_is_still_refused():
    """The synthetic stress set's stress-21 (a low lamp: the black 3's long shadow lies over
    d4, and its rounded end follows a base circle there), rendered with the black 4 left off
    its reference square: no cup for the edges to vouch for."""
    renderer = SceneRenderer(1021, stress=True)
    empty = renderer.empty()
    without = {square: top for square, top in renderer.reference_tops().items() if square != "d4"}
    with pytest.raises(CompanionError, match="no clear black size-4 cup on d4"):
        calibrate(empty, renderer.render(without))


REF = reference_layout(4, 4)
WHITE = [row for row, (colour, _) in REF.items() if colour == 0]


def test_edges_vouch_for_a_cup_the_region_cue_leans_to():
    """An unclear cup whose evidence is positive is shown when its edges stand out; not when
    they fall short, nor where no edges were measured (a negative sum: test_right_references)."""
    scores = dict.fromkeys(REF, 100.0)
    assert not_shown([0], scores, {0: EDGE_CLEAR}) is None
    assert not_shown([0], scores, {0: EDGE_CLEAR * 0.9}) == 0
    assert not_shown([0], scores, {}) == 0


def test_a_colour_no_cup_of_which_reads_clearly_is_unseen():
    """Every white cup unclear while some of their outlines stand out: the colour cannot be
    told from the board. One white cup clear, or no outline standing out (the cups are not
    there), is not that."""
    standing = {row: EDGE_CLEAR * 2 for row in REF}
    assert unseen_colour(WHITE, REF, standing) == 0
    assert unseen_colour(WHITE[1:], REF, standing) is None
    assert unseen_colour(WHITE, REF, dict.fromkeys(REF, 1.0)) is None


def test_a_colour_seen_by_its_edges_and_a_sliver_is_unseen():
    """Every white cup unclear but the white 3, whose fit stopped short (``stopped_short``: no
    outline of its own, a sliver of a neighbour's lean summing past ``CLEAR_SHARE``), and every
    white outline standing out: the colour is no better seen than when all four are unclear.
    It calibrated, the edges vouching for each cup, where the four unclear were refused."""
    cups = CupSet.default(60.0)
    area = {row: np.pi * cups.radii[colour][size - 1] ** 2 for row, (colour, size) in REF.items()}
    scores = {row: area[row] * (0.2 if row in WHITE else 2.0) for row in REF}
    scores[2] = area[2] * 0.7
    colours = {row: np.array([0.3 if row in WHITE else -0.9, 0.0, 0.0]) for row in REF}
    standing = dict.fromkeys(REF, EDGE_CLEAR * 2)
    with pytest.raises(
        CompanionError, match="the white cups stand where they should but look like the board"
    ):
        seen = calibration.ReferenceSeen(scores, colours, colours, [0, 1, 3], standing, [2], lambda row: None)
        calibration.check_reference(seen, cups, REF, PixelModel.default(), 4)
