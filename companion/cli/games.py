"""``gobblet-companion games list|show|export``: the device's game log, read back.

``export`` writes the record format (``companion.rules.record``), so a logged game opens in
anything that reads records, ``gobblet-companion play --record`` included.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path

from companion.cli.common import add_json_argument, print_json
from companion.device.config import database_path, default_config_path, load_config
from companion.errors import CompanionError
from companion.log.store import GameRow, GameStore
from companion.rules.record import format_timestamp, write_record


def add_database_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", default=None, help="device configuration file (TOML); see hardware/config.toml"
    )
    parser.add_argument(
        "--db", default=None, help="game log (SQLite); default: the data directory's games.sqlite3"
    )


def database_from_args(args: argparse.Namespace) -> Path:
    if args.db:
        return Path(args.db)
    path = args.config or default_config_path()
    return database_path(load_config(path))


def register(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "games",
        help="list, show and export the games in the device's log",
        description="Read the game log that `gobblet-companion run` keeps.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    listing = actions.add_parser("list", help="one line per game, most recent first")
    add_database_arguments(listing)
    add_json_argument(listing)
    listing.add_argument("--limit", type=int, default=None, help="at most this many games")
    listing.set_defaults(handler=list_games)

    show = actions.add_parser("show", help="one game: players, moves with time stamps, events")
    add_database_arguments(show)
    add_json_argument(show)
    show.add_argument("game", type=int, help="game id (from `games list`)")
    show.add_argument(
        "--events", action="store_true", help="also list every event (illegal moves, takebacks, ...)"
    )
    show.add_argument(
        "--snapshot", type=int, metavar="PLY", help="write the board's JPEG after this ply to --out"
    )
    show.add_argument("--out", default=None, help="file for --snapshot")
    show.set_defaults(handler=show_game)

    export = actions.add_parser("export", help="games in the record format (PGN-like text)")
    add_database_arguments(export)
    export.add_argument("games", type=int, nargs="*", help="game ids (default: every game, oldest first)")
    export.add_argument("--out", "-o", default=None, help="write to this file instead of standard output")
    export.set_defaults(handler=export_games)


def _when(timestamp: float | None) -> str:
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M") if timestamp is not None else "-"


def _status(row: GameRow) -> str:
    return row.result if row.finished else "in progress"


def _game_json(row: GameRow) -> dict[str, object]:
    return {
        "id": row.id,
        "variant": row.variant,
        "white": row.white,
        "black": row.black,
        "started": format_timestamp(row.started),
        "ended": format_timestamp(row.ended) if row.ended is not None else None,
        "result": row.result,
        "termination": row.termination,
        "reason": row.reason,
        "plies": row.plies,
    }


def list_games(args: argparse.Namespace) -> int:
    with GameStore(database_from_args(args), create=False) as store:
        rows = store.games(args.limit)
    if args.json:
        print_json([_game_json(row) for row in rows])
        return 0
    if not rows:
        print("no games yet")
    for row in rows:
        print(
            f"{row.id:>4}  {_when(row.started)}  {row.variant:<10} {row.white} - {row.black}  "
            f"{row.plies:>3} plies  {_status(row)}"
        )
    return 0


def show_game(args: argparse.Namespace) -> int:
    with GameStore(database_from_args(args), create=False) as store:
        row = store.game(args.game)
        moves = store.moves(args.game)
        events = store.events(args.game) if args.events or args.json else []
        if args.snapshot is not None:
            return _write_snapshot(store, args)
    if args.json:
        data = _game_json(row)
        data["moves"] = [
            {"ply": m.ply, "move": m.move, "time": format_timestamp(m.timestamp), "position": m.position}
            for m in moves
        ]
        data["events"] = [event.to_json() for event in events]
        print_json(data)
        return 0
    print(f"game {row.id}: {row.white} (white) - {row.black} (black), {row.variant}")
    print(f"started {_when(row.started)}, ended {_when(row.ended)}: {_status(row)}")
    if row.reason:
        print(row.reason)
    for m in moves:
        clock = datetime.fromtimestamp(m.timestamp).strftime("%H:%M:%S")
        side = "white" if m.ply % 2 == 1 else "black"
        print(f"{m.ply:>4}. {clock}  {side:<5}  {m.move}")
    for event in events:
        clock = datetime.fromtimestamp(event.timestamp).strftime("%H:%M:%S")
        words = event.reason or event.move or event.winner or ""
        print(f"  event {clock}  ply {event.ply:<3} {event.type}  {words}".rstrip())
    return 0


def _write_snapshot(store: GameStore, args: argparse.Namespace) -> int:
    jpeg = store.snapshot(args.game, args.snapshot)
    if jpeg is None:
        raise CompanionError(f"game {args.game} has no board picture after ply {args.snapshot}")
    if not args.out:
        raise CompanionError("--snapshot needs --out FILE.jpg")
    Path(args.out).write_bytes(jpeg)
    return 0


def export_games(args: argparse.Namespace) -> int:
    with GameStore(database_from_args(args), create=False) as store:
        ids = args.games or [row.id for row in reversed(store.games())]
        records = [write_record(store.load_game(game_id)) for game_id in ids]
    text = "\n".join(records)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
