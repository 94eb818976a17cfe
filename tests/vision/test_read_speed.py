"""A read's work cut without changing what it reads (issue 11: a 640x480 read within 15 ms).

Each saving here works out the same numbers another way or once instead of several times: the
edge maps only where the edge templates read them, the frame's grey once per read, and the
occlusion map's view of a frame once for its judgement and each judgement again under another
light; and a step of learning that moves no colour keeps the pixel model in use with its
lookup tables. Each is checked against the plain computation on recorded frames of the
committed bench (bench-03, natural cups on walnut, its lamp moved from frame 10 on; bench-08),
and each cache against going stale: the private steps called here are those very steps and
caches, which no user of the reader asks for."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable

import cv2
import numpy as np
import pytest

from companion.vision import learning, matching, occlusion, pixels
from companion.vision.edges import BaseFits, edge_maps, rim_scores
from companion.vision.learning import Learner, label
from companion.vision.matching import Evidence, Seeds, SquareMatch, coverage, evidence
from companion.vision.occlusion import OcclusionTest
from companion.vision.pixels import Gaussian, PixelModel, grey
from companion.vision.reader import BoardReader
from companion.vision.shadows import CastingCup, casting_cups, found_cups
from companion.vision.templates import SquareTemplates, TemplateBank
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
    test = BoardReader(calibration).occlusion
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
    fresh = BoardReader(calibration).occlusion
    judged_afresh = fresh.judge(f, ncc, rect, free, fg, cups)
    assert judged_afresh == judged
    assert again == [fresh.under(None, judged, f, ncc, rect, free, cups)] * 3


def test_the_occlusion_maps_of_one_frame_never_serve_another() -> None:
    """A new frame, or the same frame with other pixels free of cups, is judged as a fresh
    test judges it, not with the maps kept from the frame before."""
    calibration = bench_calibration(SCENE)
    reader = BoardReader(calibration)
    test: OcclusionTest = reader.occlusion
    first = judged_inputs(reader, "06b-move")
    second = judged_inputs(reader, "12b-move")
    test.judge(*first)
    assert test.judge(*second) == BoardReader(calibration).occlusion.judge(*second)
    f, ncc, rect, free, fg, cups = second
    other = free.copy()
    other[100:180, 100:180] = 0  # a hand's worth fewer free pixels on the same frame
    judged = test.judge(f, ncc, rect, free, fg, cups)
    fresh = BoardReader(calibration).occlusion
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
    # (private: the step made cheaper, against its plain form)
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


# -- speed17: the edge templates' correlations, the apart matches, unlike share, medians ---------


def plain_best(
    field: np.ndarray, placed: tuple, down: int, right: int, reach: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each template's best ``cv2.matchTemplate`` score and shift, one window a size (main's)."""
    found = []
    for top, left, template in placed:
        y, x = top + down - reach, left + right - reach
        h, w = template.shape
        window = field[y : y + h + 2 * reach, x : x + w + 2 * reach]
        _, score, _, (bx, by) = cv2.minMaxLoc(cv2.matchTemplate(window, template, cv2.TM_CCORR))
        found.append((score, by - reach, bx - reach))
    return np.array([s for s, _, _ in found]), np.array([(dy, dx) for _, dy, dx in found]).reshape(-1, 2)


@pytest.mark.parametrize("name", ["06b-move", "13b-move"])
def test_every_square_s_bases_and_rims_correlate_as_one_window_a_size_does(name: str) -> None:
    """``ShiftCorrelator`` (one DFT of the window holding every size's, each template's
    spectrum kept) scores every base and rim of every square as ``matchTemplate`` on each
    size's own window does, to the bit, and finds each best at the same shift: bench-03's
    boards under the calibration's lamp and under the moved one (13b), each rim at shifts
    across its search."""
    reader = BoardReader(bench_calibration(SCENE))
    bank = reader.edges
    assert bank is not None
    _, ev = frame_evidence(reader, name)
    maps = edge_maps(ev.features, bank.pad, bank.reads)
    for row in range(len(bank.base)):
        got = bank.base_correlator(row).best(maps.distance, maps.pad, maps.pad)
        want = plain_best(maps.distance, bank.base[row], maps.pad, maps.pad, bank.base_reach)
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(a, b)
        rims = bank.rims[row]
        for dy, dx in [(0, 0), (-4, 3), (5, -5), (2, 6)]:
            h, w = rims.directions.shape[:2]
            y, x = rims.top + maps.pad, rims.left + maps.pad
            patch = maps.strength[y : y + h, x : x + w] * rims.directions
            oriented = cv2.transform(patch, np.ones((1, 3), np.float32))
            want_rim = plain_best(oriented, rims.rings, dy - rims.top, dx - rims.left, bank.rim_reach)[0]
            got_rim = rim_scores(maps.strength, maps.pad, rims, dy, dx, bank.rim_reach)
            np.testing.assert_array_equal(got_rim, want_rim)


