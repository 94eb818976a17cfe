"""Vision accuracy on the development frame sets (or synthetic scenes).

Each scene is calibrated from its own empty and reference frames; then every frame is read.
Hand frames must be flagged occluded; on every other frame each square must be read right.
Prints per-square accuracy, frames fully right, hand frames flagged, the confusion matrix
(rows: truth, columns: reading) and the worst frames.

    PYTHONPATH=. python benchmarks/vision_accuracy.py [FRAMES_DIR] [--synthetic N [--stress]]

``--stress`` widens the synthetic set-ups beyond the reference set (``SceneRenderer(stress=True)``:
other woods and cup colours, cups off docs/board.md's sizes, stains, strong low, coloured or dim light,
heavier noise, blur and JPEG; every fourth set-up at 1280x960) and changes the light after
calibration (brightness, tint, a person's shade, the lamp turned); its hand frames include a
steep arm and a fist alone over the grid. Every reading's confidence is kept, and the script
prints how many right and wrong squares are read at or above each confidence. ``--white-darker``
draws the same set-ups with White's cups the darker set, and calibrates saying so.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from companion.errors import CompanionError
from companion.rules.square import COLOR_NAMES
from companion.vision.calibration import calibrate
from companion.vision.observation import class_index
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from companion.vision.synth import SceneRenderer, Top, random_tops

DEFAULT = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "frames-dev"
MAX_PIECE = 4


@dataclass
class Frame:
    scene: str
    name: str
    image: np.ndarray
    hand: bool | str
    tops: dict[str, Top]


@dataclass
class Scene:
    name: str
    empty: np.ndarray
    reference: np.ndarray
    frames: list[Frame]


@dataclass
class Tally:
    squares: int = 0
    right: int = 0
    frames: int = 0
    frames_right: int = 0
    hands: int = 0
    hands_flagged: int = 0
    false_occluded: int = 0
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((1 + 2 * MAX_PIECE,) * 2, int))
    worst: list[tuple[int, float, str, list[str]]] = field(default_factory=list)
    right_conf: list[float] = field(default_factory=list)
    wrong_conf: list[float] = field(default_factory=list)
    hand_kinds: dict[str, list[int]] = field(default_factory=dict)
    missed: list[str] = field(default_factory=list)  # hand frames read as hand-free
    flagged: list[str] = field(default_factory=list)  # hand-free frames read as covered
    read_cpu: list[float] = field(default_factory=list)
    scenes: int = 0
    dump: list[dict] = field(default_factory=list)


def truth_tops(record: dict) -> dict[str, Top]:
    return {sq: (COLOR_NAMES.index(t["color"]), int(t["size"])) for sq, t in record.get("top", {}).items()}


def dev_scenes(root: Path) -> Iterator[Scene]:
    for folder in sorted(p for p in root.iterdir() if (p / "frames").is_dir()):
        files = sorted((folder / "frames").glob("*.jpg"))
        frames = []
        for f in files:
            record = json.loads(f.with_suffix(".json").read_text())
            frames.append(
                Frame(folder.name, f.stem, read_image(f), record["kind"] == "hand", truth_tops(record))
            )
        yield Scene(folder.name, frames[0].image, frames[1].image, frames)


def synthetic_scenes(count: int, first: int = 1000, white_darker: bool = False) -> Iterator[Scene]:
    rng = np.random.default_rng(first)
    for seed in range(count):
        r = SceneRenderer(first + seed, white_darker=white_darker)
        frames = []
        for k in range(12):
            tops = random_tops(rng, fill=0.6)
            frames.append(
                Frame(f"synth-{seed}", f"{k:02d}", r.render(tops, hand=k % 4 == 3), k % 4 == 3, tops)
            )
        yield Scene(f"synth-{seed}", r.empty(), r.reference(), frames)


HAND_KINDS = ("arm", "steep", "fist")


def stress_scenes(count: int, first: int = 1000, white_darker: bool = False) -> Iterator[Scene]:
    rng = np.random.default_rng(first + 77)
    for seed in range(count):
        resolution = (1280, 960) if seed % 4 == 3 else (640, 480)
        r = SceneRenderer(first + seed, resolution=resolution, stress=True, white_darker=white_darker)
        empty, reference = r.empty(), r.reference()
        frames = []
        for k in range(12):
            tops = random_tops(rng, fill=0.6)
            hand: bool | str = HAND_KINDS[k // 4] if k % 4 == 3 else False
            light: dict = {}
            if k % 2 == 1 or k >= 8:  # light changed after calibration
                light = {
                    "brightness": float(rng.uniform(0.7, 1.3)),
                    "tint": tuple(np.clip(1 + rng.normal(0, 0.06, 3), 0.8, 1.2)),
                    "shade": float(rng.choice([0.0, 0.0, rng.uniform(0.2, 0.7)])),
                    "light_turn_deg": float(rng.choice([0.0, rng.uniform(-40, 40)])),
                }
            frames.append(Frame(f"stress-{seed}", f"{k:02d}", r.render(tops, hand=hand, **light), hand, tops))
        yield Scene(f"stress-{seed}{'-1280' if resolution[0] > 640 else ''}", empty, reference, frames)


def score(scene: Scene, tally: Tally, white_darker: bool = False) -> None:
    reader = BoardReader(calibrate(scene.empty, scene.reference, white_darker=white_darker))
    tally.scenes += 1
    for frame in scene.frames:
        t0 = time.process_time()
        details = reader.read_details(frame.image)
        obs = details.observation
        if frame.image.shape[1] == 640:
            tally.read_cpu.append(time.process_time() - t0)
        if frame.hand:
            tally.hands += 1
            tally.hands_flagged += obs.occluded
            kind = tally.hand_kinds.setdefault("arm" if frame.hand is True else str(frame.hand), [0, 0])
            kind[0] += obs.occluded
            kind[1] += 1
            if not obs.occluded:
                tally.missed.append(
                    f"{scene.name}/{frame.name} ({frame.hand if frame.hand is not True else 'arm'})"
                )
            continue
        tally.frames += 1
        tally.false_occluded += obs.occluded
        if obs.occluded:
            tally.flagged.append(f"{scene.name}/{frame.name}")
        wrong = []
        lowest = 1.0
        for name, top in obs.tops().items():
            truth = frame.tops.get(name)
            tally.squares += 1
            tally.confusion[class_index(truth, MAX_PIECE), class_index(top, MAX_PIECE)] += 1
            confidence = obs.confidence(name)
            lowest = min(lowest, confidence)
            m = details.matches[obs.row(name)]
            tally.dump.append(
                {
                    "scene": scene.name,
                    "frame": frame.name,
                    "square": name,
                    "truth": class_index(truth, MAX_PIECE),
                    "occluded": obs.occluded,
                    "p": obs.probabilities[obs.row(name)].tolist(),
                    "sizes": m.sizes.tolist(),
                    "colour": m.colour,
                    "colour_log_odds": m.colour_log_odds,
                    "ring_px": reader.models.cups.ring_px(reader.models.scale),
                    "area": float(reader.bank.squares[obs.row(name)].areas[m.colour, m.size - 1]),
                }
            )
            if obs.occluded:
                pass  # the reconciler ignores occluded frames
            elif top == truth:
                tally.right_conf.append(confidence)
            else:
                tally.wrong_conf.append(confidence)
            if top == truth:
                tally.right += 1
            else:
                wrong.append(f"{name}: {label(truth)} read {label(top)} ({confidence:.2f})")
        tally.frames_right += not wrong and not obs.occluded
        tally.worst.append((len(wrong) + obs.occluded, lowest, f"{frame.scene}/{frame.name}", wrong))


def label(top: Top) -> str:
    return "empty" if top is None else f"{'WB'[top[0]]}{top[1]}"


def report(tally: Tally) -> None:
    pct = 100 * tally.right / max(tally.squares, 1)
    print(f"squares read right: {tally.right}/{tally.squares} = {pct:.3f} %")
    print(
        f"frames fully right: {tally.frames_right}/{tally.frames}"
        f" (non-hand frames flagged occluded: {tally.false_occluded})"
    )
    print(
        f"hand frames flagged occluded: {tally.hands_flagged}/{tally.hands}"
        + "".join(f", {k} {v[0]}/{v[1]}" for k, v in tally.hand_kinds.items())
    )
    print(f"  hand frames missed: {', '.join(tally.missed) or 'none'}")
    print(f"  hand-free frames flagged: {', '.join(tally.flagged) or 'none'}")
    right, wrong = np.array(tally.right_conf), np.array(tally.wrong_conf)
    print(
        f"confidence on frames not flagged occluded: {len(wrong)} wrong squares;"
        f" at or above each confidence, right / wrong squares:"
    )
    for t in (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99):
        print(f"  >= {t:.2f}: {int((right >= t).sum()):>6} / {int((wrong >= t).sum()):>3}")
    if len(wrong):
        print(
            "  wrong squares' confidences: " + " ".join(f"{c:.2f}" for c in sorted(wrong, reverse=True)[:20])
        )
    if tally.read_cpu:
        print(
            f"read 640x480: median {1000 * float(np.median(tally.read_cpu)):.1f} ms CPU "
            f"over {len(tally.read_cpu)} frames"
        )
    names = ["empty"] + [f"{c}{s}" for c in "WB" for s in range(1, MAX_PIECE + 1)]
    print("confusion (rows truth, columns reading):")
    print("        " + " ".join(f"{n:>5}" for n in names))
    for name, row in zip(names, tally.confusion, strict=True):
        print(f"  {name:>5} " + " ".join(f"{v:>5}" for v in row))
    print("worst frames (wrong squares, lowest confidence):")
    for wrong, lowest, where, details in sorted(tally.worst, key=lambda w: (-w[0], w[1]))[:8]:
        print(f"  {where}: {wrong} wrong, lowest confidence {lowest:.3f} {'; '.join(details)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "frames",
        nargs="?",
        default=str(DEFAULT),
        help="frame sets folder (default ../shared/data/frames-dev)",
    )
    parser.add_argument("--synthetic", type=int, default=0, help="use N synthetic scenes instead")
    parser.add_argument("--stress", action="store_true", help="with --synthetic: the widened stress set")
    parser.add_argument("--dump", help="write every square's scores and probabilities to this JSON file")
    parser.add_argument("--first-seed", type=int, default=1000, help="first synthetic scene's seed")
    parser.add_argument(
        "--white-darker",
        action="store_true",
        help="with --synthetic: White's cups the darker set, calibrated as calibrate --white-darker does",
    )
    args = parser.parse_args()
    tally = Tally()
    try:
        if args.synthetic:
            make = stress_scenes if args.stress else synthetic_scenes
            scenes: Iterator[Scene] = make(args.synthetic, args.first_seed, args.white_darker)
        elif Path(args.frames).is_dir():
            scenes = dev_scenes(Path(args.frames))
        else:
            print(f"{args.frames} not found; try --synthetic 10", file=sys.stderr)
            return 2
        for scene in scenes:
            try:
                score(scene, tally, args.white_darker)
            except CompanionError as error:  # a set-up that cannot be calibrated counts, and goes on
                print(f"{scene.name}: calibration failed: {error}", file=sys.stderr)
                tally.worst.append((99, 0.0, scene.name, [f"calibration failed: {error}"]))
    except CompanionError as error:
        print(f"vision_accuracy: {error}", file=sys.stderr)
        return 2
    report(tally)
    if args.dump:
        Path(args.dump).write_text(json.dumps(tally.dump))
    return 0


if __name__ == "__main__":
    sys.exit(main())
