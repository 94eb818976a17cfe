"""Photo-like frames of a wooden Gobblet board, drawn by Blender's Cycles path tracer on the CPU.

Run with the Python that has Blender as a module (``bpy``, Python 3.11; see docs/vision-bench.md):

    python scene.py SPEC.scene.json RAW_DIR [FRAME_NAME ...] [--corners-only]

For each frame of the spec it writes ``RAW_DIR/NAME.png`` (the raw render) and
``RAW_DIR/NAME.truth.json`` (the a1/d1/d4/a4 grid corners in pixels, on the board surface, the
markers' outer corners, and whether the board and markers are well inside the image). Frames
already rendered are skipped, so a run resumes. ``--corners-only`` projects without rendering:
the check that a camera pose keeps the board and its markers in view.

This is the company's renderer (``shared/tools/render``), vendored so the bench is reproducible
from a clone, and extended for the vision bench:

- a set's cup measures in the look (``cup_base_mm``, ``cup_height_mm``: size -> mm);
- each colour's own finish (``light_rough``/``dark_rough``, ``light_grain``/``dark_grain``,
  ``light_coat``/``dark_coat``: a clear coat for lacquered, glossy cups), and the board's
  (``board_rough``, ``board_coat``);
- the fill light's place and colour and the sky's colour (``fill_pos``, ``fill_temp``,
  ``sky_color``);
- a frame's own ``look`` (light and material keys only, never the camera): the light changing
  during a game;
- a frame's ``offsets`` (square -> [dx, dy] mm): a cup stays where it was put until moved;
  without them each cup is jittered at random, as before;
- a hand's ``holding`` ([colour, size]): the lifted cup drawn in the hand;
- textures seeded per scene, not per frame, so the board's grain is the same in every frame.

Units: metres in Blender; the board's centre at the origin, White's side towards -y.
"""

from __future__ import annotations

import json
import math
import os
import random
import sys

import bpy
import bpy_extras
from mathutils import Euler, Vector

SQ = 0.060  # square pitch
N = 4
MARGIN = 0.035
BOARD = N * SQ + 2 * MARGIN
THICK = 0.015
MARKER = 0.032  # marker label with its quiet zone (black square 24 mm)
MARKER_OFF = 0.0175  # marker centre distance outside the grid corner, along x and y
BASE_D = {1: 0.024, 2: 0.033, 3: 0.042, 4: 0.051}
HEIGHT = {1: 0.026, 2: 0.034, 3: 0.042, 4: 0.050}
TOP_RATIO = 0.72  # a cup's top radius over its base radius
IN_VIEW_MARGIN_PX = 6.0  # board edge and markers must stay this far inside the image
HERE = os.path.dirname(os.path.abspath(__file__))

LOOK = dict(
    cam_height=0.52,
    cam_dx=0.0,
    cam_dy=-0.03,
    tilt_deg=5.0,
    roll_deg=0.0,
    yaw_deg=0.0,
    lens_mm=30.0,
    res=(640, 480),
    samples=24,
    board_color=(0.55, 0.36, 0.20),
    grain=0.25,
    board_rough=0.55,
    board_coat=0.0,
    line_color=(0.08, 0.05, 0.03),
    light_color=(0.86, 0.72, 0.52),
    dark_color=(0.16, 0.09, 0.05),
    piece_rough=0.45,
    piece_grain=0.12,
    table_color=(0.25, 0.27, 0.30),
    key_power=6.0,
    key_pos=(0.35, -0.25, 0.9),
    key_size=0.5,
    key_temp=(1.0, 0.95, 0.88),
    fill_power=1.5,
    fill_pos=(-0.5, 0.4, 1.0),
    fill_temp=(1.0, 1.0, 1.0),
    sky_strength=0.12,
    sky_color=(0.8, 0.85, 1.0),
)
# what a frame's own look may not change: the camera stays where calibration saw it
CAMERA_KEYS = {
    "cam_height",
    "cam_dx",
    "cam_dy",
    "tilt_deg",
    "roll_deg",
    "yaw_deg",
    "lens_mm",
    "res",
    "camera_model",
}


def rgba(color, scale=1.0):
    return (min(1.0, color[0] * scale), min(1.0, color[1] * scale), min(1.0, color[2] * scale), 1.0)