def test_the_correlators_are_the_bank_s_own_and_its_reach_s() -> None:
    """Made once per bank (a new calibration, learning or a board found moved makes a new
    bank, with its own), and a rim's per reach: one for another reach scores as
    ``matchTemplate`` at that reach does."""
    reader = BoardReader(bench_calibration(SCENE))
    bank = reader.edges
    assert bank is not None
    assert bank.base_correlator(5) is bank.base_correlator(5)
    other = BoardReader(bench_calibration("bench-08")).edges
    assert other is not None and other.base_correlator(5) is not bank.base_correlator(5)
    rims = bank.rims[5]
    assert rims.correlator(bank.rim_reach) is rims.correlator(bank.rim_reach)
    wider = rims.correlator(bank.rim_reach + 2)
    assert wider.reach == bank.rim_reach + 2
    field = np.random.default_rng(3).random((rims.directions.shape[0], rims.directions.shape[1]), np.float32)
    for a, b in zip(
        wider.best(field, 1 - rims.top, -2 - rims.left),
        plain_best(field, rims.rings, 1 - rims.top, -2 - rims.left, bank.rim_reach + 2),
        strict=True,
    ):
        np.testing.assert_array_equal(a, b)


def plain_unlike_share(
    features: np.ndarray, match: SquareMatch, sq: SquareTemplates, model: Gaussian
) -> float:
    """``occlusion.unlike_share`` by a boolean mask of the whole view: the silhouette drawn on
    a canvas of the view (cut where it leaves it) and the pixels under it taken row by row."""
    if match.sizes[match.size - 1] <= 0:
        return 0.0
    h, w = features.shape[:2]
    canvas = np.zeros((h + 200, w + 200), bool)  # (a margin for a silhouette off the view)
    mask = sq.masks[match.colour, match.size - 1] > 0
    y, x = sq.top + match.dy + 100, sq.left + match.dx + 100
    canvas[y : y + mask.shape[0], x : x + mask.shape[1]] = mask
    seen = features[canvas[100 : 100 + h, 100 : 100 + w]]
    if not len(seen):
        return 0.0
    far = model.distance2(seen.reshape(-1, 1, 3)) > occlusion.UNLIKE_DISTANCE2
    return float(np.count_nonzero(far)) / len(seen)


def test_unlike_share_gathers_the_silhouette_s_pixels_as_a_boolean_mask_does() -> None:
    """Every size of either colour on every square of a bench-03 board, at shifts inside the
    view and reaching off it (the mask's way there): the same share."""
    reader = BoardReader(bench_calibration(SCENE))
    _, ev = frame_evidence(reader, "13b-move")
    models = (reader.models.pixels.light, reader.models.pixels.dark)
    shares = []
    for sq in reader.bank.squares:
        for colour in (0, 1):
            for size in range(1, sq.full.shape[1] + 1):
                half = sq.full.shape[3] // 2  # (then the silhouette's right half off the view)
                for dy, dx in [(0, 0), (3, -2), (-sq.top - 5, 0), (0, ev.features.shape[1] - sq.left - half)]:
                    match = SquareMatch(np.ones(sq.full.shape[1]), 0.0, colour, size, dy, dx)
                    got = occlusion.unlike_share(ev.features, match, sq, models[colour])
                    assert got == plain_unlike_share(ev.features, match, sq, models[colour])
                    shares.append(got)
    assert 0.0 < np.mean(shares) < 1.0  # the shares tell pixels apart


