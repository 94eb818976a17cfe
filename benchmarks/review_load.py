"""Does the background review slow the referee? The loop's frame rate and a hint's time, with
and without the device's review running, measured in one run.

    PYTHONPATH=. python benchmarks/review_load.py [--pairs 4] [--seed 0] [--games 5]

First, how long a review takes: junior games between the levels, and a classic game at the
device's budget (the log's longest; ``--pairs 0`` stops there). Then:

- **Loop**: a generated classic game's frames, rendered once, fed to the full loop (board
  reader, gate, reconciler, mock panel, log) as fast as it takes them (as device_loop.py).
- **Hint**: the strong engine on a mid-game classic position for a fixed number of nodes
  (the same work every time), timed: what a player waits for after pressing the button.
- **The review**: the device's own child, ``python -m companion.device.reviewer``, over a log
  of long classic games (enough work for the whole run).

One child is started and then, pair after pair, stopped (``SIGSTOP``: it uses nothing, the
loop and the hint run "alone") and let go (``SIGCONT``: the review runs beside them), so both
halves of a pair see the same machine: on a shared machine the load of everything else
drifts by more than what is measured. The same is done with a second child at this process's
own priority (``nice 0`` below: what the niceness buys). Figures are medians over the pairs,
with the ratio of each pair's halves.

Run it at the loop's own priority or close (``nice -n 5`` at most): under ``nice -n 19`` the
child cannot be put below the loop, and the comparison means nothing. The device also stops
the child while a hint is searched, so there a hint always runs "alone".
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

from companion.coach import DEFAULT_NODES, review_game
from companion.engine import Engine
from companion.log import GameStore
from companion.rules import Game, Variant

HINT_NODES = 30_000
JUNIOR_PAIRINGS = (("easy", "medium"), ("medium", "easy"), ("easy", "easy"), ("medium", "strong"))
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
    for text in ["4a1", "4d4", "4b2", "4c3", "3c1", "3b3"]:
        game.push_text(text)
    return game


def timed_hint(game: Game) -> float:
    engine = Engine(game.variant, "strong")  # fresh tables: the same search every time
    started = time.perf_counter()
    engine.search(game.position, nodes=HINT_NODES)
    return time.perf_counter() - started


def start_review(database: Path, niceness: int) -> subprocess.Popen[bytes]:
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(niceness), str(database), "--nodes", "20000"])
    time.sleep(1.0)  # its imports done, reviewing
    return child


def one_half(frames: tuple, game: Game, folder: Path) -> tuple[float, float]:
    """(frames/s of the loop over the frames, seconds of a hint)."""
    renderer, images = frames
    database = folder / f"loop-{time.monotonic_ns()}.sqlite3"
    count, seconds, _, _ = referee_frames(game.variant, renderer, images, database)
    return count / seconds, timed_hint(game)


def pairs_with(child: subprocess.Popen[bytes], pairs: int, frames: tuple, game: Game, folder: Path) -> list:
    """``pairs`` times: (alone: the child stopped, beside: the child running)."""
    results = []
    try:
        for _ in range(pairs):
            child.send_signal(signal.SIGSTOP)
            alone = one_half(frames, game, folder)
            child.send_signal(signal.SIGCONT)
            beside = one_half(frames, game, folder)
            if child.poll() is not None:
                raise RuntimeError("the review ended before the measurement did: add --games")
            results.append((alone, beside))
            print(
                f"  alone {alone[0]:.1f} frames/s, hint {alone[1]:.2f} s; "
                f"beside {beside[0]:.1f} frames/s, hint {beside[1]:.2f} s",
                flush=True,
            )
    finally:
        child.send_signal(signal.SIGCONT)
        child.terminate()
        child.wait()
    return results


def report(name: str, results: list) -> None:
    def median(half: int, what: int) -> float:
        return statistics.median(pair[half][what] for pair in results)

    fps_ratio = statistics.median(beside[0] / alone[0] for alone, beside in results)
    hint_ratio = statistics.median(beside[1] / alone[1] for alone, beside in results)
    print(
        f"{name}: loop {median(0, 0):.1f} -> {median(1, 0):.1f} frames/s (x{fps_ratio:.2f}); "
        f"hint {median(0, 1):.2f} -> {median(1, 1):.2f} s (x{hint_ratio:.2f})"
    )


def review_speed(source: Path, seed: int) -> None:
    """How long a review takes, in this process: junior games between the levels (exact), and
    the log's longest classic game at the device's budget."""
    variant = Variant.from_spec("junior")
    plies, started = 0, time.perf_counter()
    for white, black in JUNIOR_PAIRINGS:
        players = (Engine(variant, white, seed), Engine(variant, black, seed + 1))
        game = Game(variant)
        while not game.is_over():
            game.push(players[game.turn].search(game.position, nodes=2000).move)
        plies += len(review_game(game).plies)
    print(
        f"junior: {len(JUNIOR_PAIRINGS)} games, {plies} plies reviewed in "
        f"{time.perf_counter() - started:.1f} s"
    )
    with GameStore(source, create=False) as store:
        game = store.load_game(max(store.games(), key=lambda row: row.plies).id)
    started = time.perf_counter()
    review = review_game(game, nodes=DEFAULT_NODES)
    print(
        f"classic: {len(review.plies)} plies at {DEFAULT_NODES} nodes a position in "
        f"{time.perf_counter() - started:.1f} s"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=4, help="0: the review's speed only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=5, help="classic games in the review's log")
    args = parser.parse_args()
    variant = Variant.from_spec("classic")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source = folder / "games.sqlite3"
        review_log(source, args.games, args.seed)
        review_speed(source, args.seed)
        if not args.pairs:
            return 0
        frames = rendered_game(variant, args.seed)
        game = hint_position()
        results = {}
        for niceness in (19, 0):
            copy = folder / f"review-{niceness}.sqlite3"
            shutil.copy(source, copy)
            print(f"review at nice +{niceness} (relative to this process):", flush=True)
            results[niceness] = pairs_with(start_review(copy, niceness), args.pairs, frames, game, folder)
        load = os.getloadavg()
    print(
        f"{len(frames[1])} frames a loop run, a hint of {HINT_NODES} nodes; this process at nice "
        f"{os.nice(0)}; load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end"
    )
    for niceness, pairs in results.items():
        report(f"review at nice +{niceness}", pairs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
