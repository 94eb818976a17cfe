"""The pixel models a reader kept by their values (``pixels.KeptModels``): the occlusion test's
model, made again at every ``BoardReader.adopt`` (a learning step), is the one made before when
its values are the same, with the lookup tables that one made; a model whose values changed is
its own, and no more than ``MODELS_KEPT`` are kept."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from companion.vision.calibration import Adaptation, Calibration
from companion.vision.pixels import MODELS_KEPT, Gaussian, KeptModels, PixelModel
from companion.vision.reader import BoardReader
from tests.shared_calibrations import bench_calibration


def copy(model: PixelModel) -> PixelModel:
    """An equal model of its own: new arrays, no tables made."""
    return PixelModel.from_json(model.to_json())


def moved(model: PixelModel, by: float) -> PixelModel:
    """``model`` with its light colour's mean moved by ``by`` in brightness."""
    light = Gaussian(model.light.mean + np.array([by, 0.0, 0.0]), model.light.cov)
    return replace(model, light=light)


def learned(calibration: Calibration, pixels: PixelModel) -> Calibration:
    """``calibration`` having learned ``pixels`` and nothing else."""
    taught = Adaptation(cups=calibration.cups, pixels=pixels, background=calibration.background, frames=1)
    return replace(calibration, learned=taught)


def test_a_model_with_the_same_values_is_the_one_kept_with_its_tables() -> None:
    first = copy(bench_calibration("bench-08").pixels)
    kept = KeptModels()
    assert kept.same(first) is first
    first.colour_fg(np.zeros((2, 2, 3), np.float32))  # its table made
    again = copy(first)
    assert again is not first and again.values() == first.values()
    assert kept.same(again) is first
    assert "_cup_table" in first.__dict__ and "_cup_table" not in again.__dict__


def test_a_model_whose_values_changed_is_its_own() -> None:
    model = bench_calibration("bench-08").pixels
    kept = KeptModels()
    kept.same(model)
    for other in (
        moved(model, 0.01),
        replace(model, left_out=(True, False)),
        replace(model, levelled=None),
        replace(model, chroma_sigma=model.chroma_sigma * 1.1),
    ):
        assert other.values() != model.values()
        assert KeptModels().same(other) is other
        assert kept.same(other) is other


def test_no_more_than_models_kept_are_kept_the_least_lately_used_dropped() -> None:
    model = bench_calibration("bench-08").pixels
    kept = KeptModels()
    models = [moved(model, 0.01 * step) for step in range(MODELS_KEPT + 1)]
    for other in models:
        kept.same(other)
    assert len(kept) == MODELS_KEPT
    assert kept.same(copy(models[0])) is not models[0]  # dropped: the oldest
    assert kept.same(copy(models[-1])) is models[-1]
    kept.same(copy(models[-1]))  # used lately: kept over the others
    for step in range(MODELS_KEPT + 1, 2 * MODELS_KEPT):
        kept.same(moved(model, 0.01 * step))
    assert kept.same(copy(models[-1])) is models[-1]
    assert len(kept) == MODELS_KEPT


def test_the_occlusion_tests_model_swapped_back_is_made_once_across_learning_steps() -> None:
    """A reader that learned bench-03's pale colour nearer the wood judges occlusion with the
    calibration's (``no_nearer_wood``): a model of the test's own. Adopting what was learned
    again (a learning step that moved no colour: an equal model, a new object) keeps that model
    and its table; a colour learned further makes another. A reader of its own keeps its own."""
    calibration = bench_calibration("bench-03")
    calibrated = calibration.pixels
    pixels = replace(calibrated, light=Gaussian(calibrated.light.mean * 0.65, calibrated.light.cov))
    reader = BoardReader(learned(calibration, pixels))
    first = reader._occlusion.pixels
    assert first is not pixels and first.light is calibrated.light
    reader.adopt(learned(calibration, copy(pixels)))
    assert reader._occlusion.pixels is first
    dark = Gaussian(pixels.dark.mean * 1.1, pixels.dark.cov)
    reader.adopt(learned(calibration, replace(pixels, dark=dark)))
    assert reader._occlusion.pixels is not first
    assert reader._occlusion.pixels.dark is dark
    assert BoardReader(learned(calibration, pixels))._occlusion.pixels is not first


def test_the_cup_table_alone_is_the_tables_first_with_or_without_levelled_colours() -> None:
    """The occlusion test looks up cup versus board alone (``colour_fg``): a levelled model
    makes that table without the colour vote's, the same to the bit as both made together."""
    model = bench_calibration("bench-08").pixels
    assert model.levelled is not None
    for own in (copy(model), replace(copy(model), levelled=None)):
        alone = replace(own)  # the same values, nothing made yet
        alone.colour_fg(np.zeros((2, 2, 3), np.float32))
        assert ("_tables" in alone.__dict__) == (own.levelled is None)
        np.testing.assert_array_equal(alone._cup_table, own._tables[0])
