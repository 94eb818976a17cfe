"""sd_notify: the datagrams systemd reads, and silence outside systemd."""

from __future__ import annotations

import os
import socket

from companion.device.notify import Notifier


def test_outside_systemd_nothing_is_sent():
    with Notifier(environ={}) as notifier:
        assert not notifier.enabled
        assert not notifier.ready("ready")
        assert not notifier.watchdog()


def test_ready_status_and_watchdog_reach_the_socket(tmp_path):
    path = str(tmp_path / "notify")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(path)
    server.settimeout(1.0)
    now = [0.0]
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())}
    with Notifier(environ=env, clock=lambda: now[0]) as notifier:
        assert notifier.watchdog_interval == 10.0
        assert notifier.ready("referee running")
        assert server.recv(256) == b"READY=1\nSTATUS=referee running"
        assert notifier.watchdog()
        assert server.recv(256) == b"WATCHDOG=1"
        now[0] = 4.0
        assert not notifier.watchdog()  # fed less than half an interval ago
        now[0] = 5.5
        assert notifier.watchdog()
        assert server.recv(256) == b"WATCHDOG=1"
    server.close()


def test_a_watchdog_meant_for_another_process_is_ignored():
    notifier = Notifier(environ={"WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"})
    assert notifier.watchdog_interval is None
