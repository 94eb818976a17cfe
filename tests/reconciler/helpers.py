"""Shared helpers for the reconciler tests: observations of positions and of physical actions."""

from __future__ import annotations

import numpy as np

from companion.reconciler.reconciler import Reconciler
from companion.rules import Game, Move, square_name
from companion.rules.position import Position
from companion.rules.square import board_squares
from companion.testing.faults import tops_of
from companion.vision.observation import Observation, class_index

Tops = dict[int, tuple[int, int]]


def observe_tops(tops: Tops, size: int = 4, max_piece: int = 4) -> Observation:
    return Observation.from_tops({square_name(sq): t for sq, t in tops.items()}, size, max_piece)


def observe(position: Position) -> Observation:
    return observe_tops(tops_of(position), position.size, position.variant.max_piece)


def read_as(
    game: Game, square: str, top: tuple[int, int], sure: float, other: tuple[int, int] | None = (1, 1)
) -> Observation:
    """The board as it is, but ``square`` read as ``top`` with probability ``sure``, the rest
    on ``other`` (by default a Black 1: nothing on what is really there; None: empty)."""
    tops = {square_name(sq): t for sq, t in tops_of(game.position).items()}
    observation = Observation.from_tops(tops, game.position.size, game.variant.max_piece)
    probabilities = observation.probabilities.copy()
    row = observation.row(square)
    probabilities[row] = 0.0
    probabilities[row, class_index(top, game.variant.max_piece)] = sure
    probabilities[row, class_index(other, game.variant.max_piece)] = 1.0 - sure
    return Observation(observation.size, observation.max_piece, probabilities, False)


def reading(game: Game, squares: dict[str, dict[tuple[int, int] | None, float]]) -> Observation:
    """The board as ``game`` has it, each square of ``squares`` read as the classes given
    (with what probability each)."""
    observation = observe(game.position)
    probabilities = observation.probabilities.copy()
    for name, classes in squares.items():
        row = observation.row(name)
        probabilities[row] = 0.0
        for top, p in classes.items():
            probabilities[row, class_index(top, game.variant.max_piece)] = p
    return Observation(observation.size, observation.max_piece, probabilities, False)


def torn(tops: Tops, sure: float, size: int = 4, max_piece: int = 4) -> Observation:
    """Every square read as its top with probability ``sure`` only, the rest on a neighbour
    (a cup one size smaller, a 1 read as a 2; an empty square as a Black 1): a dim board, on
    which another class is close on every square."""
    observation = observe_tops(tops, size, max_piece)
    probabilities = np.zeros_like(observation.probabilities)
    for sq in board_squares(size):
        top = tops.get(sq)
        other = (1, 1) if top is None else (top[0], top[1] - 1 if top[1] > 1 else 2)
        row = observation.row(square_name(sq))
        probabilities[row, class_index(top, max_piece)] = sure
        probabilities[row, class_index(other, max_piece)] = 1.0 - sure
    return Observation(observation.size, observation.max_piece, probabilities, False)


def played(variant: str, moves: str, **options) -> tuple[Reconciler, Game]:
    """A reconciler that has watched ``moves`` played cleanly, and the true game."""
    reconciler = Reconciler(variant, **options)
    game = Game(reconciler.variant)
    for text in moves.split():
        game.push(Move.from_text(text))
        events = reconciler.feed(observe(game.position))
        assert [e.move for e in events if e.type == "move"] == [text], events
    return reconciler, game


def types(events) -> list[str]:
    return [str(e.type) for e in events]
