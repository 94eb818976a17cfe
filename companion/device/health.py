"""The device's health: what is wrong with it now, what it repaired by itself, and how many
faults it has survived.

A device on a shelf has no screen, so a fault that only reaches a log file is a fault nobody
sees. Every part that degrades instead of stopping (the game log on a full disk, a damaged
calibration, a referee error on one board) says so here; the loop turns the open faults into
the alert LED's "needs service" pattern, the journal gets one line when a fault starts and one
when it ends, and the web page's status reads ``Health.snapshot()``. Thread-safe: the loop
writes, the web server reads.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

log = logging.getLogger("gobblet-companion.health")

MAX_REPAIRS_KEPT = 20  # the newest repairs shown on the status page; older ones are in the journal


@dataclass(frozen=True)
class Fault:
    """One open fault: ``part`` is what is affected (``log``, ``calibration``, ``referee``, ...),
    ``text`` what is wrong and what to do, ``count`` how often it happened since it began."""

    part: str
    text: str
    since: float
    count: int = 1
    needs_service: bool = True  # False: a degradation the device rides out (a failed hint)


@dataclass(frozen=True)
class Repair:
    """Something the device fixed by itself, kept so a person can see what happened."""

    part: str
    text: str
    at: float


class Health:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._faults: dict[str, Fault] = {}
        self._repairs: list[Repair] = []
        self.survived = 0  # faults that began (and were ridden out, or still are) since start

    def report(self, part: str, text: str, *, needs_service: bool = True, say: bool = True) -> Fault:
        """``part`` is in trouble: the first report (or a new text) is said in the journal, a
        repeat only counts, so a fault that recurs every frame does not flood the journal
        (``say=False``: the part says it itself)."""
        with self._lock:
            current = self._faults.get(part)
            if current is not None and current.text == text:
                fault = replace(current, count=current.count + 1)
            else:
                fault = Fault(part, text, self._clock(), needs_service=needs_service)
                if current is None:
                    self.survived += 1
            self._faults[part] = fault
        if fault.count == 1 and say:
            log.log(logging.ERROR if needs_service else logging.WARNING, "%s: %s", part, text)
        return fault

    def clear(self, part: str, how: str | None = None, *, say: bool = True) -> None:
        """``part`` works again; ``how`` (what was done) is said in the journal."""
        with self._lock:
            fault = self._faults.pop(part, None)
        if fault is not None and say:
            log.warning("%s works again%s (after %d fault(s))", part, f": {how}" if how else "", fault.count)

    def repaired(self, part: str, text: str) -> None:
        """The device fixed something by itself (a damaged log moved aside): journal and status."""
        with self._lock:
            self._repairs.append(Repair(part, text, self._clock()))
            del self._repairs[:-MAX_REPAIRS_KEPT]
            self.survived += 1
        log.warning("%s repaired: %s", part, text)

    def faults(self) -> list[Fault]:
        with self._lock:
            return list(self._faults.values())

    def repairs(self) -> list[Repair]:
        with self._lock:
            return list(self._repairs)

    def fault(self, part: str) -> Fault | None:
        with self._lock:
            return self._faults.get(part)

    @property
    def ok(self) -> bool:
        return not self.faults()

    def needs_service(self) -> str | None:
        """What the alert LED's "needs service" pattern stands for, or None: the open faults
        that need a person, in one line."""
        texts = [f"{fault.part}: {fault.text}" for fault in self.faults() if fault.needs_service]
        return "; ".join(texts) or None

    def snapshot(self) -> dict[str, Any]:
        """Everything above as JSON-ready data, for the web page's status."""
        faults = self.faults()
        return {
            "ok": not faults,
            "needs_service": any(fault.needs_service for fault in faults),
            "faults": [asdict(fault) for fault in faults],
            "repairs": [asdict(repair) for repair in self.repairs()],
            "survived": self.survived,
        }