def plain_explain_away(ev: Evidence, box: tuple[int, int, int, int], spots: list) -> list:
    """``matching._explain_away`` as main had it: each spot's evidence read after the spots
    before it were explained away, ``np.minimum`` under the mask, the positive part set to 0."""
    y0, x0, y1, x1 = box
    saved = []
    for y, x, mask in spots:
        if y >= y1 or x >= x1 or y + mask.shape[0] <= y0 or x + mask.shape[1] <= x0:
            continue
        window = (slice(y, y + mask.shape[0]), slice(x, x + mask.shape[1]))
        changed = mask & (ev.fg[window] > 0)
        if not changed.any():
            continue
        saved.append((window, ev.fg[window].copy(), ev.positive[window].copy(), changed))
        np.minimum(ev.fg[window], 0.0, out=ev.fg[window], where=mask)
        ev.positive[window][mask] = 0.0
    return saved


def cups_found(name: str) -> tuple[Evidence, TemplateBank, list[SquareMatch], list[int]]:
    """Frame ``name``'s evidence, the bank, its matches and the rows where a cup was found (4
    or more: bench-03's crowded boards)."""
    reader = BoardReader(bench_calibration(SCENE))
    _, ev = frame_evidence(reader, name)
    matches = matching.match_all(ev, reader.bank)
    found = [row for row, m in enumerate(matches) if m.sizes[m.size - 1] > 0]
    assert len(found) >= 4
    return ev, reader.bank, matches, found


def test_cups_explained_away_leave_the_evidence_and_its_changes_as_before() -> None:
    """bench-05's crowded board (cups leaning into their neighbours' searches): each square's
    neighbours explained away leave the evidence maps as main's way left them, note the same
    pixels changed (their union), and put back give the maps as they were; ``match_apart``
    then matches the same."""
    ev, bank, matches, found = cups_found("13b-move")
    # (private: the step made cheaper, against its plain form)
    spots = {row: matching._spot(ev, bank.squares[row], matches[row]) for row in found}
    plain = {
        row: (
            sq.top + ev.pad + m.dy,
            sq.left + ev.pad + m.dx,
            sq.full[m.colour, m.size - 1] > matching.EXPLAINED,
        )
        for row, m, sq in ((row, matches[row], bank.squares[row]) for row in found)
    }
    overlapping = 0
    for row in found:
        box = matching._search_box(ev, bank, row)
        a = dataclasses.replace(ev, fg=ev.fg.copy(), positive=ev.positive.copy())
        b = dataclasses.replace(ev, fg=ev.fg.copy(), positive=ev.positive.copy())
        got = matching._explain_away(a, box, [s for r, s in spots.items() if r != row and s.changed.any()])
        want = plain_explain_away(b, box, [s for r, s in plain.items() if r != row])
        np.testing.assert_array_equal(a.fg, b.fg)
        np.testing.assert_array_equal(a.positive, b.positive)
        union = np.zeros(ev.fg.shape, bool)
        for window, _, _, changed in got:
            union[window] |= changed
        plain_union = np.zeros(ev.fg.shape, bool)
        for window, _, _, changed in want:
            plain_union[window] |= changed
        np.testing.assert_array_equal(union, plain_union)
        overlapping += len(want)
        for window, fg, positive, _ in reversed(got):
            a.fg[window], a.positive[window] = fg, positive
        np.testing.assert_array_equal(a.fg, ev.fg)
        np.testing.assert_array_equal(a.positive, ev.positive)
    assert overlapping > 0


@pytest.mark.parametrize("n", [1, 2, 7, 3428, 3429])
def test_the_light_field_s_medians_are_numpy_s(n: int) -> None:
    """``pixels.median_rows`` (one partition, the lower middle value the largest below it)
    gives ``np.median``'s values, ties and even counts included."""
    rng = np.random.default_rng(n)
    rows = np.round(rng.normal(size=(3, n)), 1)  # (rounded: ties)
    np.testing.assert_array_equal(pixels.median_rows(rows.copy()), np.median(rows, axis=1))


@pytest.mark.parametrize("name", ["02a-hand", "13b-move"])
def test_the_light_field_s_band_samples_are_those_indexing_gathers(name: str) -> None:
    """``Background.band_values`` (``take`` along the rows) gives, byte for byte, the rows that
    indexing the frame's log difference with ``band_sample`` gave, as float64."""
    reader = BoardReader(bench_calibration(SCENE))
    background = reader.background
    rect = reader.rectified(bench_frame(SCENE, name))
    diff = cv2.subtract(pixels.log_image(pixels.blurred(rect, background.scale)), background.log)
    got = background.band_values(diff)
    want = diff.reshape(-1, 3)[background.band_sample].astype(np.float64)
    assert got.dtype == want.dtype and got.shape == want.shape == (len(background.band_sample), 3)
    assert got.tobytes() == want.tobytes()


