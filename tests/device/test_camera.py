"""The camera link: a camera that fails, sends garbage or vanishes does not end the game."""

from __future__ import annotations

import numpy as np
import pytest

from companion.device.camera import CameraLink, garbage_reason

GOOD = (np.arange(64 * 64 * 3) % 251).astype(np.uint8).reshape(64, 64, 3)


class Flaky:
    """Plays a script: an image, None, an exception to raise, or "eof"."""

    def __init__(self, script):
        self.script = list(script)
        self.closed = False

    def read(self):
        item = self.script.pop(0) if self.script else GOOD
        if isinstance(item, Exception):
            raise item
        if isinstance(item, str) and item == "eof":
            raise EOFError
        return item


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_garbage_is_recognised():
    assert garbage_reason(GOOD) is None
    assert "flat" in garbage_reason(np.zeros((64, 64, 3), np.uint8))
    assert "shape" in garbage_reason(np.zeros((4, 4), np.uint8))
    assert "8-bit" in garbage_reason(GOOD.astype(np.float32))
    assert "not an image" in garbage_reason(b"jpeg?")


def test_a_few_bad_frames_are_tolerated():
    link = CameraLink(
        lambda: Flaky([OSError("timeout"), np.zeros((64, 64, 3), np.uint8), GOOD]), max_bad_frames=3
    )
    assert link.read() is None and link.read() is None
    assert link.read() is GOOD and link.ok


def test_a_lost_camera_is_reported_and_reopened():
    clock = Clock()
    opened = []
    sources = [Flaky([OSError("gone")] * 5), Flaky([])]

    def open_source():
        if len(opened) == 1 and clock.now < 5:
            raise OSError("no camera")
        opened.append(sources[len(opened)])
        return opened[-1]

    link = CameraLink(open_source, max_bad_frames=3, reconnect_delay=2.0, clock=clock)
    for _ in range(3):
        assert link.read() is None
    assert not link.ok and "gone" in link.fault
    clock.now = 1.0
    assert link.read() is None  # too early to try again
    clock.now = 2.5
    assert link.read() is None and "cannot open" in link.fault  # still unplugged
    clock.now = 5.0
    assert link.read() is GOOD
    assert link.ok and link.reconnects == 1


def test_the_end_of_a_finite_source_passes_through():
    link = CameraLink(lambda: Flaky(["eof"]))
    with pytest.raises(EOFError):
        link.read()


class Silent:
    """A USB camera whose read() keeps returning nothing (the driver stalled)."""

    def read(self):
        return None

    def close(self):
        pass


def test_a_camera_that_stops_giving_frames_is_declared_lost():
    """read() returning nothing was never a bad frame: the watchdog kept being fed by a loop
    that saw nothing, and the camera was never declared lost."""
    clock = Clock()
    link = CameraLink(
        lambda: Silent(), max_bad_frames=3, frame_timeout=1.0, clock=clock, advice="check the cable"
    )
    for step in range(1, 40):
        clock.now = step * 0.1
        assert link.read() is None
        if clock.now < 2.95:
            assert link.ok, clock.now
    assert not link.ok and "no frame for 1 s" in link.fault and "check the cable" in link.fault


def test_a_camera_that_is_only_slow_is_not_lost():
    clock = Clock()
    frames = iter([None, None, GOOD] * 20)

    class Slow:
        def read(self):
            return next(frames)

        def close(self):
            pass

    link = CameraLink(lambda: Slow(), max_bad_frames=3, frame_timeout=1.0, clock=clock)
    for step in range(60):
        clock.now = step * 0.4  # a frame every 1.2 s: one bad frame between two good ones at most
        link.read()
        assert link.ok
