"""Write the vision bench's scene specs: random legal games with randomised looks.

    PYTHONPATH=. python benchmarks/render_bench/generate.py [--seed 2026] [--count 42] [--out DIR]

Each scene is one game of ``companion.rules`` (classic, a few storer and rogers), played at
random but taking a winning move most of the time, so games end by lines as real ones do. The
frames follow frames-dev's layout: ``00-empty``, ``01-reference`` (White's 1-4 on a1-d1, Black's
on a4-d4), then per ply ``NNb-move`` (the board after the move), preceded in about a third of
the moves by ``NNa-hand`` (a hand over the board holding the lifted cup; the board under it shows
what the lift uncovered). A cup keeps its small offset from the square's centre until it is moved.

Looks come in classes (``LOOK_CLASSES``) so accuracy can be reported per class; within a class
the wood, the cups' colours and finish, the light, the camera pose and lens are drawn at random.
From ``DARKER_WHITE_FROM`` on, every other colour-pair scene gives White the darker colour, its
truth's ``bench`` saying ``white_darker`` (what its user tells ``calibrate``).
Every third scene or so is 1280x960. Some scenes have companions for the learning demos:
``<scene>-light-b`` (the empty and reference frames under the light the game switches to half way)
and ``<scene>-wrong-cup`` (a reference frame in which the user put one cup of the wrong size).

Deterministic: scene ``i`` comes from its own ``random.Random(seed * 1000 + i)`` alone, so the
same seed writes byte-identical specs, and more scenes never change the earlier ones. Camera
poses are checked with a pinhole model of the renderer's camera (the board and markers stay
``MIN_MARGIN_PX`` inside the image); ``render.py`` checks again with the renderer's own projection.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from companion.rules import COLOR_NAMES, Game, Variant, square_name
from companion.testing.faults import choose_move

HERE = Path(__file__).resolve().parent
SPECS = HERE / "specs"
DEFAULT_SEED = 2026
DEFAULT_COUNT = 42

LOOK_CLASSES = ("standard", "dim-warm", "low-side", "pale-cups", "glossy", "colour-pair")
HIGH_RES = (1280, 960)
LOW_RES = (640, 480)

# the renderer's board (scene.py): metres
SQ = 0.060
BOARD_HALF = (4 * SQ + 2 * 0.035) / 2
MARKER_HALF = 0.016
MARKER_CENTRE = 2 * SQ + 0.0175
THICK = 0.015
SENSOR_MM = 36.0
# path-traced samples a pixel, denoised: at 1280x960 12 give the 24's picture (mean difference
# 0.25 of 255 before the sensor noise is added) for 55 % of the CPU time
SAMPLES = {LOW_RES: 24, HIGH_RES: 12}
MIN_MARGIN_PX = 12.0  # at 640 px wide; scaled with the resolution

WOODS = {  # linear RGB
    "oak": (0.55, 0.40, 0.22),
    "maple": (0.74, 0.58, 0.38),
    "birch": (0.80, 0.68, 0.50),
    "cherry": (0.50, 0.24, 0.12),
    "walnut": (0.24, 0.14, 0.08),
    "teak": (0.45, 0.28, 0.13),
    "grey-wash": (0.50, 0.48, 0.44),
}
PALE_WOODS = ("oak", "maple", "birch")
NATURAL_LIGHT = (0.86, 0.72, 0.52)
STAINED_DARK = (0.16, 0.09, 0.05)
COLOUR_PAIRS = {  # (lighter, darker): the lighter colour plays White, but see DARKER_WHITE_FROM
    "orange/blue": ((0.85, 0.33, 0.07), (0.06, 0.13, 0.42)),
    "yellow/red": ((0.85, 0.68, 0.10), (0.55, 0.04, 0.03)),
}
DARKER_WHITE_FROM = 100
"""From this index on, every other colour-pair scene (``Plan.white_darker``) gives White the
darker colour: White is the player who moves first, and a set may put the darker cups first
(red against yellow). Decided by the index alone, with no draw of the scene's stream, so every
scene before it is as it was."""
TABLES = ((0.25, 0.27, 0.30), (0.12, 0.10, 0.09), (0.55, 0.55, 0.52), (0.30, 0.20, 0.14))
BOARD_MD_BASE = (24, 33, 42, 51)
BOARD_MD_HEIGHT = (26, 34, 42, 50)
REFERENCE = {"a1": ("white", 1), "b1": ("white", 2), "c1": ("white", 3), "d1": ("white", 4)} | {
    "a4": ("black", 1),
    "b4": ("black", 2),
    "c4": ("black", 3),
    "d4": ("black", 4),
}
HAND_SHARE = 1 / 3
CUP_OFFSET_MM = 4.0
# More wrong-cup references than ``plan`` gives, to build and check calibration's refusal on:
# scene index -> (square, size set out there), on seen scenes only (docs/vision-bench.md), each
# written as ``bench-NN-wrong-cup-b``. Every kind of slip from a nested stack, in both colours,
# across the look classes and both resolutions.
EXTRA_WRONG_CUPS = {
    3: ("d4", 3),  # pale cups: a black 3 for the 4
    5: ("d4", 3),  # colour pair, 1280x960
    6: ("b4", 1),  # standard: a black 1 for the 2
    8: ("d1", 3),  # low side: a white 3 for the 4
    10: ("c4", 4),  # glossy, 1280x960: a black 4 for the 3
    11: ("c1", 2),  # colour pair: a white 2 for the 3
    18: ("c1", 4),  # standard: a white 4 for the 3
    19: ("d4", 3),  # dim warm
    26: ("d4", 3),  # low side
    28: ("d4", 3),  # glossy
    31: ("c4", 4),  # dim warm
    34: ("b1", 1),  # glossy: a white 1 for the 2
    37: ("d1", 3),  # dim warm
    38: ("c4", 2),  # low side: a black 2 for the 3
    39: ("c1", 4),  # pale cups
}
# Right references at the threshold of calibration's wrong-size check: the seen scenes
# (docs/vision-bench.md) again, the eight right cups at new offsets from their own stream, each
# written as ``bench-NN-ref-c``. A rule that refuses more wrong cups is judged by how many of
# these it refuses too.
RIGHT_REFERENCES = (3, 5, 6, 8, 10, 11, 18, 19, 24, 26, 28, 31, 32, 34, 37, 38, 39)


def r4(value):
    """Floats rounded for stable, short JSON."""
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, (list, tuple)):
        return [r4(v) for v in value]
    if isinstance(value, dict):
        return {k: r4(v) for k, v in value.items()}
    return value


def vary(rng: random.Random, colour: tuple[float, ...], spread: float) -> list[float]:
    """A colour multiplied by a brightness and a small per-channel change."""
    k = rng.uniform(1 - spread, 1 + spread)
    return [min(1.0, c * k * rng.uniform(1 - spread / 2, 1 + spread / 2)) for c in colour]


# ----- plan: what each scene is ------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    index: int
    look_class: str
    resolution: tuple[int, int]
    variant: str
    light_change: bool
    wrong_cup: bool
    white_darker: bool = False  # White's cups the pair's darker colour (``DARKER_WHITE_FROM``)

    @property
    def name(self) -> str:
        return f"bench-{self.index:02d}"


def plan(index: int) -> Plan:
    """The scene's class, resolution, variant and demos: fixed by its index, so each class
    gets high-resolution scenes, light changes and other variants spread over the set."""
    look_class = LOOK_CLASSES[index % len(LOOK_CLASSES)]
    high = (index % len(LOOK_CLASSES) + index // len(LOOK_CLASSES)) % 3 == 2
    variant = "classic"
    if index % 10 == 7:
        variant = "storer" if (index // 10) % 2 == 0 else "rogers"
    darker = (
        look_class == "colour-pair" and index >= DARKER_WHITE_FROM and (index // len(LOOK_CLASSES)) % 2 == 0
    )
    resolution = HIGH_RES if high else LOW_RES
    return Plan(index, look_class, resolution, variant, index % 7 == 3, index % 10 == 1, darker)


# the companions' streams' offsets, and their reference cups' (apart from ``plan``'s)
COMPANION_SEED = {"light-b": 700, "wrong-cup": 800, "wrong-cup-b": 900, "ref-c": 300}
REFERENCE_CUPS_SEED = {"wrong-cup": 500, "wrong-cup-b": 600, "ref-c": 400}


# ----- looks ----------------------------------------------------------------------------------


def light_from(
    rng: random.Random, elevation: tuple[float, float], distance: tuple[float, float]
) -> list[float]:
    e = math.radians(rng.uniform(*elevation))
    a = rng.uniform(0, 2 * math.pi)
    r = rng.uniform(*distance)
    return [r * math.cos(e) * math.cos(a), r * math.cos(e) * math.sin(a), r * math.sin(e)]


def lighting(rng: random.Random, look_class: str) -> dict:
    if look_class == "dim-warm":
        return {
            "key_pos": light_from(rng, (40, 75), (0.8, 1.2)),
            "key_power": rng.uniform(1.0, 2.4),
            "key_size": rng.uniform(0.2, 0.5),
            "key_temp": [1.0, rng.uniform(0.66, 0.78), rng.uniform(0.40, 0.52)],
            "fill_power": rng.uniform(0.15, 0.5),
            "fill_temp": [1.0, 0.8, 0.6],
            "sky_strength": rng.uniform(0.015, 0.04),
            "sky_color": [1.0, 0.85, 0.7],
        }
    if look_class == "low-side":
        return {
            "key_pos": light_from(rng, (12, 26), (0.9, 1.2)),
            "key_power": rng.uniform(10.0, 18.0),
            "key_size": rng.uniform(0.08, 0.25),
            "key_temp": [1.0, rng.uniform(0.88, 0.98), rng.uniform(0.78, 0.92)],
            "fill_power": rng.uniform(0.3, 0.8),
            "sky_strength": rng.uniform(0.03, 0.07),
        }
    return {
        "key_pos": light_from(rng, (35, 80), (0.85, 1.2)),
        "key_power": rng.uniform(3.5, 8.0),
        "key_size": rng.uniform(0.25, 0.8),
        "key_temp": [1.0, rng.uniform(0.88, 1.0), rng.uniform(0.78, 0.98)],
        "fill_power": rng.uniform(0.8, 2.2),
        "sky_strength": rng.uniform(0.06, 0.16),
    }


def other_light(rng: random.Random, light: dict) -> dict:
    """The light the room switches to during a game: the lamp moved, dimmed or brightened and
    of another colour, the fill and sky changed with it."""
    power = light["key_power"] * (rng.uniform(0.45, 0.7) if rng.random() < 0.5 else rng.uniform(1.4, 1.8))
    warm = rng.random() < 0.5
    return {
        "key_pos": light_from(rng, (25, 75), (0.85, 1.2)),
        "key_power": power,
        "key_size": rng.uniform(0.15, 0.7),
        "key_temp": [1.0, rng.uniform(0.70, 0.80), rng.uniform(0.45, 0.6)]
        if warm
        else [rng.uniform(0.85, 0.95), rng.uniform(0.92, 1.0), 1.0],
        "fill_power": light["fill_power"] * rng.uniform(0.4, 1.6),
        "sky_strength": light["sky_strength"] * rng.uniform(0.5, 1.8),
    }


def materials(rng: random.Random, look_class: str) -> dict:
    wood = rng.choice(sorted(WOODS))
    light, dark = vary(rng, NATURAL_LIGHT, 0.08), vary(rng, STAINED_DARK, 0.25)
    finish = {"piece_rough": rng.uniform(0.35, 0.6), "piece_grain": rng.uniform(0.06, 0.16)}
    if look_class == "pale-cups":
        if rng.random() < 0.7:  # natural cups on a pale board of nearly their colour
            wood = rng.choice(PALE_WOODS)
            light = [min(1.0, c * rng.uniform(1.0, 1.12)) for c in WOODS[wood]]
        else:  # dark cups on walnut
            wood = "walnut"
            dark = [c * rng.uniform(0.8, 1.1) for c in WOODS[wood]]
    elif look_class == "glossy":
        finish = {
            "piece_rough": rng.uniform(0.08, 0.22),
            "light_coat": rng.uniform(0.6, 1.0),
            "dark_coat": rng.uniform(0.6, 1.0),
            "piece_grain": rng.uniform(0.03, 0.1),
        }
    elif look_class == "colour-pair":
        pair = rng.choice(sorted(COLOUR_PAIRS))
        light, dark = (vary(rng, c, 0.1) for c in COLOUR_PAIRS[pair])
        finish = {"piece_rough": rng.uniform(0.25, 0.5), "piece_grain": rng.uniform(0.0, 0.05)}
        finish["pair"] = pair
    board = vary(rng, WOODS[wood], 0.08)
    return {
        "wood": wood,
        "board_color": board,
        "grain": rng.uniform(0.15, 0.35),
        "board_rough": rng.uniform(0.35, 0.7),
        "board_coat": rng.choice([0.0, 0.0, rng.uniform(0.2, 0.6)]),
        "light_color": light,
        "dark_color": dark,
        "table_color": list(rng.choice(TABLES)),
        **finish,
    }


def cup_set(rng: random.Random) -> dict:
    """Another maker's set: every size scaled alike, each a little on its own, heights too."""
    scale = rng.uniform(0.92, 1.08)
    tall = rng.uniform(0.92, 1.08)
    base = {str(s + 1): d * scale * rng.uniform(0.98, 1.02) for s, d in enumerate(BOARD_MD_BASE)}
    height = {str(s + 1): h * scale * tall * rng.uniform(0.98, 1.02) for s, h in enumerate(BOARD_MD_HEIGHT)}
    return {"cup_base_mm": base, "cup_height_mm": height}


