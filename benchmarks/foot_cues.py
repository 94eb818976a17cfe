"""Candidate cues for a pale cup's foot, each size scored against the truth (measuring only).

    PYTHONPATH=. python benchmarks/foot_cues.py SCENE_DIR ... [--json FILE]

The reader's base (``edges.py``) is a step in the frame's distance from the empty board across
the facing half of each size's real base circle. Where a pale cup's lower wall reads like the
wood, that step is faint or lies off the foot, and a white 4 is read a 3 (docs/vision-findings.md, "A
base that finds a pale cup's foot"). This probe scores other ways of finding the foot on the
same circles, none of them in the reader:

- ``distance``: the reader's own step, sampled here (the same map, ``|f|``);
- ``texture``: the step in ``1 - max(c, 0)``, ``c`` the reader's texture correlation with the
  empty board (a cup hides the wood's grain and grid lines, whatever its colour);
- ``grain``: the step in the share of the empty board's own gradients (grain, grid lines)
  still there, pixel by pixel, after the local change of light (``grain_kept``);
- ``distance flanks``: the reader's step again, each circle judged by the weakest third of its
  facing half (60 degrees each): a smaller circle hugging a larger foot shares
  its edge where it faces the camera and leaves it on the flanks;
- ``shade ridge``: the contact shade, a ridge of darkness (``-m``) at the circle against the
  larger of the two sides ``RIDGE_MM`` away.

Each scene is calibrated from its own ``00-empty`` and ``01-reference`` frames, as
``vision_bench.py`` does, and each of its frames read by a fresh reader. For every cup the
truth shows (the reference frame's too) each size's circle is scored at its best shift within
``edges.BASE_REACH_MM`` of the square's centre. Printed per cue: the reference cups whose own
size leads every other (what a calibration could test the cue on), how often the cue puts a
true 3 or 4 above the other of the two (per colour), on the cups the reader reads a size off
between 3 and 4, and on those it reads right (where the cue says the other size); then, per
colour, how often it is right by how far it leads (``by_lead``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from benchmarks.vision_bench import BenchScene, calibrate_from, load_scene
from companion.rules.square import board_squares, square_name
from companion.vision.edges import BASE_REACH_MM, SPREAD_FLOOR, real_cups
from companion.vision.matching import Evidence, evidence
from companion.vision.pixels import grey
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image

STEP_MM = 1.5
"""A step is the field's mean this far inside the circle less its mean this far outside."""
RIDGE_MM = 2.5
"""A ridge is the field on the circle less the larger of its values this far either side."""
FACING_DEG = 90.0
"""The facing half: this far either side of the direction to the point under the camera."""
ARC_POINTS = 25
SHIFT_MM = 1.0
GRAIN_NOISE = 4.0
"""Grey levels squared a gradient product must exceed to count as the empty board's grain."""
GRAIN_SEEN = 2.0
"""The empty board's gradient (grey levels a pixel) at which its grain counts in full."""


@dataclass
class CupScores:
    scene: str
    frame: str
    kind: str
    square: str
    truth: tuple[int, int]
    read: tuple[int, int] | None
    cues: dict[str, list[float]]