# -- speed19: the same numbers with less work (whole sums, lookups, the colour map, the canvas) ---


def plain_texture(background: pixels.Background, gray: np.ndarray) -> np.ndarray:
    """The texture correlation as main worked it out (box sums of float copies)."""
    window = pixels.texture_window(background.scale)
    g = gray.astype(np.float32)
    mean = cv2.boxFilter(g, cv2.CV_32F, (window, window), borderType=cv2.BORDER_REFLECT)
    var = cv2.boxFilter(g * g, cv2.CV_32F, (window, window), borderType=cv2.BORDER_REFLECT) - mean * mean
    cross = cv2.boxFilter(g * background.gray, cv2.CV_32F, (window, window), borderType=cv2.BORDER_REFLECT)
    cross = cross - mean * background.gray_mean
    return cross / (np.sqrt(np.maximum(var, np.float32(pixels.NOISE_VAR))) * background.gray_dev)


@pytest.mark.parametrize("name", ["02a-hand", "13b-move"])
def test_the_texture_from_whole_sums_is_the_float_boxes(name: str) -> None:
    """``Background._texture`` (its box sums of the grey, its square and its product with the
    empty board's taken as integers, ``pixels.integer_box``) gives, byte for byte, the
    correlation the float copies' box sums gave: bench-03 with a hand over it and under its
    moved lamp."""
    reader = BoardReader(bench_calibration(SCENE))
    gray = grey(reader.rectified(bench_frame(SCENE, name)))
    # (private: the step made cheaper, against its plain form)
    got = reader.background._texture(gray)
    assert got.tobytes() == plain_texture(reader.background, gray).tobytes()


@pytest.mark.parametrize("window", [1, 3, 7, 15, 17])
def test_integer_box_sums_are_the_float_boxes(window: int) -> None:
    """Of uint8 grey levels, their squares and uint16 products of two, ``integer_box`` is the
    float copies' ``boxFilter`` to the bit, at every window the reader's views take (7 at
    640x480, 15 at 1280x960) and beyond, where sums could reach 2^24 (17: summed as floats)."""
    rng = np.random.default_rng(window)
    image = rng.integers(0, 256, (61, 83), dtype=np.uint8)
    image[:9, :9] = 255  # (the largest sums)
    other = rng.integers(0, 256, image.shape, dtype=np.uint8)
    product = np.multiply(image, other, dtype=np.uint16)
    plain = image.astype(np.float32)
    for got, want in [
        (pixels.integer_box(image, window), plain),
        (pixels.integer_box(image, window, squared=True), plain * plain),
        (pixels.integer_box(product, window), plain * other.astype(np.float32)),
    ]:
        box = cv2.boxFilter(want, cv2.CV_32F, (window, window), borderType=cv2.BORDER_REFLECT)
        assert got.dtype == np.float32 and got.tobytes() == box.tobytes()


@pytest.mark.parametrize("window", [7, 15])
def test_a_whole_sum_over_its_window_s_area_rounds_as_opencv_s_double_product(window: int) -> None:
    """Every sum a window's box can hold (squares and products of grey levels: up to 255² a
    pixel) divided in float32 by the window's area is OpenCV's double product by its inverse
    rounded to float32: the argument of ``integer_box``, checked for each sum."""
    sums = np.arange(window * window * 255**2 + 1)
    want = (sums.astype(np.float64) * (1.0 / (window * window))).astype(np.float32)
    got = np.divide(sums.astype(np.float32), np.float32(window * window))
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("name", ["02a-hand", "13b-move"])
def test_lookups_that_wrap_are_the_checked_ones(name: str) -> None:
    """``pixels.look_up`` (``take`` wrapping, not checking, the index) gives the checked
    ``take``'s values: every index ``table_index`` gives lies in the table, features far beyond
    its grid on every axis included (its first and last points)."""
    reader = BoardReader(bench_calibration(SCENE))
    f, _ = reader.background.features(reader.rectified(bench_frame(SCENE, name)))
    far = np.array([[[-1e6] * 3], [[1e6] * 3], [[-1e6, 1e6, 0.0]], [[0.0] * 3]], np.float32)
    # (private: the tables looked up, against the checked lookup)
    for table in reader.models.pixels._tables:
        for features in (f, far):
            index = pixels.table_index(features)
            assert index.min() >= 0 and index.max() < table.size
            assert pixels.look_up(table, index).tobytes() == table.take(index).tobytes()
    assert pixels.table_index(far)[:2].ravel().tolist() == [0, reader.models.pixels._tables[0].size - 1]


