"""How long calibration and reading one frame take.

Reads every frame of ../shared/data/frames-dev (or, without it, synthetic scenes) round and
round, so no frame is read twice in a row, and prints the median and 90th percentile wall
time, plus the median CPU time with OpenCV on one thread (what the work costs when the
machine is not shared with anything else); and a step of learning during the game, on frames
labelled with their own reading. Development machines are noisy: quote medians.

    PYTHONPATH=. python benchmarks/vision_speed.py [--reads 300] [--calibrations 10]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from companion.vision.calibration import calibrate
from companion.vision.learning import LabelledFrame, Learner
from companion.vision.reader import BoardReader
from companion.vision.synth import SceneRenderer, random_tops

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "frames-dev"


def scenes(resolution: tuple[int, int]) -> list[tuple[np.ndarray, np.ndarray, list[np.ndarray]]]:
    """(empty, reference, frames) per scene: frames-dev at 640x480 if present, else synthetic."""
    out = []
    if SHARED.is_dir() and resolution == (640, 480):
        for scene in sorted(SHARED.iterdir()):
            files = sorted((scene / "frames").glob("*.jpg"))
            if len(files) > 2:
                images = [cv2.imread(str(f)) for f in files]
                out.append((images[0], images[1], images[2:]))
    if not out:
        rng = np.random.default_rng(7)
        for seed in range(3):
            r = SceneRenderer(seed, resolution=resolution)
            out.append((r.empty(), r.reference(), [r.render(random_tops(rng)) for _ in range(20)]))
    return out


def timed(fn: Callable[[], object], runs: int) -> tuple[list[float], list[float]]:
    walls, cpus = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return walls, cpus


def summary(label: str, walls: list[float], cpus: list[float]) -> str:
    if not walls:
        return f"{label}: not run (0 runs)"
    ms = sorted(w * 1000 for w in walls)
    p90 = ms[int(0.9 * (len(ms) - 1))]
    return (
        f"{label}: median {statistics.median(ms):.1f} ms, p90 {p90:.1f} ms wall; "
        f"median {statistics.median(cpus) * 1000:.1f} ms CPU ({len(ms)} runs)"
    )


def bench(resolution: tuple[int, int], reads: int, calibrations: int) -> None:
    data = scenes(resolution)
    empty, reference, _ = data[0]
    cal_walls, cal_cpus = timed(lambda: calibrate(empty, reference), calibrations)
    readers = [(BoardReader(calibrate(e, r)), frames) for e, r, frames in data]
    jobs = [(reader, f) for reader, frames in readers for f in frames]
    for reader, frame in jobs[:10]:
        reader.read(frame)  # warm caches (lookup tables, warp maps)
    state = {"i": 0}

    def one() -> None:
        reader, frame = jobs[state["i"] % len(jobs)]
        state["i"] += 1
        reader.read(frame)

    read_walls, read_cpus = timed(one, reads)

    def learn_one() -> None:
        """A learning step, its worst case: every cup's size refitted (``misread`` unknown),
        from a frame just read (its base fits the reading's)."""
        reader, frame = jobs[state["i"] % len(jobs)]
        state["i"] += 1
        reading = reader.read_details(frame)
        tops = {row: top for row, top in enumerate(reading.observation.tops().values()) if top is not None}
        Learner(reader).learn(LabelledFrame(reader.rectified(frame), tops, fits=reading.fits))

    learn_walls, learn_cpus = timed(learn_one, max(5, reads // 20))
    w, h = resolution
    print(summary(f"calibrate {w}x{h} (empty + reference)", cal_walls, cal_cpus))
    print(summary(f"read {w}x{h} frame", read_walls, read_cpus))
    print(summary(f"learn from a {w}x{h} frame (every cup refitted)", learn_walls, learn_cpus))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=300)
    parser.add_argument("--calibrations", type=int, default=10)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    print(
        f"machine: {platform.processor() or platform.machine()}, {platform.python_implementation()} "
        f"{platform.python_version()}, OpenCV {cv2.__version__}, 1 OpenCV thread"
    )
    bench((640, 480), args.reads, args.calibrations)
    at_1280 = max(3, args.calibrations // 3) if args.calibrations > 0 else 0  # 0: reads alone
    bench((1280, 960), max(20, args.reads // 5), at_1280)


if __name__ == "__main__":
    main()
