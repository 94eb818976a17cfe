"""``gobblet-companion hint``: the move a strong player would make, with its score and line."""

from __future__ import annotations

import argparse

from companion.cli.common import (
    add_game_arguments,
    add_json_argument,
    game_from_args,
    print_json,
    seconds,
    whole_number,
)
from companion.engine.levels import LEVELS
from companion.engine.protocol import score_text
from companion.errors import CompanionError

MAX_SEARCH_DEPTH = 64  # plies: the search goes no deeper


def register(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "hint",
        help="suggest the best move",
        description="Suggest a move for the side to move after --moves, within --time seconds.",
    )
    add_game_arguments(parser)
    parser.add_argument("--time", type=seconds, default=1.0, help="seconds to think (default: 1)")
    parser.add_argument(
        "--depth",
        type=whole_number(1, MAX_SEARCH_DEPTH),
        default=None,
        help=f"search depth (1 to {MAX_SEARCH_DEPTH}) instead of a time limit",
    )
    parser.add_argument("--level", default="strong", choices=list(LEVELS), help="level (default: strong)")
    add_json_argument(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from companion.engine import Engine

    game = game_from_args(args)
    outcome = game.outcome()
    if outcome is not None:
        raise CompanionError(f"the game is over ({outcome.reason}): there is no move to suggest")
    engine = Engine(game.variant, args.level)
    time = None if args.depth is not None else args.time
    result = engine.search(game.position, time=time, depth=args.depth)
    if args.json:
        print_json(result.to_json())
        return 0
    value = f" ({result.value})" if result.value else ""
    move = result.move.text() if result.move is not None else "(none)"  # none only once over
    print(
        f"{move}  score {score_text(result.score)}{value}  depth {result.depth}  "
        f"nodes {result.nodes}  {result.seconds:.2f} s"
    )
    print("line: " + " ".join(move.text() for move in result.pv))
    return 0
