"""Hint budget and memory: how long ``Engine.search(position, time=T)`` really takes against
the T asked (the hint must answer within 1.1 T), and the resident memory once the engine's
tables have been used, as the device's hint worker calls it.

    PYTHONPATH=. python benchmarks/hint_budget.py [--positions 20] [--seconds 0.33 1.0]

Positions: the classic middlegames of engine_speed.py (seeded random openings, then medium
moves) at 14 and 24 plies; one engine for all of them, as the device keeps one per variant.
"""

from __future__ import annotations

import argparse
import platform
import time

from engine_speed import middlegame, resident_mb

from companion.engine import Engine


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--seconds", type=float, nargs="+", default=[0.33, 1.0])
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    positions = [middlegame(seed, plies) for seed in range(args.positions // 2) for plies in (14, 24)]
    positions = [p for p in positions if p.outcome() is None]
    engine = Engine("classic")
    print(f"{len(positions)} positions; resident memory before: {resident_mb():.0f} MB")
    for seconds in args.seconds:
        ratios = []
        for position in positions:
            start = time.perf_counter()
            engine.search(position, time=seconds)
            ratios.append((time.perf_counter() - start) / seconds)
        ratios.sort()
        print(
            f"{seconds} s asked: took {ratios[len(ratios) // 2]:.2f} x (median), {ratios[-1]:.2f} x (max) "
            f"of the time asked; over 1.1 x: {sum(r > 1.1 for r in ratios)} of {len(ratios)}; "
            f"resident memory {resident_mb():.0f} MB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
