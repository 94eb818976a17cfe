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
"""

from __future__ import annotations

import resource
import sys
import threading
import time
from pathlib import Path

import pytest

SCHEDSTAT = Path(f"/proc/self/task/{threading.get_native_id()}/schedstat")


def run_queue_delay() -> float | None:
    """Seconds the calling thread has waited for a CPU, or None where Linux does not say."""
    try:
        return int(SCHEDSTAT.read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


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


def main(argv: list[str]) -> int:
    count = Count()
    delay, cpu, started = run_queue_delay(), cpu_seconds(), time.perf_counter()
    status = pytest.main([*(argv or ["-m", "not slow"]), "-p", "no:cacheprovider"], plugins=[count])
    wall = time.perf_counter() - started
    cpu = cpu_seconds() - cpu
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    tests = f"{count.ran} tests ({count.failed} failed)"
    print(f"{tests}: {wall:.1f} s of wall clock, {cpu:.1f} s of CPU (the run, not the start), load {load}")
    end = run_queue_delay()
    if delay is not None and end is not None:
        waited = end - delay
        print(f"the main thread waited {waited:.1f} s for a CPU: {wall - waited:.1f} s without that wait")
    return int(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
