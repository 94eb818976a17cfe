"""Do two versions of the reader read the same? Dump every reading, then compare two dumps.

A change made for speed must leave the readings as they were. This reads every frame of the
given scene folders (frames-dev's layout: ``frames/00-empty.jpg``, ``01-reference.jpg``, then
the game's frames) with the product's calibration and one reader per scene, frame after frame
(a second apart, so the stillness clock runs), then learns from two of its frames (labelled
with their own readings, every cup refitted) and reads the first frames again with what was
learned. Every reading's probabilities and flags, and every calibration's JSON, go to a file;
``--compare`` puts two such files side by side:

    PYTHONPATH=/work/main python benchmarks/vision_same.py --dump main.npz SCENE_DIR ...
    PYTHONPATH=. python benchmarks/vision_same.py --dump branch.npz SCENE_DIR ...
    python benchmarks/vision_same.py --compare main.npz branch.npz

The comparison lists, per scene, the squares whose top differs, the largest difference of any
probability, and the frames whose occluded or moved flag differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from companion.vision.calibration import Calibration, calibrate
from companion.vision.learning import LabelledFrame, Learner
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image

LEARN_FROM = (5, 10)
"""The game frames (by index) learned from, after the first pass."""
AGAIN = 12
"""How many of the first game frames are read again with what was learned."""


def scene_frames(folder: Path) -> list[Path]:
    return sorted((folder / "frames").glob("*.jpg"))


def dump_scene(folder: Path, out: dict[str, np.ndarray]) -> None:
    """Every reading of one scene into ``out``, under keys starting with the scene's name."""
    files = scene_frames(folder)
    name = f"{folder.parent.name}/{folder.name}"  # (the committed slices share the bench's names)
    calibration = calibrate(read_image(files[0]), read_image(files[1]))
    out[f"{name}/calibration"] = as_text(calibration)
    reader = BoardReader(calibration)
    images = [read_image(f) for f in files[2:]]
    readings = [reader.read_details(image, float(t)) for t, image in enumerate(images)]
    store(out, f"{name}/read", readings)
    for index in LEARN_FROM:
        if index < len(images):
            tops = readings[index].observation.tops()
            rows = {row: top for row, top in enumerate(tops.values()) if top is not None}
            fits = getattr(readings[index], "fits", None)  # (a reader before they were kept: none)
            extra = {} if fits is None else {"fits": fits}
            Learner(reader).learn(LabelledFrame(reader.rectified(images[index]), rows, **extra))
    out[f"{name}/learned"] = as_text(reader.calibration)
    again = [reader.read_details(image, 100.0 + t) for t, image in enumerate(images[:AGAIN])]
    store(out, f"{name}/again", again)


def as_text(calibration: Calibration) -> np.ndarray:
    """A calibration's file contents, without the time it was made."""
    data = calibration.to_json()
    data.pop("created", None)
    return np.array(json.dumps(data, sort_keys=True))


def store(out: dict[str, np.ndarray], key: str, readings: list) -> None:
    out[f"{key}/p"] = np.array([r.observation.probabilities for r in readings])
    out[f"{key}/flags"] = np.array([(r.observation.occluded, r.observation.moved) for r in readings])
    out[f"{key}/cover"] = np.array(
        [
            (r.band_area_mm2, r.grid_area_mm2, r.fist_log_odds, r.hidden_area_mm2, r.labels_alike)
            for r in readings
        ]
    )


def compare(a_path: Path, b_path: Path) -> bool:
    """Print the differences between two dumps; True when they read the same."""
    a, b = np.load(a_path), np.load(b_path)
    same = True
    if set(a.files) != set(b.files):
        print(f"different contents: {sorted(set(a.files) ^ set(b.files))}")
        same = False
    for key in sorted(set(a.files) & set(b.files)):
        x, y = a[key], b[key]
        if x.shape != y.shape:
            print(f"{key}: shapes {x.shape} and {y.shape}")
            same = False
        elif x.dtype.kind in "US":
            if str(x) != str(y):
                print(f"{key}: differs")
                same = False
        elif key.endswith("/p") and x.ndim == 3:
            tops = int(np.count_nonzero(x.argmax(axis=2) != y.argmax(axis=2)))
            diff = float(np.max(np.abs(x - y))) if x.size else 0.0
            print(
                f"{key}: {x.shape[0]} frames x {x.shape[1]} squares, tops differing {tops}, "
                f"largest probability difference {diff:.3g}"
            )
            same &= tops == 0 and diff < 1e-6
        elif key.endswith("/flags") and x.ndim == 2:
            frames = np.flatnonzero((x != y).any(axis=1))
            if len(frames):
                print(f"{key}: flags differ on frames {frames.tolist()}")
                same = False
        else:
            diff = float(np.nanmax(np.abs(np.where(np.isfinite(x - y), x - y, 0.0)))) if x.size else 0.0
            if diff > 1e-6 or not np.array_equal(np.isfinite(x), np.isfinite(y)):
                print(f"{key}: differs by up to {diff:.3g}")
                same = False
    print("the same" if same else "NOT the same")
    return same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="*", type=Path)
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if args.compare:
        sys.exit(0 if compare(*args.compare) else 1)
    if args.dump is None:
        parser.error("--dump FILE or --compare A B")
    out: dict[str, np.ndarray] = {}
    for folder in args.scenes:
        print(folder.name, flush=True)
        dump_scene(folder, out)
    np.savez_compressed(args.dump, **out)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
