"""The junior value proof in a second process, beside the distance search in this one."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time as _time
from typing import TYPE_CHECKING, TypeAlias

from companion.engine.junior.bits import SIDE_BIT, Moves

if TYPE_CHECKING:
    from companion.engine.junior.solver import JuniorSolver

ProofRoot: TypeAlias = tuple[int, int, Moves, int]  # (key, canonical key, its moves, side to move)


class ProofProcess:
    """The value proof of one position (then the distance of what it proves, and the move)
    run in a forked copy of the solver while the distance search goes on in this process:
    both cores of the machine, or two shares of a loaded one, each for the whole budget. The
    copy starts with every table learnt so far; only its answer comes back."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid, self.fd = pid, fd

    @classmethod
    def start(
        cls,
        solver: JuniorSolver,
        root: ProofRoot,
        ends: tuple[float, float | None],
    ) -> ProofProcess | None:
        """Fork the proof of ``root`` (key, canonical key, moves, side); None where processes
        cannot be forked (then the caller proves it itself)."""
        if not hasattr(os, "fork"):
            return None
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            return None
        if pid == 0:  # the copy: prove, measure, choose, report, and leave without cleaning up
            status = 1
            try:
                os.close(read)
                os.write(write, cls._answer(solver, root, ends).encode())
                status = 0
            finally:
                os._exit(status)
        os.close(write)
        return cls(pid, read)

    @staticmethod
    def _answer(
        solver: JuniorSolver,
        root: ProofRoot,
        ends: tuple[float, float | None],
    ) -> str:
        k, ck, moves, side = root
        solver.deadline = ends[0]
        value, distance = solver.proven_value(k, ck, side, {k | side * SIDE_BIT})
        if value is None:
            return ""
        solver.deadline = ends[1]
        return f"{value} {distance or 0} {solver.choose_move(k, ck, moves, side, value, distance)}"

    def ready(self) -> bool:
        return bool(select.select([self.fd], [], [], 0)[0])

    def result(self, until: float | None) -> tuple[str, int | None, int] | None:
        """(value, distance, move code) if the proof has answered by ``until`` (None: do not
        wait), else None; the process is ended either way."""
        try:
            wait = 0.0 if until is None else max(0.0, until - _time.perf_counter())
            if not select.select([self.fd], [], [], wait)[0]:
                return None
            text = os.read(self.fd, 64).decode()
            if not text:
                return None
            value, distance, code = text.split()
            return value, int(distance) or None, int(code)
        finally:
            self.close()

    def close(self) -> None:
        """End the process (if it still runs) and reap it; once."""
        if self.fd < 0:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)
        self.fd = -1
