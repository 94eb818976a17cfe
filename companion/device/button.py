"""One button, three gestures: press for a hint, hold for a new game, double press to confirm a
takeback.

A pure state machine fed with press/release times, because gpiozero's own ``when_held`` runs
on a thread with the wall clock: tests could only check a 2-second hold by waiting 2 seconds,
and a single press could not be told from the first half of a double press. Here a single
press is reported once the double-press window has passed without a second press.
"""

from __future__ import annotations

from enum import StrEnum


class Gesture(StrEnum):
    PRESS = "press"
    DOUBLE = "double press"
    HOLD = "hold"


class ButtonGestures:
    def __init__(self, hold_time: float = 2.0, double_window: float = 0.4) -> None:
        self.hold_time = hold_time
        self.double_window = double_window
        self._down_at: float | None = None
        self._held = False
        self._clicks = 0
        self._last_up = 0.0

    def down(self, t: float) -> list[Gesture]:
        gestures = self._expire(t)
        self._down_at = t
        self._held = False
        return gestures

    def up(self, t: float) -> list[Gesture]:
        if self._down_at is None:
            return []
        gestures = self._hold(t)
        started, self._down_at = self._down_at, None
        if self._held or t - started >= self.hold_time:
            self._held = False
            return gestures
        self._clicks += 1
        self._last_up = t
        if self._clicks == 2:
            self._clicks = 0
            gestures.append(Gesture.DOUBLE)
        return gestures

    def poll(self, t: float) -> list[Gesture]:
        """Gestures that time alone completes: a hold reached, a lone press whose window closed."""
        return self._hold(t) + self._expire(t)

    def _hold(self, t: float) -> list[Gesture]:
        if self._down_at is not None and not self._held and t - self._down_at >= self.hold_time:
            self._held = True
            self._clicks = 0
            return [Gesture.HOLD]
        return []

    def _expire(self, t: float) -> list[Gesture]:
        if self._clicks == 1 and self._down_at is None and t - self._last_up > self.double_window:
            self._clicks = 0
            return [Gesture.PRESS]
        return []
