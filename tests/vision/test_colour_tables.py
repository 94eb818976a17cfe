"""The colour lookup tables (``PixelModel._tables``), rebuilt at every learning step that moves
the colour models: cup versus board worked out on the fine grid alone (``fine_grid_points``),
the same table to the bit as from the whole grid's densities."""

from __future__ import annotations

import numpy as np

from companion.vision import pixels
from tests.shared_calibrations import bench_calibration


def test_cup_versus_board_from_the_fine_grid_alone_is_the_whole_grids() -> None:
    """bench-08's colour models (levelled: the plain ones serve cup versus board alone). The
    table as it was made before, the plain colours' densities over the whole grid, kept here."""
    model = bench_calibration("bench-08").pixels
    assert model.levelled is not None
    grid, shape = pixels.table_grid(), pixels.table_shape()
    fine = slice(pixels.TABLE_Q_OUTER[0], pixels.TABLE_Q_OUTER[0] + pixels.TABLE_Q[1])
    light, dark = (g.log_density(grid).reshape(*shape, -1)[:, fine, fine] for g in (model.light, model.dark))
    # (private: the table's making step by step, against the way it was made before)
    fg = model._cup_versus_board(light[..., 0], dark[..., 0], grid.reshape(*shape, -1)[:, fine, fine])
    stretched = pixels._FINE_Q - fine.start
    wide = pixels.CLIP_FG - pixels.TEXTURE_CLIP[0]
    expected = np.clip(fg[:, stretched][:, :, stretched].ravel(), -wide, wide).astype(np.float32)
    assert np.array_equal(model._tables[0], expected)
    assert len(pixels.fine_grid_points()) % pixels.FINE_BLOCK == 0
