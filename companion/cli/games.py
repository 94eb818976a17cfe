"""``gobblet-companion games list|show|export|review``: the device's game log, read back.

``export`` writes the record format (``companion.rules.record``), so a logged game opens in
anything that reads records, ``gobblet-companion play --record`` included; with a stored
review it carries the review's symbols and evaluations. ``review`` is the coach's post-game
review (``companion.coach``) of one game.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.cli.common import add_json_argument, print_json, seconds, whole_number, write_output
from companion.coach import (
    DEFAULT_NODES,
    GameReview,
    Summary,
    annotate,
    evaluation_graph,
    review_game,
    review_method,
    stored_review,
)
from companion.device.config import database_path, default_config_path, load_config
from companion.errors import CompanionError
from companion.log import GameRow, GameStore, LogError, UnreplayableGameError, local_time
from companion.rules import Game
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

    review = actions.add_parser(
        "review",
        help="the coach's review of one game: values, best moves, blunders, an evaluation graph",
        description="Judge every move of a logged game against the engine (exactly in junior, "
        "with a fixed search budget in the other variants); see docs/coach.md.",
    )
    add_database_arguments(review)
    add_json_argument(review)
    review.add_argument("game", type=whole_number(0), help="game id (from `games list`)")
    budget = review.add_mutually_exclusive_group()
    budget.add_argument(
        "--nodes",
        type=whole_number(1),
        default=None,
        help=f"search nodes per position outside junior (default {DEFAULT_NODES}: the same review each time)",
    )
    budget.add_argument(
        "--time",
        type=seconds,
        default=None,
        metavar="S",
        help="seconds per position outside junior instead of a node budget (not repeatable)",
    )
    review.add_argument("--svg", default=None, metavar="FILE", help="write the evaluation graph (SVG) here")
    review.set_defaults(handler=review_command)


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
                game = store.load_game(game_id)
                review = stored_review(store.review(game_id, len(game.played)))
                if review is not None and isinstance(game, Game):  # the coach reviews Gobblet
                    game = annotate(game, review)
                records.append(write_record(game))
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


# ----- review -------------------------------------------------------------------------------

PROGRESS_WIDTH = 30  # characters of the progress bar


class ProgressBar:
    """A one-line bar on a terminal's stderr, redrawn in place; nothing when stderr is a file
    or a pipe (a program reading ``--json`` wants no noise)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.shown = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.shown:
            return
        filled = PROGRESS_WIDTH * done // max(total, 1)
        bar = "#" * filled + "." * (PROGRESS_WIDTH - filled)
        sys.stderr.write(f"\r{self.label} [{bar}] {done}/{total} plies")
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


def review_command(args: argparse.Namespace) -> int:
    """The stored review when it was made the way asked (the default budget, or the same
    ``--nodes``/``--time``), else a new one, kept in the log for next time."""
    path = database_from_args(args)
    with GameStore(path, create=False) as store:
        row = store.game(args.game)
        game = store.load_game(args.game)
        review = stored_review(store.review(row.id, len(game.played)))
    if not isinstance(game, Game):
        raise CompanionError(f"game {row.id} is {row.variant}: the coach reviews Gobblet games only")
    if not game.played:
        raise CompanionError(f"game {row.id} has no move to review")
    if review is None or review.method != review_method(game.variant, args.nodes, args.time):
        review = _new_review(path, row, game, args)
    if args.svg:
        write_output(args.svg, evaluation_graph(review), "evaluation graph")
    if args.json:
        data = review.to_json()
        data["game"] = row.id
        print_json(data)
        return 0
    print(f"game {row.id}: {row.white} (white) - {row.black} (black), {row.variant}: {_status(row)}")
    print(f"values: {review.method}")
    for ply in review.plies:
        side = "white" if ply.mover == 0 else "black"
        words = ply.describe() if ply.verdict is not None else ""
        print(f"{ply.ply:>4}. {side:<5}  {ply.move + ply.symbol:<9} {ply.after.text():>7}  {words}".rstrip())
    for color, name in ((0, row.white), (1, row.black)):
        print(_summary_line(review.summary(color), name))
    return 0


def _new_review(path: Path, row: GameRow, game: Game, args: argparse.Namespace) -> GameReview:
    progress = ProgressBar(f"reviewing game {row.id}")
    try:
        review = review_game(game, nodes=args.nodes, seconds=args.time, on_progress=progress)
    finally:
        progress.close()
    if row.finished:  # a game still going changes: its review is not kept
        try:
            with GameStore(path) as store:
                store.save_review(row.id, len(game.played), review.method, review.to_json())
        except LogError as error:
            print(f"gobblet-companion: the review is not kept in the log: {error}", file=sys.stderr)
    return review


def _summary_line(summary: Summary, name: str) -> str:
    side = "white" if summary.color == 0 else "black"
    return (
        f"{name} ({side}): {summary.blunders} blunders, {summary.mistakes} mistakes, "
        f"{summary.inaccuracies} inaccuracies, {summary.missed_wins} missed wins, "
        f"average loss {summary.average_loss:.0f}"
    )