def mat(name, color, rough=0.5, grain=0.0, scale=40.0, seed=0.0, coat=0.0):
    """A Principled material, with wavy wood grain when ``grain`` > 0 and a clear coat."""
    m = bpy.data.materials.new(name)
    m.use_nodes = True
    nt = m.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = rough
    if coat > 0:
        bsdf.inputs["Coat Weight"].default_value = coat
        bsdf.inputs["Coat Roughness"].default_value = 0.05
    if grain > 0:
        tc = nt.nodes.new("ShaderNodeTexCoord")
        mapn = nt.nodes.new("ShaderNodeMapping")
        mapn.inputs["Scale"].default_value = (scale, scale * 0.08, scale)
        mapn.inputs["Location"].default_value = (seed, seed * 0.37, 0)
        wave = nt.nodes.new("ShaderNodeTexWave")
        wave.inputs["Scale"].default_value = 2.0
        wave.inputs["Distortion"].default_value = 6.0
        wave.inputs["Detail"].default_value = 3.0
        ramp = nt.nodes.new("ShaderNodeValToRGB")
        ramp.color_ramp.elements[0].color = rgba(color, 1 - grain)
        ramp.color_ramp.elements[1].color = rgba(color, 1 + grain * 0.5)
        nt.links.new(tc.outputs["Object"], mapn.inputs["Vector"])
        nt.links.new(mapn.outputs["Vector"], wave.inputs["Vector"])
        nt.links.new(wave.outputs["Fac"], ramp.inputs["Fac"])
        nt.links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    else:
        bsdf.inputs["Base Color"].default_value = (*color, 1)
    return m


def image_mat(name, path):
    m = bpy.data.materials.new(name)
    m.use_nodes = True
    nt = m.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    tex = nt.nodes.new("ShaderNodeTexImage")
    tex.image = bpy.data.images.load(path)
    tex.interpolation = "Closest"
    nt.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = 0.7
    return m


def sq_center(name):
    f = "abcdefgh".index(name[0])
    r = int(name[1:]) - 1
    return ((f - (N - 1) / 2) * SQ, (r - (N - 1) / 2) * SQ)


def cup_measures(look):
    """Base diameter and height per size, in metres: the spec's set, else docs/board.md's."""
    base = {int(k): v / 1000 for k, v in look.get("cup_base_mm", {}).items()}
    height = {int(k): v / 1000 for k, v in look.get("cup_height_mm", {}).items()}
    return {**BASE_D, **base}, {**HEIGHT, **height}


def add_piece(x, y, z, size, material, measures):
    """A cup standing on ``z``: a tapered body and a knob on top."""
    base, height = measures
    d, h = base[size], height[size]
    bpy.ops.mesh.primitive_cone_add(
        vertices=64,
        radius1=d / 2,
        radius2=d / 2 * TOP_RATIO,
        depth=h * 0.85,
        location=(x, y, z + h * 0.85 / 2),
    )
    body = bpy.context.object
    bpy.ops.object.shade_smooth()
    body.data.materials.append(material)
    bpy.ops.mesh.primitive_uv_sphere_add(
        segments=48, ring_count=24, radius=d * 0.22, location=(x, y, z + h * 0.85 + d * 0.08)
    )
    knob = bpy.context.object
    bpy.ops.object.shade_smooth()
    knob.data.materials.append(material)
    return [body, knob]


def frame_look(look, frame):
    """The scene's look with the frame's own light and material changes."""
    own = frame.get("look") or {}
    fixed = CAMERA_KEYS & set(own)
    if fixed:
        raise SystemExit(f"frame {frame['name']}: a frame's look may not change the camera ({sorted(fixed)})")
    return {**look, **own}


def add_area_light(sc, name, power, size, color, pos):
    light = bpy.data.lights.new(name, "AREA")
    light.energy = power
    light.size = size
    light.color = color
    obj = bpy.data.objects.new(name, light)
    sc.collection.objects.link(obj)
    obj.location = pos
    obj.rotation_euler = (Vector((0, 0, 0)) - Vector(pos)).to_track_quat("-Z", "Y").to_euler()


