"""``gobblet-companion engine``: the engine's line protocol on stdin/stdout (see
``companion.engine.protocol``), for tournament tools and other programs."""

from __future__ import annotations

import argparse
import sys

from companion.engine.levels import LEVELS


def register(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "engine",
        help="speak the UCI-like engine protocol on stdin/stdout",
        description=(
            "Run the engine protocol: variant, position, go, isready, stop, quit (see docs/protocol.md)."
        ),
    )
    parser.add_argument("--variant", default="classic", help="variant to start with (default: classic)")
    parser.add_argument(
        "--level", default="strong", choices=list(LEVELS), help="playing level (default: strong)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from companion.engine.protocol import ProtocolSession

    session = ProtocolSession(variant=args.variant, level=args.level)
    # A byte that is not UTF-8 is a bad command (answered with an error line), not the end.
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")
    return session.run(sys.stdin)
