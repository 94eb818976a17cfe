"""Arguments and set-up shared by the commands that start from a variant and a move sequence."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from companion.errors import CompanionError
from companion.rules import VARIANT_NAMES, Game, MoveError, Position, Variant
from companion.rules.move import Move, MoveSyntaxError


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--variant",
        default="classic",
        help=f"variant: {', '.join(VARIANT_NAMES)}, or NAME:key=value,... (default: classic)",
    )
    parser.add_argument(
        "--moves", default="", help='moves from the start, space separated: "4a2 4c3 3b2 c3-b2"'
    )
    parser.add_argument(
        "--position", default=None, help="start from this position text instead of the variant's start"
    )


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def game_from_args(args: argparse.Namespace) -> Game:
    """The game after ``--moves``; a bad move raises naming the move, its ply and why."""
    if args.position:
        start = Position.from_text(args.position)
        game = Game(start.variant, start=start)
    else:
        game = Game(Variant.from_spec(args.variant))
    for ply, token in enumerate(args.moves.split(), start=1):
        try:
            game.push(Move.from_text(token))
        except MoveSyntaxError as error:
            raise CompanionError(f"ply {ply}: {error}") from None
        except MoveError as error:
            raise CompanionError(f"ply {ply}: {error}") from None
    return game


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout)
    sys.stdout.write("\n")
