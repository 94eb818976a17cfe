"""The junior (3x3, Gobblet Jr.) solver: proven values (win / loss with distances, draw).

``JuniorSolver.with_book().solve(position, time_limit)`` answers a ``JuniorAnswer``. The
package holds one idea a module:

- ``bits``: the 54-bit position relative to the side to move, its symmetries and moves;
- ``solver``: the distance search, the value proof and the choice of a move;
- ``proof``: the value proof run in a forked second process;
- ``book``: the shipped book of the positions with few pieces, and reading and writing it;
- ``builder``: building the book (``python -m companion.engine.junior --build-book``).

docs/engine.md says how they fit together.
"""

from companion.engine.junior.bits import (
    SYMMETRIES,
    canonical,
    expand,
    has_line_move,
    pack,
    piece_count,
    threatens,
    unpack,
)
from companion.engine.junior.book import BOOK_PATH, BOOK_PIECES, book_positions
from companion.engine.junior.solver import JuniorAnswer, JuniorSolver, SolverStopped

__all__ = [
    "BOOK_PATH",
    "BOOK_PIECES",
    "SYMMETRIES",
    "JuniorAnswer",
    "JuniorSolver",
    "SolverStopped",
    "book_positions",
    "canonical",
    "expand",
    "has_line_move",
    "pack",
    "piece_count",
    "threatens",
    "unpack",
]
