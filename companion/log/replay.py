"""A stored game back as a game (``Game`` for Gobblet, ``CupsGame`` for Cups): its moves
replayed from the start, checked ply by ply.

The log keeps moves and positions as text; replaying them through the rules (rather than
trusting the stored positions) is what rebuilds every hidden cup, and checking each stored
position against the replay is what catches a hand-edited or damaged row.
"""

from __future__ import annotations

from datetime import UTC, datetime

from companion.log.errors import UnreplayableGameError
from companion.log.rows import GameRow, MoveRow
from companion.rules.fen import PositionSyntaxError
from companion.rules.game import BaseGame
from companion.rules.games import new_game, position_from_text, variant_from_spec
from companion.rules.move import MoveError
from companion.rules.record import apply_result
from companion.rules.variant import VariantError


def replay_game(row: GameRow, moves: list[MoveRow]) -> BaseGame:
    """The game of ``row`` with ``moves`` played; ``UnreplayableGameError`` says why not."""
    try:
        start = position_from_text(row.start_position) if row.start_position else None
        variant = start.variant if start is not None else variant_from_spec(row.variant)
    except (VariantError, PositionSyntaxError) as error:
        raise UnreplayableGameError(str(error)) from None
    game = new_game(variant, start, headers_of(row))
    for stored in moves:
        try:
            game.push_text(str(stored.move), _time_or_none(stored.timestamp))
        except MoveError as error:
            raise UnreplayableGameError(f"ply {stored.ply}: {error}") from None
        if game.position.text() != stored.position:
            raise UnreplayableGameError(
                f"ply {stored.ply}: the stored position does not follow from the moves"
            )
    _apply_stored_ending(game, row)
    return game


def _time_or_none(value: object) -> float | None:
    """A stored time stamp, or None for one that is not a time (a hand-edited row): the move
    is kept without its time rather than the game being lost."""
    try:
        stamp = float(value)  # type: ignore[arg-type]
        datetime.fromtimestamp(stamp, UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        return None
    return stamp


def headers_of(row: GameRow) -> dict[str, str]:
    headers = {"White": str(row.white), "Black": str(row.black)}
    try:
        headers["Date"] = datetime.fromtimestamp(row.started).strftime("%Y.%m.%d")
    except (TypeError, ValueError, OverflowError, OSError):
        headers["Date"] = "????.??.??"  # a start time that is not a time: the record says unknown
    if row.place:
        headers["Place"] = row.place
    return headers


def _apply_stored_ending(game: BaseGame, row: GameRow) -> None:
    """Endings off the board (agreed draw, resignation, touch) are not in the moves; the record
    reader already knows how to apply them from a result and a termination."""
    if row.finished and not game.is_over() and row.result != "*":
        apply_result(game, row.result, row.termination)
