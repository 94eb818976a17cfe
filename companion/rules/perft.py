"""Perft: the number of leaves of the legal-move tree, the standard check of a move generator.

As docs/rules.md defines it: positions after a finished game have no moves and repetition is not
considered. The last ply is counted without being played (``count_moves``), which is what
makes depth 5 from the classic start take seconds rather than minutes.
"""

from __future__ import annotations

from typing import Any

from companion.rules.state import GameState


def perft(position: GameState[Any], depth: int) -> int:
    """Leaves of the move tree ``depth`` plies deep, for any game of the seam (in Cups a pass
    is not a move: the side that moves again is the side to move, so passes are not counted)."""
    if depth <= 0:
        return 1
    if depth == 1:
        return position.count_moves()
    nodes = 0
    for code in position.legal_codes():
        position.push_code(code)
        nodes += perft(position, depth - 1)
        position.pop_code()
    return nodes


def divide(position: GameState[Any], depth: int) -> dict[str, int]:
    """Perft split by first move: the tool for finding where two generators disagree."""
    counts = {}
    for code in position.legal_codes():
        text = position.move_from_code(code).text()
        position.push_code(code)
        counts[text] = perft(position, depth - 1)
        position.pop_code()
    return counts