# ----- the camera: the renderer's aimed model, as a pinhole ----------------------------------


def camera_points(look: dict) -> np.ndarray:
    """The board's edge corners and the markers' corners, in pixels (rows of x, y)."""
    t, yaw, roll = (math.radians(look[k]) for k in ("tilt_deg", "yaw_deg", "roll_deg"))
    aim = np.array([look["cam_dx"], look["cam_dy"], THICK])
    dist = look["cam_height"] / math.cos(t)
    centre = aim + dist * np.array([math.sin(t) * math.sin(yaw), -math.sin(t) * math.cos(yaw), math.cos(t)])
    forward = (aim - centre) / np.linalg.norm(aim - centre)
    up = np.array([0.0, 0.0, 1.0]) - forward[2] * forward  # world up seen square to the view
    up /= np.linalg.norm(up)
    right = np.cross(forward, up)
    c, s = math.cos(roll), math.sin(roll)
    right, up = c * right + s * up, -s * right + c * up
    w, h = look["res"]
    focal = look["lens_mm"] / SENSOR_MM * w
    points = [(sx * BOARD_HALF, sy * BOARD_HALF) for sx in (-1, 1) for sy in (-1, 1)]
    for mx in (-1, 1):
        for my in (-1, 1):
            cx, cy = mx * MARKER_CENTRE, my * MARKER_CENTRE
            points += [(cx + sx * MARKER_HALF, cy + sy * MARKER_HALF) for sx in (-1, 1) for sy in (-1, 1)]
    out = []
    for x, y in points:
        v = np.array([x, y, THICK]) - centre
        depth = v @ forward
        out.append((w / 2 + focal * (v @ right) / depth, h / 2 - focal * (v @ up) / depth))
    return np.array(out)


