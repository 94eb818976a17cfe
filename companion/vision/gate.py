"""Stability gate: pass an observation on only once the board has settled.

A hand over the board, a shadow sweeping across it or a cup in mid-air change the reading
from frame to frame; a real position does not. The gate reports a reading once consecutive
frames have agreed on every square's most probable content for ``hold_seconds`` (and at
least ``min_frames`` frames), averaging their probabilities. Occluded frames never pass and
restart the wait, as does any disagreement. Each settled period is reported once, so a board
left unchanged after a hand passed over it is reported again: the consumer sees every
settled state, in order. It also counts how often the board was hidden before a reading
settled (``Observation.hidden``): a hand per move, so the referee knows when more moves may
have been made out of sight than one reading can tell.
"""

from __future__ import annotations

import numpy as np

from companion.errors import CompanionError
from companion.vision.observation import Observation


class StabilityGate:
    """Feed ``(timestamp, observation)``; get a stable Observation back once, else None."""

    def __init__(self, hold_seconds: float = 1.0, min_frames: int = 3) -> None:
        if hold_seconds < 0 or min_frames < 1:
            raise CompanionError("stability gate: hold_seconds must be >= 0 and min_frames >= 1")
        self.hold_seconds = hold_seconds
        self.min_frames = min_frames
        self._agreeing: list[Observation] = []
        self._since = 0.0
        self._reported = False
        self._moved = False
        self._hidden = 0  # runs of occluded frames since the last report
        self._covered = False  # the last frame was occluded
        self._again: Observation | None = None  # a second look's first report, while every
        #                                         frame since agreed with it and none was covered
        self.stable: Observation | None = None
        """The last observation the gate reported."""
        self._latest: Observation | None = None  # the last frame's reading

    @property
    def at_rest(self) -> bool:
        """Whether the board stands as the gate last reported it: the latest frame was neither
        covered (a hand, an arm) nor moved, and reads every square as that report did. Not
        while a hand is over the board, nor while a board changed since settles (the referee
        has not seen it yet): what a player answers about "the board as the camera sees it"
        (accepting the camera's view) is then not the board the referee last read."""
        latest, stable = self._latest, self.stable
        return (
            latest is not None
            and stable is not None
            and not latest.occluded
            and not latest.moved
            and latest.same_reading(stable)
        )

    def reset(self) -> None:
        """Forget the frames agreeing so far (e.g. after the camera was re-opened)."""
        self._agreeing = []
        self._reported = False
        self._again = None  # (frames unseen meanwhile: the next report is news)

    def look_again(self) -> None:
        """Report the board once more when it has held still another ``hold_seconds`` (and
        ``min_frames`` fresh frames), as if it had just settled: a second look for a consumer
        that could not make out the reading it was given. A board left standing is otherwise
        reported once, and a doubt about it waited for the next move (4 s and more at a real
        table) however long the board stood there to be read again. The second report is
        marked ``still`` when every frame since the first agreed with it and none was covered."""
        self.reset()
        self._again = self.stable

    def feed(self, timestamp: float, observation: Observation) -> Observation | None:
        """The settled observation when this frame completes a stable period, else None."""
        self._moved |= observation.moved
        self._latest = observation
        if observation.occluded:
            self._hidden += not self._covered
            self._covered = True
            self.reset()
            return None
        self._covered = False
        first = self._agreeing[0] if self._agreeing else None
        if (
            first is None
            or observation.moved
            or timestamp < self._since
            or not observation.same_reading(first)
        ):
            if self._again is not None and (observation.moved or not observation.same_reading(self._again)):
                self._again = None  # the board changed since the look before: news, not a repeat
            self._agreeing = [observation]
            self._since = timestamp
            self._reported = False
            return None
        self._agreeing.append(observation)
        if (
            self._reported
            or timestamp - self._since < self.hold_seconds
            or len(self._agreeing) < self.min_frames
        ):
            return None
        self._reported = True
        probabilities = np.mean([o.probabilities for o in self._agreeing], axis=0)
        self.stable = Observation(
            first.size,
            first.max_piece,
            probabilities,
            False,
            self._moved,
            timestamp,
            self._hidden,
            still=self._again is not None,
        )
        self._again = None
        self._moved = False
        self._hidden = 0
        return self.stable
