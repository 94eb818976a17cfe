"""``gobblet-companion moves``: the legal moves after a move sequence."""

from __future__ import annotations

import argparse

from companion.cli.common import add_game_arguments, add_json_argument, game_from_args, print_json
from companion.rules import color_name


def register(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "moves",
        help="list the legal moves after a move sequence",
        description="List the legal moves after a move sequence, one per line.",
    )
    add_game_arguments(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    game = game_from_args(args)
    moves = [move.text() for move in game.legal_moves]
    outcome = game.outcome()
    if args.json:
        print_json(
            {
                "to_move": color_name(game.turn),
                "moves": moves,
                "outcome": outcome.to_json() if outcome else None,
            }
        )
    else:
        for move in moves:
            print(move)
        if outcome:
            print(f"# {outcome.reason}")
    return 0
