"""The cups' cast shadows (``shadows.py``): learned from the reference frame, board when read.

Synthetic set-ups under a low lamp (``synth.py`` casts each cup's shadow along the light) and
the vision bench's committed bench-08 (rendered: a low side lamp whose cups' shadows cross the
margin band)."""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.rules.square import board_squares, parse_square
from companion.vision import reader as reader_module
from companion.vision import shadows
from companion.vision.calibration import Calibration, calibrate
from companion.vision.geometry import BoardLayout, RectifiedView
from companion.vision.matching import evidence, match_all
from companion.vision.reader import BoardReader
from companion.vision.shadows import CastingCup, ShadowModel, casting_cups, in_shadow, shadow_reach
from companion.vision.sources import read_image
from companion.vision.synth import SceneRenderer, random_tops
from tests.shared_calibrations import (
    BENCH,
    LONG_SHADOWS,
    bench_calibration,
    bench_frame,
    long_shadows_calibration,
)

LOW_LAMP_DEG = 15.0


def lamp(elevation_deg: float, azimuth: float) -> list[float]:
    """A unit vector toward a lamp this high above the table, from this direction."""
    e = np.radians(elevation_deg)
    return [np.cos(azimuth) * np.cos(e), np.sin(azimuth) * np.cos(e), np.sin(e)]


@cache
def low_lamp(seed: int) -> tuple[SceneRenderer, Calibration]:
    """A set-up lit by a strong lamp 15° above the table (shadows 3.7 cup heights long)."""
    look = {"light_dir": lamp(LOW_LAMP_DEG, 1.3 * seed), "direct": 1.1, "penumbra_mm": 2.0}
    renderer = SceneRenderer(seed, look_overrides=look)
    return renderer, calibrate(renderer.empty(), renderer.reference())


def bench_08() -> Calibration:
    """bench-08 calibrated once for the session, as the other bench tests read it."""
    return bench_calibration("bench-08")


def bench_08_frame(name: str) -> np.ndarray:
    return bench_frame("bench-08", name)


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_the_lamps_direction_is_learned_from_the_reference_frame(seed: int) -> None:
    renderer, calibration = low_lamp(seed)
    light = np.array(renderer.look.light_dir)
    truth = -light[:2] / light[2]  # where a point's shadow moves per mm of its height
    model = calibration.shadows
    assert model is not None
    along = np.array(model.along)
    cosine = float(along @ truth) / float(np.hypot(*along) * np.hypot(*truth))
    assert cosine > np.cos(np.radians(12))
    # the far end of a shadow, cast by the narrow knob through a soft penumbra, is faint
    assert 0.5 * np.hypot(*truth) < np.hypot(*along) < 1.2 * np.hypot(*truth)
    assert model.depth < -0.5
    # the shadows' ends that show on board say how far they reach: nearer the truth, not past it
    assert np.hypot(*along) < model.reach
    assert 0.85 * np.hypot(*truth) < model.reach < 1.1 * np.hypot(*truth)


def test_a_shadow_reaches_as_far_as_its_end_shows_on_board() -> None:
    """A cup 40 mm tall whose shadow is darkened 100 mm from its foot: it reaches 2.5 heights,
    whatever the capsules fitted (1 here). The same shadow running under another cup shows
    no end: the fitted length stays."""
    view = RectifiedView(BoardLayout(), 1.0)
    cup = CastingCup(120.0, 120.0, 15.0, 40.0)
    shape = view.shape
    xs, ys = np.meshgrid(np.arange(shape[1]), np.arange(shape[0]))
    foot = view.to_pixels(np.array([cup.x, cup.y]))[0]
    dx, dy = xs - foot[0], ys - foot[1]
    dark = (dx >= 0) & (dx <= 100) & (np.abs(dy) <= 30)
    valid = np.hypot(dx, dy) > cup.radius
    along = np.array([1.0, 0.0])
    assert shadow_reach(dark & valid, valid, view, 1.0, [cup], along) == pytest.approx(2.5, abs=0.1)
    hidden = valid & (np.hypot(dx - 70, dy) > 30)  # another cup stands across the shadow
    assert shadow_reach(dark & hidden, hidden, view, 1.0, [cup], along) == 1.0


def test_soft_overhead_light_gives_no_shadow_model() -> None:
    """Light from nearly overhead, soft: the shadows hide under the cups, nothing to learn; the
    reader then judges every pixel as before."""
    look = {"light_dir": lamp(80.0, 0.4), "penumbra_mm": 5.0}
    renderer = SceneRenderer(3, look_overrides=look)
    calibration = calibrate(renderer.empty(), renderer.reference())
    assert calibration.shadows is None
    assert BoardReader(calibration).occlusion.light is None


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_under_a_low_lamp_boards_pass_and_hands_are_flagged(seed: int) -> None:
    renderer, calibration = low_lamp(seed)
    reader = BoardReader(calibration)
    rng = np.random.default_rng(seed)
    boards = [renderer.render(random_tops(rng, fill=0.6)) for _ in range(4)]
    assert not any(reader.read(board).occluded for board in boards)
    for kind in ("arm", "fist", "steep"):
        assert reader.read(renderer.render(random_tops(rng), hand=kind)).occluded, kind


