"""Cups the wood's own colour (``PixelModel.wood_like``): the occlusion test asks "board or not"
without them, the matcher finds no cup in the wood's own look, and the hand the colour no
longer shows is caught beside the board (``surround.BRIGHTER_LOG``).

On committed frames of the vision bench's bench-37 (``tests/data/woodlike``: dim warm light,
natural cups on pale maple, 640x480; nothing here renders). On main every hand-free board of it
read as covered (420-896 mm² of the margin band) and white cups were read on empty squares."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.vision.pixels import PixelModel
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from companion.vision.surround import ARM_MM2
from tests.shared_calibrations import bench_calibration, frame_read, frame_truth, frames_calibration

WOOD = Path(__file__).resolve().parents[1] / "data" / "woodlike" / "bench-37" / "frames"


def test_the_white_cups_have_the_woods_look() -> None:
    """bench-37's white cups are the wood's colour, its black cups are not; bench-03's white
    cups, the nearest of any other committed board (-1.67 against bench-37's -0.52), are not."""
    assert frames_calibration(WOOD).pixels.wood_like() == (True, False)
    assert bench_calibration("bench-03").pixels.wood_like() == (False, False)


@pytest.mark.parametrize("name", ["02b-move", "16b-move"])
def test_hand_free_boards_read_uncovered_and_right(name: str) -> None:
    """Two hand-free boards (on main 644 and 896 mm² of the band, and white cups read on a3,
    a4, b4 and on a1): not covered, every square read right."""
    _, obs = frame_read(WOOD, name)
    assert not obs.occluded
    truth = frame_truth(WOOD, name)
    assert {sq: top for sq, top in obs.tops().items() if top is not None} == truth


def test_a_hand_holding_a_cup_over_the_margin_is_flagged_by_its_arm() -> None:
    """02a-hand: a hand holds a white cup over the margin, its fist beside the board has the
    table's hue, lit. The occlusion test no longer sees it (the cup is the wood's colour); the
    arm found beside the board, brighter than the table, flags it."""
    reading = BoardReader(frames_calibration(WOOD)).read_details(read_image(WOOD / "02a-hand.jpg"))
    assert reading.observation.occluded
    assert reading.beside_mm2 > ARM_MM2


def test_the_occlusion_test_leaves_out_only_a_colour_with_the_woods_look() -> None:
    """The occlusion test's model leaves bench-37's white cups out (the unchanged wood then
    scores far from "cup": -1.32 with them); a board with none keeps its very model."""
    pixels = frames_calibration(WOOD).pixels
    origin = np.zeros((4, 4, 3), np.float32)
    with_white = float(pixels.colour_fg(origin)[0, 0])
    without = float(pixels.for_occlusion().colour_fg(origin)[0, 0])
    assert with_white > -2.0 and without < with_white - 4.0
    other = bench_calibration("bench-03").pixels
    assert other.for_occlusion() is other


def test_a_reader_works_out_the_woods_look_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's own uses and its occlusion test share one ``wood_like`` (each worked it
    out for itself); that the test still leaves the white cups out, the hand-free boards'
    reads above say."""
    calibration = frames_calibration(WOOD)
    asked: list[object] = []
    measure = PixelModel.wood_like

    def counted(pixels: PixelModel) -> tuple[bool, bool]:
        asked.append(pixels)
        return measure(pixels)

    monkeypatch.setattr(PixelModel, "wood_like", counted)
    BoardReader(calibration)
    assert len(asked) == 1