def test_the_colour_vote_over_its_part_lies_on_zeros() -> None:
    """``pixels.on_view``: a part's map on the whole view, 0 elsewhere, as a map of zeros with
    the part copied in; the colour vote of a read so (``PixelModel.log_odds``) and its texture
    table the same, made once a model."""
    reader = BoardReader(bench_calibration(SCENE))
    rect = reader.rectified(bench_frame(SCENE, "13b-move"))
    f, ncc = reader.background.features(rect)
    model = reader.models.pixels
    part = reader.bank.reach()
    _, colour = model.log_odds(f, ncc, reader.background.level, part)
    want = np.zeros(f.shape[:2], np.float32)
    levelled = cv2.add(f[part], reader.background.level[part])
    # (private: the table looked up, against the vote)
    want[part] = model._tables[1].take(pixels.table_index(levelled))
    assert colour.tobytes() == want.tobytes() and 0 < np.count_nonzero(colour) < colour.size
    values = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    parts = [(slice(2, 5), slice(0, 4)), (slice(0, 3), slice(6, 10)), (slice(7, None), slice(6, 99))]
    for rows, cols in parts:
        plain = np.zeros((10, 10), np.float32)
        plain[rows, cols] = values
        assert pixels.on_view(values, (rows, cols), (10, 10)).tobytes() == plain.tobytes()
    assert model.texture_lut is model.texture_lut
    assert model.texture_lut[: pixels.TEXTURE_BINS, 0].tolist() == np.float32(model.texture).tolist()
    assert not model.texture_lut[pixels.TEXTURE_BINS :].any()


@pytest.mark.parametrize("n", [1, 2, 7, 2598, 2599])
def test_float32_medians_are_numpy_s(n: int) -> None:
    """``pixels.median_rows`` of float32 rows (the table's chroma around the board, two axes
    side by side: ``surround.Surround.arm_mm2``) gives ``np.median``'s float32 values, ties
    and even counts included."""
    rng = np.random.default_rng(n)
    rows = np.round(rng.normal(size=(2, n)), 2).astype(np.float32)
    got, want = pixels.median_rows(rows.copy()), np.median(rows, axis=1)
    assert got.dtype == want.dtype == np.float32 and got.tobytes() == want.tobytes()


def test_a_correlator_s_canvas_holds_each_window_alone() -> None:
    """A correlator writes each window over one canvas (zeros beyond it): called on one field
    after another, each call scores as on a fresh padded copy (``matchTemplate``), none
    holding anything of the call before."""
    reader = BoardReader(bench_calibration(SCENE))
    bank = reader.edges
    assert bank is not None
    correlator = bank.base_correlator(5)
    # (private: the cache itself is what is checked)
    canvas = correlator._canvas
    rng = np.random.default_rng(5)
    pad = bank.pad
    for name in ["13b-move", "06b-move"]:
        _, ev = frame_evidence(reader, name)
        distance = edge_maps(ev.features, pad, bank.reads).distance
        for field in (distance, rng.random(distance.shape, np.float32), distance):
            got = correlator.best(field, pad, pad)
            want = plain_best(field, bank.base[5], pad, pad, bank.base_reach)
            for a, b in zip(got, want, strict=True):
                np.testing.assert_array_equal(a, b)
    assert correlator._canvas is canvas


