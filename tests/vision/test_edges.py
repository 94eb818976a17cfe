"""The edge cue (``companion/vision/edges.py``): the camera pose puts each size's real rim where
the camera sees it, calibration fits the set's outline, the cue reads sizes the region cue
misread on a rendered frame, and it only reshares a square's cup probability between sizes."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from companion.errors import CompanionError
from companion.vision.calibration import Calibration
from companion.vision.cups import REFERENCE_DIAMETERS, REFERENCE_HEIGHTS, lifted
from companion.vision.edges import CupOutline, edge_logits, shortfall, size_shares, soft_discs
from companion.vision.geometry import RectifiedView
from companion.vision.reader import BoardReader
from companion.vision.templates import draw_at
from tests.shared_calibrations import BENCH, bench_calibration, bench_frame

BENCH_08 = BENCH / "bench-08" / "frames"


def seen_by(renderer, points: np.ndarray) -> np.ndarray:
    """Image pixels of board-mm points (N x 3) through the synthetic camera's own pose."""
    cam = (points - renderer.centre) @ renderer.rotation.T
    px = cam @ renderer.k.T
    return px[:, :2] / px[:, 2:3]


@pytest.mark.parametrize("seed", [1, 2])
def test_each_sizes_rim_lands_where_the_camera_sees_it(setup_for, seed):
    """The markers' pose (homography and camera centre) lifts a rim at its real height to the
    board plane so that it maps to the pixels the synthetic camera projects it to."""
    s = setup_for(seed)
    camera = s.calibration.camera
    angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    for square in ((30.0, 30.0), (150.0, 90.0), (210.0, 210.0)):
        centre = np.array(square)
        for diameter, height in zip(REFERENCE_DIAMETERS, REFERENCE_HEIGHTS, strict=True):
            radius, z = 0.36 * diameter, 0.85 * height  # a rim inside the base, near the top
            ring = np.c_[np.cos(angles), np.sin(angles)] * radius
            truth = seen_by(s.renderer, np.c_[centre + ring, np.full(len(angles), z)])
            middle, grow = lifted(centre, z, camera.centre)
            ours = camera.to_image(middle + ring * grow)
            flat = camera.to_image(centre + ring)  # the same circle taken to lie on the board
            error, ignored_height = np.abs(ours - truth).max(), np.abs(flat - truth).max()
            assert error < 1.5  # the grid corners themselves are found within 1.5 px
            assert ignored_height > 2.0 and error < ignored_height / 2


def test_calibration_fits_the_sets_real_size(setup_for):
    """The synthetic cups are the reference set's size; the base circles' fit finds it."""
    outline = setup_for(2).calibration.outline
    assert outline is not None
    assert outline.scale == pytest.approx(1.0, abs=0.065)  # 0.94 to 1.04 over seeds 2, 5, 11
    assert 0.5 <= outline.rim_ratio <= 0.95 and 0.6 <= outline.rim_height <= 1.0


def test_discs_drawn_together_are_each_the_disc_drawn_alone(setup_for, rng):
    """The outline fit draws its two thousand circles on shared canvases (``soft_discs``): each
    comes out to the bit as ``templates.draw_at`` draws it alone in its own frame, wherever it
    falls within a pixel and whatever its size, with a zero border the edge filters need."""
    calibration = setup_for(2).calibration
    view = RectifiedView(calibration.layout, calibration.scale)
    centres = rng.uniform(20.0, 220.0, (60, 2))
    radii = rng.uniform(4.0, 26.0, 60)
    drawn = 0
    for index, tops, lefts, discs in soft_discs(view, centres, radii):
        assert len(index) == len(tops) == len(lefts) == len(discs)
        for i, top, left, disc in zip(index, tops, lefts, discs, strict=True):
            sections = np.array([[centres[i, 0], centres[i, 1], radii[i], 0.0]])
            alone = draw_at(view, (int(top), int(left), disc.shape[0], disc.shape[1]), sections)
            assert alone.dtype == disc.dtype and np.array_equal(alone, disc)
            assert alone[[0, 1, -2, -1]].max() == 0 and alone[:, [0, 1, -2, -1]].max() == 0
            drawn += 1
    assert drawn == len(radii)


@pytest.fixture(scope="module")
def bench_08() -> tuple[Calibration, np.ndarray]:
    return bench_calibration("bench-08"), bench_frame("bench-08", "16b-move")


