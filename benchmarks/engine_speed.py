"""Engine speed benchmark: nodes per second and depth in 1 s and 0.33 s (classic start and
three middlegames) of the pure-Python search and of the compiled core, in one run; the junior
solver's facts and time per answer; resident memory.

    PYTHONPATH=. python benchmarks/engine_speed.py [--seconds 1.0 0.33] [--skip-junior]

The Python search is today's engine before the compiled core (the core visits the same
nodes), so one run compares before and after on the same load.

Middlegames are reached by a fixed sequence of medium-level moves from seeded random
openings, so every run measures the same positions.
"""

from __future__ import annotations

import argparse
import platform
import random
import resource
import time

from companion.engine import Engine
from companion.engine.compiled import NATIVE, CompiledSearcher
from companion.engine.junior import JuniorSolver, canonical, pack
from companion.engine.match import random_opening
from companion.engine.search import Searcher
from companion.rules import PRESETS, Position

MIDDLEGAME_SEEDS = (1, 2, 3)


def middlegame(seed: int, plies: int = 14) -> Position:
    variant = PRESETS["classic"]
    position = Position(variant)
    for code in random_opening(variant, 4, random.Random(seed)):
        position.push_code(code)
    engine = Engine(variant, "medium", seed)
    while position.ply < plies and position.outcome() is None:
        position.push(engine.search(position).move)
    return position


def classic(budgets: list[float]) -> None:
    positions = [("start", Position(PRESETS["classic"]))]
    positions += [(f"middlegame {seed}", middlegame(seed)) for seed in MIDDLEGAME_SEEDS]
    kinds = [("python", Searcher)] + ([("compiled", CompiledSearcher)] if NATIVE is not None else [])
    for seconds in budgets:
        for kind, searcher in kinds:
            total_nodes = total_time = total_cpu = 0.0
            depths = []
            for name, position in positions:
                engine = Engine("classic")
                engine.searcher = searcher(engine.variant)
                cpu = time.process_time()
                result = engine.search(position, time=seconds)
                cpu = time.process_time() - cpu
                if name != "start":
                    total_nodes += result.nodes
                    total_time += result.seconds
                    total_cpu += cpu
                    depths.append(result.depth)
                print(
                    f"{kind} {seconds} s, classic {name}: depth {result.depth} in {result.seconds:.2f} s, "
                    f"{result.nodes} nodes, {result.nodes / result.seconds:,.0f} nodes/s, best {result.move} "
                    f"score {result.score}   [{position.text()}]"
                )
            # On a shared machine the wall clock counts other jobs' time too; the CPU time less so.
            print(
                f"{kind} {seconds} s, classic middlegames: depths {depths}, "
                f"{total_nodes / total_time:,.0f} nodes/s on average "
                f"({total_nodes / total_cpu:,.0f} per CPU second); resident memory now {resident_mb():.0f} MB"
            )


def resident_mb() -> float:
    """The process's resident memory now (Linux), else its peak so far."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# Junior positions beyond the book (5+ pieces), among the slowest to settle (tests/engine
# too): a loss in 14, a win in 15, a loss in 10, two draws.
JUNIOR_HARD = (
    "junior W1,W1B3,1/2,W2/2,B3 b 332 2211 9",
    "junior 3/1,B3,B1/B1W2W3,2 w 3211 322 6",
    "junior 1,B3,1/3/W1W3,W1,B3 b 322 2211 5",
    "junior B3,2/3/B3,B1W2,W2 w 3311 221 8",
    "junior B1W3,2/W1,B2,W3/3 b 221 3321 5",
)


def junior() -> None:
    start = Position(PRESETS["junior"])
    t0 = time.perf_counter()
    answer = JuniorSolver().solve(start)
    print(
        f"junior start, no book: {answer.value} in {answer.distance} plies "
        f"(play {start.move_from_code(answer.code)}), {time.perf_counter() - t0:.1f} s"
    )
    solver = JuniorSolver.with_book()
    for code in start.legal_codes():
        start.push_code(code)
        t0 = time.perf_counter()
        reply = solver.solve(start, time_limit=1.0)
        start.pop_code()
        first_player = {"win": "loss", "loss": "win"}.get(reply.value or "", reply.value)
        print(
            f"junior first move {start.move_from_code(code)}: first player {first_player} in "
            f"{reply.distance} plies ({time.perf_counter() - t0:.3f} s with the book)"
        )
    for text in JUNIOR_HARD:
        position = Position.from_text(text)
        t0 = time.perf_counter()
        proof = JuniorSolver().prove(pack_canonical(position))
        proved = time.perf_counter() - t0
        fresh = JuniorSolver()
        fresh.book = solver.book  # nothing learnt, the book not loaded again
        t0 = time.perf_counter()
        timed = fresh.solve(position, time_limit=1.0)
        print(
            f"junior hard [{text}]: value proof {proof} in {proved:.2f} s; with 1 s: "
            f"{timed.value} in {time.perf_counter() - t0:.2f} s"
        )
    times = []
    values: dict[str | None, int] = {}
    rng = random.Random(5)
    engine = Engine("junior")
    for _ in range(100):
        position = Position(PRESETS["junior"])
        while position.outcome() is None and position.ply < 60:
            t0 = time.perf_counter()
            result = engine.search(position, time=1.0)
            times.append(time.perf_counter() - t0)
            values[result.value] = values.get(result.value, 0) + 1
            position.push(result.move)
            if position.outcome() is None and rng.random() < 0.5:
                position.push_code(rng.choice(position.legal_codes()))
    times.sort()
    print(
        f"junior strong moves ({len(times)} from 100 games, opponent half random): median "
        f"{1000 * times[len(times) // 2]:.1f} ms, "
        f"99th percentile {1000 * times[int(0.99 * len(times))]:.0f} ms, "
        f"max {1000 * times[-1]:.0f} ms; values {values}"
    )


def pack_canonical(position: Position) -> int:
    return canonical(pack(position))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, nargs="+", default=[1.0, 0.33])
    parser.add_argument("--skip-junior", action="store_true")
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    classic(args.seconds)
    if not args.skip_junior:
        junior()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
