"""How long the reconciler takes per stable observation.

    PYTHONPATH=. python benchmarks/reconciler_speed.py [GAMES] [--cpu]

Two streams: fault-free readings of random classic games (the normal case: the board shows
the last position or one move more), and the fault mix of the robustness test (unclear
readings make the reconciler search two moves and keep a beam of paths). Only ``feed`` is
timed, not the board reader. ``--cpu`` times the thread's CPU time instead of the wall
clock: on a shared machine under load the wall clock mostly measures the other jobs.
"""

from __future__ import annotations

import os
import platform
import sys
import time

import numpy as np

from companion.reconciler.faults import FaultRates, make_stream, run_games, run_stream
from companion.reconciler.reconciler import Reconciler
from companion.rules import PRESETS


def summary(name: str, seconds: list[float]) -> str:
    ms = np.array(seconds) * 1000.0
    return (f"{name}: {len(ms)} observations, mean {ms.mean():.2f} ms, median {np.median(ms):.2f} ms, "
            f"p95 {np.percentile(ms, 95):.2f} ms, p99 {np.percentile(ms, 99):.2f} ms, max {ms.max():.2f} ms")


def main() -> None:
    games = int(next((a for a in sys.argv[1:] if a.isdigit()), "200"))
    timer = time.thread_time if "--cpu" in sys.argv else time.perf_counter
    print(f"{platform.machine()} {platform.processor() or ''} python {platform.python_version()}, "
          f"{'CPU time' if '--cpu' in sys.argv else 'wall clock'}, load {os.getloadavg()[0]:.1f}")
    clean: list[float] = []
    for seed in range(games):
        stream = make_stream(PRESETS["classic"], seed, FaultRates.clean())
        clean += run_stream(stream, Reconciler, timer).seconds
    print(summary("fault-free", clean))
    faulted = run_games(games, ("classic",), timer=timer).seconds
    print(summary("with faults", faulted))


if __name__ == "__main__":
    main()
