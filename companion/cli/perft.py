"""``gobblet-companion perft``: count the leaves of the legal-move tree."""

from __future__ import annotations

import argparse
import time

from companion.cli.common import (
    add_game_arguments,
    add_json_argument,
    game_from_args,
    print_json,
    whole_number,
)
from companion.rules.perft import divide, perft

MAX_PERFT_DEPTH = 64  # plies; each ply multiplies the count by ~100: 10 already takes years


def register(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "perft",
        help="count the leaves of the legal-move tree to a depth",
        description="Perft: the number of leaves of the legal-move tree (finished games have "
        "no moves; repetition is not considered).",
    )
    add_game_arguments(parser)
    parser.add_argument(
        "--depth",
        type=whole_number(0, MAX_PERFT_DEPTH),
        required=True,
        help=f"plies to search (0 to {MAX_PERFT_DEPTH})",
    )
    parser.add_argument("--divide", action="store_true", help="also count per first move")
    add_json_argument(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    position = game_from_args(args).position
    started = time.perf_counter()
    if args.divide:
        split = divide(position, args.depth)
        nodes = sum(split.values())
    else:
        split, nodes = {}, perft(position, args.depth)
    seconds = time.perf_counter() - started
    rate = nodes / seconds if seconds > 0 else 0.0
    if args.json:
        data = {
            "depth": args.depth,
            "nodes": nodes,
            "seconds": round(seconds, 6),
            "nodes_per_second": round(rate),
        }
        if split:
            data["divide"] = split
        print_json(data)
    else:
        for move, count in split.items():
            print(f"{move}: {count}")
        print(f"depth {args.depth}: {nodes} nodes in {seconds:.3f} s ({rate:,.0f} nodes/s)")
    return 0