def test_bases_inside_larger_ones_are_judged_on_python_ints_as_on_arrays() -> None:
    """``EdgeBank.found`` and ``inside`` take a square's base shifts as Python ints (the reader's
    ``_cup_bases``) and answer as they do for numpy's arrays of them (and as main's gap, numpy's
    difference of the arrays, did), at pairs of shifts across the bases' search, every pair of
    sizes."""
    bank = BoardReader(bench_calibration(SCENE)).edges
    assert bank is not None
    reach = bank.base_reach
    shifts = [(y, x) for y in range(-reach, reach + 1) for x in range(-reach, reach + 1)]
    arrays = [np.array(shift, np.int64) for shift in shifts]
    sizes = len(bank.radii)
    for foot, plain in zip(shifts, arrays, strict=True):
        assert bank.found(foot) == bank.found(plain)
        for around, other in zip(shifts[::7], arrays[::7], strict=True):
            for small in range(sizes - 1):
                for large in range(small + 1, sizes):
                    gap = float(np.hypot(*(np.asarray(plain, float) - np.asarray(other, float))))  # main's
                    want = gap + bank.radii[small] <= bank.radii[large]
                    assert bank.inside(small, foot, large, around) == want
                    assert bank.inside(small, plain, large, other) == want


def plain_match_apart(
    ev: Evidence, bank: TemplateBank, matches: list[SquareMatch], seeds: Callable[[int], Seeds]
) -> list[SquareMatch]:
    """``match_apart`` as main had it: the cups explained away in copies of the maps."""
    found = [row for row, m in enumerate(matches) if m.sizes[m.size - 1] > 0]
    # (private: main's way, step by step, kept to compare with)
    spots = {row: matching._spot(ev, bank.squares[row], matches[row]) for row in found}
    spots = {row: spot for row, spot in spots.items() if spot.changed.any()}
    apart = dataclasses.replace(ev, fg=ev.fg.copy(), positive=ev.positive.copy())
    out = list(matches)
    for row in found:
        others = [spot for other, spot in spots.items() if other != row]
        saved = matching._explain_away(apart, matching._search_box(ev, bank, row), others)
        if saved:
            out[row] = matching.match_square(apart, bank.squares[row], bank.offset, seeds(row))
        for window, fg, positive, _ in reversed(saved):
            apart.fg[window], apart.positive[window] = fg, positive
    return out


def match_bytes(m: SquareMatch) -> tuple[bytes, int, int, int, int, float]:
    """A match as bytes and numbers, to compare two to the bit."""
    return m.sizes.tobytes(), m.colour, m.size, m.dy, m.dx, m.colour_log_odds


