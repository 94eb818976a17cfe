"""Cup silhouettes drawn many at a time (``templates.draw_together``): calibration draws
thousands (each reference cup at some twenty radii, twice or four times), and each must be the
one ``draw_at`` draws alone, to the bit, or calibration would learn other sizes."""

from __future__ import annotations

import numpy as np

from companion.vision.cups import cross_sections
from companion.vision.geometry import RectifiedView
from companion.vision.templates import DrawnCup, Silhouettes, draw_at, frame_around


def test_silhouettes_drawn_together_are_each_the_one_drawn_alone(setup_for, rng):
    calibration = setup_for(2).calibration
    view = RectifiedView(calibration.layout, calibration.scale)
    camera, shape = calibration.camera.centre, calibration.cups.shape
    cups: list[DrawnCup] = [
        (int(row), float(radius), float(height), shape, None)
        for row, radius, height in zip(
            rng.integers(0, 16, 40), rng.uniform(6.0, 28.0, 40), rng.uniform(20.0, 55.0, 40), strict=True
        )
    ]
    together = Silhouettes(calibration.layout, view, camera, len(cups)).drawn(cups)
    assert len({mask.shape for _, _, mask in together}) < len(cups)  # some share a canvas
    for (top, left, mask), (row, radius, height, _, _) in zip(together, cups, strict=True):
        centre = np.array(calibration.layout.square_centre(row))
        sections = cross_sections(centre, radius, height, shape, camera)
        frame = frame_around(view, centre, [sections])
        assert (top, left, *mask.shape) == frame
        assert mask.dtype == np.float32 and np.array_equal(mask, draw_at(view, frame, sections))
