"""Image-level robustness: rendered games through the board reader, the stability gate and
the reconciler (``companion/testing/scenes.py``), scored per move like the fault streams.

    PYTHONPATH=. python benchmarks/reconciler_scenes.py [GAMES] [--plies N] [--first-seed S]

Each game is a new randomised scene (camera, light, colours), calibrated from its empty and
reference frames; hands pass over the board before half the stable states, the light changes,
and 5 % of turns are made under the hand (two moves between stable states).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from companion.testing.faults import RunResult
from companion.testing.scenes import scene_game


def option(name: str, default: int) -> int:
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main() -> None:
    args = [a for i, a in enumerate(sys.argv[1:], 1) if not sys.argv[i - 1].startswith("--")]
    games = int(next((a for a in args if a.isdigit()), "20"))
    plies, first = option("--plies", 24), option("--first-seed", 0)
    total = RunResult()
    frames = observations = misread = squares = 0
    started = time.perf_counter()
    for seed in range(first, first + games):
        run = scene_game(seed, plies)
        total.add(run.result)
        frames += run.frames
        observations += run.observations
        misread += run.misread
        squares += run.squares
        print(f"  game {seed}: {run.result.summary()} ({run.seconds:.0f} s)", flush=True)
    print(
        f"{games} rendered games, {frames} frames read, {observations} stable observations, "
        f"{time.perf_counter() - started:.0f} s"
    )
    print(f"  squares of stable observations read wrong (best class): {misread}/{squares}")
    print(f"  {total.summary()}")
    ms = np.array(total.seconds) * 1000.0
    print(
        f"  reconciler time per stable observation: mean {ms.mean():.2f} ms, "
        f"p95 {np.percentile(ms, 95):.2f}, "
        f"max {ms.max():.2f} ms"
    )
    print(f"  events: {dict(sorted((str(k), v) for k, v in total.events.items()))}")


if __name__ == "__main__":
    main()
