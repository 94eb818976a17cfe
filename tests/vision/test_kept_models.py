"""What a reader keeps of the models it made (``kept.Kept``): the occlusion test's pixel model,
made again at every ``BoardReader.adopt`` (a learning step), is the one made before when its
values are the same (``PixelModel.kept_in``), with the lookup tables that one made; a model
whose values changed is its own; and the boards compared with (``BoardReader._compared``) are
the ones made before for the same picture. No more than a few are kept. What learning never
changes (the markers' regions) stays through it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from companion.vision.calibration import Adaptation, Calibration
from companion.vision.kept import Kept
from companion.vision.occlusion import shrink
from companion.vision.pixels import MODELS_KEPT, Gaussian, PixelModel, blurred, chroma, log_image
from companion.vision.reader import BoardReader
from tests.shared_calibrations import bench_calibration


def copy(model: PixelModel) -> PixelModel:
    """An equal model of its own: new arrays, no tables made."""
    return PixelModel.from_json(model.to_json())


def moved(model: PixelModel, by: float) -> PixelModel:
    """``model`` with its light colour's mean moved by ``by`` in brightness."""
    light = Gaussian(model.light.mean + np.array([by, 0.0, 0.0]), model.light.cov)
    return replace(model, light=light)


def learned(
    calibration: Calibration, pixels: PixelModel, background: np.ndarray | None = None
) -> Calibration:
    """``calibration`` having learned ``pixels`` (and ``background``, its own if None)."""
    board = calibration.background if background is None else background
    taught = Adaptation(cups=calibration.cups, pixels=pixels, background=board, frames=1)
    return replace(calibration, learned=taught)


def test_kept_holds_the_latest_asked_for_up_to_its_size() -> None:
    kept: Kept[str, list[str]] = Kept(2)
    a = kept.get("a", lambda: ["a"])
    assert kept.get("a", lambda: ["made again"]) is a
    b = kept.get("b", lambda: ["b"])
    kept.get("a", lambda: ["made again"])  # asked for lately: "b" is the least lately
    kept.get("c", lambda: ["c"])
    assert len(kept) == 2
    assert kept.get("a", lambda: ["made again"]) is a
    assert kept.get("b", lambda: ["made again"]) is not b  # dropped


def test_a_model_with_the_same_values_is_the_one_kept_with_its_tables() -> None:
    first = copy(bench_calibration("bench-08").pixels)
    kept: Kept[bytes, PixelModel] = Kept(MODELS_KEPT)
    assert first.kept_in(kept) is first
    first.colour_fg(np.zeros((2, 2, 3), np.float32))  # its table made
    again = copy(first)
    assert again is not first and again.values() == first.values()
    assert again.kept_in(kept) is first
    assert "_cup_table" in first.__dict__ and "_cup_table" not in again.__dict__


def test_a_model_whose_values_changed_is_its_own() -> None:
    model = bench_calibration("bench-08").pixels
    kept: Kept[bytes, PixelModel] = Kept(MODELS_KEPT)
    model.kept_in(kept)
    for other in (
        moved(model, 0.01),
        replace(model, left_out=(True, False)),
        replace(model, levelled=None),
        replace(model, chroma_sigma=model.chroma_sigma * 1.1),
        replace(model, texture=model.texture + 0.1),
    ):
        assert other.values() != model.values()
        assert other.kept_in(kept) is other


def test_no_more_models_than_models_kept_are_kept() -> None:
    model = bench_calibration("bench-08").pixels
    kept: Kept[bytes, PixelModel] = Kept(MODELS_KEPT)
    models = [moved(model, 0.01 * step) for step in range(MODELS_KEPT + 1)]
    for other in models:
        other.kept_in(kept)
    assert len(kept) == MODELS_KEPT
    assert copy(models[0]).kept_in(kept) is not models[0]  # dropped: the oldest
    assert copy(models[-1]).kept_in(kept) is models[-1]


def test_the_occlusion_tests_model_swapped_back_is_made_once_across_learning_steps() -> None:
    """A reader that learned bench-03's pale colour nearer the wood judges occlusion with the
    calibration's (``no_nearer_wood``): a model of the test's own. Adopting what was learned
    again (a learning step that moved no colour: an equal model, a new object) keeps that model
    and its table; a colour learned further makes another. A reader of its own keeps its own."""
    calibration = bench_calibration("bench-03")
    calibrated = calibration.pixels
    pixels = replace(calibrated, light=Gaussian(calibrated.light.mean * 0.65, calibrated.light.cov))
    reader = BoardReader(learned(calibration, pixels))
    first = reader.occlusion.pixels
    assert first is not pixels and first.light is calibrated.light
    reader.adopt(learned(calibration, copy(pixels)))
    assert reader.occlusion.pixels is first
    dark = Gaussian(pixels.dark.mean * 1.1, pixels.dark.cov)
    reader.adopt(learned(calibration, replace(pixels, dark=dark)))
    assert reader.occlusion.pixels is not first
    assert reader.occlusion.pixels.dark is dark
    assert BoardReader(learned(calibration, pixels)).occlusion.pixels is not first


def test_the_cup_table_alone_is_the_tables_first_with_or_without_levelled_colours() -> None:
    """The occlusion test looks up cup versus board alone (``colour_fg``): a levelled model
    makes that table without the colour vote's, the same to the bit as both made together."""
    model = bench_calibration("bench-08").pixels
    assert model.levelled is not None
    for own in (copy(model), replace(copy(model), levelled=None)):
        alone = replace(own)  # the same values, nothing made yet
        alone.colour_fg(np.zeros((2, 2, 3), np.float32))
        assert ("_tables" in alone.__dict__) == (own.levelled is None)
        np.testing.assert_array_equal(alone._cup_table, own._tables[0])  # (private: which tables were made)


def test_the_board_compared_with_is_made_once_for_the_same_picture() -> None:
    """The calibration's own board serves the reader through every learning step, and the board
    learned serves again when adopted again; a new picture is compared anew."""
    calibration = bench_calibration("bench-08")
    reader = BoardReader(calibration)
    own = reader.background
    board = calibration.background.copy()
    board[0, 0] ^= 1
    reader.adopt(learned(calibration, calibration.pixels, board))
    relearned = reader.background
    assert relearned is not own and relearned.image is board
    reader.adopt(learned(calibration, calibration.pixels, board))
    assert reader.background is relearned
    reader.adopt(calibration)
    assert reader.background is own
    reader.adopt(learned(calibration, calibration.pixels, calibration.background.copy()))
    assert reader.background is not own


def test_the_marker_regions_stay_through_learning_and_the_occlusion_test_takes_the_boards_log() -> None:
    """Learning moves neither the layout nor the markers: their regions, found once, stay. The
    occlusion test's look of the empty board is the board's own log (``Background.log``),
    shrunk: the same numbers as worked out again from the picture."""
    calibration = bench_calibration("bench-08")
    reader = BoardReader(calibration)
    regions = reader._marker_masks  # (private: the point is that the reader did not find them again)
    assert regions
    board = calibration.background.copy()
    board[0, 0] ^= 1
    reader.adopt(learned(calibration, calibration.pixels, board))
    assert reader._marker_masks is regions
    test = reader.occlusion
    again = chroma(shrink(log_image(blurred(board, calibration.scale)), test.shape))
    assert np.array_equal(test._empty_look, again)  # (private: the test's own look, to the bit)