@pytest.mark.parametrize("name", ["06b-move", "13b-move"])
def test_cups_matched_apart_in_the_evidence_s_own_maps_leave_them_as_they_were(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``match_apart`` explains the cups away in the read's own maps and puts each window back:
    the matches are those of working on copies (main's), the maps the same to the byte after,
    and after a match that fails too."""
    reader = BoardReader(bench_calibration(SCENE))
    _, ev = frame_evidence(reader, name)
    assert reader.edges is not None
    fits = BaseFits(edge_maps(ev.features, reader.edges.pad), reader.edges)
    first = matching.match_all(ev, reader.bank, fits.seeds)
    fg, positive = ev.fg.tobytes(), ev.positive.tobytes()
    want = plain_match_apart(ev, reader.bank, first, fits.seeds)
    got = matching.match_apart(ev, reader.bank, first, fits.seeds)
    assert sum(a is not b for a, b in zip(got, first, strict=True)) >= 2  # some matched again
    assert [match_bytes(m) for m in got] == [match_bytes(m) for m in want]
    assert ev.fg.tobytes() == fg and ev.positive.tobytes() == positive

    def failing(*args: object, **kwargs: object) -> SquareMatch:
        raise RuntimeError("a match that fails")

    monkeypatch.setattr(matching, "match_square", failing)
    with pytest.raises(RuntimeError):
        matching.match_apart(ev, reader.bank, first, fits.seeds)
    assert ev.fg.tobytes() == fg and ev.positive.tobytes() == positive


# -- speed20: the rims' few shifts by one matrix product -------------------------------------------


@pytest.mark.parametrize("name", ["06b-move", "13b-move"])
def test_a_rim_s_few_shifts_are_scored_by_one_product_as_by_match_template(name: str) -> None:
    """A rim's search of 5 x 5 shifts is scored by one matrix product (``ShiftCorrelator._direct``,
    not by DFTs) and finds every size's best score and shift as ``matchTemplate`` on each
    size's own window does, to the bit: bench-03's rims on every square, at shifts across
    their search, under the calibration's lamp and the moved one, and on a random field."""
    reader = BoardReader(bench_calibration(SCENE))
    bank = reader.edges
    assert bank is not None and bank.rim_reach == 2
    _, ev = frame_evidence(reader, name)
    maps = edge_maps(ev.features, bank.pad, bank.reads)
    rng = np.random.default_rng(11)
    for rims in bank.rims:
        correlator = rims.correlator(bank.rim_reach)
        assert correlator._stack is not None  # the product, not the DFTs
        h, w = rims.directions.shape[:2]
        y, x = rims.top + maps.pad, rims.left + maps.pad
        oriented = cv2.transform(
            maps.strength[y : y + h, x : x + w] * rims.directions, np.ones((1, 3), np.float32)
        )
        noise = rng.random(oriented.shape, np.float32)
        for field in (oriented, noise):
            for dy, dx in [(0, 0), (-4, 3), (5, -5), (2, 6), (-7, -7)]:
                got = correlator.best(field, dy - rims.top, dx - rims.left)
                want = plain_best(field, rims.rings, dy - rims.top, dx - rims.left, bank.rim_reach)
                for a, b in zip(got, want, strict=True):
                    np.testing.assert_array_equal(a, b)


def test_a_cup_s_explained_pixels_are_made_once_a_bank_as_each_read_made_them() -> None:
    """``matching._spot`` takes a silhouette's explained pixels and floor from the bank (made
    on first use, read-only, the same arrays every read) and they are those each read made:
    the silhouette over ``EXPLAINED``, 0 there and +inf elsewhere, for every colour and size."""
    ev, bank, matches, found = cups_found("13b-move")
    for row in found:
        # (private: the cache itself is what is checked)
        first, again = (matching._spot(ev, bank.squares[row], matches[row]) for _ in range(2))
        assert first.floor is again.floor and not first.floor.flags.writeable
    sq = bank.squares[found[0]]
    for colour in (0, 1):
        for size in range(1, sq.full.shape[1] + 1):
            mask, floor = matching._explains(sq, colour, size)
            plain = sq.full[colour, size - 1] > matching.EXPLAINED
            np.testing.assert_array_equal(mask, plain)
            assert floor.dtype == np.float32
            np.testing.assert_array_equal(floor, np.where(plain, np.float32(0.0), np.float32(np.inf)))


@pytest.mark.parametrize("name", ["06b-move", "13b-move"])
def test_neighbourhoods_scored_with_the_templates_a_size_a_row_are_the_plain_products(name: str) -> None:
    """``neighbourhood_scores`` takes the templates a size a row (``SquareTemplates.by_size``)
    and gives the nine windows times the templates as columns (main's product): every square
    of bench-03's boards, both colours, at shifts across the search. OpenBLAS sums in an order
    of its own per processor (to the bit on a Xeon; on an AMD EPYC apart by up to 7.7e-7 of
    the sum of the terms' sizes), so the scores must agree within float32 rounding (1e-5 of
    that sum, room for other processors' kernels); a wrong window or template is off by whole
    pixels' worth."""
    reader = BoardReader(bench_calibration(SCENE))
    _, ev = frame_evidence(reader, name)
    field, row = ev.fg, ev.fg.strides[0]
    reach = reader.bank.offset
    worst = 0.0
    for sq in reader.bank.squares:
        h, w = sq.support.shape
        for colour in (0, 1):
            for dy, dx in [(0, 0), (-reach, reach), (3, -2), (reach, -reach), (-5, 7)]:
                y, x = sq.top + ev.pad + dy, sq.left + ev.pad + dx
                got = matching.neighbourhood_scores(field, sq.by_size[colour], y, x, h, w)
                parts = np.lib.stride_tricks.as_strided(
                    field[y - 1 :, x - 1 :], (3, 3, h, w), (row, 4, row, 4)
                )
                windows = parts.reshape(9, h * w)
                want = windows @ sq.flat[colour]
                terms = np.abs(windows).astype(np.float64) @ np.abs(sq.flat[colour]).astype(np.float64)
                worst = max(worst, float(np.max(np.abs(got - want) / terms)))
    assert worst <= 1e-5, f"scores apart by {worst:.2e} of their terms' sizes"
