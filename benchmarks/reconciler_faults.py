"""The robustness figures: generated games with injected faults, scored per move.

    PYTHONPATH=. python benchmarks/reconciler_faults.py [GAMES] [--confident] [--blind] [--no-still-looks]

Each game has 2 % of squares misread and 10 % occluded frames, plus one fault family in
turn (covered moves, lifts, takebacks, illegal actions). ``--confident`` makes misread squares
keep almost no probability on the truth (a reader sure of its mistake). ``--blind`` runs the
recovery family instead: now and then 3 to 5 moves are made while the camera sees nothing.
A settled board is read again, marked still, whenever the device would
(``companion.testing.faults.StillLooks``, by ``reconciler.events.looks_again``: after an
unclear reading or new doubt, at most ``STILL_LOOKS`` per board), so the referee's still-look
rules run as on the device. ``--no-still-looks`` feeds the stream alone, as the figures before
2026-11-30 (still22) were measured; ``--still-looks`` is the default and still accepted.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from companion.testing.faults import run_games

VARIANTS = ("classic", "classic", "classic", "storer", "rogers")

STILL_LOOKS = 3
"""Second looks per settled board at most (none with ``--no-still-looks``): the device reads a standing
board again about once per ``hold_seconds`` (1 s) while the referee asks, and a player at a
real table moves again after 4 s and more (``StabilityGate.look_again``)."""


def main() -> None:
    games = int(next((a for a in sys.argv[1:] if a.isdigit()), "500"))
    confident = "--confident" in sys.argv
    families = ("blind",) if "--blind" in sys.argv else None
    looks = 0 if "--no-still-looks" in sys.argv else STILL_LOOKS
    started = time.perf_counter()
    total = run_games(games, VARIANTS, confident=confident, families=families, still_looks=looks)
    what = (" (confident misreads)" if confident else "") + (" (blind stretches)" if families else "")
    what += f" ({total.still_looks} still second looks)" if looks else ""
    print(f"{games} games, {total.moves} moves in {time.perf_counter() - started:.0f} s{what}")
    moves = max(total.moves, 1)
    for name in ("right", "flagged", "silent", "wrong"):
        value = getattr(total, name)
        print(f"  {name}: {value} ({100.0 * value / moves:.2f} %)")
    print(
        f"  withdrawn by a correction: {total.withdrawn}; "
        f"wrong when announced: {total.shown_wrong} as known, "
        f"{total.shown_unsure} more reported unsure at once; aligned to the truth (each wrong move once): "
        f"{total.shown_wrong_aligned} as known"
    )
    print(f"  games not followed to their end: {total.stuck}; resyncs: {total.resyncs}")
    ms = np.array(total.seconds) * 1000.0
    print(
        f"  feed time: mean {ms.mean():.2f} ms, p95 {np.percentile(ms, 95):.2f}, "
        f"p99 {np.percentile(ms, 99):.2f}, max {ms.max():.2f} ms"
    )
    print("  faults injected -> expected event seen:")
    for fault in sorted(total.expected):
        print(f"    {fault}: {total.caught[fault]}/{total.expected[fault]}")


if __name__ == "__main__":
    main()
