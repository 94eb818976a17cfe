"""Match benchmark: two engine settings (LEVEL, LEVEL@SECONDS, LEVEL#NODES, or random) or two
engine commands. LEVEL#NODES searches a fixed number of nodes a move: the same on a loaded
machine as on an idle one.

    python benchmarks/engine_match.py --first strong@0.2 --second greedy --games 100
    python benchmarks/engine_match.py --first-cmd "gobblet-companion engine" --second easy
    python benchmarks/engine_match.py --variant cups --first strong#4000 --second random --games 200

Prints wins/draws/losses of the first player with the Elo difference and its 95% margin.
"""

from __future__ import annotations

import argparse
import sys

from companion.engine.match import CommandPlayer, engine_player, random_player, run_match
from companion.rules.games import variant_from_spec
from companion.rules.state import GameVariant


def player(spec: str | None, command: str | None, variant: GameVariant, seed: int, movetime_ms: int):
    if command:
        return CommandPlayer(command, variant, movetime_ms), command
    if spec == "random":
        return random_player(seed), spec
    text, _, nodes = (spec or "strong").partition("#")
    level, _, seconds = text.partition("@")
    limit = int(nodes) if nodes else None
    return engine_player(variant, level, float(seconds) if seconds else 1.0, seed, limit), spec


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--first", default="strong@0.2")
    parser.add_argument("--second", default="greedy")
    parser.add_argument("--first-cmd", default=None)
    parser.add_argument("--second-cmd", default=None)
    parser.add_argument("--movetime", type=int, default=200, help="ms per move for engine commands")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--opening-plies", type=int, default=2)
    args = parser.parse_args()
    variant = variant_from_spec(args.variant)
    first, first_name = player(args.first, args.first_cmd, variant, args.seed, args.movetime)
    second, second_name = player(args.second, args.second_cmd, variant, args.seed + 1, args.movetime)

    def report(done, result):
        sys.stderr.write(f"\r{done}/{args.games}: +{result.wins} ={result.draws} -{result.losses}")
        sys.stderr.flush()

    result = run_match(variant, first, second, args.games, args.seed, args.opening_plies, report)
    sys.stderr.write("\n")
    print(f"{args.variant}: {result.text(first_name, second_name)}")
    for closing in (first, second):
        if hasattr(closing, "close"):
            closing.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
