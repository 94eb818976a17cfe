"""``gobblet-companion games list|show|export``: the device's game log, read back.

``export`` writes the record format (``companion.rules.record``), so a logged game opens in
anything that reads records, ``gobblet-companion play --record`` included.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.cli.common import add_json_argument, print_json, whole_number, write_output
from companion.device.config import database_path, default_config_path, load_config
from companion.errors import CompanionError
from companion.log import GameRow, GameStore, UnreplayableGameError, local_time
from companion.rules.games import position_from_text
from companion.rules.record import format_timestamp, write_record
from companion.rules.square import color_name


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
    listing.add_argument("--limit", type=whole_number(1), default=None, help="at most this many games")
    listing.set_defaults(handler=list_games)

    show = actions.add_parser("show", help="one game: players, moves with time stamps, events")
    add_database_arguments(show)
    add_json_argument(show)
    show.add_argument("game", type=whole_number(0), help="game id (from `games list`)")
    show.add_argument(
        "--events", action="store_true", help="also list every event (illegal moves, takebacks, ...)"
    )
    show.add_argument(
        "--snapshot",
        type=whole_number(0),
        metavar="PLY",
        help="write the board's JPEG after this ply to --out",
    )
    show.add_argument("--out", default=None, help="file for --snapshot")
    show.set_defaults(handler=show_game)

    export = actions.add_parser("export", help="games in the record format (PGN-like text)")
    add_database_arguments(export)
    export.add_argument(
        "games", type=whole_number(0), nargs="*", help="game ids (default: every game, oldest first)"
    )
    export.add_argument("--out", "-o", default=None, help="write to this file instead of standard output")
    export.set_defaults(handler=export_games)


_when = local_time


def _stamp(timestamp: float | None) -> str | None:
    try:
        return format_timestamp(timestamp) if timestamp is not None else None
    except (TypeError, ValueError, OverflowError, OSError):
        return None


def _status(row: GameRow) -> str:
    return row.result if row.finished else "in progress"


def _game_json(row: GameRow) -> dict[str, object]:
    return {
        "id": row.id,
        "variant": row.variant,
        "white": row.white,
        "black": row.black,
        "started": _stamp(row.started),
        "ended": _stamp(row.ended),
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
    damaged: list[str] = []
    with GameStore(database_from_args(args), create=False) as store:
        row = store.game(args.game)
        moves = store.moves(args.game)
        events = store.events(args.game, damaged) if args.events or args.json else []
        if args.snapshot is not None:
            return _write_snapshot(store, args)
    for problem in damaged:
        print(f"gobblet-companion: game {row.id}: {problem}; skipped", file=sys.stderr)
    if args.json:
        data = _game_json(row)
        data["moves"] = [
            {"ply": m.ply, "move": m.move, "time": _stamp(m.timestamp), "position": m.position} for m in moves
        ]
        data["events"] = [event.to_json() for event in events]
        print_json(data)
        return 0
    print(f"game {row.id}: {row.white} (white) - {row.black} (black), {row.variant}")
    print(f"started {_when(row.started)}, ended {_when(row.ended)}: {_status(row)}")
    if row.reason:
        print(row.reason)
    before = row.start_position
    for m in moves:
        print(f"{m.ply:>4}. {_when(m.timestamp, '%H:%M:%S')}  {_mover(before, m.ply):<5}  {m.move}")
        before = m.position
    for event in events:
        words = event.reason or event.move or event.winner or ""
        clock = _when(event.timestamp, "%H:%M:%S")
        print(f"  event {clock}  ply {event.ply:<3} {event.type}  {words}".rstrip())
    return 0


def _mover(before: str | None, ply: int) -> str:
    """Who made the move at ``ply``: the side to move in the stored position before it (in
    Cups a player who cannot move passes, so plies do not alternate); by the ply's parity
    when that position is missing or does not read."""
    try:
        if before is not None:
            return color_name(position_from_text(before).turn)
    except CompanionError:
        pass
    return color_name(0 if ply % 2 == 1 else 1)


def _write_snapshot(store: GameStore, args: argparse.Namespace) -> int:
    if not args.out:
        raise CompanionError("--snapshot needs --out FILE.jpg")
    jpeg = store.snapshot(args.game, args.snapshot)
    if jpeg is None:
        raise CompanionError(f"game {args.game} has no board picture after ply {args.snapshot}")
    write_output(args.out, jpeg, "board picture")
    return 0


def export_games(args: argparse.Namespace) -> int:
    """Every game that replays, in the record format; a game that does not is named on
    stderr and skipped, so one damaged game never costs the others."""
    records, skipped = [], []
    with GameStore(database_from_args(args), create=False) as store:
        ids = args.games or [row.id for row in reversed(store.games())]
        for game_id in ids:
            try:
                records.append(write_record(store.load_game(game_id)))
            except UnreplayableGameError as error:
                skipped.append(str(error))
    text = "\n".join(records)
    if args.out:
        write_output(args.out, text, "records")
    else:
        sys.stdout.write(text)
    for reason in skipped:
        print(f"gobblet-companion: skipped {reason}", file=sys.stderr)
    if skipped and not records:
        raise CompanionError(f"no game exported: {len(skipped)} skipped (see above)")
    return 0
