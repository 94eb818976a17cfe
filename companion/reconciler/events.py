"""The one typed stream of referee events that the device, the game log and displays consume.

The reconciler is the only producer of referee events; the device adds ``hint`` (what the
AI suggested, kept in the log beside the moves so a game's review shows when help was asked
for). Consumers read ``type`` and the fields that type uses;
``to_json`` gives the flat dict printed by ``gobblet-companion replay`` and stored in the log.
The reconciler's game changes only through these events (docs/reconciler.md): ``new-game``
and ``resync`` start a new record (a resync from the position given), ``move`` adds a ply,
``takeback`` drops the last, ``correction`` drops the moves after ``ply`` (from the start in
``detail.start`` when it gives one) before the ``move`` events that follow it. A consumer that
keeps its own copy of the game (the game log) follows them and needs nothing else.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class EventType(StrEnum):
    MOVE = "move"  # a legal move was accepted: move, ply, position
    ILLEGAL = "illegal"  # an illegal action was seen: reason, squares, position to restore
    NEEDS_ATTENTION = "needs-attention"  # the board cannot be explained with confidence: reason, squares
    LIFTED = "lifted"  # a piece was lifted (touch rule): squares
    RESTORED = "restored"  # the board shows the last legal position again (an illegal
    # action put right, or a board that differed from the game put as the game has it)
    TAKEBACK = "takeback"  # the last move was undone: move, ply
    WIN = "win"  # a full line: winner, line
    LOSS = "loss"  # the losing uncover: winner (the other side), line revealed
    DRAW = "draw"  # threefold repetition (or agreed): reason
    NEW_GAME = "new-game"  # a new game started: variant
    CORRECTION = "correction"  # a later reading proved moves announced earlier wrong:
    # ply (the moves up to it stand), moves (the right ones
    # from there), detail.withdrawn (the moves taken back);
    # detail.start when the game restarts from another start
    # position (the other side to move after a resync)
    RESYNC = "resync"  # the board could not be followed: the game restarts
    # from what it shows (position; detail.unknown)
    HELP = "help"  # the board keeps differing from the game and cannot be restarted from
    # with confidence: squares (where they differ), detail.camera and
    # detail.game (what each shows there), position (the game's); answered
    # by putting the board right (restored; cleared when no hand passed over
    # the board and the camera reads it right again) or accepting the camera's view
    # (resync with detail.accepted); with detail.confirm, a request to
    # confirm what the camera reads on squares that tell plies in doubt
    SETTLED = "settled"  # plies reported unsure are sure again, their announced moves standing:
    # moves, detail.settled (ply -> move); a ply settled otherwise is a correction
    CLEARED = "cleared"  # a request closed with the board as the game has it and nothing put
    # right: a request to confirm what the camera reads (detail.plies, those
    # asked about; detail.accepted: the player confirmed it, the plies it
    # tells settle with ``settled``), or a help request whose squares read as
    # the game has them again with no hand over the board since (the camera
    # misread them); the reason says which
    HINT = "hint"  # the device showed an AI hint: move, ply, detail.seconds


ASIDES = frozenset({EventType.LIFTED, EventType.SETTLED, EventType.HINT})
"""Event types said beside what a display shows, never in its place (see ``is_aside``)."""


def is_aside(event: Event) -> bool:
    """Whether ``event`` is said beside what a display shows rather than in its place: a lift
    (the panel keeps what it showed), a doubt settled, a hint, a report of plies in doubt
    (``needs-attention`` with ``detail.unsure``: it does not hide a request the player must
    answer). Every other event says what became of the board, and a display pointing at an
    open request shows it instead; a request that closes with asides alone is closed by its
    own event (``restored`` or ``cleared``), or the panel would stay lit for it."""
    if event.type is EventType.NEEDS_ATTENTION:
        return "unsure" in event.detail
    return event.type in ASIDES


@dataclass(frozen=True)
class Held:
    """What the referee holds open after a batch of events (``Reconciler.held``), for a display
    that shows the referee's state rather than its last event: the last event of a batch is
    often not the most urgent thing it holds (an unclear reading reported while an illegal
    action still waits to be put right, moves every path agrees on said after a complaint).
    Each field is the event that said it, None when nothing of that kind is held."""

    illegal: Event | None = None  # an illegal action the board must be put right from
    request: Event | None = None  # the open help request (or request to confirm)
    unclear: Event | None = None  # the unclear reading last reported, until a reading is clear
    doubt: Event | None = None  # the report of plies in doubt, while some are and no move has
    #                             been announced since it (the panel blinks for news, not for
    #                             a doubt that may last the rest of the game)


@dataclass(frozen=True)
class Event:
    type: EventType
    ply: int = 0
    move: str | None = None  # move text, e.g. "4a1" or "a1-c3"
    moves: tuple[str, ...] = ()  # several moves (two moves seen between readings)
    winner: str | None = None  # "white" | "black" | None
    line: tuple[str, ...] = ()  # square names of a winning or revealed line
    squares: tuple[str, ...] = ()  # squares the event concerns (offending, lifted, ...)
    reason: str | None = None  # words a player understands
    position: str | None = None  # position text after the event, or the one to restore
    timestamp: float = field(default_factory=time.time)
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": str(self.type), "ply": self.ply}
        for name in ("move", "winner", "reason", "position"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        for name in ("moves", "line", "squares"):
            value = getattr(self, name)
            if value:
                data[name] = list(value)
        if self.detail:
            data["detail"] = dict(self.detail)
        data["timestamp"] = self.timestamp
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        return cls(
            type=EventType(data["type"]),
            ply=int(data.get("ply", 0)),
            move=data.get("move"),
            moves=tuple(data.get("moves", ())),
            winner=data.get("winner"),
            line=tuple(data.get("line", ())),
            squares=tuple(data.get("squares", ())),
            reason=data.get("reason"),
            position=data.get("position"),
            timestamp=float(data.get("timestamp", 0.0)),
            detail=dict(data.get("detail", {})),
        )


def unclear_reading(event: Event) -> bool:
    """Whether ``event`` says the referee could not make out the reading it was given (a
    ``needs-attention`` about the reading, not a report of plies in doubt: those it follows
    the game with). A second look at the board, if it still stands, may tell: the referee
    weighs it as the repeat it is (``reconciler/repeats.py``), and asks for help when it is
    still unclear, a second or so later rather than at the next move."""
    return event.type == EventType.NEEDS_ATTENTION and "unsure" not in event.detail


def reports_new_doubt(event: Event) -> bool:
    """Whether ``event`` reports plies that came into doubt (a ``needs-attention`` with
    ``detail.unsure``: each doubt is said once). A second look at the board, if it stands
    still, lets the referee ask the player to confirm what it shows (the repeat of an
    untouched cup's reading cannot settle a size read 0.9 against 0.1 on its own)."""
    return event.type == EventType.NEEDS_ATTENTION and "unsure" in event.detail


def looks_again(events: Sequence[Event], still: bool) -> bool:
    """Whether the board, if it still stands, is read again after ``events``, the referee's
    answer to a reading that was a still second look or not (``still``): after an unclear
    reading (``unclear_reading``), and after one that brought plies into doubt
    (``reports_new_doubt``) or was said as a help request (``asks_for_help``) unless it was
    itself a still look (once: the reader does not learn twice from one board). The device
    asks its gate for the look (``ReaderObserver.judged``) and the faulted games feed one the
    same way (``testing.faults.StillLooks``): one rule, so the bench's still looks are the
    device's."""
    return any(unclear_reading(e) for e in events) or (
        not still and any(reports_new_doubt(e) or asks_for_help(e) for e in events)
    )


def asks_for_help(event: Event) -> bool:
    """Whether ``event`` is a help request other than one to confirm a board read clearly.
    While a request is open, a reading the referee cannot make out is said as the request
    (lighting the squares it adds) in place of its ``needs-attention``, and on a first look it
    is looked at again all the same: on the vision bench's bench-42 the moves made while help
    was asked were told by 16b's second look, not the next board's reading (lost 11.3 s ->
    8.8 s). Not after a still look: a request said there is the referee's answer to two looks,
    and more looks at the same board only repeat it (the faulted games' seed 317, looked at
    twice more, corrected a right move to a wrong one and took it back three readings later)."""
    return event.type == EventType.HELP and not event.detail.get("confirm")
