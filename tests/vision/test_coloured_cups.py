"""Strongly coloured cups (yellow/red, orange/blue): the per-pixel lookup tables judge them at
their own colour, however far it lies from the wood's, and a game whose light changes part-way
is followed to its end with them (``pixels.table_index``, ``companion.vision.learning``)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.device.vision_link import reader_observer
from companion.reconciler.reconciler import Reconciler
from companion.rules import Game, Move, Variant
from companion.rules.square import square_name
from companion.vision.calibration import calibrate
from companion.vision.gate import StabilityGate
from companion.vision.observation import Top
from companion.vision.pixels import Gaussian, PixelModel, table_grid, table_index
from companion.vision.reader import BoardReader
from companion.vision.synth import SceneRenderer

YELLOW = Gaussian(
    np.array([-0.34, -0.458, -0.336]),
    np.array([[0.0465, 0.0217, 0.0178], [0.0217, 0.0217, 0.0144], [0.0178, 0.0144, 0.0118]]),
)
RED = Gaussian(
    np.array([-0.863, -0.18, -0.904]),
    np.array([[0.0597, 0.011, 0.0273], [0.011, 0.0058, 0.0088], [0.0273, 0.0088, 0.0282]]),
)
"""The bench's bench-17 (yellow and red cups on birch): its yellow model after one frame under
the changed lamp was learned, and its red model from calibration (features: log brightness and
two chroma axes against the wood)."""
RED_NOW = Gaussian(np.array([-1.07, -0.28, -1.08]), np.diag(np.square([0.26, 0.13, 0.2])))
"""... and how its red cups' pixels looked under that lamp."""


def looked_up(model: PixelModel, f: np.ndarray) -> np.ndarray:
    """The light-versus-dark log-odds the reader uses: the lookup table's."""
    return model.log_odds(f, np.zeros(f.shape[:2], np.float32))[1]


def with_colours(light: Gaussian, dark: Gaussian) -> PixelModel:
    default = PixelModel.default()
    return PixelModel(
        default.shadow_tint,
        default.chroma_sigma,
        default.dark_limit,
        default.bright_limit,
        light,
        dark,
        default.texture,
    )


def drawn(model: Gaussian, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.multivariate_normal(model.mean, model.cov, n).astype(np.float32).reshape(n, 1, 3)


def test_red_cups_under_a_changed_lamp_read_red_after_yellow_was_learned() -> None:
    """The lookup once stopped 0.3 from the wood's colour and judged every pixel beyond at the
    grid's edge, where yellow and red meet: there bench-17's red cups read yellow (+3.4 a pixel),
    though the models say red by far (-180); the referee saw red 4s turn yellow."""
    model = with_colours(YELLOW, RED)
    red = drawn(RED_NOW, 2000, 17)
    exact = model.colour_log_odds(red)[1]
    assert float(np.mean(exact < 0)) > 0.99
    assert float(np.mean(looked_up(model, red) < 0)) > 0.99


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_lookup_tells_strong_colours_apart_as_the_models_do(seed: int) -> None:
    """Two cup colours anywhere within 1.2 of the wood's on the chroma axes: wherever the models
    tell a pixel's colour clearly (by 2 nats or more), the table tells it the same way."""
    rng = np.random.default_rng(seed)
    spread = np.diag(np.square([0.25, 0.1, 0.1]))
    light = Gaussian(np.array([-0.2, *rng.uniform(-1.2, 1.2, 2)]), spread)
    dark = Gaussian(np.array([-0.9, *rng.uniform(-1.2, 1.2, 2)]), spread)
    model = with_colours(light, dark)
    f = np.concatenate([drawn(light, 1000, seed), drawn(dark, 1000, seed + 100)])
    exact = model.colour_log_odds(f)[1]
    clear = np.abs(exact) > 2.0
    assert clear.sum() > 1000
    assert np.all(np.sign(looked_up(model, f)[clear]) == np.sign(exact[clear]))


def test_each_pixel_is_looked_up_at_its_nearest_grid_point() -> None:
    """Fine steps near the wood's colour (the board and its shadows), coarse ones beyond."""
    grid = table_grid().reshape(-1, 3)
    rng = np.random.default_rng(5)
    f = (rng.normal(size=(3000, 1, 3)) * np.array([0.8, 0.5, 0.5])).astype(np.float32)
    points = grid[table_index(f).ravel()]
    for axis in range(3):
        values = np.unique(grid[:, axis])
        gap = np.abs(values[None, :] - f[:, 0, axis, None]).min(axis=1)
        assert np.all(np.abs(points[:, axis] - f[:, 0, axis]) <= gap + 1e-5)  # ties either way
    chroma = np.unique(grid[:, 1])
    assert chroma.min() <= -1.5 and chroma.max() >= 1.5
    assert np.diff(chroma[np.abs(chroma) < 0.25]).max() < 0.01


# -- a game with coloured cups whose light changes part-way -----------------------------------

MOVES = ("4c1", "4d4", "3a4", "d4-c4", "c1-c2", "4a2", "2c1", "3b4", "1b3", "2c3", "4d1")
CHANGE = 5
"""The light changes after this many moves: dimmer, warmer, the lamp turned."""
EVENING = {"brightness": 0.6, "tint": (0.6, 0.85, 1.05), "light_turn_deg": 120.0}
YELLOW_RED = {"light_cup": (0.1, 0.75, 0.9), "dark_cup": (0.1, 0.12, 0.65)}
"""Albedo (BGR) of yellow and red cups."""


def tops_of(game: Game) -> dict[str, Top]:
    position = game.position
    return {square_name(sq): top for sq in position.squares if (top := position.top(sq)) is not None}


@pytest.mark.slow  # renders and reads a game of 11 moves, learning as it goes: about 8 s
def test_a_game_with_coloured_cups_is_followed_through_a_change_of_light() -> None:
    """The device's observer (a reader that learns from the frames the referee is sure of) and
    the referee, on a yellow/red set-up whose light changes after move 5: every board is read
    hand-free and right, before the change and after it, and every move is announced."""
    scene = SceneRenderer(3, look_overrides=YELLOW_RED)
    reader = BoardReader(calibrate(scene.empty(), scene.reference()))
    observe = reader_observer(reader, StabilityGate(0.0, 3), clock=lambda: 0.0)
    referee = Reconciler(Variant.from_spec("rogers"))
    game = Game(Variant.from_spec("rogers"))
    clock = iter(range(1000))
    misread: list[tuple[int, str]] = []

    def show(frame: np.ndarray, times: int) -> None:
        for _ in range(times):
            stable = observe(frame, float(next(clock)))
            if stable is not None:
                observe.judged(referee.feed(stable), referee.game.position, referee.unsure)

    show(scene.render({}), 4)
    for ply, text in enumerate(MOVES, start=1):
        game.push(Move.from_text(text))
        light = EVENING if ply > CHANGE else {}
        show(scene.render(tops_of(game), hand=True, **light), 2)
        board = scene.render(tops_of(game), **light)
        seen = reader.read(board)
        shown = tops_of(game)
        if seen.occluded or any(seen.top(name) != shown.get(name) for name in scene.truth({})):
            misread.append((ply, "covered" if seen.occluded else "misread"))
        show(board, 4)
    assert misread == []
    assert [move.text() for move in referee.game.moves] == list(MOVES)
    assert reader.calibration.learned is not None and reader.calibration.learned.frames > CHANGE