def build(look, frame, scene_seed, frame_seed):
    texture = random.Random(scene_seed)  # the same grain in every frame of a scene
    jitter_rng = random.Random(frame_seed)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    sc = bpy.context.scene
    sc.render.engine = "CYCLES"
    sc.cycles.device = "CPU"
    sc.cycles.samples = look["samples"]
    sc.cycles.use_denoising = True
    sc.render.resolution_x, sc.render.resolution_y = look["res"]
    sc.render.resolution_percentage = 100
    sc.view_settings.view_transform = look.get("view", "AgX")
    # table
    bpy.ops.mesh.primitive_plane_add(size=3.0, location=(0, 0, 0))
    bpy.context.object.data.materials.append(mat("table", look["table_color"], 0.8, 0.05, 3.0))
    # board
    bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0, THICK / 2))
    b = bpy.context.object
    b.scale = (BOARD, BOARD, THICK)
    board_seed = texture.random() * 10
    b.data.materials.append(
        mat(
            "board",
            look["board_color"],
            look["board_rough"],
            look["grain"],
            25.0,
            board_seed,
            look["board_coat"],
        )
    )
    top = THICK
    # grid lines
    lm = mat("lines", look["line_color"], 0.6)
    for k in range(N + 1):
        off = (k - N / 2) * SQ
        for sx, sy, px, py in ((0.0018, N * SQ + 0.0018, off, 0), (N * SQ + 0.0018, 0.0018, 0, off)):
            bpy.ops.mesh.primitive_cube_add(size=1, location=(px, py, top + 0.0001))
            o = bpy.context.object
            o.scale = (sx, sy, 0.0002)
            o.data.materials.append(lm)
    # markers: 0 at a1 corner, 1 at d1, 2 at d4, 3 at a4; upright seen from White's side
    for mid, (cx, cy) in enumerate(marker_centres()):
        bpy.ops.mesh.primitive_plane_add(size=MARKER, location=(cx, cy, top + 0.0002))
        o = bpy.context.object
        o.data.materials.append(image_mat(f"m{mid}", os.path.join(HERE, "markers", f"aruco4x4_{mid}.png")))
    # cups
    mats = {}
    for color, key in (("white", "light"), ("black", "dark")):
        mats[color] = mat(
            key,
            look[f"{key}_color"],
            look.get(f"{key}_rough", look["piece_rough"]),
            look.get(f"{key}_grain", look["piece_grain"]),
            60.0,
            texture.random() * 10,
            look.get(f"{key}_coat", 0.0),
        )
    measures = cup_measures(look)
    offsets = frame.get("offsets")
    j = look.get("jitter", 0.004)
    for sq, stack in sorted(frame.get("board", {}).items()):
        if not stack:
            continue
        color, size = stack[-1]
        x, y = sq_center(sq)
        if offsets is not None:
            dx, dy = (v / 1000 for v in offsets.get(sq, (0.0, 0.0)))
        else:
            dx, dy = jitter_rng.uniform(-j, j), jitter_rng.uniform(-j, j)
        add_piece(x + dx, y + dy, top, size, mats[color], measures)
    # external stacks beside the board: White's left of the board, Black's right
    for color, xside in (("white", -1), ("black", 1)):
        for k, st in enumerate(frame.get("reserves", {}).get(color, [])):
            if st:
                add_piece(xside * (BOARD / 2 + 0.05), (k - 1) * 0.075, 0.0, st[-1], mats[color], measures)
    hand = frame.get("hand")
    if hand:
        add_hand(look, hand, mats, measures)
    add_area_light(sc, "key", look["key_power"], look["key_size"], look["key_temp"], look["key_pos"])
    add_area_light(sc, "fill", look["fill_power"], 1.0, look["fill_temp"], look["fill_pos"])
    w = bpy.data.worlds.new("w")
    w.use_nodes = True
    w.node_tree.nodes["Background"].inputs["Strength"].default_value = look["sky_strength"]
    w.node_tree.nodes["Background"].inputs["Color"].default_value = (*look["sky_color"], 1)
    sc.world = w
    co = add_camera(sc, look)
    return sc, co


def add_hand(look, hand, mats, measures):
    """An arm (cylinder) and a hand (flattened ellipsoid) hovering over the board; the cup it
    holds, if any, hangs under the palm."""
    skin = mat("skin", tuple(look.get("skin", (0.78, 0.55, 0.42))), 0.6)
    hx, hy, ang = hand["x"] / 1000, hand["y"] / 1000, math.radians(hand["angle"])
    hz = hand.get("z", 90) / 1000
    bpy.ops.mesh.primitive_uv_sphere_add(radius=1, location=(hx, hy, hz))
    o = bpy.context.object
    o.scale = (0.05, 0.035, 0.02)
    o.rotation_euler = (0, 0, ang)
    o.data.materials.append(skin)
    arm = 0.5
    ax, ay = hx + math.cos(ang) * (arm / 2 + 0.04), hy + math.sin(ang) * (arm / 2 + 0.04)
    bpy.ops.mesh.primitive_cylinder_add(radius=0.035, depth=arm, location=(ax, ay, hz + 0.03))
    o = bpy.context.object
    o.rotation_euler = (0, math.radians(90), ang)
    o.data.materials.append(mat("sleeve", tuple(look.get("sleeve", (0.15, 0.2, 0.45))), 0.9))
    holding = hand.get("holding")
    if holding:
        color, size = holding
        knob_top = measures[1][size] * 0.85 + measures[0][size] * 0.3
        # held by the fingers, ahead of the palm
        cx, cy = hx - math.cos(ang) * 0.03, hy - math.sin(ang) * 0.03
        add_piece(cx, cy, hz - 0.012 - knob_top, size, mats[color], measures)


