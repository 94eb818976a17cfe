"""Asking the player for help: when no path has explained the board for a while and the
reading is too unsure to restart from, the referee lights the squares where the camera and the
game disagree. What that request holds and says lives here; when to ask is the reconciler's.
See docs/reconciler.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from companion.reconciler.events import Event
from companion.reconciler.likelihood import Likelihood, View
from companion.rules.position import Position
from companion.rules.square import Square, color_name, square_name
from companion.vision.observation import Observation, class_top


@dataclass(slots=True)
class HelpRequest:
    """An open request for help: the squares where the camera disagrees with the game, as
    (the game's class, the camera's class); the reading to restart from if the player accepts
    what the camera sees; the event that opened it."""

    squares: dict[Square, tuple[int, int]]
    reading: tuple[Observation, Likelihood]
    event: Event
    confirm: bool = False  # the camera reads the game's board: the player is asked to confirm
    #                        it, settling the plies in doubt that a look at the board tells
    hands: int = 0  # times the board was hidden (``Observation.hidden``: a hand each) since the
    #                 request opened: none, and a board that reads as the game has it again was
    #                 misread, not put right


def square_classes(position: Position, likelihood: Likelihood) -> dict[Square, tuple[int, int]]:
    """Every square's top as (the game's class, the camera's class)."""
    view = View(position, None, likelihood=likelihood)
    return {sq: (view.current[r], view.reading[r]) for r, sq in enumerate(view.squares)}


def board_differences(position: Position, likelihood: Likelihood) -> dict[Square, tuple[int, int]]:
    """Each square whose top the camera reads differently from the game, as (the game's
    class, the camera's class)."""
    classes = square_classes(position, likelihood)
    return {sq: (has, read) for sq, (has, read) in classes.items() if has != read}


def lit_squares(
    position: Position, likelihood: Likelihood, shown: Sequence[np.ndarray]
) -> tuple[dict[Square, tuple[int, int]], dict[Square, set[int]]]:
    """The squares a help request lights, as (the game's class, the camera's class): where the
    camera reads another top than the game has, and where it reads the game's top but an
    account the reading cannot tell from the best (what it shows: ``shown``, a class per
    square) has another; and on the latter, the tops those accounts have there. The player
    can put the board right only where asked to look: bench-12's c4 held a White 4 the camera
    never saw, read empty as the game had it while the account in doubt put a cup there; the
    request lit a3 and d4 alone, was accepted, and the White 4 was lost."""
    view = View(position, None, likelihood=likelihood)
    lit: dict[Square, tuple[int, int]] = {}
    others: dict[Square, set[int]] = {}
    for r, sq in enumerate(view.squares):
        has, read = view.current[r], view.reading[r]
        if has != read:
            lit[sq] = (has, read)
            continue
        other = {int(tops[r]) for tops in shown} - {int(has)}
        if other:
            lit[sq], others[sq] = (has, read), other
    return lit, others


def class_text(cls: int, max_piece: int) -> str:
    """A square class in words: ``empty`` or the colour and size of its top."""
    top = class_top(cls, max_piece)
    return "empty" if top is None else f"{color_name(top[0])} {top[1]}"


def help_fields(
    differ: dict[Square, tuple[int, int]], position: Position, others: dict[Square, set[int]] | None = None
) -> dict[str, object]:
    """The fields of the ``help`` event for these differences: the squares, what to do, and
    what the camera and the game have on each; with ``others`` (``lit_squares``), what the
    accounts in doubt have on the squares lit where the camera reads the game's top."""
    max_piece = position.variant.max_piece
    names = ", ".join(square_name(sq) for sq, (has, read) in differ.items() if has != read)
    doubted = ", ".join(square_name(sq) for sq, (has, read) in differ.items() if has == read)
    where = f"{names} (and perhaps on {doubted})" if doubted else names
    detail = camera_and_game(differ, max_piece)
    if others:
        detail["other"] = {
            square_name(sq): sorted(class_text(c, max_piece) for c in tops) for sq, tops in others.items()
        }
    return {
        "squares": tuple(square_name(sq) for sq in differ),
        "reason": f"the board differs from the game on {where}: put it as the game has it, "
        "or accept what the camera sees",
        "position": position.text(),
        "detail": detail,
    }


def camera_and_game(squares: dict[Square, tuple[int, int]], max_piece: int) -> dict[str, object]:
    """What the camera reads and what the game has on each of ``squares``, in words."""
    return {
        "camera": {square_name(sq): class_text(read, max_piece) for sq, (_, read) in squares.items()},
        "game": {square_name(sq): class_text(has, max_piece) for sq, (has, _) in squares.items()},
    }


def confirm_fields(
    lit: dict[Square, tuple[int, int]],
    others: dict[Square, set[int]],
    plies: list[int],
    position: Position,
) -> dict[str, object]:
    """The fields of the ``help`` event that asks the player to confirm what the camera reads
    on the squares that tell plies in doubt (``plies``): what the camera reads and the game
    has on each (``lit``), and what the other accounts would show there (``others``).
    Accepting says the camera reads them right: the lines that show anything else are dropped,
    and the plies settle (or the game is corrected to the line that shows it)."""
    max_piece = position.variant.max_piece
    names = ", ".join(square_name(sq) for sq in lit)
    said = ", ".join(str(ply) for ply in plies)
    return {
        **help_fields(lit, position),
        "reason": f"not sure of ply {said}: is the board as the camera sees it on {names}? "
        "accept what the camera sees to settle it",
        "detail": {
            **camera_and_game(lit, max_piece),
            "other": {
                square_name(sq): sorted(class_text(cls, max_piece) for cls in others[sq]) for sq in lit
            },
            "plies": plies,
            "confirm": True,
        },
    }
