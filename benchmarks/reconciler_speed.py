"""How long the reconciler takes per stable observation.

    PYTHONPATH=. python benchmarks/reconciler_speed.py [GAMES] [--cpu] [--repeat N] [--gc-off]
        [--variants classic,storer,...]

Two streams: fault-free readings of random classic games (the normal case: the board shows
the last position or one move more), and the fault mix of the robustness test (unclear
readings make the reconciler search two moves and keep a beam of paths), of classic games
or of ``--variants`` in turn (``reconciler_faults.py``'s mix is
classic,classic,classic,storer,rogers). Only ``feed`` is timed, not the board reader. ``--cpu``
times the thread's CPU time instead of the wall clock: on a shared machine under load the wall
clock mostly measures the other jobs.

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

import argparse
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

from companion.reconciler.reconciler import Reconciler
from companion.rules import PRESETS
from companion.testing.faults import FaultRates, make_stream, run_games, run_stream

STREAMS = ("fault-free", "with faults")


def summary(name: str, seconds: np.ndarray) -> str:
    ms = seconds * 1000.0
    return (
        f"{name}: {len(ms)} observations, mean {ms.mean():.2f} ms, median {np.median(ms):.2f} ms, "
        f"p95 {np.percentile(ms, 95):.2f} ms, p99 {np.percentile(ms, 99):.2f} ms, "
        f"p99.9 {np.percentile(ms, 99.9):.2f} ms, max {ms.max():.2f} ms, over 5 ms: {int((ms > 5).sum())}"
    )


def measure(
    games: int, timer: Callable[[], float], collect: bool = True, variants: tuple[str, ...] = ("classic",)
) -> dict[str, np.ndarray]:
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
    faulted = run_games(games, variants, timer=timer).seconds
    return {"fault-free": np.array(clean), "with faults": np.array(faulted)}


def measure_in_fresh_processes(arguments: argparse.Namespace) -> list[dict[str, np.ndarray]]:
    runs = []
    options = ["--variants", ",".join(arguments.variants)]
    options += ["--cpu"] * arguments.cpu + ["--gc-off"] * arguments.gc_off
    with tempfile.TemporaryDirectory() as folder:
        for i in range(arguments.repeat):
            raw = Path(folder) / f"run{i}.npz"
            command = [sys.executable, __file__, str(arguments.games), "--raw", str(raw), *options]
            subprocess.run(command, check=True)  # (the same interpreter, working folder and PYTHONPATH)
            with np.load(raw) as data:
                runs.append({name: data[name] for name in STREAMS})
    return runs


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", type=int, nargs="?", default=200)
    parser.add_argument("--cpu", action="store_true", help="the thread's CPU time, not the wall clock")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs in fresh processes; also each one's fastest"
    )
    parser.add_argument("--gc-off", action="store_true", help="the garbage collector off while timing")
    parser.add_argument(
        "--variants",
        type=lambda text: tuple(text.split(",")),
        default=("classic",),
        help="the faulted games' variants in turn, comma-separated",
    )
    parser.add_argument("--raw", help=argparse.SUPPRESS)  # one run of --repeat: the times go to this file
    return parser.parse_args()


def main() -> None:
    arguments = parse_arguments()
    timer = time.thread_time if arguments.cpu else time.perf_counter
    collect = not arguments.gc_off
    if arguments.raw:
        np.savez(arguments.raw, **measure(arguments.games, timer, collect, arguments.variants))
        return
    print(
        f"{platform.machine()} {platform.processor() or ''} python {platform.python_version()}, "
        f"{'CPU time' if arguments.cpu else 'wall clock'}, garbage collection {'on' if collect else 'off'}, "
        f"{'/'.join(arguments.variants)}, load {os.getloadavg()[0]:.1f}"
    )
    if arguments.repeat == 1:
        runs = [measure(arguments.games, timer, collect, arguments.variants)]
    else:
        runs = measure_in_fresh_processes(arguments)
    for name in STREAMS:
        print(summary(name, runs[0][name]))
    if arguments.repeat > 1:
        print(f"each observation's fastest of {arguments.repeat} runs:")
        for name in STREAMS:
            print(summary(name, np.min([run[name] for run in runs], axis=0)))


if __name__ == "__main__":
    main()
