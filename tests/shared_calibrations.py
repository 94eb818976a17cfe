"""Calibrations the tests share: each board calibrated once per test session, whoever asks
first, then read-only.

A calibration costs about a third of a second of CPU (more on a loaded machine), and several
test modules calibrate the same committed bench scene (``tests/data/bench``): each did its own
until the quick loop spent seconds on it. A shared calibration must be the same for every test
that reads it, so its arrays are made read-only: a test or a reader that wrote into one would
fail at once instead of changing what the next test reads.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

if TYPE_CHECKING:
    from companion.vision.calibration import Calibration
    from companion.vision.observation import Observation

BENCH = Path(__file__).resolve().parent / "data" / "bench"
"""The vision bench's committed scenes: rendered frames with their truth (docs/vision-bench.md)."""
LONG_SHADOWS = Path(__file__).resolve().parent / "data" / "shadows" / "bench-26" / "frames"
"""bench-26's calibration frames and two game frames: a lamp 0.42 m up at one side."""
PALE_SHADOWS = Path(__file__).resolve().parent / "data" / "shadows" / "bench-32" / "frames"
"""bench-32's calibration frames and four game frames: natural cups on pale maple, a lamp low
beyond the board's far side throwing shadows about a square long."""
BOUNCED_SHADE = Path(__file__).resolve().parent / "data" / "shadows" / "bench-44" / "frames"
"""bench-44's calibration frames and three boards: natural cups on birch, a low lamp at one side,
the shade beside the lit cups tinted by the light they bounce."""
LAMP_GONE = Path(__file__).resolve().parent / "data" / "shadows" / "bench-31" / "frames"
"""bench-31's calibration frames, a board and a hand under the light it changes to from frame
07 on: natural cups on walnut in a dim warm room, a lamp learned from the reference frame."""

T = TypeVar("T")


def read_only(value: T) -> T:
    """``value`` with every array in it (through dataclasses, dicts, lists and tuples) made
    read-only; the value itself is returned."""
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            read_only(getattr(value, field.name))
    elif isinstance(value, dict):
        for item in value.values():
            read_only(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            read_only(item)
    return value


def bench_frame(scene: str, name: str) -> np.ndarray:
    """A committed bench frame (``00-empty``, ``01-reference``, ``13b-move``...) as BGR."""
    from companion.vision.sources import read_image

    return read_image(BENCH / scene / "frames" / f"{name}.jpg")


@cache
def bench_calibration(scene: str) -> Calibration:
    """The bench scene calibrated from its own empty and reference frames, as the bench does
    (``benchmarks/vision_bench.py``), once per session and read-only."""
    from companion.vision.calibration import calibrate

    return read_only(calibrate(bench_frame(scene, "00-empty"), bench_frame(scene, "01-reference")))


@cache
def frames_calibration(frames: Path) -> Calibration:
    """A folder of committed frames (``00-empty.jpg``, ``01-reference.jpg``...) calibrated from
    its empty and reference frames, once per session and read-only."""
    from companion.vision.calibration import calibrate
    from companion.vision.sources import read_image

    return read_only(calibrate(read_image(frames / "00-empty.jpg"), read_image(frames / "01-reference.jpg")))


def frame_read(frames: Path, name: str) -> tuple[Calibration, Observation]:
    """``frames``' calibration (``frames_calibration``) and its frame ``name`` read once by a
    fresh reader."""
    from companion.vision.reader import BoardReader
    from companion.vision.sources import read_image

    calibration = frames_calibration(frames)
    return calibration, BoardReader(calibration).read(read_image(frames / f"{name}.jpg"))


def square_row(square: str) -> int:
    """The row of ``square`` (``"b1"``) in a 4x4 board's observation."""
    from companion.rules.square import board_squares, parse_square

    return board_squares(4).index(parse_square(square))


def frame_truth(frames: Path, name: str) -> dict[str, tuple[int, int]]:
    """The top (colour 0 white / 1 black, size) on each occupied square of a committed bench
    frame, from the record beside it."""
    import json

    record = json.loads((frames / f"{name}.json").read_text())
    return {sq: (0 if t["color"] == "white" else 1, t["size"]) for sq, t in record["top"].items()}


def long_shadows_calibration() -> Calibration:
    """bench-26 (``LONG_SHADOWS``) calibrated from its own empty and reference frames, once per
    session and read-only."""
    return frames_calibration(LONG_SHADOWS)


def same_models(one: Calibration, other: Calibration) -> bool:
    """Whether two calibrations learned the same, to the bit: all of their files but when they
    were made and what they say of the layout taken on trust."""
    told = ("created", "layout_trusted", "overruled")
    mine, theirs = ({k: v for k, v in c.to_json().items() if k not in told} for c in (one, other))
    return mine == theirs
