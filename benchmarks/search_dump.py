"""The search trees of a fixed set of positions, written to a file so that two commits can be
compared byte for byte: a change that must not change what the engine searches (a refactor of
the rules' fast layer or of the engine's board) leaves the dump identical.

    PYTHONPATH=. python benchmarks/search_dump.py OUT [--depth 4]
    cmp old.txt new.txt

For each variant (classic, storer, rogers, junior, a 5x5 classic and the any-order stacks),
seeded random games are played and searched move by move with one engine per game (so the
hash table and the evaluation cache are warm, as in play) to a fixed depth: each line holds
the position text, the move, score, depth, node count and principal variation. The
``medium`` and ``easy`` levels' seeded choices and the perft counts of every position to
depth 2 are dumped too. Nothing depends on the clock: the limits are depths.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from dumps import write_lines

from companion.engine import Engine
from companion.rules import Position, Variant, perft

VARIANTS = ("classic", "storer", "rogers", "junior", "classic:size=5", "classic:order=any")
GAMES_PER_VARIANT = 2
PLIES_PER_GAME = 10


def game_lines(spec: str, seed: int, depth: int) -> Iterator[str]:
    variant = Variant.from_spec(spec)
    rng = random.Random(seed)
    position = Position(variant)
    strong = Engine(variant, "strong", seed)
    loose = {level: Engine(variant, level, seed) for level in ("medium", "easy")}
    yield f"game {spec} seed={seed}"
    while position.ply < PLIES_PER_GAME and position.outcome() is None:
        result = strong.search(position, depth=depth)
        pv = " ".join(move.text() for move in result.pv)
        yield (
            f"  {position.text()} | {result.move} {result.score} d{result.depth} "
            f"n{result.nodes} {result.value} | {pv}"
        )
        for level, engine in loose.items():
            chosen = engine.search(position)
            yield f"    {level} {chosen.move} {chosen.score} n{chosen.nodes}"
        yield f"    perft {perft(position, 1)} {perft(position, 2)}"
        moves = list(position.legal_moves)
        position.push(rng.choice(moves) if rng.random() < 0.5 else result.move)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="file to write the dump to")
    parser.add_argument("--depth", type=int, default=4, help="search depth (default 4)")
    args = parser.parse_args()
    started = time.perf_counter()
    games = [(spec, seed) for spec in VARIANTS for seed in range(GAMES_PER_VARIANT)]
    lines = (line for spec, seed in games for line in game_lines(spec, seed, args.depth))
    digest = write_lines(args.out, lines)
    seconds = time.perf_counter() - started
    print(f"search dump in {seconds:.0f} s -> {args.out} (sha256 {digest})", file=sys.stderr)


if __name__ == "__main__":
    main()
