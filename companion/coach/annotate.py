"""A review written into the game: what the record format carries of it.

Each move gets the evaluation after it (``[%eval ...]``, White's view, as chess records
have it) and, when it has a verdict, the verdict's symbol (``??``, ``?``, ``?!``, ``!``) and
one line of words in its comment. The record reader reads all of it back
(``companion.rules.record``), so an exported review opens in any program that reads records.
"""

from __future__ import annotations

from dataclasses import replace

from companion.coach.review import GameReview, ReviewError, Value
from companion.rules import Game


def eval_text(value: Value) -> str:
    """The ``[%eval]`` text of a value from White's side: ``0.35``, ``#7``, ``#-4``."""
    plies = value.plies
    if plies is not None:
        return f"#{plies}" if value.score > 0 else f"#-{plies}"
    return f"{value.score / 100:.2f}"


def annotate(game: Game, review: GameReview) -> Game:
    """A copy of ``game`` whose moves carry the review (symbols, evaluations, verdicts); the
    game's own comments come first."""
    if len(review.plies) != len(game.played):
        raise ReviewError(f"the review has {len(review.plies)} plies, the game {len(game.played)}")
    annotated = Game(game.variant, start=game.start, headers=game.headers)
    annotated.played = list(game.played)
    annotated.position = game.position.copy()
    outcome = game.outcome()
    for index, (played, ply) in enumerate(zip(game.played, review.plies, strict=True)):
        if ply.move != played.move.text():
            raise ReviewError(f"the review's ply {ply.ply} is {ply.move}, the game's {played.move.text()}")
        words = ply.describe() if ply.verdict is not None else None
        comment = " ".join(part for part in (played.comment, words) if part) or None
        annotated.played[index] = replace(
            played, symbol=ply.symbol or None, evaluation=eval_text(ply.white_value()), comment=comment
        )
    if outcome is not None and outcome != annotated.outcome():
        annotated.declare(outcome)  # an ending off the board (resignation, agreed draw)
    return annotated
