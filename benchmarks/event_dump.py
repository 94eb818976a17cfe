"""Every referee event of a fixed set of 520 generated games, written to a file so that two
commits can be compared byte for byte: a change that must not change behaviour (a refactor,
a speed-up) leaves the dump identical.

    PYTHONPATH=. python benchmarks/event_dump.py OUT [--games N]
    cmp old.txt new.txt

The games are ``companion.testing.faults`` streams (the robustness benchmark's generator),
each fed to a fresh reconciler:

- 200 faulted games: classic x3, storer, rogers in turn, one fault family a game (covered
  moves, lifts, takebacks, illegal actions) on top of 2 % misreads and 10 % occluded frames,
  as ``benchmarks/reconciler_faults.py`` makes them;
- 100 games of every preset variant in turn (classic, junior, moku, storer, rogers), faulted;
- 100 fault-free games (classic, storer, rogers, junior in turn);
- 70 games with blind stretches (3 to 5 moves made while the camera saw nothing);
- 50 games with sure misreads (a misread square keeps almost no probability on the truth).

Each event is written as sorted JSON without its time stamp (the only field that depends on
the clock); after each game, the record the reconciler holds and its unsure plies. The dump is
deterministic: the streams come from seeded generators and the reconciler draws nothing at
random. ``--games N`` keeps the first N games of the set (a quicker, partial check).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from dumps import write_lines

from companion.reconciler.reconciler import Reconciler
from companion.rules.variant import PRESETS, Variant
from companion.testing.faults import FAMILIES, FaultRates, family_rates, make_stream

FAULTED_VARIANTS = ("classic", "classic", "classic", "storer", "rogers")
CLEAN_VARIANTS = ("classic", "storer", "rogers", "junior")
FAMILY_NAMES = tuple(sorted(FAMILIES))


def game_set() -> Iterator[tuple[str, str, int, FaultRates]]:
    """(label, variant spec, seed, fault rates) of every game, in dump order."""
    for i in range(200):
        family = FAMILY_NAMES[i % len(FAMILY_NAMES)]
        yield f"faulted/{family}", FAULTED_VARIANTS[i % len(FAULTED_VARIANTS)], i, family_rates(family)
    presets = tuple(PRESETS)
    for i in range(100):
        family = FAMILY_NAMES[i % len(FAMILY_NAMES)]
        yield f"preset/{family}", presets[i % len(presets)], 1000 + i, family_rates(family)
    for i in range(100):
        yield "fault-free", CLEAN_VARIANTS[i % len(CLEAN_VARIANTS)], 2000 + i, FaultRates.clean()
    for i in range(70):
        yield "blind", FAULTED_VARIANTS[i % len(FAULTED_VARIANTS)], 3000 + i, family_rates("blind")
    for i in range(50):
        family = FAMILY_NAMES[i % len(FAMILY_NAMES)]
        rates = family_rates(family, confident=True)
        yield f"sure-misreads/{family}", FAULTED_VARIANTS[i % len(FAULTED_VARIANTS)], 4000 + i, rates


def game_lines(label: str, spec: str, seed: int, rates: FaultRates) -> Iterator[str]:
    """The dump of one game: a header, one line per event, then the record held at the end."""
    variant = Variant.from_spec(spec)
    stream = make_stream(variant, seed, rates)
    reconciler = Reconciler(variant)
    yield f"game {label} {spec} seed={seed} steps={len(stream.steps)}"
    for index, step in enumerate(stream.steps):
        for event in reconciler.feed(step.observation):
            data = event.to_json()
            del data["timestamp"]
            yield f"  {index} " + json.dumps(data, sort_keys=True, default=repr)
    record = " ".join(move.text() for move in reconciler.game.moves)
    yield f"  record {record}"
    yield f"  unsure {json.dumps(reconciler.unsure, sort_keys=True)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="file to write the dump to")
    parser.add_argument("--games", type=int, default=None, help="only the first N games of the set")
    args = parser.parse_args()
    started = time.perf_counter()
    games = list(itertools.islice(game_set(), args.games))
    digest = write_lines(args.out, (line for game in games for line in game_lines(*game)))
    seconds = time.perf_counter() - started
    print(f"{len(games)} games in {seconds:.0f} s -> {args.out} (sha256 {digest})", file=sys.stderr)


if __name__ == "__main__":
    main()