def in_view_margin(look: dict) -> float:
    pts = camera_points(look)
    w, h = look["res"]
    return float(min(pts[:, 0].min(), pts[:, 1].min(), w - pts[:, 0].max(), h - pts[:, 1].max()))


def camera(rng: random.Random, resolution: tuple[int, int]) -> dict:
    """A pose that keeps the whole board and its markers in view (drawn again until it does)."""
    need = MIN_MARGIN_PX * resolution[0] / LOW_RES[0]
    for _ in range(1000):
        look = {
            "cam_height": rng.uniform(0.40, 0.65),
            "tilt_deg": rng.uniform(0.0, 20.0),
            "yaw_deg": rng.uniform(0.0, 360.0),
            "roll_deg": rng.uniform(-4.0, 4.0),
            "lens_mm": rng.uniform(22.0, 36.0),
            "cam_dx": rng.uniform(-0.025, 0.025),
            "cam_dy": rng.uniform(-0.025, 0.025),
            "res": list(resolution),
            "samples": SAMPLES[resolution],
        }
        # at least ~0.9 px/mm on the board at 640 wide: a board far smaller is not a set-up
        scale = look["lens_mm"] / SENSOR_MM * resolution[0] / look["cam_height"] / 1000
        if scale >= 0.9 * resolution[0] / LOW_RES[0] and in_view_margin(look) >= need:
            return look
    raise RuntimeError("no camera pose keeps the board in view")


