"""``gobblet-companion web tokens``: the browsers paired with the device's web page, and
revoking one (a lost phone). The running device sees a revocation at the browser's next request.
"""

from __future__ import annotations

import argparse

from companion.cli.common import add_json_argument, print_json
from companion.device.config import data_dir
from companion.log import local_time
from companion.web.tokens import TOKENS_FILE, TokenStore


def register(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "web",
        help="the web page's paired browsers: list and revoke",
        description="The browsers paired with the web page (docs/web.md).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    tokens = actions.add_parser("tokens", help="list the paired browsers; --revoke ID unpairs one")
    tokens.add_argument("--revoke", metavar="ID", default=None, help="unpair the browser with this id")
    add_json_argument(tokens)
    tokens.set_defaults(handler=tokens_command)


def tokens_command(args: argparse.Namespace) -> int:
    store = TokenStore(data_dir() / TOKENS_FILE)
    if args.revoke:
        entry = store.revoke(args.revoke)
        print(f"revoked {entry.id} ({entry.label})")
        return 0
    entries = store.entries()
    if args.json:
        print_json(
            [{"id": e.id, "label": e.label, "created": e.created, "last_used": e.last_used} for e in entries]
        )
        return 0
    if not entries:
        print("no paired browsers")
    for e in entries:
        print(f"{e.id}  paired {local_time(e.created)}  last used {local_time(e.last_used)}  {e.label}")
    return 0
