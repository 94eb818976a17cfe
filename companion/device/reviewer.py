"""Finished games reviewed in the background, so a player finds the review ready.

The review (``companion.coach``) is pure CPU: seconds in junior, a minute or two for a long
classic game. Run in the loop's process it would share the interpreter's lock with the
camera loop and the hint; so it runs in a **process of its own** at the lowest priority
(``os.nice(19)``): a core the loop and the hint want is theirs, and the review takes what is
left. On top of that the loop

- starts it only when a game has finished (or at start, for games finished before) and the
  board has been still for ``IDLE_SECONDS``: not while people are playing fast;
- stops it (``SIGSTOP``) while a hint is being searched and lets it go on (``SIGCONT``) after,
  so a hint has the machine as it would without a review, even on one core.

The child (``python -m companion.device.reviewer DB``) reviews every finished game of the log
that has no review yet, most recent first, writes each into the log as soon as it is made,
and exits. What the loop pays is one ``poll()`` a step.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from companion.component import Component
from companion.errors import CompanionError
from companion.log import GameStore
from companion.rules.game import Game

log = logging.getLogger("gobblet-companion.review")

IDLE_SECONDS = 20.0  # the board still this long (no event) before a review starts
DEFAULT_NODES = 20_000  # search nodes per position outside junior (the config's log.review_nodes)
NICENESS = 19  # the lowest priority there is

Launch = Callable[[Sequence[str]], "subprocess.Popen[bytes]"]


def _launch(command: Sequence[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)


class BackgroundReviewer(Component):
    """The loop's side: when to start the review process, pausing it for hints."""

    def __init__(
        self,
        database: Path,
        *,
        nodes: int = DEFAULT_NODES,
        idle_seconds: float = IDLE_SECONDS,
        launch: Launch = _launch,
    ) -> None:
        self.database = database
        self.nodes = nodes
        self.idle_seconds = idle_seconds
        self._launch = launch
        self._process: subprocess.Popen[bytes] | None = None
        self._paused = False
        self.wanted = True  # at start: games finished before may wait for their review
        self.runs = 0  # review processes started (the tests and the journal count them)

    @property
    def running(self) -> bool:
        return self._process is not None

    @property
    def paused(self) -> bool:
        return self._paused

    def game_finished(self) -> None:
        """A game just ended: review it once the board is idle."""
        self.wanted = True

    def tick(self, still_for: float, hinting: bool) -> None:
        """Once per loop step: ``still_for`` is how many seconds the board has not changed,
        ``hinting`` whether a hint is being searched. Costs a ``poll()``."""
        process = self._process
        if process is not None:
            if process.poll() is not None:
                self._ended(process)
            elif hinting != self._paused:
                self._signal(signal.SIGSTOP if hinting else signal.SIGCONT)
                self._paused = hinting
            return
        if self.wanted and not hinting and still_for >= self.idle_seconds:
            self.wanted = False
            self._start()

    def _start(self) -> None:
        command = [sys.executable, "-m", "companion.device.reviewer", str(self.database)]
        command += ["--nodes", str(self.nodes)]
        try:
            self._process = self._launch(command)
        except OSError as error:
            log.warning("the background review did not start: %s", error)
            return
        self.runs += 1
        log.info("reviewing finished games in the background (pid %d)", self._process.pid)

    def _ended(self, process: subprocess.Popen[bytes]) -> None:
        self._process, self._paused = None, False
        if process.returncode:
            log.warning("the background review ended with status %d", process.returncode)

    def _signal(self, number: int) -> None:
        if self._process is not None:
            with contextlib.suppress(OSError, ValueError):  # it ended meanwhile: the next poll says so
                self._process.send_signal(number)

    def close(self) -> None:
        """Stop the review (a stopped process is woken first, or it would not hear it)."""
        process = self._process
        if process is None:
            return
        if self._paused:
            self._signal(signal.SIGCONT)
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        self._process, self._paused = None, False


# ----- the child -------------------------------------------------------------------------------


def _say(line: str) -> None:
    print(f"gobblet-companion review: {line}", file=sys.stderr)  # the service's journal


def review_waiting_games(database: Path, nodes: int, log_line: Callable[[str], None] = _say) -> int:
    """Review every finished, unreviewed game of the log; returns how many were reviewed. A
    game that cannot be reviewed is named and skipped (its review stays missing)."""
    from companion.coach import review_game  # the child's: the loop's process never loads the engine for it

    done = 0
    with GameStore(database, create=False) as store:
        waiting = store.unreviewed()
    for game_id in waiting:
        try:
            with GameStore(database, create=False) as store:
                game = store.load_game(game_id)
            if not isinstance(game, Game):  # unreviewed() lists only Gobblet games
                raise CompanionError(f"the coach reviews Gobblet games, not {game.variant.spec}")
            review = review_game(game, nodes=nodes)
            with GameStore(database) as store:
                store.save_review(game_id, len(game.played), review.method, review.to_json())
        except CompanionError as error:  # (a ReviewError is one)
            log_line(f"game {game_id} not reviewed: {error}")
            continue
        done += 1
    return done


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.device.reviewer", description=__doc__)
    parser.add_argument("database", type=Path)
    parser.add_argument("--nodes", type=int, default=DEFAULT_NODES)
    args = parser.parse_args(argv)
    os.nice(NICENESS)
    review_waiting_games(args.database, args.nodes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
