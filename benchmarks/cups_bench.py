"""Cups benchmarks: full solves of small variants, where the solver is exact within a hint's
time, self-play, and time per move by level. Figures go in docs/benchmarks.md#cups.

    python benchmarks/cups_bench.py solve                 # n = 4, stocks 4..9; n = 6, stocks 4..12
    python benchmarks/cups_bench.py reach --positions 20  # hints solved exactly, by stock left
    python benchmarks/cups_bench.py selfplay --games 40 --nodes 1500
    python benchmarks/cups_bench.py movetime --games 2

Matches against greedy and random: benchmarks/engine_match.py --variant cups.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from companion.engine import Engine
from companion.engine.cups import ROOT_SHARE, SOLVER_RATE, CupsSearcher
from companion.engine.cups.solver import CupsSolver
from companion.engine.match import MAX_PLIES, random_opening
from companion.rules.cups import CupsPosition, CupsVariant

SOLVES = tuple(f"cups:stock={stock}" for stock in range(4, 10)) + tuple(
    f"cups:cups=6,stock={stock}" for stock in range(4, 13, 2)
)


def solve(args: argparse.Namespace) -> None:
    print("variant               value  positions   CPU s")
    for spec in SOLVES:
        variant = CupsVariant.from_spec(spec)
        solver = CupsSolver()
        start = time.process_time()
        empty = (0,) * variant.cups
        value = solver.value(empty, empty, variant.stock, variant.stock)
        print(f"{spec:<20} {value:>+6} {len(solver.table):>10} {time.process_time() - start:>7.2f}")


def random_position(rng: random.Random, stock_left: int) -> CupsPosition | None:
    """Random play from the start until both stocks together hold at most ``stock_left``."""
    position = CupsPosition()
    while position.outcome() is None and position.stock(0) + position.stock(1) > stock_left:
        position.push_code(rng.choice(position.legal_codes()))
    return position if position.outcome() is None else None


def reach(args: argparse.Namespace) -> None:
    """For each amount of stock left: how many positions the strong level's first try solves
    exactly, with the node budget a hint of ``--seconds`` gives it (a count of nodes, so the
    answer does not depend on the machine's load), and the CPU time those tries take."""
    rng = random.Random(args.seed)
    budget = int(SOLVER_RATE * ROOT_SHARE * args.seconds)
    print(f"solver budget {budget} nodes (a {args.seconds} s hint)")
    print("stock left  exact  of   mean CPU s   max CPU s")
    for left in (8, 12, 16, 20, 24, 28, 32):
        exact, times = 0, []
        while len(times) < args.positions:
            position = random_position(rng, left)
            if position is None:
                continue
            start = time.process_time()
            exact += CupsSearcher().solve(position, budget, None) is not None
            times.append(time.process_time() - start)
        print(f"{left:>10} {exact:>6} {len(times):>3} {statistics.mean(times):>12.3f} {max(times):>11.3f}")


def selfplay(args: argparse.Namespace) -> None:
    """Strong against itself (``--nodes`` a move) from random two-ply openings: how the first
    player fares."""
    variant = CupsVariant()
    rng = random.Random(args.seed)
    wins = draws = losses = 0
    margins = []
    for _ in range(args.games):
        engines = (Engine(variant, "strong"), Engine(variant, "strong"))
        position = CupsPosition(variant)
        for code in random_opening(variant, 2, rng):
            position.push_code(code)
        while position.outcome() is None and position.ply < MAX_PLIES:
            position.push(engines[position.turn].search(position, nodes=args.nodes).move)
        outcome = position.outcome()
        assert outcome is not None and outcome.pots is not None
        margins.append(outcome.pots[0] - outcome.pots[1])
        wins += outcome.winner == 0
        losses += outcome.winner == 1
        draws += outcome.winner is None
    print(
        f"strong#{args.nodes} self-play, {args.games} games: first player +{wins} ={draws} -{losses}, "
        f"mean margin {statistics.mean(margins):+.1f} beans (sd {statistics.pstdev(margins):.1f})"
    )


def movetime(args: argparse.Namespace) -> None:
    """Time per move of each level over whole games, CPU and wall clock (strong with its
    default budget, 1 s on the clock)."""
    rng = random.Random(args.seed)
    print("level     moves   mean CPU s   max CPU s   mean wall s   max wall s")
    for level in ("greedy", "easy", "medium", "strong"):
        cpu, wall = [], []
        for _ in range(args.games):
            engine = Engine("cups", level, seed=rng.randrange(1 << 30))
            position = CupsPosition()
            for code in random_opening(position.variant, 2, rng):
                position.push_code(code)
            while position.outcome() is None:
                started, ticked = time.perf_counter(), time.process_time()
                move = engine.search(position).move
                cpu.append(time.process_time() - ticked)
                wall.append(time.perf_counter() - started)
                position.push(move)
        print(
            f"{level:<8} {len(cpu):>6} {statistics.mean(cpu):>12.3f} {max(cpu):>11.3f} "
            f"{statistics.mean(wall):>13.3f} {max(wall):>12.3f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("what", choices=["solve", "reach", "selfplay", "movetime"])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--nodes", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    {"solve": solve, "reach": reach, "selfplay": selfplay, "movetime": movetime}[args.what](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