# ----- the game and its frames ------------------------------------------------------------------


@dataclass
class Table:
    """What is physically on and beside the board: stacks with each cup's offset, and each
    player's external stacks (bottom to top)."""

    stacks: dict[str, list[tuple[str, int, tuple[float, float]]]] = field(default_factory=dict)
    reserves: dict[str, list[list[int]]] = field(
        default_factory=lambda: {c: [[1, 2, 3, 4] for _ in range(3)] for c in COLOR_NAMES}
    )

    def board(self) -> dict[str, list[list]]:
        return {sq: [[c, s] for c, s, _ in st] for sq, st in sorted(self.stacks.items()) if st}

    def offsets(self) -> dict[str, list[float]]:
        return {sq: list(st[-1][2]) for sq, st in sorted(self.stacks.items()) if st}

    def lift(self, square: str) -> tuple[str, int, tuple[float, float]]:
        cup = self.stacks[square].pop()
        if not self.stacks[square]:
            del self.stacks[square]
        return cup

    def take(self, colour: str, size: int) -> None:
        stack = next(st for st in self.reserves[colour] if st and st[-1] == size)
        stack.pop()

    def put(self, square: str, colour: str, size: int, rng: random.Random) -> None:
        r, a = CUP_OFFSET_MM * math.sqrt(rng.random()), rng.uniform(0, 2 * math.pi)
        self.stacks.setdefault(square, []).append((colour, size, (r * math.cos(a), r * math.sin(a))))

    def frame(self, name: str, hand: dict | None = None) -> dict:
        reserves = {c: [list(st) for st in self.reserves[c]] for c in COLOR_NAMES}
        return {
            "name": name,
            "board": self.board(),
            "offsets": r4(self.offsets()),
            "reserves": reserves,
            "hand": hand,
        }


