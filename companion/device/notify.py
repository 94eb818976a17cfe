"""sd_notify without a dependency: the service tells systemd it is ready, what it is doing, and
that its loop is alive.

The unit is ``Type=notify`` with ``WatchdogSec``: systemd restarts the service when the
camera loop stops feeding the watchdog (a camera read that hangs forever, a deadlock), which
a plain ``Restart=on-failure`` would never notice. The protocol is one datagram of
``KEY=value`` lines to the socket named in ``NOTIFY_SOCKET``; outside systemd every call is a
no-op, so the same code runs on a PC.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping

from companion.component import Component


class Notifier(Component):
    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        env = os.environ if environ is None else environ
        self._address = _socket_address(env.get("NOTIFY_SOCKET", ""))
        self.watchdog_interval = _watchdog_interval(env)
        self._clock = clock
        self._last_ping = float("-inf")
        self._socket: socket.socket | None = None
        if self._address is not None:
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)

    @property
    def enabled(self) -> bool:
        return self._socket is not None

    def send(self, **fields: str) -> bool:
        """Send ``KEY=value`` lines (keyword ``READY="1"`` becomes ``READY=1``); False if not sent."""
        if self._socket is None or self._address is None:
            return False
        message = "\n".join(f"{key}={value}" for key, value in fields.items()).encode()
        try:
            self._socket.sendto(message, self._address)
        except OSError:
            return False
        return True

    def ready(self, status: str) -> bool:
        return self.send(READY="1", STATUS=status)

    def status(self, status: str) -> bool:
        return self.send(STATUS=status)

    def stopping(self, status: str = "stopping") -> bool:
        return self.send(STOPPING="1", STATUS=status)

    def watchdog(self) -> bool:
        """Feed the watchdog, at most every half interval (the loop may call it every frame)."""
        if self.watchdog_interval is None:
            return False
        now = self._clock()
        if now - self._last_ping < self.watchdog_interval / 2:
            return False
        self._last_ping = now
        return self.send(WATCHDOG="1")

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None


def _socket_address(name: str) -> str | None:
    if not name:
        return None
    if name.startswith("@"):
        return "\0" + name[1:]  # an abstract socket
    return name if name.startswith("/") else None


def _watchdog_interval(env: Mapping[str, str]) -> float | None:
    """``WATCHDOG_USEC`` in seconds, when it is meant for this process."""
    usec = env.get("WATCHDOG_USEC", "")
    pid = env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    if pid and pid != str(os.getpid()):
        return None
    return int(usec) / 1_000_000
