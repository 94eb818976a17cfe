"""A read's work cut without changing what it reads (issue 11: a 640x480 read within 15 ms).

Each saving here works out the same numbers another way or once instead of several times: the
edge maps only where the edge templates read them, the frame's grey once per read, and the
occlusion map's view of a frame once for its judgement and each judgement again under another
light; and a step of learning that moves no colour keeps the pixel model in use with its
lookup tables. Each is checked against the plain computation on recorded frames of the
committed bench (bench-03, natural cups on walnut, its lamp moved from frame 10 on; bench-08),
and each cache against going stale."""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest

from companion.vision import learning, occlusion
from companion.vision.edges import BaseFits, edge_maps
from companion.vision.learning import Learner, label
from companion.vision.matching import Evidence, coverage, evidence
from companion.vision.occlusion import OcclusionTest
from companion.vision.pixels import PixelModel, grey
from companion.vision.reader import BoardReader
from companion.vision.shadows import CastingCup, casting_cups, found_cups
from tests.shared_calibrations import bench_calibration, bench_frame

SCENE = "bench-03"


def frame_evidence(reader: BoardReader, name: str) -> tuple[np.ndarray, Evidence]:
    """Frame ``name`` on the board plane and its evidence maps, as the reader takes them."""
    rect = reader.rectified(bench_frame(SCENE, name))
    return rect, evidence(rect, reader.background, reader.models.pixels, reader.bank.pad)


def test_edge_maps_within_the_templates_reach_are_the_whole_views_there() -> None:
    """Worked out only where the edge templates read (``EdgeBank.reads``), the maps are the
    whole view's there to the bit, and 0 elsewhere; the base fits on them are the same."""
    reader = BoardReader(bench_calibration(SCENE))
    assert reader.edges is not None
    _, ev = frame_evidence(reader, "06b-move")
    pad = reader.edges.pad
    whole, part = edge_maps(ev.features, pad), edge_maps(ev.features, pad, reader.edges.reads)
    h, w = ev.features.shape[:2]
    top, bottom, left, right = reader.edges.reads
    inside = np.zeros((h + 2 * pad, w + 2 * pad), bool)
    inside[pad + max(top, 0) : pad + min(bottom, h), pad + max(left, 0) : pad + min(right, w)] = True
    assert 0.5 < inside.sum() / (h * w) < 0.9  # the margin and the markers' corners left out
    np.testing.assert_array_equal(part.distance[inside], whole.distance[inside])
    np.testing.assert_array_equal(part.strength[inside], whole.strength[inside])
    assert not part.distance[~inside].any() and not part.strength[~inside].any()
    plain, cut = BaseFits(whole, reader.edges), BaseFits(part, reader.edges)
    for row in range(len(reader.edges.base)):
        for got, want in zip(cut.fits(row), plain.fits(row), strict=True):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("left", [1, 2, 5, 8])
def test_edge_maps_within_any_part_of_the_view_are_the_whole_views_there(left: int) -> None:
    """Whatever part of the view, its right edge anywhere (a row of a part ending 1 pixel past
    it came out a float32 step off on its last columns: ``edges.ROW_TAIL``) or at the view's
    edge, its maps are the whole view's."""
    reader = BoardReader(bench_calibration(SCENE))
    _, ev = frame_evidence(reader, "06b-move")
    whole = edge_maps(ev.features, 2)
    h, w = ev.features.shape[:2]
    for right in [*range(w - 12, w + 1), *range(150, 166)]:
        within = (20 + left, h - 20, 10 * left, right)
        part = edge_maps(ev.features, 2, within)
        rows, columns = slice(2 + within[0], 2 + within[1]), slice(2 + within[2], 2 + right)
        np.testing.assert_array_equal(part.distance[rows, columns], whole.distance[rows, columns])
        np.testing.assert_array_equal(part.strength[rows, columns], whole.strength[rows, columns])