def square_mm(name: str) -> tuple[float, float]:
    f, r = "abcd".index(name[0]), int(name[1:]) - 1
    return ((f - 1.5) * SQ * 1000, (r - 1.5) * SQ * 1000)


def hand_over(
    rng: random.Random, colour: str, src: tuple[float, float], dst: tuple[float, float], cup
) -> dict:
    """A hand on its way from ``src`` to ``dst``, the arm reaching in from the player's side."""
    t = rng.uniform(0.35, 0.95)
    x, y = src[0] + t * (dst[0] - src[0]), src[1] + t * (dst[1] - src[1])
    side = 270.0 if colour == "white" else 90.0
    return r4(
        {
            "x": x + rng.uniform(-10, 10),
            "y": y + rng.uniform(-10, 10),
            "angle": side + rng.uniform(-40, 40),
            "z": rng.uniform(35, 90) + 15 + 12 + cup_reach(cup[1]),
            "holding": [cup[0], cup[1]],
        }
    )


def cup_reach(size: int) -> float:
    """Millimetres from the palm down to the base of a held cup (docs/board.md's sizes, roughly)."""
    return BOARD_MD_HEIGHT[size - 1] * 0.85 + BOARD_MD_BASE[size - 1] * 0.3


def reference_table(rng: random.Random, wrong: tuple[str, int] | None = None) -> Table:
    """The reference layout; ``wrong`` (square, size) puts a cup of that size there instead."""
    table = Table()
    table.reserves = {c: [[1, 2, 3, 4], [1, 2, 3, 4], []] for c in COLOR_NAMES}
    for square, (colour, size) in REFERENCE.items():
        if wrong and wrong[0] == square:
            size = wrong[1]
        table.put(square, colour, size, rng)
    return table


def play(rng: random.Random, plan: Plan) -> tuple[list[dict], list[dict], list[str]]:
    """The game's frames as spec frames and truth frames, and its moves."""
    game = Game(Variant.from_spec(plan.variant))
    table = Table()
    specs: list[dict] = []
    truths: list[dict] = []
    moves: list[str] = []
    max_plies = rng.randint(14, 28)
    while not game.is_over() and game.ply < max_plies:
        colour = COLOR_NAMES[game.turn]
        text = choose_move(game, rng)
        move = game.position.parse_move(text)
        to = square_name(move.to_square)
        number = game.ply + 2  # 00 empty, 01 reference, 02 the first move
        if move.is_placement:
            cup = (colour, move.size)
            src = (-230.0 if colour == "white" else 230.0, rng.uniform(-80, 80))
            table.take(colour, move.size)
        else:
            origin = square_name(move.from_square)
            cup = table.lift(origin)[:2]
            src = square_mm(origin)
        if rng.random() < HAND_SHARE:
            hand = hand_over(rng, colour, src, square_mm(to), cup)
            specs.append(table.frame(f"{number:02d}a-hand", hand))
            truths.append({**specs[-1], "kind": "hand", "moving": text})
        game.push(move)
        table.put(to, *cup, rng)
        moves.append(text)
        outcome = game.outcome()
        winner = None if outcome is None else outcome.winner_name
        specs.append(table.frame(f"{number:02d}b-move"))
        truths.append({**specs[-1], "kind": "move", "move": text, "moves": list(moves), "winner": winner})
    return specs, truths, moves


