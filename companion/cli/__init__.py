"""The ``gobblet-companion`` command line.

Each command lives in its own module in this package and exposes
``register(subcommands)``, which adds its parser and sets ``handler`` to a function taking
the parsed arguments and returning an exit status. Adding a command is one module and one
line in ``COMMAND_MODULES``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from companion import __version__
from companion.errors import CompanionError

PROGRAM = "gobblet-companion"

# Order here is the order ``--help`` lists the commands in.
COMMAND_MODULES: tuple[str, ...] = (
    "run",
    "play",
    "hint",
    "moves",
    "perft",
    "engine",
    "games",
    "replay",
    "calibrate",
    "read",
    "markers",
    "web",
)

EXIT_OK = 0
EXIT_BAD_INPUT = 2


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (and exit 2), like every other bad
    input; ``--help`` still prints the full usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser, or with ``only`` one command registered: a command imports only its own
    module, so ``moves`` starts without loading the camera stack (seconds on a Pi)."""
    parser = OneLineParser(
        prog=PROGRAM,
        description="Referee, coach and scribe for the Gobblet board game.",
    )
    parser.add_argument("--version", action="version", version=f"{PROGRAM} {__version__}")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES if only is None else (only,):
        importlib.import_module(f"companion.cli.{name}").register(subcommands)
    return parser


def fail(message: str) -> int:
    """Print one clear line on stderr and return the bad-input exit status."""
    print(f"{PROGRAM}: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv and argv[0] in COMMAND_MODULES else None
    parser = build_parser(only=command)
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    try:
        return int(args.handler(args) or EXIT_OK)
    except CompanionError as error:
        return fail(str(error))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
