"""Arguments and set-up shared by the commands that start from a variant and a move sequence."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.errors import CompanionError
from companion.rules import MoveError
from companion.rules.game import BaseGame
from companion.rules.games import ALL_SPEC_NAMES, new_game, position_from_text, variant_from_spec
from companion.rules.move import MoveSyntaxError


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--variant",
        default="classic",
        help=f"variant: {', '.join(ALL_SPEC_NAMES)}, or NAME:key=value,... (default: classic)",
    )
    parser.add_argument(
        "--moves",
        default="",
        help='moves from the start, space separated: "4a2 4c3 3b2 c3-b2" (Cups: "s4 s3 c4")',
    )
    parser.add_argument(
        "--position", default=None, help="start from this position text instead of the variant's start"
    )


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def game_from_args(args: argparse.Namespace) -> BaseGame:
    """The game (of any game) after ``--moves``; a bad move raises naming the move, its ply
    and why."""
    if args.position:
        start = position_from_text(args.position)
        game = new_game(start.variant, start)
    else:
        game = new_game(variant_from_spec(args.variant))
    for ply, token in enumerate(args.moves.split(), start=1):
        try:
            game.push_text(token)
        except MoveSyntaxError as error:
            raise CompanionError(f"ply {ply}: {error}") from None
        except MoveError as error:
            raise CompanionError(f"ply {ply}: {error}") from None
    return game


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout)
    sys.stdout.write("\n")


# ----- argument types: a limit that is not a number in range is refused before anything runs ----

MAX_INTEGER = 2**63 - 1  # what SQLite and the engine's counters hold


def whole_number(low: int = 1, high: int = MAX_INTEGER) -> Callable[[str], int]:
    """An argparse type: a whole number in ``low..high`` (ASCII digits, as typed)."""

    def parse(text: str) -> int:
        body = text.strip().removeprefix("-")
        if not (body.isascii() and body.isdigit()):
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
        value = int(text)
        if not low <= value <= high:
            bound = f"{low} or more" if high == MAX_INTEGER else f"{low} to {high}"
            raise argparse.ArgumentTypeError(f"{value} is out of range: give {bound}")
        return value

    parse.__name__ = "whole number"
    return parse


def number(what: str, *, zero: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number above 0 (or 0 too, with ``zero``). NaN and the
    infinities are refused: a time limit of NaN never ends, and a rate of 0 divides by zero."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of {what}") from None
        if not math.isfinite(value) or value < 0 or (value == 0 and not zero):
            limit = "0 or more" if zero else "above 0"
            raise argparse.ArgumentTypeError(f"{text!r}: give a finite number of {what}, {limit}")
        return value

    parse.__name__ = what
    return parse


seconds = number("seconds")


def write_output(path: str | Path, data: str | bytes, what: str = "output") -> None:
    """Write a file the user named, or say in one line why it cannot be written."""
    target = Path(path)
    try:
        if isinstance(data, bytes):
            target.write_bytes(data)
        else:
            target.write_text(data, encoding="utf-8")
    except IsADirectoryError:
        raise CompanionError(f"cannot write the {what} to {target}: it is a folder; name a file") from None
    except OSError as error:
        raise CompanionError(f"cannot write the {what} to {target}: {error.strerror or error}") from None