def test_a_read_converts_the_frame_to_grey_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The texture, the board's marks, the markers and the stillness clock all take the one
    grey picture (main: each converted the frame again, four times a read), and the features
    and texture from it are those of the frame converted on its own."""
    reader = BoardReader(bench_calibration(SCENE))
    image = bench_frame(SCENE, "06b-move")
    before = reader.read(image).probabilities
    rect = reader.rectified(image)
    seen = reader.background.seen(rect)
    for got, want in zip(reader.background.seen(rect, grey(rect)), seen, strict=True):
        np.testing.assert_array_equal(got, want)
    conversions = {"n": 0}
    convert = cv2.cvtColor

    def counted(*args: object, **kwargs: object) -> np.ndarray:
        conversions["n"] += 1
        return convert(*args, **kwargs)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(cv2, "cvtColor", counted)
    np.testing.assert_array_equal(reader.read(image).probabilities, before)
    assert conversions["n"] == 1


def judged_inputs(
    reader: BoardReader, name: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[CastingCup]]:
    """(features, texture, rect, free, fg, cups) of frame ``name`` for the occlusion test:
    what no cup explains taken as every pixel off the cups found where they were matched."""
    rect, ev = frame_evidence(reader, name)
    reading = reader.read_details(bench_frame(SCENE, name))
    c = reader.models
    cups = casting_cups(found_cups(reading.matches), c.layout, c.scale, c.cups)
    free = cv2.bitwise_not(coverage(reading.matches, reader.bank, c.view.shape, reader.bank.pad))
    h, w = c.view.shape
    fg = ev.fg[ev.pad : ev.pad + h, ev.pad : ev.pad + w]
    return ev.features, ev.texture, rect, free, fg, cups


def test_a_frame_judged_again_under_another_light_takes_its_maps_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``judge`` and ``under`` of one frame shrink its features, texture and picture and
    compare its free pixels once (main: again for each ``under``), and judge as a fresh test
    does."""
    calibration = bench_calibration(SCENE)
    test = BoardReader(calibration)._occlusion
    f, ncc, rect, free, fg, cups = judged_inputs(BoardReader(calibration), "12b-move")
    shrunk = {"n": 0}
    shrink = occlusion.shrink

    def counted(image: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
        shrunk["n"] += 1
        return shrink(image, shape)

    judged = test.judge(f, ncc, rect, free, fg, cups)
    again = [test.under(None, judged, f, ncc, rect, free, cups)]  # (the sheen worked out: once)
    monkeypatch.setattr(occlusion, "shrink", counted)
    again += [test.under(None, judged, f, ncc, rect, free, cups) for _ in range(2)]
    assert shrunk["n"] == 0
    monkeypatch.setattr(occlusion, "shrink", shrink)
    fresh = BoardReader(calibration)._occlusion
    judged_afresh = fresh.judge(f, ncc, rect, free, fg, cups)
    assert judged_afresh == judged
    assert again == [fresh.under(None, judged, f, ncc, rect, free, cups)] * 3


def test_the_occlusion_maps_of_one_frame_never_serve_another() -> None:
    """A new frame, or the same frame with other pixels free of cups, is judged as a fresh
    test judges it, not with the maps kept from the frame before."""
    calibration = bench_calibration(SCENE)
    reader = BoardReader(calibration)
    test: OcclusionTest = reader._occlusion
    first = judged_inputs(reader, "06b-move")
    second = judged_inputs(reader, "12b-move")
    test.judge(*first)
    assert test.judge(*second) == BoardReader(calibration)._occlusion.judge(*second)
    f, ncc, rect, free, fg, cups = second
    other = free.copy()
    other[100:180, 100:180] = 0  # a hand's worth fewer free pixels on the same frame
    judged = test.judge(f, ncc, rect, free, fg, cups)
    fresh = BoardReader(calibration)._occlusion
    assert test.under(None, judged, f, ncc, rect, other, cups) == fresh.under(
        None, judged, f, ncc, rect, other, cups
    )
    assert test.under(None, judged, f, ncc, rect, other, cups) != test.under(
        None, judged, f, ncc, rect, free, cups
    )


def test_a_learning_step_that_moves_no_colour_keeps_the_pixel_model_and_its_tables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Learning from bench-08's frame 06b (pale cups on maple, the calibration's light) moves
    neither colour's Gaussian: the model in use stays, with the lookup tables it made (main: a
    copy of it, which made them again, a third of the step's CPU). What is learned, and what
    is read after, are those of the step that made the copy."""
    scene, name = "bench-08", "06b-move"

    def step(reader: BoardReader) -> None:
        image = bench_frame(scene, name)
        reading = reader.read_details(image)
        tops = {row: top for row, top in enumerate(reading.observation.tops().values()) if top is not None}
        Learner(reader).learn(label(reader.rectified(image), tops, reading.observation, fits=reading.fits))

    kept = BoardReader(bench_calibration(scene))
    before = kept.models.pixels
    step(kept)
    assert kept.models.pixels is before
    learned_pixels = learning._learned_pixels

    def copied(*args: object, **kwargs: object) -> PixelModel:
        return dataclasses.replace(learned_pixels(*args, **kwargs))  # type: ignore[arg-type]

    monkeypatch.setattr(learning, "_learned_pixels", copied)
    remade = BoardReader(bench_calibration(scene))
    step(remade)
    assert remade.models.pixels is not before
    assert json.dumps(kept.calibration.to_json()) == json.dumps(remade.calibration.to_json())
    image = bench_frame(scene, "10b-move")
    np.testing.assert_array_equal(kept.read(image).probabilities, remade.read(image).probabilities)
