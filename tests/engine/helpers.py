"""Positions for the engine tests, found by seeded random play and checked by brute force
with the rules engine alone (so the tests do not trust the search they test)."""

from __future__ import annotations

import random

from companion.rules import PRESETS, Position, Termination


def random_position(variant: str, plies: int, rng: random.Random) -> Position | None:
    """A position after ``plies`` random legal moves, or None if the game ended first."""
    position = Position(PRESETS[variant])
    for _ in range(plies):
        codes = position.legal_codes()
        if not codes or position.outcome() is not None:
            return None
        position.push_code(rng.choice(codes))
    return position if position.outcome() is None else None


def winning_codes(position: Position) -> list[int]:
    """Moves that complete a line for the mover at once."""
    mover = position.turn
    wins = []
    for code in position.legal_codes():
        position.push_code(code)
        result = position.line_result()
        if result is not None and result.winner == mover:
            wins.append(code)
        position.pop_code()
    return wins


def loses_at_once(position: Position, code: int) -> bool:
    """Does this move lose on the spot (uncover) or let the opponent win next move?"""
    mover = position.turn
    position.push_code(code)
    try:
        result = position.line_result()
        if result is not None:
            return result.winner != mover
        return bool(winning_codes(position))
    finally:
        position.pop_code()


def is_uncover_loss(position: Position, code: int) -> bool:
    position.push_code(code)
    try:
        result = position.line_result()
        return result is not None and result.termination == Termination.UNCOVER
    finally:
        position.pop_code()


def forced_win_in_3(position: Position) -> list[int]:
    """Moves after which every reply leaves the mover an immediate win (and none wins at once)."""
    found = []
    mover = position.turn
    for code in position.legal_codes():
        position.push_code(code)
        result = position.line_result()
        if result is None:
            replies = position.legal_codes()
            ok = True
            for reply in replies:
                position.push_code(reply)
                reply_result = position.line_result()
                if reply_result is not None:
                    good = reply_result.winner == mover
                else:
                    good = bool(winning_codes(position))
                position.pop_code()
                if not good:
                    ok = False
                    break
            if ok:
                found.append(code)
        position.pop_code()
    return found


def random_positions(variant: str, tries: int, seed: int, plies: tuple[int, int]):
    """Unfinished positions from ``tries`` seeded random games of ``plies`` (low, high) moves."""
    rng = random.Random(seed)
    for _ in range(tries):
        position = random_position(variant, rng.randint(*plies), rng)
        if position is not None:
            yield position
