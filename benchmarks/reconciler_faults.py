"""The robustness figures: generated games with injected faults, scored per move.

    PYTHONPATH=. python benchmarks/reconciler_faults.py [GAMES] [--confident]

Each game has 2 % of squares misread and 10 % occluded frames, plus one fault family in
turn (covered moves, lifts, takebacks, illegal actions). ``--confident`` makes misread squares
keep almost no probability on the truth (a reader sure of its mistake).
"""

from __future__ import annotations

import sys
import time

from companion.reconciler.faults import FAMILIES, RunResult, family_rates, make_stream, run_stream
from companion.reconciler.reconciler import Reconciler
from companion.rules.variant import Variant

VARIANTS = ("classic", "classic", "classic", "storer", "rogers")


def main() -> None:
    games = int(next((a for a in sys.argv[1:] if a.isdigit()), "500"))
    confident = "--confident" in sys.argv
    names = sorted(FAMILIES)
    total = RunResult()
    started = time.perf_counter()
    for seed in range(games):
        rates = family_rates(names[seed % len(names)])
        if confident:
            rates = type(rates)(**{**rates.__dict__, "confident_misread": True})
        variant = Variant.from_spec(VARIANTS[seed % len(VARIANTS)])
        total.add(run_stream(make_stream(variant, seed, rates), Reconciler, time.perf_counter))
    moves = total.moves
    print(f"{games} games, {moves} moves in {time.perf_counter() - started:.0f} s"
          f"{' (confident misreads)' if confident else ''}")
    for name in ("right", "flagged", "silent", "wrong"):
        value = getattr(total, name)
        print(f"  {name}: {value} ({100.0 * value / moves:.2f} %)")
    print("  faults injected -> expected event seen:")
    for fault in sorted(total.expected):
        print(f"    {fault}: {total.caught[fault]}/{total.expected[fault]}")


if __name__ == "__main__":
    main()
