"""How long the reconciler takes per stable observation.

    PYTHONPATH=. python benchmarks/reconciler_speed.py [GAMES]

Two streams: fault-free readings of random classic games (the normal case: the board shows
the last position or one move more), and the fault mix of the robustness test (unclear
readings make the reconciler search two moves and keep a beam of paths). Only ``feed`` is
timed, not the board reader.
"""

from __future__ import annotations

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
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    print(f"{platform.machine()} {platform.processor() or ''} python {platform.python_version()}")
    clean: list[float] = []
    for seed in range(games):
        stream = make_stream(PRESETS["classic"], seed, FaultRates.clean())
        clean += run_stream(stream, Reconciler, time.perf_counter).seconds
    print(summary("fault-free", clean))
    faulted = run_games(games, ("classic",)).seconds
    print(summary("with faults", faulted))


if __name__ == "__main__":
    main()
