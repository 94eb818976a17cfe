"""Does the background review slow the referee? The loop's frame rate and a hint's time, with
and without the device's review running, measured in one run.

    PYTHONPATH=. python benchmarks/review_load.py [--rounds 3] [--seed 0]

- **Loop**: a generated classic game's frames, rendered once, fed to the full loop (board
  reader, gate, reconciler, mock panel, log) as fast as it takes them (as device_loop.py).
- **Hint**: the strong engine on a mid-game classic position for a fixed number of nodes
  (the same work every time), timed: what a player waits for after pressing the button.
- **The review**: the device's own child, ``python -m companion.device.reviewer`` over a log
  of long classic games (a fresh copy each time, so it always has work), started a second
  before the measurement and ended after it.

Conditions, in turn within each round so the machine's load falls on all of them alike:
``alone``; ``review nice 19`` (as the device runs it); ``review nice 19, stopped`` (the hint
only: the device stops the child with SIGSTOP while a hint is searched); ``review nice 0``
(what the niceness buys). Each figure is a median over the rounds, with the ratio to
``alone`` of the same rounds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from device_loop import referee_frames, rendered_game

from companion.engine import Engine
from companion.log import GameStore
from companion.rules import Game, Variant

HINT_NODES = 30_000
CONDITIONS = ("alone", "review nice 19", "review nice 19, stopped", "review nice 0")
CHILD = (
    "import sys, companion.device.reviewer as r; r.NICENESS = int(sys.argv[1]); "
    "sys.exit(r.main(sys.argv[2:]))"
)


def review_log(path: Path, games: int, seed: int) -> None:
    """A log of finished classic games between the weaker levels (long ones: work enough)."""
    variant = Variant.from_spec("classic")
    with GameStore(path) as store:
        for number in range(games):
            players = (Engine(variant, "medium", seed + number), Engine(variant, "easy", seed + number))
            game = Game(variant)
            game_id = store.start_game("classic", started=1.7e9 + number)
            while not game.is_over() and game.ply < 120:
                move = game.push(players[game.turn].search(game.position).move)
                store.add_move(
                    game_id, game.ply, move.text(), game.position.text(), timestamp=1.7e9 + game.ply
                )
            store.finish(game_id, game.result if game.is_over() else "1/2-1/2", termination="agreed")


def hint_position() -> Game:
    game = Game(Variant.from_spec("classic"))
    for text in "4a1 4d4 4b2 4c3 3c1 3b3 3d1 c3-d2".split():
        game.push_text(text)
    return game


def timed_hint(game: Game) -> float:
    engine = Engine(game.variant, "strong")  # fresh tables: the same search every time
    started = time.perf_counter()
    engine.search(game.position, nodes=HINT_NODES)
    return time.perf_counter() - started


def start_review(source: Path, folder: Path, niceness: int) -> subprocess.Popen[bytes]:
    copy = folder / f"review-{time.monotonic_ns()}.sqlite3"
    shutil.copy(source, copy)
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(niceness), str(copy), "--nodes", "20000"])
    time.sleep(1.0)  # its imports done, reviewing
    return child


def measure(condition: str, frames: tuple, game: Game, source: Path, folder: Path) -> tuple[float, float]:
    child = None
    if condition != "alone":
        child = start_review(source, folder, 0 if condition.endswith("nice 0") else 19)
    try:
        renderer, images = frames
        count, seconds, _, _ = referee_frames(
            game.variant, renderer, images, folder / f"{time.monotonic_ns()}.db"
        )
        fps = count / seconds
        if child is not None and condition.endswith("stopped"):
            child.send_signal(signal.SIGSTOP)
        hint = timed_hint(game)
        if child is not None and child.poll() is not None:
            raise RuntimeError(f"the review ended before the measurement did ({condition}): add games")
    finally:
        if child is not None:
            child.send_signal(signal.SIGCONT)
            child.terminate()
            child.wait()
    return fps, hint


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=3, help="classic games in the review's log")
    args = parser.parse_args()
    variant = Variant.from_spec("classic")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source = folder / "games.sqlite3"
        review_log(source, args.games, args.seed)
        frames = rendered_game(variant, args.seed)
        game = hint_position()
        results: dict[str, list[tuple[float, float]]] = {c: [] for c in CONDITIONS}
        loads = []
        for number in range(args.rounds):
            for condition in CONDITIONS:
                results[condition].append(measure(condition, frames, game, source, folder))
            loads.append(os.getloadavg()[0])
            print(
                f"round {number + 1}: "
                + ", ".join(f"{c} {r[-1][0]:.1f} fps {r[-1][1]:.2f} s" for c, r in results.items())
            )
    alone_fps = statistics.median(r[0] for r in results["alone"])
    alone_hint = statistics.median(r[1] for r in results["alone"])
    print(
        f"{len(frames[1])} frames a loop run, hint {HINT_NODES} nodes; load average {min(loads):.1f}-{max(loads):.1f}"
    )
    for condition, runs in results.items():
        fps = statistics.median(r[0] for r in runs)
        hint = statistics.median(r[1] for r in runs)
        print(
            f"{condition:<24} loop {fps:5.1f} frames/s ({fps / alone_fps:4.2f} of alone)   "
            f"hint {hint:5.2f} s ({hint / alone_hint:4.2f} of alone)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
