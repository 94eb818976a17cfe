"""One button, four gestures: press for a hint, hold for a new game, double press to confirm a
takeback, triple press to accept what the camera sees when the referee asks for help.

A pure state machine fed with press/release times, because gpiozero's own ``when_held`` runs
on a thread with the wall clock: tests could only check a 2-second hold by waiting 2 seconds,
and a single press could not be told from the first half of a double press. Presses are
counted until the window after the last release closes without another: one is a press, two a
double press; the third release reports the triple at once. So no gesture is the beginning of
another that is reported: a double press waits out the window (0.4 s) in case a third comes.
"""

from __future__ import annotations

from enum import StrEnum


class Gesture(StrEnum):
    PRESS = "press"
    DOUBLE = "double press"
    TRIPLE = "triple press"
    HOLD = "hold"


_BY_CLICKS = {1: Gesture.PRESS, 2: Gesture.DOUBLE}


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
        if self._clicks == 3:
            self._clicks = 0
            gestures.append(Gesture.TRIPLE)
        return gestures

    def poll(self, t: float) -> list[Gesture]:
        """Gestures that time alone completes: a hold reached, presses whose window closed."""
        return self._hold(t) + self._expire(t)

    def _hold(self, t: float) -> list[Gesture]:
        if self._down_at is not None and not self._held and t - self._down_at >= self.hold_time:
            self._held = True
            self._clicks = 0
            return [Gesture.HOLD]
        return []

    def _expire(self, t: float) -> list[Gesture]:
        if self._clicks and self._down_at is None and t - self._last_up > self.double_window:
            gesture = _BY_CLICKS[self._clicks]
            self._clicks = 0
            return [gesture]
        return []