def truth_record(frame: dict, **extra) -> dict:
    record = {k: v for k, v in frame.items() if k not in ("reserves", "offsets", "look")}
    return {**record, **extra}


def scene(seed: int, index: int) -> list[tuple[str, dict, dict]]:
    """The scene's spec and truth, and its companions' (name, spec, truth)."""
    p = plan(index)
    rng = random.Random(seed * 1000 + index)
    light = lighting(rng, p.look_class)
    mats = materials(rng, p.look_class)
    if p.white_darker:
        mats["light_color"], mats["dark_color"] = mats["dark_color"], mats["light_color"]
    look = {
        **camera(rng, p.resolution),
        **light,
        **{k: v for k, v in mats.items() if k not in ("wood", "pair")},
        **cup_set(rng),
    }
    empty = Table().frame("00-empty")
    reference = reference_table(rng).frame("01-reference")
    specs, truths, moves = play(rng, p)
    noise = rng.uniform(4.0, 7.0) if p.look_class == "dim-warm" else rng.uniform(1.5, 4.0)
    post = {"noise_sigma": noise, "jpeg_quality": rng.randint(84, 92)}
    meta = {
        "look_class": p.look_class,
        "resolution": list(p.resolution),
        "wood": mats["wood"],
        "cups": mats.get("pair", "natural"),
        "tilt_deg": look["tilt_deg"],
        "yaw_deg": look["yaw_deg"],
        "cam_height_m": look["cam_height"],
        "lens_mm": look["lens_mm"],
    }
    if p.white_darker:
        meta["white_darker"] = True  # what the user says when calibrating (calibrate --white-darker)
    changed = other_light(rng, light) if p.light_change else None
    if changed:
        start = max(2, round(len(moves) * rng.uniform(0.35, 0.6)) + 2)  # first frame number under it
        for spec, truth in zip(specs, truths, strict=True):
            if int(spec["name"][:2]) >= start:
                spec["look"] = r4(changed)
                truth["light"] = "b"
        meta["light_change"] = {"from_frame": start, "look": r4(changed)}
    wrong = None
    if p.wrong_cup:
        square = rng.choice(sorted(REFERENCE))
        size = REFERENCE[square][1]
        wrong = (square, size + 1 if size < 4 and (size == 1 or rng.random() < 0.5) else size - 1)
    frames = [empty, reference, *specs]
    kinds = ["empty", "reference"]
    truth_frames = [truth_record(f, kind=k) for f, k in zip(frames[:2], kinds, strict=True)]
    truth_frames += [truth_record(t) for t in truths]
    out = [
        (
            p.name,
            {"seed": seed * 1000 + index, "look": r4(look), "post": r4(post), "frames": frames},
            {"variant": p.variant, "moves": moves, "frames": truth_frames, "bench": r4(meta)},
        )
    ]
    if changed:
        cal = [dict(empty, look=r4(changed)), dict(reference, look=r4(changed))]
        out.append(
            companion(
                p,
                seed,
                look,
                post,
                meta,
                cal,
                "light-b",
                "the empty and reference frames under the light the game switches to",
            )
        )
    if wrong:
        out.append(wrong_cup(p, seed, look, post, meta, empty, wrong, "wrong-cup"))
    if index in EXTRA_WRONG_CUPS:
        out.append(wrong_cup(p, seed, look, post, meta, empty, EXTRA_WRONG_CUPS[index], "wrong-cup-b"))
    if index in RIGHT_REFERENCES:
        out.append(right_reference(p, seed, look, post, meta, empty, "ref-c"))
    return out


