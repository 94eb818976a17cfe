"""Playing levels: how hard the engine tries, for people who play against the board.

Every level takes an immediate win and blocks an immediate loss when it can (its search is
at least two plies deep), so even ``easy`` plays legal, sensible moves; the weaker levels
then choose at random, with the engine's seed, among the moves whose score is within
``noise`` centipawns of the best. ``strong`` is full strength within the time budget (and
the solver in junior). ``greedy`` is the one-ply baseline of the match benchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.errors import CompanionError


@dataclass(frozen=True)
class Level:
    name: str
    depth: int | None  # fixed search depth; None: iterative deepening within the time
    noise: int  # choose among moves within this many centipawns of the best
    solver: bool  # use the junior solver when the variant is junior
    description: str


LEVELS: dict[str, Level] = {
    "greedy": Level("greedy", 1, 0, False, "one ply and the static evaluation: a baseline for matches"),
    "easy": Level("easy", 2, 400, False, "sees one move ahead, then picks loosely among decent moves"),
    "medium": Level("medium", 3, 60, False, "three plies, a little variety"),
    "strong": Level("strong", None, 0, True, "full strength within the time budget; perfect in junior"),
}
DEFAULT_TIME = 1.0  # seconds per move for the strong level when no limit is given


def level_named(name: str) -> Level:
    try:
        return LEVELS[name.strip().lower()]
    except KeyError:
        raise CompanionError(f"unknown level {name!r}: choose one of {', '.join(LEVELS)}") from None
