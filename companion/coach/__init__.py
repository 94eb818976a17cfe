"""The coach: what a player learns from a finished game.

``review_game(game)`` judges every ply against the engine (exactly in junior, with a fixed
search budget elsewhere) and returns a ``GameReview``: values, best moves, verdicts and a
summary per player. ``annotate`` writes a review into a game's record (symbols, ``[%eval]``
comments); ``evaluation_graph`` draws it as an SVG. docs/coach.md says what each verdict means.
"""

from companion.coach.annotate import annotate, eval_text
from companion.coach.graph import evaluation_graph
from companion.coach.review import (
    BLUNDER_SWING,
    DEFAULT_NODES,
    INACCURACY_SWING,
    MISTAKE_SWING,
    SCORE_CAP,
    SYMBOLS,
    GameReview,
    PlyReview,
    ReviewError,
    Summary,
    Value,
    Verdict,
    judge,
    review_game,
    review_method,
    stored_review,
)

__all__ = [
    "BLUNDER_SWING",
    "DEFAULT_NODES",
    "INACCURACY_SWING",
    "MISTAKE_SWING",
    "SCORE_CAP",
    "SYMBOLS",
    "GameReview",
    "PlyReview",
    "ReviewError",
    "Summary",
    "Value",
    "Verdict",
    "annotate",
    "eval_text",
    "evaluation_graph",
    "judge",
    "review_game",
    "review_method",
    "stored_review",
]
