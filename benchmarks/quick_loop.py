"""The quick loop's wall clock, its CPU, and how long it waited for a CPU.

    env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=.venv/pycache TMPDIR=/dev/shm \\
        HYPOTHESIS_NO_PLUGINS=1 .venv/bin/python benchmarks/quick_loop.py [PYTEST ARGS]

runs ``pytest -m "not slow"`` (or the arguments given) in this process, with the environment
``./bootstrap test`` gives it, and prints three figures. On a machine shared with other jobs
the wall clock mostly measures the others: at load 10 on two cores a 20-second loop takes a
minute. Linux counts, for every thread, the time it was ready to run but waited for a CPU
(``/proc/self/task/TID/schedstat``, the run-queue delay). The wall clock less the main
thread's run-queue delay is what the loop would take on an idle machine, a little more: time
the main thread spends waiting for a worker thread or a child process still counts in full,
and those waited for a CPU too.

With pytest-xdist's workers (``-n 2``) the tests run in the workers, and each reports its own
CPU and run-queue delay when it is done: the estimate for an idle machine is then the last
worker's finish, counted from the start, less that worker's own run-queue delay (its start,
delayed too, counts in full: the estimate errs high here as well).
"""

from __future__ import annotations

import os
import resource
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

SCHEDSTAT = Path(f"/proc/self/task/{threading.get_native_id()}/schedstat")
LOADED = (time.monotonic(), None)  # replaced below, once run_queue_delay is defined
REPORTS: list[dict[str, float]] = []
"""What each xdist worker reported when it finished (the controller's list)."""


def run_queue_delay() -> float | None:
    """Seconds the calling thread has waited for a CPU, or None where Linux does not say."""
    try:
        return int(SCHEDSTAT.read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


LOADED = (time.monotonic(), run_queue_delay())


def cpu_seconds() -> float:
    """User and system CPU of this process and of the children it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Count:
    """The tests that ran and those that failed, as pytest reports them."""

    def __init__(self) -> None:
        self.ran = self.failed = 0

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.ran += 1
            self.failed += report.failed


# -- in each xdist worker (this file is loaded there as the plugin ``quick_loop``) ----------------


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A worker's figures, sent to the controller with the worker's own output."""
    output: dict[str, Any] | None = getattr(session.config, "workeroutput", None)
    start, delay = LOADED
    end = run_queue_delay()
    if output is not None:
        output["quick_loop"] = {
            "started": start,
            "finished": time.monotonic(),
            "cpu": cpu_seconds(),
            "waited": (end - delay) if end is not None and delay is not None else 0.0,
        }


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    report = getattr(node, "workeroutput", {}).get("quick_loop")
    if report:
        REPORTS.append(report)


def main(argv: list[str]) -> int:
    count = Count()
    # the workers load this file by name: they start with this process's environment
    here = str(Path(__file__).resolve().parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))
    sys.path.insert(0, here)
    delay, cpu, started = run_queue_delay(), cpu_seconds(), time.perf_counter()
    begun = time.monotonic()
    status = pytest.main(
        [*(argv or ["-m", "not slow"]), "-p", "no:cacheprovider", "-p", "quick_loop"], plugins=[count]
    )
    wall = time.perf_counter() - started
    cpu = cpu_seconds() - cpu
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    tests = f"{count.ran} tests ({count.failed} failed)"
    reports = sys.modules["quick_loop"].REPORTS  # the plugin's copy of this file, loaded by -p
    if reports:  # the workers ran the tests
        each = ", ".join(f"{r['cpu']:.1f}" for r in reports)
        print(
            f"{tests}: {wall:.1f} s of wall clock, {cpu:.1f} s of CPU, the workers' "
            f"{each} s of it, load {load}"
        )
        waits = ", ".join(f"{r['waited']:.1f}" for r in reports)
        idle = max(r["finished"] - begun - r["waited"] for r in reports)
        print(f"the workers waited {waits} s for a CPU: {idle:.1f} s without that wait")
        return int(status)
    print(f"{tests}: {wall:.1f} s of wall clock, {cpu:.1f} s of CPU (the run, not the start), load {load}")
    end = run_queue_delay()
    if delay is not None and end is not None:
        waited = end - delay
        print(f"the main thread waited {waited:.1f} s for a CPU: {wall - waited:.1f} s without that wait")
    return int(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