def grain_kept(gray: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """Per pixel, how much of the empty board's gradient the frame still shows, the local
    change of brightness taken out (1: the wood's grain as it was; 0: hidden), averaged over 3 x 3
    pixels and divided by how much grain the empty board has there: a cup hides the grain
    where its wall reads like the wood, while a shadow only dims it."""
    frame, board = gray.astype(np.float32), empty.astype(np.float32)
    gx, gy = (cv2.Sobel(frame, cv2.CV_32F, dx, dy, ksize=3) / 8 for dx, dy in ((1, 0), (0, 1)))
    hx, hy = (cv2.Sobel(board, cv2.CV_32F, dx, dy, ksize=3) / 8 for dx, dy in ((1, 0), (0, 1)))
    seen = hx * hx + hy * hy
    gain = cv2.blur(frame, (5, 5)) / np.maximum(cv2.blur(board, (5, 5)), 1.0)
    agree = np.clip((gx * hx + gy * hy) / (gain * seen + GRAIN_NOISE), -1.0, 1.5)
    weight = np.minimum(seen / GRAIN_SEEN**2, 1.0)
    return cv2.blur(agree * weight, (3, 3)) / (cv2.blur(weight, (3, 3)) + 0.2)


def cue_fields(ev: Evidence, gray: np.ndarray, empty: np.ndarray) -> dict[str, tuple[np.ndarray, str]]:
    """Each cue's map over the view and how its circles are scored (``arc_scores``)."""
    f = ev.features
    distance = np.sqrt((f * f).sum(axis=2))
    return {
        "distance": (distance, "step"),
        "distance flanks": (distance, "flanks"),
        "texture": (1.0 - np.clip(ev.texture, 0.0, 1.0), "step"),
        "grain": (-grain_kept(gray, empty), "step"),
        "shade ridge": (-f[..., 0], "ridge"),
    }


def arc_scores(
    field: np.ndarray, reader: BoardReader, centre: np.ndarray, radii: list[float], kind: str
) -> list[float]:
    """Each size's best score over shifts of its circle about ``centre`` (board mm): the mean
    step (``kind`` "step") or ridge ("ridge") along the facing half, or the step's mean over
    the weakest third of it ("flanks")."""
    view, camera = reader.models.view, reader.camera.centre
    towards = np.arctan2(camera[1] - centre[1], camera[0] - centre[0])
    angles = towards + np.radians(np.linspace(-FACING_DEG, FACING_DEG, ARC_POINTS))
    normals = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    steps = np.arange(-BASE_REACH_MM, BASE_REACH_MM + 1e-9, SHIFT_MM)
    shifts = np.stack([a.ravel() for a in np.meshgrid(steps, steps)], axis=1)
    width = RIDGE_MM if kind == "ridge" else STEP_MM
    h, w = field.shape
    scores = []
    for radius in radii:
        inner, on, outer = (
            _sampled(field, view.to_pixels, centre + shifts[:, None, :] + r * normals[None], h, w)
            for r in (radius - width, radius, radius + width)
        )
        arc = on - np.maximum(inner, outer) if kind == "ridge" else inner - outer
        if kind == "flanks":
            per_shift = np.min([part.mean(axis=1) for part in np.array_split(arc, 3, axis=1)], axis=0)
        else:
            per_shift = arc.mean(axis=1)
        scores.append(float(per_shift.max()))
    return scores


def _sampled(
    field: np.ndarray, to_pixels: Callable[[np.ndarray], np.ndarray], points: np.ndarray, h: int, w: int
) -> np.ndarray:
    """``field`` at board points (shifts x arc points x 2), nearest pixel."""
    px = to_pixels(points.reshape(-1, 2)).reshape(*points.shape[:2], 2)
    u = np.clip(np.rint(px[..., 0]).astype(int), 0, w - 1)
    v = np.clip(np.rint(px[..., 1]).astype(int), 0, h - 1)
    return field[v, u]


def scene_scores(scene: BenchScene) -> Iterator[CupScores]:
    """Every cup the truth shows on the scene's reference and game frames, scored."""
    calibration = calibrate_from(scene)
    reader = BoardReader(calibration)
    c = reader.models
    radii = list(real_cups(c.layout.square_mm, c.max_piece, c.outline).radii[0])
    names = [square_name(sq) for sq in board_squares(calibration.size)]
    for frame in [scene.frame("01-reference"), *scene.game_frames]:
        if frame.kind not in ("reference", "move"):
            continue
        image = read_image(str(frame.path))
        observation = reader.read(image)
        rectified = reader.rectified(image)
        gray = grey(rectified)
        ev = evidence(rectified, reader.background, c.pixels, reader.bank.pad, reader.bank.reach(), gray)
        fields = cue_fields(ev, gray, reader.background.gray)
        for row, name in enumerate(names):
            truth = frame.tops.get(name)
            if truth is None:
                continue
            centre = np.array(c.layout.square_centre(row))
            cues = {cue: arc_scores(f, reader, centre, radii, kind) for cue, (f, kind) in fields.items()}
            yield CupScores(scene.name, frame.name, frame.kind, name, truth, observation.top(name), cues)


def leads(scores: list[float], size: int) -> bool:
    """Whether ``size`` scores above every other size."""
    return all(scores[size - 1] > s for k, s in enumerate(scores) if k != size - 1)


def summary(cups: list[CupScores], cue: str) -> str:
    """One cue's line of figures (see the module's docstring)."""
    reference = [[0, 0], [0, 0]]
    pairs: dict[tuple[int, int], list[int]] = {}
    misread, read_right = [0, 0], [0, 0]
    for cup in cups:
        colour, size = cup.truth
        scores = cup.cues[cue]
        if cup.kind == "reference":
            reference[colour][0] += 1
            reference[colour][1] += leads(scores, size)
            continue
        if size not in (3, 4):
            continue
        other = 7 - size
        right = scores[size - 1] > scores[other - 1]
        pair = pairs.setdefault((colour, size), [0, 0])
        pair[0], pair[1] = pair[0] + 1, pair[1] + right
        if cup.read == (colour, other):
            misread[0], misread[1] = misread[0] + 1, misread[1] + right
        elif cup.read == (colour, size):
            read_right[0], read_right[1] = read_right[0] + 1, read_right[1] + (not right)
    counts = "  ".join(
        f"{'WB'[c]}{s} {pairs.get((c, s), [0, 0])[1]}/{pairs.get((c, s), [0, 0])[0]}"
        for c in (0, 1)
        for s in (3, 4)
    )
    return (
        f"{cue:15s} reference own size leads"
        f" W {reference[0][1]}/{reference[0][0]} B {reference[1][1]}/{reference[1][0]}"
        f" | 3 vs 4 right: {counts} | on misread 3<->4 {misread[1]}/{misread[0]}"
        f" | read right, cue says the other {read_right[1]}/{read_right[0]}"
    )


LEAD_BANDS = (0.0, 0.2, 0.4, 0.7)
"""Bands of a cue's lead (the true size's score less the other's of 3 and 4, over the spread of
all sizes' scores, at least ``edges.SPREAD_FLOOR``) for ``by_lead``."""


def by_lead(cups: list[CupScores], cue: str, colour: int) -> str:
    """How often the cue puts a true 3 or 4 of ``colour`` over the other, by how far it leads:
    whether a cue is surer where it says more (a weight could then follow its lead)."""
    bands = [[0, 0] for _ in LEAD_BANDS]
    for cup in cups:
        size = cup.truth[1]
        if cup.kind != "move" or cup.truth[0] != colour or size not in (3, 4):
            continue
        scores = cup.cues[cue]
        margin = scores[size - 1] - scores[6 - size]
        lead = abs(margin) / max(max(scores) - min(scores), SPREAD_FLOOR)
        band = bands[int(np.searchsorted(LEAD_BANDS, lead, side="right")) - 1]
        band[0], band[1] = band[0] + 1, band[1] + (margin > 0)
    return f"{cue:15s} {'WB'[colour]} by lead " + "  ".join(
        f">={low:.1f} {right}/{n}" for low, (n, right) in zip(LEAD_BANDS, bands, strict=True)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="+", type=Path, help="scene folders (frames-dev's layout)")
    parser.add_argument("--json", help="write every cup's scores here")
    args = parser.parse_args()
    cups = [cup for folder in args.scenes for cup in scene_scores(load_scene(folder))]
    for cue in cups[0].cues if cups else ():
        print(summary(cups, cue))
    for cue in cups[0].cues if cups else ():
        print(by_lead(cups, cue, 0), "|", by_lead(cups, cue, 1)[16:])
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(cup) for cup in cups]))


if __name__ == "__main__":
    sys.exit(main())
