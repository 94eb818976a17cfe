"""How long the reconciler takes per stable observation.

    PYTHONPATH=. python benchmarks/reconciler_speed.py [GAMES] [--cpu] [--repeat N] [--gc-off]

Two streams: fault-free readings of random classic games (the normal case: the board shows
the last position or one move more), and the fault mix of the robustness test (unclear
readings make the reconciler search two moves and keep a beam of paths). Only ``feed`` is
timed, not the board reader. ``--cpu`` times the thread's CPU time instead of the wall
clock: on a shared machine under load the wall clock mostly measures the other jobs.

``--repeat N`` runs the whole measurement N times, each in a fresh process (cold caches, as
the first run), and also reports each observation's fastest time. The reconciler is
deterministic, so the streams and the work are the same every run: what differs is what the
machine's other jobs cost the run (a busy neighbour slows even the CPU time through shared
caches), and the fastest time is the reconciler's own. Both are printed. (A garbage
collection falls on the same observation every run: it stays in both.) ``--gc-off`` turns
the collector off while timing, leaving the reconciler's own work: it makes no reference
cycles (the collections during 150 faulted games free none), so a collection only scans what
is alive, yet one can take a few milliseconds inside an observation.
"""

from __future__ import annotations

import gc
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from companion.reconciler.faults import FaultRates, make_stream, run_games, run_stream
from companion.reconciler.reconciler import Reconciler
from companion.rules import PRESETS

STREAMS = ("fault-free", "with faults")


def summary(name: str, seconds: np.ndarray) -> str:
    ms = seconds * 1000.0
    return (f"{name}: {len(ms)} observations, mean {ms.mean():.2f} ms, median {np.median(ms):.2f} ms, "
            f"p95 {np.percentile(ms, 95):.2f} ms, p99 {np.percentile(ms, 99):.2f} ms, "
            f"p99.9 {np.percentile(ms, 99.9):.2f} ms, max {ms.max():.2f} ms, over 5 ms: {int((ms > 5).sum())}")


def measure(games: int, timer: Callable[[], float], collect: bool = True) -> dict[str, np.ndarray]:
    """Seconds per observation of each stream, in a fixed order. What start-up loaded is
    frozen out of the garbage collector first, as the device does (``device/app.py``):
    otherwise a full collection scans it, ~12 ms inside one observation."""
    gc.collect()
    gc.freeze()
    if not collect:
        gc.disable()
    clean: list[float] = []
    for seed in range(games):
        stream = make_stream(PRESETS["classic"], seed, FaultRates.clean())
        clean += run_stream(stream, Reconciler, timer).seconds
    faulted = run_games(games, ("classic",), timer=timer).seconds
    return {"fault-free": np.array(clean), "with faults": np.array(faulted)}


def measure_in_fresh_processes(games: int, repeat: int, options: list[str]) -> list[dict[str, np.ndarray]]:
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        for i in range(repeat):
            raw = Path(folder) / f"run{i}.npz"
            command = [sys.executable, __file__, str(games), "--raw", str(raw), *options]
            subprocess.run(command, check=True)  # (the same interpreter, working folder and PYTHONPATH)
            with np.load(raw) as data:
                runs.append({name: data[name] for name in STREAMS})
    return runs


def main() -> None:
    args = sys.argv[1:]
    games = int(next((a for a in args if a.isdigit()), "200"))
    cpu, collect = "--cpu" in args, "--gc-off" not in args
    timer = time.thread_time if cpu else time.perf_counter
    if "--raw" in args:  # one run of ``--repeat``: the times go to a file
        np.savez(args[args.index("--raw") + 1], **measure(games, timer, collect))
        return
    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 1
    print(f"{platform.machine()} {platform.processor() or ''} python {platform.python_version()}, "
          f"{'CPU time' if cpu else 'wall clock'}, garbage collection {'on' if collect else 'off'}, "
          f"load {os.getloadavg()[0]:.1f}")
    if repeat == 1:
        runs = [measure(games, timer, collect)]
    else:
        runs = measure_in_fresh_processes(games, repeat, [a for a in args if a in ("--cpu", "--gc-off")])
    for name in STREAMS:
        print(summary(name, runs[0][name]))
    if repeat > 1:
        print(f"each observation's fastest of {repeat} runs:")
        for name in STREAMS:
            print(summary(name, np.min([run[name] for run in runs], axis=0)))


if __name__ == "__main__":
    main()