def test_a_shadowed_board_is_lifted_and_a_sleeve_is_not() -> None:
    model = ShadowModel(along=(1.0, 0.0), depth=-1.4, hue=(0.05, -0.02), slack=0.03)
    board = np.array([-0.8, -0.8 * 0.05 + 0.01, -0.8 * -0.02 - 0.02], np.float32)
    sleeve = np.array([-0.5, 0.2, -0.15], np.float32)
    f = np.stack([board, sleeve, board]).reshape(1, 3, 3)
    shadow = np.array([[255, 255, 0]], np.uint8)
    lifted = model.lift(f, shadow)
    assert np.abs(lifted[0, 0]).max() < 1e-6  # darkening undone, its hue within the slack
    assert lifted[0, 1, 0] == 0 and np.hypot(*lifted[0, 1, 1:]) > 0.2  # a colour of its own
    assert np.array_equal(lifted[0, 2], f[0, 2])  # outside the predicted shadows: as it was


def test_bench_08s_long_shadows_are_not_an_arm() -> None:
    """bench-08's board after ply 12: its cups' shadows cross the margin band. Without the
    shadow model the colour test takes them for an arm; with it they are board."""
    calibration = bench_08()
    assert calibration.shadows is not None
    board = bench_08_frame("12b-move")
    assert BoardReader(dataclasses.replace(calibration, shadows=None)).read(board).occluded
    reading = BoardReader(calibration).read_details(board)
    assert not reading.observation.occluded
    assert reading.band_area_mm2 == 0


def test_bench_26s_shadows_reach_past_the_shapes_fitted() -> None:
    """bench-26: a lamp 0.42 m up and 0.9 m away, along the reference rows, so each reference
    cup's shadow runs into the next cup or off the board. The shapes fitted come out about half
    as long as the shadows fall, and the board after ply 5 was flagged for their far ends
    across the margin; the reach, from the ends that show, takes them for board. The hand
    that covers least (an arm only over the margin) is still flagged."""
    calibration = long_shadows_calibration()
    model = calibration.shadows
    assert model is not None
    assert model.reach > 1.5 * np.hypot(*model.along)
    board = read_image(LONG_SHADOWS / "06b-move.jpg")
    fitted_only = dataclasses.replace(calibration, shadows=dataclasses.replace(model, reach=0.0))
    assert BoardReader(fitted_only).read(board).occluded
    reader = BoardReader(calibration)
    assert not reader.read(board).occluded
    assert reader.read(read_image(LONG_SHADOWS / "07a-hand.jpg")).occluded


@pytest.mark.slow  # every frame of bench-08: a few seconds
def test_bench_08_hands_stay_flagged_and_no_board_is() -> None:
    reader = BoardReader(bench_08())
    frames = sorted(p.stem for p in (BENCH / "bench-08" / "frames").glob("*.jpg"))
    game = [name for name in frames if name[:2] not in ("00", "01")]
    hands = [name for name in game if "hand" in name]
    assert hands
    for name in game:
        assert reader.read(bench_08_frame(name)).occluded == (name in hands), name


def test_cups_in_a_long_shadow_keep_their_reading_and_empty_squares_stay_empty() -> None:
    """The lamp of set-up 1 throws shadows toward rank 1 and the a-file: a white 4 on c4 shades
    c3, where a black 1 stands, and b2, empty. Matched again with c4's shadow taken for board
    (what the reader does for a faint cup found in another's shadow), c3 keeps its cup and b2,
    had it read as one, holds none."""
    renderer, calibration = low_lamp(1)
    assert calibration.shadows is not None
    board = renderer.render({"c4": (0, 4), "c3": (1, 1), "d1": (0, 2)})
    reader = BoardReader(calibration)
    rows = {name: board_squares(4).index(parse_square(name)) for name in ("c4", "c3", "b2")}
    casting = casting_cups(
        {rows["c4"]: (0, 4, 0, 0)}, calibration.layout, calibration.scale, calibration.cups
    )
    hulls = calibration.shadows.hulls(calibration.view, casting)
    for square in ("c3", "b2"):
        centre = calibration.view.to_pixels(np.array([calibration.layout.square_centre(rows[square])]))[0]
        assert in_shadow(hulls, centre), square  # the scene does put them in c4's shadow
    read = reader.read(board).tops()
    assert read["c4"] == (0, 4) and read["c3"] == (1, 1) and read["b2"] is None
    ev = evidence(reader.rectified(board), reader.background, calibration.pixels, reader.bank.pad)
    matches = match_all(ev, reader.bank)
    # (private: that step alone, on a match the read never makes: b2 supposed a cup)
    assert reader._rematch_in_shadow(ev, rows["c3"], matches[rows["c3"]], hulls) is None
    supposed = dataclasses.replace(matches[rows["b2"]], sizes=np.array([1.0, 0.0, 0.0, 0.0]), size=1)
    empty = reader._rematch_in_shadow(ev, rows["b2"], supposed, hulls)
    assert empty is not None and empty.sizes.max() <= 0