def add_camera(sc, look):
    cam = bpy.data.cameras.new("cam")
    cam.lens = look["lens_mm"]
    cam.sensor_width = 36
    co = bpy.data.objects.new("cam", cam)
    sc.collection.objects.link(co)
    if look.get("camera_model") == "euler":  # the dev set's model: placed and turned, not aimed
        co.location = (look["cam_dx"], look["cam_dy"], look["cam_height"])
        co.rotation_euler = Euler(
            (math.radians(look["tilt_deg"]), math.radians(look["roll_deg"]), math.radians(look["yaw_deg"])),
            "XYZ",
        )
        sc.camera = co
        return co
    # The camera sits on an arm: `cam_height` above the board, `tilt_deg` off vertical towards
    # the direction `yaw_deg` (0 = from White's side), aimed near the board centre (cam_dx/dy
    # shift the aim point), then rolled by `roll_deg`.
    t, yaw = math.radians(look["tilt_deg"]), math.radians(look["yaw_deg"])
    aim = Vector((look["cam_dx"], look["cam_dy"], THICK))
    dist = look["cam_height"] / math.cos(t)
    co.location = (
        aim + Vector((math.sin(t) * math.sin(yaw), -math.sin(t) * math.cos(yaw), math.cos(t))) * dist
    )
    co.rotation_euler = (aim - co.location).to_track_quat("-Z", "Y").to_euler()
    co.rotation_euler.rotate_axis("Z", math.radians(look["roll_deg"]))
    sc.camera = co
    return co


def marker_centres():
    half = N * SQ / 2 + MARKER_OFF
    return ((-half, -half), (half, -half), (half, half), (-half, half))


def project(sc, co, x, y, z):
    v = bpy_extras.object_utils.world_to_camera_view(sc, co, Vector((x, y, z)))
    w, h = sc.render.resolution_x, sc.render.resolution_y
    return [v.x * w, (1 - v.y) * h]


def projections(sc, co):
    """The grid corners, the markers' outer corners and the board's edge in pixels, and whether
    the board and its markers are all inside the image with a margin."""
    g = N * SQ / 2
    corners = {
        k: project(sc, co, x, y, THICK)
        for k, (x, y) in {"a1": (-g, -g), "d1": (g, -g), "d4": (g, g), "a4": (-g, g)}.items()
    }
    m = MARKER / 2
    markers = {
        str(i): [
            project(sc, co, cx + sx * m, cy + sy * m, THICK)
            for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
        ]
        for i, (cx, cy) in enumerate(marker_centres())
    }
    b = BOARD / 2
    edge = [project(sc, co, sx * b, sy * b, THICK) for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    w, h = sc.render.resolution_x, sc.render.resolution_y
    points = edge + [p for quad in markers.values() for p in quad]
    margin = min(min(x, y, w - x, h - y) for x, y in points)
    return {
        "grid_corners_px": corners,
        "markers_px": markers,
        "board_edge_px": edge,
        "in_view_margin_px": margin,
        "in_view": margin >= IN_VIEW_MARGIN_PX,
    }


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    look = dict(LOOK)
    look.update(spec.get("look", {}))
    corners_only = "--corners-only" in sys.argv
    only = {a for a in sys.argv[3:] if not a.startswith("--")}
    for i, frame in enumerate(spec["frames"]):
        if only and frame["name"] not in only:
            continue
        png = os.path.join(out, frame["name"] + ".png")
        if os.path.exists(png) and not corners_only:
            continue
        sc, co = build(frame_look(look, frame), frame, spec["seed"], spec["seed"] * 1000 + i)
        bpy.context.view_layer.update()
        with open(os.path.join(out, frame["name"] + ".truth.json"), "w") as f:
            json.dump(projections(sc, co), f)
        if corners_only:
            continue
        sc.render.filepath = png
        bpy.ops.render.render(write_still=True)
        print("rendered", png, flush=True)


if __name__ == "__main__":
    main()
