"""Synthetic camera frames of a Gobblet board, with truth, for tests and the simulated camera.

A small renderer, written for what the reader must cope with rather than for looks: a wooden
board with grain, burned grid lines and ArUco markers, seen in perspective from a randomised
camera pose (height, tilt, any rotation); cups of revolution lit by a directional light and a
tinted ambient one, casting soft shadows on the board and picking up light bounced off it on
their sides; optional hands and arms holding a lifted cup; external stacks beside the board;
sensor noise, blur and JPEG compression.

Each ``SceneRenderer`` draws one randomised set-up (seeded), so a test can calibrate from its
``empty()`` and ``reference()`` frames and then read ``render(tops)``; every call adds small
per-frame noise and placement jitter. It draws only what the camera sees (the top cup of each
square) and knows nothing of the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.rules.square import board_squares, parse_square, square_name
from companion.vision.cups import REFERENCE_DIAMETERS, REFERENCE_HEIGHTS
from companion.vision.geometry import BoardLayout
from companion.vision.markers import DICTIONARY
from companion.vision.sampling import remap_linear
from companion.vision.scalars import fill_normal

Top = tuple[int, int] | None
TEXTURE_PX_PER_MM = 2.0
TABLE_MM = 160.0  # table drawn this far around the board (beyond: its edge colour)
SECTIONS = 22
SHADOW_MM = 200.0  # shadows are drawn this far around the board
SHADOW_PX_PER_MM = 1.0


@dataclass
class Look:
    """Everything random about one set-up (colours, light, lens, noise)."""

    board: np.ndarray  # BGR albedo 0..1
    table: np.ndarray
    light_cup: np.ndarray
    dark_cup: np.ndarray
    sleeve: np.ndarray
    skin: np.ndarray
    grain: float  # amplitude of the wood grain
    line: float  # darkness of grid lines (albedo factor)
    light_dir: np.ndarray  # unit vector toward the light
    direct: float
    ambient: np.ndarray  # BGR ambient light (tinted)
    bounce: float  # share of board light reaching cup sides
    penumbra_mm: float
    noise: float  # sensor noise, grey levels
    blur: float  # pixels
    jpeg: int  # quality, 0 for none
    exposure: float
    direct_tint: np.ndarray = field(default_factory=lambda: np.ones(3))  # BGR colour of the direct light
    cup_scale: np.ndarray = field(
        default_factory=lambda: np.ones(1)
    )  # real cups' size / the reference set's (docs/board.md), per size
    stain: float = 0.0  # depth of darker patches on the cups' walls (0..1)


@dataclass
class Cup:
    """A cup standing (or held) somewhere: centre in board mm, base height, size, colour."""

    x: float
    y: float
    z: float
    size: int
    colour: int


@dataclass
class SceneRenderer:
    """One randomised camera/board/light set-up; see the module docstring.

    ``rotation_deg`` fixes the board's rotation in the image; ``look`` overrides (a dict of
    ``Look`` fields) force a condition, e.g. ``{"light_cup": board_colour}`` for pale cups
    on pale wood.
    """

    seed: int
    size: int = 4
    square_mm: float = 60.0
    resolution: tuple[int, int] = (640, 480)
    max_piece: int = 4
    rotation_deg: float | None = None
    markers: bool = True
    stacks: bool = True
    look_overrides: dict[str, object] = field(default_factory=dict)
    stress: bool = False
    white_darker: bool = False
    """White's cups drawn in the look's dark colour and gloss, Black's in its light: a set whose
    first player has the darker cups (red against yellow, dark wood against natural)."""

    def __post_init__(self) -> None:
        self.layout = BoardLayout(size=self.size, square_mm=self.square_mm)
        self.rng = np.random.default_rng(self.seed)
        self.look = self._random_look()
        if self.stress:
            self._stress_look(np.random.default_rng((self.seed, 7919)))
        for key, value in self.look_overrides.items():
            setattr(
                self.look,
                key,
                np.asarray(value, dtype=np.float64)
                if isinstance(value, (list, tuple, np.ndarray))
                else value,
            )
        self._pose()
        self._texture = self._board_texture()
        self._plane = self._plane_maps()
        self._albedo = self._seen_texture()
        self._stack_cups = self._random_stacks() if self.stacks else []
        self._frame = 0

    # -- public API -----------------------------------------------------------------------------

    def empty(self) -> np.ndarray:
        return self.render({})

    def reference(self) -> np.ndarray:
        """White's sizes 1..S on rank 1, Black's on the last rank."""
        return self.render(self.reference_tops())

    def reference_tops(self) -> dict[str, Top]:
        n, s = self.size, self.max_piece
        tops: dict[str, Top] = {square_name(board_squares(n)[f]): (0, f + 1) for f in range(s)}
        tops.update({square_name(board_squares(n)[(n - 1) * n + f]): (1, f + 1) for f in range(s)})
        return tops

    def truth(self, tops: dict[str, Top]) -> dict[str, Top]:
        """What a perfect reader reports: every square, ``None`` where empty."""
        return {square_name(sq): tops.get(square_name(sq)) for sq in board_squares(self.size)}

    def render(
        self,
        tops: dict[str, Top],
        hand: bool | str = False,
        brightness: float = 1.0,
        shade: float = 0.0,
        tint: tuple[float, float, float] | None = None,
        light_turn_deg: float = 0.0,
        offsets: dict[str, tuple[float, float]] | None = None,
        frame: int | None = None,
    ) -> np.ndarray:
        """A frame with these top cups (square name -> (colour, size) or None).

        ``hand`` adds an arm over the board holding a lifted cup (``True`` or ``"arm"``: a
        forearm reaching in low from the side; ``"steep"``: the arm rises steeply toward the
        camera from a fist inside the grid; ``"fist"``: a fist over the grid alone, its arm out of
        the picture); ``brightness`` scales all light (a room getting darker after
        calibration); ``shade`` (0..1) darkens the direct light over one side of the board, as
        a person standing by would; ``tint`` (BGR factors) recolours the light and
        ``light_turn_deg`` turns the direct light about the vertical, both after calibration.
        ``offsets`` (square name -> (x, y) mm along the files and ranks) puts those cups that far
        off their square's centre, as a careless hand does: cups crowding a neighbour.
        ``frame`` draws that frame's noise (1 for the first), whatever was rendered before; by
        default each frame draws the next one's, so a scene's frames depend on how many the
        renderer has made (later frames go on past the highest number drawn).
        """
        self._frame = self._frame + 1 if frame is None else max(self._frame, frame)
        rng = np.random.default_rng((self.seed, self._frame if frame is None else frame))
        cups = self._stack_cups + self._board_cups(tops, rng, offsets or {})
        blockers = self._hand(rng, "arm" if hand is True else str(hand)) if hand else []
        if hand:
            cups.append(self._lifted_cup(blockers[-1], rng))
        saved = self.look.light_dir
        if light_turn_deg:
            a = np.radians(light_turn_deg)
            turn = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1.0]])
            self.look.light_dir = turn @ saved
        try:
            image = self._shade(cups, blockers, brightness * (1 + rng.normal(0, 0.01)), shade)
        finally:
            self.look.light_dir = saved
        if tint is not None:
            image *= np.asarray(tint, np.float32)[None, None, :]
        return self._camera_effects(image, rng)

    def restart(self, frames: int = 0) -> None:
        """Go on as if only ``frames`` frames had been rendered: the next draws the noise of
        frame ``frames + 1``. A renderer shared by several tests restarted before each gives
        each test the same frames, alone or after any others."""
        self._frame = frames

    def grid_corners_px(self) -> np.ndarray:
        """The a1, d1, d4, a4 grid corners in the image (4x2)."""
        return self.project(np.c_[self.layout.grid_corners(), np.zeros(4)])

    # -- set-up ---------------------------------------------------------------------------------

    def _random_look(self) -> Look:
        r = self.rng
        board = np.array([0.42, 0.56, 0.68]) * r.uniform(0.85, 1.15) + r.normal(0, 0.03, 3)
        light_cup = np.array([0.72, 0.8, 0.84]) * r.uniform(0.85, 1.1) + r.normal(0, 0.03, 3)
        dark_cup = np.array([0.12, 0.17, 0.26]) * r.uniform(0.7, 1.3) + r.normal(0, 0.015, 3)
        elevation = np.radians(r.uniform(35, 75))
        azimuth = r.uniform(0, 2 * np.pi)
        light_dir = np.array(
            [np.cos(azimuth) * np.cos(elevation), np.sin(azimuth) * np.cos(elevation), np.sin(elevation)]
        )
        tint = np.array([1.0 + r.uniform(0, 0.15), 1.0, 1.0 - r.uniform(0, 0.12)])
        return Look(
            board=np.clip(board, 0.2, 0.9),
            table=np.clip(
                np.array([0.45, 0.42, 0.4]) * r.uniform(0.5, 1.2) + r.normal(0, 0.05, 3), 0.05, 0.9
            ),
            light_cup=np.clip(light_cup, 0.4, 0.97),
            dark_cup=np.clip(dark_cup, 0.04, 0.4),
            sleeve=np.clip(r.uniform(0.1, 0.8, 3), 0, 1),
            skin=np.clip(np.array([0.55, 0.62, 0.8]) * r.uniform(0.6, 1.15), 0, 1),
            grain=r.uniform(0.02, 0.07),
            line=r.uniform(0.25, 0.5),
            light_dir=light_dir,
            direct=r.uniform(0.55, 0.8),
            ambient=tint * r.uniform(0.3, 0.45),
            bounce=r.uniform(0.2, 0.45),
            penumbra_mm=r.uniform(1.5, 5.0),
            noise=r.uniform(0.8, 3.0),
            blur=r.uniform(0.3, 1.0),
            jpeg=int(r.choice([0, 80, 90, 95])),
            exposure=r.uniform(210, 250),
        )

    def _stress_look(self, r: np.random.Generator) -> None:
        """Widen the look toward conditions beyond the reference set: other woods and cup
        colours, cups a few per cent off the reference sizes (docs/board.md), stains, strong low side light,
        coloured, warm or dim light, heavier noise, blur and JPEG."""
        look = self.look
        woods = [
            np.array([0.42, 0.56, 0.68]),
            np.array([0.62, 0.74, 0.82]),  # oak, maple
            np.array([0.22, 0.3, 0.42]),
            np.array([0.26, 0.36, 0.6]),  # walnut, cherry
            np.array([0.5, 0.55, 0.58]),
        ]  # grey-washed
        look.board = np.clip(
            woods[r.integers(len(woods))] * r.uniform(0.9, 1.1) + r.normal(0, 0.02, 3), 0.12, 0.9
        )
        if r.random() < 0.5:  # natural maple and stained walnut cups, or painted ones
            look.light_cup = np.clip(
                np.array([0.6, 0.75, 0.85]) * r.uniform(0.85, 1.1) + r.normal(0, 0.03, 3), 0.35, 0.97
            )
            look.dark_cup = np.clip(
                np.array([0.1, 0.16, 0.28]) * r.uniform(0.6, 1.4) + r.normal(0, 0.02, 3), 0.03, 0.4
            )
        scale = r.uniform(0.92, 1.08)
        look.cup_scale = scale * (1 + r.normal(0, 0.02, self.max_piece))
        look.stain = float(r.uniform(0, 0.25))
        if r.random() < 0.4:  # strong low side light
            elevation = np.radians(r.uniform(15, 35))
            azimuth = r.uniform(0, 2 * np.pi)
            look.light_dir = np.array(
                [np.cos(azimuth) * np.cos(elevation), np.sin(azimuth) * np.cos(elevation), np.sin(elevation)]
            )
            look.direct = r.uniform(0.8, 1.3)
            look.ambient = look.ambient * r.uniform(0.5, 0.9)
        if r.random() < 0.5:  # warm or coloured light
            look.direct_tint = np.clip(
                np.array([1 - r.uniform(0, 0.35), 1.0, 1 + r.uniform(0, 0.25)]) + r.normal(0, 0.05, 3),
                0.5,
                1.4,
            )
            look.ambient = look.ambient * np.clip(1 + r.normal(0, 0.12, 3), 0.6, 1.4)
        if r.random() < 0.3:  # dim room: exposure short, gain (noise) high
            look.exposure *= r.uniform(0.5, 0.8)
            look.noise = r.uniform(2.0, 5.0)
        look.blur = r.uniform(0.3, 1.3)
        look.jpeg = int(r.choice([0, 60, 75, 85, 95]))

    def _pose(self) -> None:
        """Camera 0.4-0.65 m up, up to 15 degrees off vertical, any rotation, board in view."""
        w, h = self.resolution
        g = self.layout.grid_mm
        outer = (
            self.layout.grid_corners()
            + np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)]) * self.layout.margin_mm
        )
        for _ in range(200):
            height = self.rng.uniform(400, 650)
            tilt = np.radians(self.rng.uniform(0, 15))
            towards = self.rng.uniform(0, 2 * np.pi)
            target = np.array([g / 2, g / 2, 0.0]) + np.r_[self.rng.normal(0, 15, 2), 0]
            centre = target + np.array(
                [np.cos(towards) * np.tan(tilt) * height, np.sin(towards) * np.tan(tilt) * height, height]
            )
            roll = np.radians(
                self.rotation_deg if self.rotation_deg is not None else self.rng.uniform(0, 360)
            )
            roll += np.radians(self.rng.normal(0, 1.5)) if self.rotation_deg is not None else 0.0
            z = target - centre
            z /= np.linalg.norm(z)
            x0 = np.array([np.cos(roll), np.sin(roll), 0.0])
            x = x0 - (x0 @ z) * z
            x /= np.linalg.norm(x)
            self.rotation = np.stack([x, np.cross(z, x), z])
            self.centre = centre
            span = g + 2 * self.layout.margin_mm
            self.focal = self.rng.uniform(0.55, 0.8) * min(w, h) * height / span
            self.k = np.array([[self.focal, 0, w / 2], [0, self.focal, h / 2], [0, 0, 1.0]])
            corners = self.project(np.c_[outer, np.zeros(4)])
            if np.all(corners > 8) and np.all(corners[:, 0] < w - 8) and np.all(corners[:, 1] < h - 8):
                return
        raise RuntimeError("could not place the camera")  # pragma: no cover - sizes are sane

    def project(self, points: np.ndarray) -> np.ndarray:
        """Where board points (N x 3: x, y, height in mm) land in the frames rendered (N x 2
        pixels): where a test covers a marker or finds one's true corners."""
        cam = (points - self.centre) @ self.rotation.T
        px = cam @ self.k.T
        return px[:, :2] / px[:, 2:3]

    def _plane_maps(self) -> tuple[np.ndarray, np.ndarray]:
        """Board-plane mm point seen at every image pixel (rays from the camera centre)."""
        w, h = self.resolution
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
        rays = np.stack([xs, ys, np.ones_like(xs)], axis=-1) @ np.linalg.inv(self.k).T @ self.rotation
        t = -self.centre[2] / rays[..., 2]
        plane = self.centre[:2] + rays[..., :2] * t[..., None]
        self._rays = rays
        return plane[..., 0].astype(np.float32), plane[..., 1].astype(np.float32)

    def _seen_texture(self) -> np.ndarray:
        """The board's texture as the camera sees it, before any light: the same every frame."""
        mapx, mapy = self._plane
        x0, y1 = self._texture_origin()
        k = TEXTURE_PX_PER_MM
        return remap_linear(
            self._texture, (mapx - x0) * k, (y1 - mapy) * k, border=tuple(float(c) for c in self.look.table)
        )

    def _texture_origin(self) -> tuple[float, float]:
        return (-TABLE_MM, self.layout.grid_mm + TABLE_MM)

    def _board_texture(self) -> np.ndarray:
        """Albedo (float32 BGR) of the table, board, grid lines and markers, 2 px per mm."""
        k = TEXTURE_PX_PER_MM
        lay = self.layout
        side = int((lay.grid_mm + 2 * TABLE_MM) * k)
        look = self.look
        tex = np.empty((side, side, 3), np.float32)
        tex[:] = look.table
        blotches = cv2.resize(self.rng.normal(0, 1, (side // 6, side // 6)).astype(np.float32), (side, side))
        tex *= (1 + 0.04 * blotches)[..., None]

        def px(points: np.ndarray) -> np.ndarray:
            x0, y1 = self._texture_origin()
            return np.c_[(points[:, 0] - x0) * k, (y1 - points[:, 1]) * k]

        outer = lay.grid_corners() + np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)]) * lay.margin_mm
        board_mask = np.zeros((side, side), np.uint8)
        cv2.fillConvexPoly(board_mask, np.round(px(outer)).astype(np.int32), 1)
        stripes = cv2.GaussianBlur(self.rng.normal(0, 1, (1, side)).astype(np.float32), (0, 0), 1.2)
        grain = np.repeat(stripes, side, axis=0) * np.float32(look.grain * 3)
        fine = np.empty((side, side), np.float32)
        cv2.setRNGSeed(int(self.rng.integers(1 << 30)))
        fill_normal(fine, 0.0, float(look.grain))
        grain += cv2.blur(fine, (3, 3)) * 2
        wood = look.board.astype(np.float32)[None, None, :] * (1 + grain)[..., None]
        tex[board_mask.astype(bool)] = wood[board_mask.astype(bool)]
        lines = np.zeros((side, side), np.uint8)
        for i in range(lay.size + 1):
            a = i * lay.square_mm
            for p, q in (((a, 0), (a, lay.grid_mm)), ((0, a), (lay.grid_mm, a))):
                ends = np.round(px(np.array([p, q]))).astype(np.int32)
                cv2.line(lines, tuple(ends[0]), tuple(ends[1]), 1, max(1, round(0.8 * k)), cv2.LINE_AA)
        tex[lines.astype(bool)] *= look.line
        if self.markers:
            self._draw_markers(tex, px)
        return tex

    def _draw_markers(self, tex: np.ndarray, px: Callable[[np.ndarray], np.ndarray]) -> None:
        lay = self.layout
        dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
        for k, marker_id in enumerate(lay.marker_ids):
            corners = lay.marker_corners(k)
            quiet = (corners - corners.mean(0)) * (32.0 / 24.0) + corners.mean(0)
            cv2.fillConvexPoly(tex, np.round(px(quiet)).astype(np.int32), (0.92, 0.92, 0.92))
            cells = cv2.aruco.generateImageMarker(dictionary, marker_id, 6).astype(np.float32) / 255
            size = round(lay.marker_mm * TEXTURE_PX_PER_MM)
            patch = cv2.resize(cells, (size, size), interpolation=cv2.INTER_NEAREST) * 0.9 + 0.04
            src = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
            dst = px(corners).astype(np.float32)
            warped = cv2.warpPerspective(
                patch,
                cv2.getPerspectiveTransform(src, dst),
                tex.shape[1::-1],
                flags=cv2.INTER_NEAREST,
                borderValue=-1,
            )
            mask = warped >= 0
            tex[mask] = warped[mask][:, None]

    # -- scene content --------------------------------------------------------------------------

    def _cup_dims(self, size: int) -> tuple[float, float]:
        """Base radius and height of a size, scaled to the square (docs/board.md's proportions)."""
        s = self.max_piece
        k = self.layout.square_mm / 60.0
        c = self.look.cup_scale
        k *= float(c[(size - 1) % len(c)])
        if s == len(REFERENCE_DIAMETERS):
            return REFERENCE_DIAMETERS[size - 1] / 2 * k, REFERENCE_HEIGHTS[size - 1] * k
        d = np.linspace(0.40, 0.85, s)[size - 1] * self.layout.square_mm * float(c[(size - 1) % len(c)])
        return d / 2, d

    def _board_cups(
        self, tops: dict[str, Top], rng: np.random.Generator, offsets: dict[str, tuple[float, float]]
    ) -> list[Cup]:
        cups = []
        for name, top in tops.items():
            if top is None:
                continue
            sq = board_squares(self.size).index(parse_square(name))
            cx, cy = self.layout.square_centre(sq)
            radius, _ = self._cup_dims(top[1])
            slack = max(0.5, min(4.0, self.layout.square_mm / 2 - radius - 0.5))
            dx, dy = rng.uniform(-slack, slack, 2) + np.asarray(offsets.get(name, (0.0, 0.0)))
            cups.append(Cup(cx + dx, cy + dy, 0.0, top[1], top[0]))
        return cups

    def _random_stacks(self) -> list[Cup]:
        """A few cups on the table beside the board: White's on the left, Black's on the right."""
        cups = []
        g, m = self.layout.grid_mm, self.layout.margin_mm
        for colour, x in ((0, -m - 40), (1, g + m + 40)):
            for i in range(int(self.rng.integers(0, 4))):
                cups.append(
                    Cup(
                        x + self.rng.normal(0, 3),
                        40 + 80 * i,
                        0.0,
                        int(self.rng.integers(1, self.max_piece + 1)),
                        colour,
                    )
                )
        return cups

    def _hand(
        self, rng: np.random.Generator, kind: str = "arm"
    ) -> list[tuple[np.ndarray, float, np.ndarray]]:
        """Spheres (centre mm, radius, colour) of a forearm reaching in and a fist over the board
        (the fist last)."""
        g = self.layout.grid_mm
        fist = np.array([rng.uniform(20, g - 20), rng.uniform(20, g - 20), rng.uniform(80, 120)])
        angle = rng.uniform(0, 2 * np.pi)
        if kind == "fist":
            fist[2] = rng.uniform(60, 100)
            return [(fist, 40.0, self.look.skin)]
        if kind == "steep":
            fist[:2] = rng.uniform(0.3 * g, 0.7 * g, 2)
            elbow = fist + np.array([np.cos(angle) * 180, np.sin(angle) * 180, 300.0])
            spheres = [(fist + (elbow - fist) * t, 36.0, self.look.sleeve) for t in np.linspace(0.2, 1.0, 14)]
            spheres.append((fist, 44.0, self.look.skin))
            return spheres
        elbow = fist + np.array([np.cos(angle) * 400, np.sin(angle) * 400, 150.0])
        spheres = [(fist + (elbow - fist) * t, 40.0, self.look.sleeve) for t in np.linspace(0.15, 1.0, 24)]
        spheres.append((fist, 48.0, self.look.skin))
        return spheres

    def _lifted_cup(self, fist: tuple[np.ndarray, float, np.ndarray], rng: np.random.Generator) -> Cup:
        centre = fist[0]
        size = int(rng.integers(1, self.max_piece + 1))
        _, height = self._cup_dims(size)
        return Cup(centre[0] + 10, centre[1] - 10, centre[2] - height - 5, size, int(rng.integers(0, 2)))

    # -- shading --------------------------------------------------------------------------------

    def _profile(self, radius: float, height: float, z: np.ndarray) -> np.ndarray:
        """Cup radius at height z: a flared body, rounded shoulder and a knob."""
        t = np.clip(z / height, 0, 1)
        body = radius * (1 - 0.42 * t**1.6)
        shoulder = radius * 0.58 * np.sqrt(np.clip(1 - ((t - 0.8) / 0.14) ** 2, 0, 1))
        knob = radius * 0.32 * np.sqrt(np.clip(1 - ((t - 0.9) / 0.1) ** 2, 0, 1))
        return np.where(t < 0.8, body, np.maximum(np.where(t < 0.94, shoulder, 0), knob))

    def _shadow_origin(self) -> tuple[float, float]:
        return (-SHADOW_MM, self.layout.grid_mm + SHADOW_MM)

    def _shadow_mask(
        self, cups: list[Cup], blockers: list[tuple[np.ndarray, float, np.ndarray]], shade: float
    ) -> np.ndarray:
        """How much direct light each board-plane point loses (0..1), penumbra blurred, on a
        coarser grid than the albedo (shadows are soft)."""
        k = SHADOW_PX_PER_MM
        side = int((self.layout.grid_mm + 2 * SHADOW_MM) * k)
        mask: np.ndarray = np.zeros((side, side), np.float32)
        x0, y1 = self._shadow_origin()
        lx, ly, lz = self.look.light_dir
        along = -np.array([lx, ly]) / lz
        for cup in cups:
            radius, height = self._cup_dims(cup.size)
            for z in np.linspace(0, height, 10):
                c = np.array([cup.x, cup.y]) + along * (cup.z + z)
                r = float(self._profile(radius, height, np.array([z]))[0])
                cv2.circle(mask, (int((c[0] - x0) * k), int((y1 - c[1]) * k)), int(r * k), 1.0, -1)
        for centre, radius, _ in blockers:
            c = centre[:2] + along * centre[2]
            cv2.circle(mask, (int((c[0] - x0) * k), int((y1 - c[1]) * k)), int(radius * k), 1.0, -1)
        mask = cv2.GaussianBlur(mask, (0, 0), self.look.penumbra_mm * k)
        if shade:
            xs = (np.arange(side) / k + x0)[None, :]
            edge = self.layout.grid_mm * 0.45
            mask = np.maximum(mask, shade * np.clip((edge - xs) / 30 + 0.5, 0, 1).astype(np.float32))
        return mask

    def _shade(
        self,
        cups: list[Cup],
        blockers: list[tuple[np.ndarray, float, np.ndarray]],
        brightness: float,
        shade: float,
    ) -> np.ndarray:
        look = self.look
        mapx, mapy = self._plane
        sx, sy = self._shadow_origin()
        lost = remap_linear(
            self._shadow_mask(cups, blockers, shade),
            (mapx - sx) * SHADOW_PX_PER_MM,
            (sy - mapy) * SHADOW_PX_PER_MM,
            border=0.0,
        )
        direct = np.float32(look.direct * look.light_dir[2]) * (1 - lost)
        image = self._albedo * (
            look.ambient.astype(np.float32)[None, None, :]
            + direct[..., None] * look.direct_tint.astype(np.float32)[None, None, :]
        )
        depth = np.full(mapx.shape, -np.inf)
        for cup in cups:
            self._draw_cup(image, depth, cup, lost)
        for centre, radius, colour in blockers:
            self._draw_sphere(image, depth, centre, radius, colour)
        return image * np.float32(look.exposure * brightness)

    def _box(self, centre: np.ndarray, reach: float | np.ndarray) -> tuple[slice, slice]:
        """Image rows/columns that can see the box of half-sides ``reach`` mm around ``centre``."""
        offsets = np.array([[dx, dy, dz] for dx in (-1, 1) for dy in (-1, 1) for dz in (-1, 1)]) * reach
        pts = self.project(centre + offsets)
        w, h = self.resolution
        x0, y0 = np.clip(np.floor(pts.min(0)).astype(int) - 2, 0, [w, h])
        x1, y1 = np.clip(np.ceil(pts.max(0)).astype(int) + 2, 0, [w, h])
        return slice(y0, y1), slice(x0, x1)

    def _draw_cup(self, image: np.ndarray, depth: np.ndarray, cup: Cup, lost: np.ndarray) -> None:
        """Ray-test the cup's sections from the top down; shade the first hit per pixel."""
        radius, height = self._cup_dims(cup.size)
        rows, cols = self._box(
            np.array([cup.x, cup.y, cup.z + height / 2]), np.array([radius, radius, height / 2])
        )
        rays = self._rays[rows, cols].reshape(-1, 3).astype(np.float32)
        if rays.size == 0:
            return
        zs = np.linspace(height, 0, SECTIONS).astype(np.float32)
        radii = self._profile(radius, height, zs).astype(np.float32)
        # where each pixel's ray crosses each section's height, relative to the cup's axis
        t = (np.float32(cup.z - self.centre[2]) + zs[None, :]) / rays[:, 2:3]
        px = np.float32(self.centre[0] - cup.x) + rays[:, 0:1] * t
        py = np.float32(self.centre[1] - cup.y) + rays[:, 1:2] * t
        inside = px * px + py * py <= radii * radii
        first = np.argmax(inside, axis=1)
        pick = np.arange(len(first))
        zhit = zs[first] + cup.z
        flat_depth = depth[rows, cols].reshape(-1)
        better = inside[pick, first] & (zhit > flat_depth)
        if not better.any():
            return
        j = first[better]
        ax, ay = px[pick[better], j], py[pick[better], j]
        d = np.maximum(np.hypot(ax, ay), 1e-6)
        slope = np.gradient(radii, zs)[j]  # dr/dz
        side = (d >= radii[j] * 0.97)[:, None]  # on the side wall, else a section's top face
        normal = np.where(side, np.c_[ax / d, ay / d, -slope], np.array([[0.0, 0.0, 1.0]]))
        normal /= np.linalg.norm(normal, axis=1, keepdims=True)
        h, w = depth[rows, cols].shape
        idx = np.unravel_index(np.flatnonzero(better), (h, w))
        dark = (cup.colour == 1) != self.white_darker
        self._paint(
            image,
            depth,
            rows,
            cols,
            idx,
            zhit[better],
            normal,
            self.look.dark_cup if dark else self.look.light_cup,
            lost,
            dark,
        )

    def _draw_sphere(
        self, image: np.ndarray, depth: np.ndarray, centre: np.ndarray, radius: float, colour: np.ndarray
    ) -> None:
        rows, cols = self._box(centre, radius)
        rays = self._rays[rows, cols]
        if rays.size == 0:
            return
        o = self.centre - centre
        b = rays @ o
        a = (rays**2).sum(-1)
        disc = b * b - a * (o @ o - radius * radius)
        hit = disc > 0
        t = (-b - np.sqrt(np.maximum(disc, 0))) / a
        points = self.centre + rays * t[..., None]
        better = hit & (points[..., 2] > depth[rows, cols])
        idx = np.nonzero(better)
        normal = (points[idx] - centre) / radius
        self._paint(image, depth, rows, cols, idx, points[idx][:, 2], normal, colour, None, False)

    def _paint(
        self,
        image: np.ndarray,
        depth: np.ndarray,
        rows: slice,
        cols: slice,
        idx: tuple[np.ndarray, ...],
        z: np.ndarray,
        normal: np.ndarray,
        albedo: np.ndarray,
        lost: np.ndarray | None,
        glossy: bool,
    ) -> None:
        look = self.look
        lit = np.clip(normal @ look.light_dir, 0, None)
        if lost is not None:
            lit = lit * (1 - 0.6 * lost[rows, cols][idx])
        sky = 0.55 + 0.45 * normal[:, 2]
        bounce = (
            look.bounce * np.clip(1 - normal[:, 2], 0, 1)[:, None] * look.board[None, :] * (look.direct + 0.4)
        )
        light = (
            look.ambient[None, :] * sky[:, None]
            + look.direct * lit[:, None] * look.direct_tint[None, :]
            + bounce
        )
        colour = albedo[None, :] * light
        if look.stain and lost is not None:  # darker blotches on the walls, fixed to the cup
            angle = np.arctan2(normal[:, 1], normal[:, 0])
            blotch = np.clip(np.sin(3 * angle + 5 * z / 40.0) + np.sin(7 * angle + 1.3) - 0.8, 0, 1)
            colour *= (1 - look.stain * blotch)[:, None]
        if glossy:
            half = look.light_dir + np.array([0, 0, 1.0])
            half /= np.linalg.norm(half)
            colour += 0.25 * np.clip(normal @ half, 0, 1)[:, None] ** 40
        region = image[rows, cols]
        region[idx] = colour
        depth[rows, cols][idx] = z

    def _camera_effects(self, image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        look = self.look
        image = np.asarray(cv2.GaussianBlur(image.astype(np.float32), (0, 0), look.blur))
        noise = np.empty_like(image)
        cv2.setRNGSeed(int(rng.integers(1 << 30)))
        fill_normal(noise, 0.0, look.noise)
        image += noise
        out = np.clip(image, 0, 255).astype(np.uint8)
        if look.jpeg:
            ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, look.jpeg])
            decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
            out = out if decoded is None else decoded
        return out


def random_tops(
    rng: np.random.Generator, size: int = 4, max_piece: int = 4, fill: float = 0.5
) -> dict[str, Top]:
    """A random board: each square holds a random cup with probability ``fill``."""
    tops: dict[str, Top] = {}
    for sq in board_squares(size):
        if rng.random() < fill:
            tops[square_name(sq)] = (int(rng.integers(0, 2)), int(rng.integers(1, max_piece + 1)))
    return tops