def test_the_shadow_model_is_saved_with_the_calibration(tmp_path: Path) -> None:
    _, calibration = low_lamp(1)
    path = tmp_path / "calibration.json"
    calibration.save(path)
    assert Calibration.load(path).shadows == calibration.shadows


def _fit_input(monkeypatch: pytest.MonkeyPatch, scene: str, frame: str) -> tuple[Any, ...]:
    """What the reader hands ``learn_shadows`` for a committed bench frame under a lamp moved
    since calibration (``BoardReader.lamp_seen``): features, view, cups, cup pixels."""
    captured: list[tuple[Any, ...]] = []

    def record(*args: Any) -> ShadowModel | None:
        captured.append(args)
        return shadows.learn_shadows(*args)

    monkeypatch.setattr(reader_module, "learn_shadows", record)
    BoardReader(bench_calibration(scene)).read(bench_frame(scene, frame))
    assert captured, "the frame's light changed: the reader fits the lamp it shows"
    return captured[0]


def _one_score(
    view: RectifiedView, k: float, cups: list[CastingCup], along: np.ndarray, weight: np.ndarray
) -> float:
    """A direction's score as the fit took it before (one direction at a time, ``cv2.mean``)."""
    mask = np.zeros(weight.shape, np.uint8)
    for hull in shadows.shadow_hulls(view, k, cups, along, 0.0):
        cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_8, shadows.SUBPIXEL)
    count = cv2.countNonZero(mask)
    return cv2.mean(weight, mask)[0] * count if count else 0.0


def _one_reach(
    maps: tuple[np.ndarray, np.ndarray],
    view: RectifiedView,
    k: float,
    cups: list[CastingCup],
    along: np.ndarray,
) -> float:
    """``shadow_reach`` as it was: a cup and a turn at a time (``maps``: dark, valid)."""
    dark, valid = maps
    angle = float(np.arctan2(along[1], along[0]))
    seen = []
    for cup in cups:
        runs = []
        for turn in np.radians(shadows.TURN_DEG):
            direction = np.array([np.cos(angle + turn), np.sin(angle + turn)])
            ts = np.arange(cup.radius, cup.height * shadows.MAX_SLOPE, shadows.LEARN_MM / 2)
            points = np.round(view.to_pixels(np.array([cup.x, cup.y]) + ts[:, None] * direction) * k).astype(
                int
            )
            inside = (
                (points >= 0).all(axis=1) & (points[:, 0] < dark.shape[1]) & (points[:, 1] < dark.shape[0])
            )
            x, y = points[: len(ts) if inside.all() else int(np.argmin(inside))].T
            open_ = valid[y, x]
            first = int(np.argmax(open_)) if open_.any() else len(x)
            lit = (~dark[y, x] & open_)[first:]
            if lit.any() and open_[first : first + int(np.argmax(lit))].all():
                runs.append(float(ts[first + int(np.argmax(lit))]) / cup.height)
        if runs:
            seen.append(max(runs))
    slope = float(np.hypot(*along))
    return float(np.clip(np.median(seen), slope, shadows.MAX_SLOPE)) if seen else slope


@pytest.mark.parametrize("frame", ["07b-move", "10b-move"])
def test_the_lamp_fit_scores_every_direction_as_one_at_a_time_did(
    monkeypatch: pytest.MonkeyPatch, frame: str
) -> None:
    """The fit draws and scores its 300 light directions together (``capsule_scores``) and runs
    a cup's turned shadow paths together (``run_ends``): on what the reader fits under
    bench-03's moved lamp, every score and the reach are the same to the bit as the loops
    before (kept here), and so is the direction chosen."""
    f, view, cups, cup_pixels = _fit_input(monkeypatch, "bench-03", frame)
    _, _, dark, valid = shadows.learning_map(f, view, cup_pixels)
    k = dark.shape[1] / f.shape[1]
    weight = np.where(valid, dark.astype(np.float32) - 0.5, 0.0).astype(np.float32)
    coarse = shadows.capsule_scores(view, k, cups, shadows._COARSE_ALONGS, dark, valid)
    assert coarse.max() > 0
    assert coarse.tolist() == [_one_score(view, k, cups, a, weight) for a in shadows._COARSE_ALONGS]
    fine = shadows.fine_alongs(shadows._COARSE_ALONGS[int(np.argmax(coarse))])
    assert shadows.capsule_scores(view, k, cups, fine, dark, valid).tolist() == [
        _one_score(view, k, cups, a, weight) for a in fine
    ]
    along = shadows.best_along(view, k, cups, dark, valid)
    assert along is not None
    for a in (along, *shadows._COARSE_ALONGS[::7]):
        assert shadow_reach(dark, valid, view, k, cups, a) == _one_reach((dark, valid), view, k, cups, a)
