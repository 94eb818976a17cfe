"""The simulated table: a frame source that plays a scenario, and a player who presses the
(mock) button and waits for the panel, so the embedded default exercises the same loop, pins
and log as the device on a Pi.

Frames come from a renderer: the project's synthetic scene generator by default, or, for
fast tests, ``TruthRenderer``, which skips pictures and hands the loop exact observations.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol

import numpy as np

from companion.component import Component
from companion.device.scenario import Board, Press, Scenario, Shot, board_of
from companion.rules.position import Position
from companion.rules.square import square_name
from companion.vision.observation import Observation

PRESS_SECONDS = 0.05
BETWEEN_PRESSES = 0.1
PAIRING_PRESS_GAP = 2.0  # seconds: the player presses once for a pairing, not again while it ends


class Renderer(Protocol):
    def render(self, shot: Shot, index: int) -> np.ndarray: ...


class Button(Protocol):
    def drive_low(self) -> None: ...

    def drive_high(self) -> None: ...


class SimulatedTable(Component):
    """Plays ``scenario`` frame by frame; ``EOFError`` at the end, like a finished recording."""

    def __init__(
        self,
        scenario: Scenario,
        renderer: Renderer,
        *,
        button: Button | None = None,
        showing: Callable[[], str] = lambda: "",
        wait_timeout: float = 10.0,
        fps: float | None = None,
        linger: bool = False,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.scenario = scenario
        self.renderer = renderer
        self.button = button
        self.showing = showing
        self.wait_timeout = wait_timeout
        self.period = 1.0 / fps if fps else 0.0
        self._due = 0.0
        self._clock = clock
        self._sleep = sleep
        self.index = 0
        self._frame = 0
        self._cache: tuple[int, np.ndarray] | None = None
        # Rendering a picture takes longer than reading it: draw the next shot meanwhile.
        self._painter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sim-render")
        self._ahead: dict[int, Future[np.ndarray]] = {}
        self._waiting: tuple[str, float] | None = None
        self._after_wait: Callable[[], None] | None = None
        self.missed: list[str] = []  # scenes the player waited for in vain
        self.linger = linger  # after the last shot, keep showing it (a web page is watching)
        self._paired_at = float("-inf")

    @property
    def shot(self) -> Shot:
        return self.scenario.shots[min(self.index, len(self.scenario.shots) - 1)]

    def read(self) -> np.ndarray:
        self._pace()
        self._answer_pairing()
        if self._waiting is not None:
            self._wait_over()  # the player keeps waiting (or gives up); the board stays as it is
            return self._image()
        if self.index >= len(self.scenario.shots):
            if self.linger:
                return self._image()
            raise EOFError
        shot = self.shot
        image = self._image()
        self._frame += 1
        if self._frame >= shot.frames:
            self._finish_shot()
        if shot.fault == "unplugged":
            raise OSError("simulated camera unplugged")
        if shot.fault is not None:
            return np.zeros_like(image)  # a dead sensor: one flat colour
        return image

    def _pace(self) -> None:
        """Like a camera, deliver at most ``fps`` frames a second (unpaced by default)."""
        if not self.period:
            return
        now = self._clock()
        if now < self._due:
            self._sleep(self._due - now)
        self._due = max(now, self._due) + self.period

    def _image(self) -> np.ndarray:
        index = min(self.index, len(self.scenario.shots) - 1)
        if self._cache is None or self._cache[0] != index:
            self._cache = (index, self._rendered(index).result())
            self._ahead.pop(index, None)
            if index + 1 < len(self.scenario.shots):
                self._rendered(index + 1)
        return self._cache[1]

    def _rendered(self, index: int) -> Future[np.ndarray]:
        if index not in self._ahead:
            shot = self.scenario.shots[index]
            self._ahead[index] = self._painter.submit(self.renderer.render, shot, index)
        return self._ahead[index]

    def _finish_shot(self) -> None:
        shot = self.shot
        if shot.wait_before:
            self._wait(shot.wait_before, then=lambda: self._press_and_wait(shot))
        else:
            self._press_and_wait(shot)

    def _press_and_wait(self, shot: Shot) -> None:
        if shot.press is not None:
            self.press(shot.press)
        if shot.wait_after:
            self._wait(shot.wait_after, then=self._next_shot)
        else:
            self._next_shot()

    def _next_shot(self) -> None:
        self.index += 1
        self._frame = 0

    def _wait(self, scene: str, then: Callable[[], None]) -> None:
        self._waiting = (scene, self._clock() + self.wait_timeout)
        self._after_wait = then

    def _wait_over(self) -> None:
        assert self._waiting is not None
        scene, deadline = self._waiting
        if self.showing() != scene:
            if self._clock() < deadline:
                return
            self.missed.append(scene)
        self._waiting = None
        then, self._after_wait = self._after_wait, None
        if then is not None:
            then()

    def _answer_pairing(self) -> None:
        """A browser asks to pair (the panel shows it): the player presses the button, once."""
        if self.showing() == "pairing" and self._clock() - self._paired_at > PAIRING_PRESS_GAP:
            self._paired_at = self._clock()
            self.press(Press.HINT)

    def resume_at(self, position: Position) -> None:
        """After a restart the log has the game so far: go on from the last shot that shows
        this position (the player does not set the board up again)."""
        board = board_of(position)
        matches = [
            i
            for i, shot in enumerate(self.scenario.shots)
            if shot.board == board and shot.hand is None and shot.wait_before is None
        ]
        if matches:
            self.index, self._frame = matches[-1], 0

    def press(self, kind: Press) -> None:
        """The player's finger on the button: one press, or two in quick succession."""
        if self.button is None:
            return
        for i in range(2 if kind is Press.CONFIRM else 1):
            if i:
                self._sleep(BETWEEN_PRESSES)
            self.button.drive_low()
            self._sleep(PRESS_SECONDS)
            self.button.drive_high()

    def plug(self) -> Plug:
        """A camera connection to this table: the camera link closes it when the camera is
        lost and plugs in again, while the table (and the game on it) stays."""
        return Plug(self)

    def close(self) -> None:
        self._cache = None
        self._painter.shutdown(wait=True, cancel_futures=True)


class Plug:
    def __init__(self, table: SimulatedTable) -> None:
        self.table = table

    def read(self) -> np.ndarray:
        return self.table.read()

    def close(self) -> None:
        """Unplugging the camera does not clear the table."""


# ----- the fast renderer: exact observations instead of pictures ------------------------------


class TruthRenderer:
    """Each shot as a small textured image, with ``observe`` answering the shot's exact tops.

    For tests of the loop and the log that must not depend on (or wait for) vision."""

    def __init__(self, table_ref: Callable[[], SimulatedTable], size: int, max_piece: int) -> None:
        self._table = table_ref
        self.size = size
        self.max_piece = max_piece
        self._texture = (np.arange(32 * 32 * 3) % 253).astype(np.uint8).reshape(32, 32, 3)

    def render(self, shot: Shot, index: int) -> np.ndarray:
        return self._texture

    def observe(self, frame: np.ndarray, timestamp: float = 0.0) -> Observation:
        shot = self._table().shot
        return Observation.from_tops(
            tops_of(shot.board), self.size, self.max_piece, occluded=shot.hand is not None
        )


def tops_of(board: Board) -> dict[str, tuple[int, int]]:
    return {square_name(sq): stack[-1] for sq, stack in board.items() if stack}
