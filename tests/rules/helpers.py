"""Small builders shared by the rules tests."""

from __future__ import annotations

import random

from companion.rules import PRESETS, Game, Move, Position, Variant


def play(moves: str, variant: str = "classic") -> Game:
    game = Game(Variant.from_spec(variant))
    for token in moves.split():
        game.push(Move.from_text(token))
    return game


def random_game(variant: Variant, rng: random.Random, plies: int) -> Position:
    """A position after up to ``plies`` random legal moves (stops early at the game's end)."""
    position = Position(variant)
    for _ in range(plies):
        codes = position.legal_codes()
        if not codes:
            break
        position.push_code(rng.choice(codes))
    return position


ALL_PRESETS = tuple(PRESETS.values())


def setup(
    stacks: dict[str, str],
    turn: str = "w",
    white: str = "4321.4321.4321",
    black: str = "4321.4321.4321",
    variant: str = "classic",
) -> Position:
    """A position from readable parts, without the full piece-count check of the text format:
    ``{"a1": "B1W3"}`` is a black 1 under a white 3."""
    from companion.rules import parse_square

    def pieces(text: str) -> list[tuple[int, int]]:
        return [("WB".index(text[i]), int(text[i + 1])) for i in range(0, len(text), 2)]

    def reserve(text: str) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(int(c) for c in part) for part in text.split(".")) if text != "-" else ()

    return Position.from_parts(
        Variant.from_spec(variant),
        {parse_square(sq): pieces(text) for sq, text in stacks.items()},
        (reserve(white), reserve(black)),
        0 if turn == "w" else 1,
    )


def texts(position: Position) -> set[str]:
    return {move.text() for move in position.legal_moves}