def right_reference(
    p: Plan, seed: int, look: dict, post: dict, meta: dict, empty: dict, purpose: str
) -> tuple[str, dict, dict]:
    """The ``purpose`` companion whose reference is right, its cups at offsets from their own
    random stream: another placing of the same set under the same camera, so a check on the
    reference is seen near its threshold on references it must pass."""
    stream = seed * 1000 + p.index + REFERENCE_CUPS_SEED[purpose]
    again = reference_table(random.Random(stream)).frame("01-reference")
    why = "the reference layout again, each cup at another offset from its square's centre"
    return companion(p, seed, look, post, meta, [empty, again], purpose, why)


def wrong_cup(
    p: Plan, seed: int, look: dict, post: dict, meta: dict, empty: dict, wrong: tuple[str, int], purpose: str
) -> tuple[str, dict, dict]:
    """The ``purpose`` companion whose reference has a cup of size ``wrong[1]`` on square
    ``wrong[0]``: its cups' offsets from their own random stream (``EXTRA_WRONG_CUPS``' from one
    apart from ``plan``'s), so adding one changes no other spec."""
    stream = seed * 1000 + p.index + REFERENCE_CUPS_SEED[purpose]
    bad = reference_table(random.Random(stream), wrong).frame("01-reference")
    colour, size = REFERENCE[wrong[0]]
    why = f"the reference layout with a {colour} {wrong[1]} on {wrong[0]} instead of the {size}"
    return companion(p, seed, look, post, meta, [empty, bad], purpose, why, wrong=wrong)


def companion(
    p: Plan,
    seed: int,
    look: dict,
    post: dict,
    meta: dict,
    frames: list[dict],
    purpose: str,
    why: str,
    wrong=None,
):
    """A calibration-only scene sharing the camera (and set) of ``p``'s scene."""
    truth_frames = [truth_record(f, kind=k) for f, k in zip(frames, ("empty", "reference"), strict=True)]
    info = {**meta, "calibrates": p.name, "purpose": purpose, "what": why}
    if wrong:
        info["wrong_cup"] = {"square": wrong[0], "size": wrong[1]}
    return (
        f"{p.name}-{purpose}",
        {
            "seed": seed * 1000 + p.index + COMPANION_SEED[purpose],
            "look": r4(look),
            "post": r4(post),
            "frames": frames,
        },
        {"variant": p.variant, "moves": [], "frames": truth_frames, "bench": r4(info)},
    )


def dumps(data: dict) -> str:
    """JSON with one line per top-level key and one line per frame: short, and diffs read well."""
    parts = []
    for key, value in data.items():
        if key == "frames":
            inner = ",\n  ".join(json.dumps(f, separators=(",", ":")) for f in value)
            parts.append(f' "frames": [\n  {inner}\n ]')
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value, separators=(',', ':'))}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def reference_only(spec: dict, truth: dict) -> tuple[dict, dict]:
    """``spec`` and ``truth`` cut to their first two frames, the empty board and the reference
    layout: what calibration sees. Rendered for many fresh scenes (two frames each, not a whole
    game), they measure how often calibration refuses a right reference it has never seen."""
    return {**spec, "frames": spec["frames"][:2]}, {**truth, "moves": [], "frames": truth["frames"][:2]}


def write(out: Path, name: str, spec: dict, truth: dict) -> None:
    (out / f"{name}.scene.json").write_text(dumps(spec))
    (out / f"{name}.truth.json").write_text(dumps(truth))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"master seed (default {DEFAULT_SEED})"
    )
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT, help=f"scenes (default {DEFAULT_COUNT})")
    parser.add_argument("--first", type=int, default=0, help="index of the first scene (default 0)")
    parser.add_argument("--out", type=Path, default=SPECS, help="folder for the specs (default specs/)")
    parser.add_argument(
        "--references-only",
        action="store_true",
        help="each scene's empty and reference frames alone, no companions (for calibration's checks)",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for index in range(args.first, args.first + args.count):
        made = scene(args.seed, index)
        if args.references_only:
            made = [(made[0][0], *reference_only(made[0][1], made[0][2]))]
        for name, spec, truth in made:
            write(args.out, name, spec, truth)
            frames = len(spec["frames"])
            print(
                f"{name}: {truth['bench']['look_class']} {'x'.join(map(str, truth['bench']['resolution']))} "
                f"{truth['variant']}, {len(truth['moves'])} plies, {frames} frames"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
