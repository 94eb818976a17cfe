"""Time per answer of the junior solver over a large, varied set of positions, and how many
answers come without a value (not settled within the time limit).

    PYTHONPATH=. python benchmarks/junior_answers.py [--games 150] [--time 1.0] [--module M]

The set: every position of seeded random games (every ply count), each answered by a solver
that has seen nothing but the book (a hint asked in the middle of a game); the moves of the
solver in games against random play and against itself from random openings, one solver per
game as on the device; and the positions the solver once failed to settle in time (below).
``--module`` runs another copy of the solver (say, an older commit's ``junior.py`` on
``PYTHONPATH``) on the same set.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import time

from companion.rules import PRESETS, Position

JUNIOR = PRESETS["junior"]
# Found unsettled in 1 s by the solver at commit 0033e54 (random play, load 6-9).
ONCE_UNSETTLED = (
    "junior 3/W2B3,2/3 w 33211 32211 4",
    "junior 3/3/B1,1,W1W2 w 3321 33221 4",
    "junior 1,W1B2,1/2,B2/1,W3,1 w 3221 3311 4",
    "junior B3,2/3/B3,B1W2,W2 w 3311 221 8",
    "junior W3,B1,1/B3,2/1,W3,1 w 2211 3221 8",
    "junior 1,W1,1/1,B3,1/W3,B1,1 w 3221 3221 4",
    "junior W3,1,B3/B3,2/1,W1,1 b 3221 2211 5",
    "junior 1,W3,1/2,B3/1,B1,W3 w 2211 3221 4",
    "junior W3,1,B1/2,W3/3 w 2211 33221 4",
    "junior W1,W1B3,1/2,W2/2,B3 b 332 2211 9",
    "junior 3/1,B3,B1/B1W2W3,2 w 3211 322 6",
    "junior 1,B3,1/3/W1W3,W1,B3 b 322 2211 5",
    "junior 3/B2,1,W3/1,B1W3,1 w 2211 3321 6",
    "junior 2,B3/2,W1/W3,1,B3 w 3221 2211 4",
    "junior W3,W1,1/B2,2/1,B2,1 b 3221 3311 5",
    "junior W1B2,2/3/W1,1,B3 w 3322 3211 4",
    "junior B1,1,B1W2/3/2,W3 b 3211 3322 7",
)


class Tally:
    def __init__(self) -> None:
        self.times: list[float] = []
        self.cpu: list[float] = []  # CPU seconds: the machine's load (other jobs) left out
        self.values: dict[str, int] = {}
        self.unsettled: list[str] = []
        self.no_distance = 0

    def answer(self, solver, position: Position, limit: float):
        t0, c0 = time.perf_counter(), time.process_time()
        answer = solver.solve(position, time_limit=limit)
        self.times.append(time.perf_counter() - t0)
        self.cpu.append(time.process_time() - c0)
        self.values[str(answer.value)] = self.values.get(str(answer.value), 0) + 1
        if answer.value is None:
            self.unsettled.append(position.text())
        elif answer.value in ("win", "loss") and answer.distance is None:
            self.no_distance += 1
        return answer

    def add(self, other: Tally) -> None:
        self.times += other.times
        self.cpu += other.cpu
        self.unsettled += other.unsettled
        self.no_distance += other.no_distance
        for value, count in other.values.items():
            self.values[value] = self.values.get(value, 0) + count

    def report(self, name: str, listed: bool = True) -> None:
        t, c = sorted(self.times), sorted(self.cpu)
        print(
            f"{name}: {len(t)} answers, wall clock median {1000 * t[len(t) // 2]:.1f} ms, 99th percentile "
            f"{1000 * t[int(0.99 * len(t))]:.0f} ms, max {1000 * t[-1]:.0f} ms "
            f"(CPU {1000 * c[len(c) // 2]:.1f} / "
            f"{1000 * c[int(0.99 * len(c))]:.0f} / {1000 * c[-1]:.0f} ms); values {self.values}; "
            f"unsettled {len(self.unsettled)}; win/loss without distance {self.no_distance}"
        )
        for text in self.unsettled if listed else ():
            print(f"   unsettled: {text}")


def random_game_positions(games: int, rng: random.Random) -> list[Position]:
    out = []
    for _ in range(games):
        position = Position(JUNIOR)
        while position.outcome() is None and position.ply < 60:
            out.append(position.copy())
            position.push_code(rng.choice(position.legal_codes()))
    return out


def play(module, book, tally: Tally, limit: float, rng: random.Random, opponent_random: bool) -> None:
    """One game, one solver: the solver plays both sides (against itself) or one side
    against random moves, from a random opening of 0-4 plies."""
    solver = module.JuniorSolver()
    solver.book = book
    position = Position(JUNIOR)
    for _ in range(rng.randint(0, 4)):
        if position.outcome() is None:
            position.push_code(rng.choice(position.legal_codes()))
    engine_side = rng.randint(0, 1)
    while position.outcome() is None and position.ply < 80:
        if opponent_random and position.turn != engine_side:
            position.push_code(rng.choice(position.legal_codes()))
        else:
            position.push_code(tally.answer(solver, position, limit).code)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=150, help="random games whose every position is asked")
    parser.add_argument(
        "--matches", type=int, default=60, help="games against random play, and against itself"
    )
    parser.add_argument("--time", type=float, default=1.0)
    parser.add_argument("--module", default="companion.engine.junior")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    module = importlib.import_module(args.module)
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    book = module.JuniorSolver.with_book().book
    print(
        f"solver {module.__file__}, book {len(book)} positions loaded in {time.perf_counter() - t0:.2f} s; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    everything = Tally()
    for name, positions in (
        ("once unsettled", [Position.from_text(t) for t in ONCE_UNSETTLED]),
        ("random play, every ply", random_game_positions(args.games, rng)),
    ):
        tally = Tally()
        for position in positions:
            solver = module.JuniorSolver()
            solver.book = book
            tally.answer(solver, position, args.time)
        tally.report(name)
        everything.add(tally)
    for name, opponent_random in (("against random play", True), ("against itself", False)):
        tally = Tally()
        for _ in range(args.matches):
            play(module, book, tally, args.time, rng, opponent_random)
        tally.report(name)
        everything.add(tally)
    everything.report("all", listed=False)
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
