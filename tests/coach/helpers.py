"""Games for the coach's tests, played by the engine's levels (seeded, node-limited, so the
same every run), and a brute-force judge of short forced lines that uses the rules alone."""

from __future__ import annotations

from collections.abc import Iterator

from companion.engine import Engine
from companion.log import GameStore
from companion.rules import Color, Game, Outcome, Position, Variant


def engine_game(spec: str, white: str, black: str, seed: int, nodes: int = 2000, limit: int = 80) -> Game:
    """A game between two levels; ``strong`` searches ``nodes`` nodes a move."""
    variant = Variant.from_spec(spec)
    players = (Engine(variant, white, seed), Engine(variant, black, seed + 1))
    game = Game(variant)
    while not game.is_over() and game.ply < limit:
        game.push(players[game.turn].search(game.position, nodes=nodes).move)
    return game


def game_of(spec: str, moves: str) -> Game:
    game = Game(Variant.from_spec(spec))
    for text in moves.split():
        game.push_text(text)
    return game


def wins_within(position: Position, plies: int) -> bool:
    """Can the side to move force a line of its own within ``plies`` plies? Every move is
    played on the rules' position; nothing of the engine is used."""
    return plies >= 1 and any(
        ended.winner == mover if ended is not None else loses_within(position, plies - 1)
        for ended, mover in after_each_move(position)
    )


def loses_within(position: Position, plies: int) -> bool:
    """Does every move of the side to move lose at once (an uncover) or let the opponent
    force a line within ``plies - 1`` plies?"""
    return plies >= 1 and all(
        ended.winner != mover if ended is not None else wins_within(position, plies - 1)
        for ended, mover in after_each_move(position)
    )


def after_each_move(position: Position) -> Iterator[tuple[Outcome | None, Color]]:
    """Each legal move played in turn (and taken back after): the line it ends the game with,
    if any, and who played it."""
    mover = position.turn
    for code in position.legal_codes():
        position.push_code(code)
        try:
            yield position.line_result(), mover
        finally:
            position.pop_code()


def log_game(store: GameStore, game: Game, t0: float = 1_700_000_000.0) -> int:
    """Store a played game as the device logs one (finished when the game is over)."""
    game_id = store.start_game(game.variant.spec, white="Ann", black="Bob", started=t0)
    replay = Game(game.variant)
    for played in game.played:
        replay.push(played.move)
        store.add_move(
            game_id, replay.ply, played.move.text(), replay.position.text(), timestamp=t0 + replay.ply
        )
    outcome = game.outcome()
    if outcome is not None:
        store.finish(game_id, outcome.result, termination=str(outcome.termination), reason=outcome.reason)
    return game_id
