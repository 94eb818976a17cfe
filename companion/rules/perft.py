"""Perft: the number of leaves of the legal-move tree, the standard check of a move generator.

As docs/rules.md defines it: positions after a finished game have no moves and repetition is not
considered. The last ply is counted without being played (``count_moves``), which is what
makes depth 5 from the classic start take seconds rather than minutes.
"""

from __future__ import annotations

from companion.rules.position import Position


def perft(position: Position, depth: int) -> int:
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


def divide(position: Position, depth: int) -> dict[str, int]:
    """Perft split by first move: the tool for finding where two generators disagree."""
    counts = {}
    for code in position.legal_codes():
        text = position.move_from_code(code).text()
        position.push_code(code)
        counts[text] = perft(position, depth - 1)
        position.pop_code()
    return counts