def test_the_edges_read_a_size_a_long_shadow_misled_on_a_rendered_frame(bench_08):
    """bench-08 (a low side lamp), frame 16b: colours alone read d3's black 2 as a 3 and d4's
    white 3 as a 4, the shadow beside each cup taken for cup (the first at 0.59, the second at
    0.89). With the edges d3 reads right; on d4 they doubt the 4 without moving it. The region
    cue matched d4's cup 11 mm from where its base stands, so it is sized where it stands as
    well (``BoardReader._placed``): the 4 it still reads is less sure."""
    calibration, frame = bench_08
    truth = json.loads((BENCH_08 / "16b-move.json").read_text())["top"]
    expected = {sq: (("white", "black").index(t["color"]), t["size"]) for sq, t in truth.items()}
    read = BoardReader(calibration).read(frame)
    alone = BoardReader(replace(calibration, outline=None)).read(frame)
    assert alone.tops()["d3"] == (1, 3) and alone.tops()["d4"] == (0, 4)
    assert alone.confidence("d4") > 0.85
    tops = read.tops()
    assert {sq: top for sq, top in tops.items() if top is not None and sq != "d4"} == {
        sq: top for sq, top in expected.items() if sq != "d4"
    }
    assert tops["d4"] == (0, 4)
    assert read.confidence("d4") < 0.7 < alone.confidence("d4")


def test_the_edges_reshare_a_cup_between_sizes_never_cup_against_empty(bench_08):
    calibration, frame = bench_08
    with_edges = BoardReader(calibration).read(frame)
    without = BoardReader(replace(calibration, outline=None)).read(frame)
    assert np.allclose(with_edges.probabilities[:, 0], without.probabilities[:, 0])
    assert not np.allclose(with_edges.probabilities, without.probabilities)


def test_shortfall_and_logits():
    assert shortfall(np.array([0.1, 0.3, 0.2])) == pytest.approx(np.array([[-1.0, 0.0, -0.5]]))
    assert shortfall(np.array([0.2, 0.2, 0.21])) == pytest.approx(
        np.array([[-0.2, -0.2, 0.0]])
    )  # faint edges
    both = edge_logits(np.array([0.0, 1.0, 0.5]), np.array([1.0, 0.0, 0.5]))[0]
    assert both.max() < 0 and both[1] > both[0]  # the base weighs more than the rim
    assert edge_logits(np.array([0.0, 1.0]), np.array([0.0, 1.0])) == pytest.approx(np.array([[-3.0, 0.0]]))


def test_the_edges_move_a_size_only_when_both_agree_and_never_make_it_surer():
    """Row 0: both edges say 2 where the region cue says 3: the size moves, no surer than the
    region's 3 was. Row 1: the base says 2, the rim 3: the region's shares stand. Row 2: the
    edges favour the region's own size: its shares stand."""
    region = np.array([[0.0, 2.0, 3.0, 1.0], [0.0, 2.0, 3.0, 1.0], [0.0, 1.0, 5.0, 1.0]])
    base = np.array([[0.1, 0.3, 0.1, 0.1], [0.1, 0.3, 0.1, 0.1], [0.1, 0.1, 0.3, 0.1]])
    rim = np.array([[0.0, 0.2, 0.1, 0.0], [0.0, 0.1, 0.2, 0.0], [0.0, 0.0, 0.2, 0.0]])
    shares = size_shares(region, base, rim)
    alone = np.exp(region) / np.exp(region).sum(axis=1, keepdims=True)
    assert shares.sum(axis=1) == pytest.approx([1.0, 1.0, 1.0])
    assert np.argmax(shares[0]) == 1 and np.argmax(alone[0]) == 2
    assert shares[0].max() <= alone[0].max() + 1e-12
    assert shares[1:] == pytest.approx(alone[1:])


def test_the_outline_is_saved_and_files_without_one_still_load(setup_for, tmp_path):
    calibration = setup_for(2).calibration
    path = tmp_path / "board.json"
    calibration.save(path)
    assert Calibration.load(path).outline == calibration.outline
    data = json.loads(path.read_text())
    path.write_text(json.dumps({k: v for k, v in data.items() if k != "outline"}))
    assert Calibration.load(path).outline is None  # a file from before the edge cue
    for junk in ({"scale": "big"}, {"scale": 1.0}, {"scale": 9.0, "rim_ratio": 0.7, "rim_height": 0.8}):
        path.write_text(json.dumps({**data, "outline": junk}))
        with pytest.raises(CompanionError, match="outline is malformed; run calibrate again"):
            Calibration.load(path)


def test_an_outline_round_trips():
    outline = CupOutline(0.96, 0.7, 0.85)
    assert CupOutline.from_json(outline.to_json()) == outline
