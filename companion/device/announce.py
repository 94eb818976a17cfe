"""From what the presenter shows to what the referee says aloud: one sentence per event, in
the configured language ("White: four to a1", "Black gobbles b2 with a three").

Pure and synchronous, so the tests read the very sentences the device speaks; the speech
output (``speech.py``) queues and speaks them on its own thread. Each sentence carries a
``Topic``, which is what the queue's cancelling policy works on (a new move makes a queued
hint stale).

The referee's reasons for an illegal move are English sentences of the rules
(``companion.rules.verdicts``) and the reconciler (``companion.reconciler.referee``). To say
them in another language they are recognised here by their shape (``REASONS``) and said from
the phrase table; the tests drive the rules' own reasons through this table so a new
wording there cannot slip by unrecognised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from companion.device.phrases import Phrasebook
from companion.reconciler.events import Event, EventType
from companion.rules.move import Move, MoveError
from companion.rules.position import Position
from companion.rules.square import Square, square_name
from companion.rules.verdicts import NUMBER_WORDS


class Topic(StrEnum):
    """What an announcement is about: what the queue's cancelling policy works on."""

    MOVE = "move"  # a move, a takeback, a correction, a resync: the position changed
    NEW_GAME = "new-game"
    OUTCOME = "outcome"  # a win, a loss, a draw
    PROBLEM = "problem"  # an illegal move, an unclear board, a help request, a risky lift
    RESTORED = "restored"  # the board was put right, or found right (a request to confirm it closed)
    HINT = "hint"  # a hint, or no hint
    OFFER = "offer"  # a takeback offered
    FAULT = "fault"  # camera trouble, needs service
    DOUBT = "doubt"  # a move the referee is not sure of, and how that doubt settled


@dataclass(frozen=True)
class Announcement:
    text: str
    topic: Topic


EVENT_TOPICS: dict[EventType, Topic] = {
    EventType.MOVE: Topic.MOVE,
    EventType.ILLEGAL: Topic.PROBLEM,
    EventType.NEEDS_ATTENTION: Topic.PROBLEM,
    EventType.LIFTED: Topic.PROBLEM,
    EventType.RESTORED: Topic.RESTORED,
    EventType.CLEARED: Topic.RESTORED,  # (it ends a request as "restored" does: the same cancelling)
    EventType.TAKEBACK: Topic.MOVE,
    EventType.WIN: Topic.OUTCOME,
    EventType.LOSS: Topic.OUTCOME,
    EventType.DRAW: Topic.OUTCOME,
    EventType.NEW_GAME: Topic.NEW_GAME,
    EventType.CORRECTION: Topic.MOVE,
    EventType.RESYNC: Topic.MOVE,
    EventType.HELP: Topic.PROBLEM,
    EventType.HINT: Topic.HINT,
    EventType.SETTLED: Topic.DOUBT,
}
"""Every event type the presenter may be handed, with what its sentence is about."""


def reports_doubt(event: Event) -> bool:
    """Whether a needs-attention event only reports plies in doubt (``detail.unsure``): the
    referee asks nothing of the player, and says it in its own words and topic."""
    return (
        event.type is EventType.NEEDS_ATTENTION
        and isinstance(event.detail.get("unsure"), dict)
        and not event.squares
    )


_SQUARE = r"[a-z]\d+"
_NAME = r"[A-Za-z]+"
REASONS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("not-your-turn", rf"it is (?P<player>{_NAME})'s turn: .*"),
        ("not-your-turn", rf"a {_NAME} piece moved, but it is (?P<player>{_NAME})'s turn: .*"),
        ("covers-larger", rf"(?P<square>{_SQUARE}) holds a larger piece"),
        ("covers-same-size", rf"(?P<square>{_SQUARE}) holds a same-size piece"),
        ("stack-empty-only", r"a piece from an external stack may go only on an empty square"),
        ("stack-gobble-own", rf"{_NAME} may not gobble its own piece on {_SQUARE} from a stack"),
        (
            "stack-gobble-line",
            rf"{_NAME} may gobble {_SQUARE} from a stack only if {_SQUARE} "
            rf"(?:is one of|lies on a line with) (?P<count>{_NAME}) {_NAME} pieces(?: in a line)?",
        ),
        ("no-such-size", r"you have no (?P<size>\d+) off the board; .*"),
        ("no-such-size", r"your stacks show .*, not (?P<size>\d+)"),
        ("all-placed", r"all your pieces are on the board"),
        ("origin-empty", rf"(?P<square>{_SQUARE}) is empty"),
        ("not-your-piece", rf"(?P<square>{_SQUARE}) shows a (?P<color>{_NAME}) piece: .*"),
        ("same-square", r"a piece may not return to the square it was lifted from"),
        ("touch-peek", rf"touch rule: (?P<player>{_NAME}) may not touch (?P<square>{_SQUARE}): .*"),
        ("touch-peek", rf"touch rule: (?P<square>{_SQUARE}) is empty"),
        ("touch-put-back", rf"touch rule: {_NAME} lifted the piece on {_SQUARE} and put it back; .*"),
        (
            "touch-wrong-piece",
            rf"touch rule: (?P<player>{_NAME}) lifted the piece on (?P<square>{_SQUARE}) "
            r"and must move it, .*",
        ),
        ("game-over", r"the game is over .*"),
    )
)
"""The referee's reasons for an illegal move, by shape: each becomes the phrase ``why.KIND``
with the named groups as placeholders (players and colours said in the table's words, a
count as a number word)."""


def reason_kind(reason: str) -> tuple[str, dict[str, str]]:
    """The kind of an illegal move's reason and what it names; ``("other", {})`` for a
    reason of no known shape."""
    for kind, pattern in REASONS:
        found = pattern.fullmatch(reason)
        if found:
            return kind, {name: value for name, value in found.groupdict().items() if value is not None}
    return "other", {}


class Narrator:
    """The presenter's events in one language's sentences; None where there is nothing to
    say (a lift that uncovers nothing, a fault that goes on)."""

    def __init__(self, phrases: Phrasebook) -> None:
        self.phrases = phrases
        self._faulty = False

    # ----- words ---------------------------------------------------------------------------

    def side(self, name: str | None) -> str:
        """``white`` (or ``White``) in the table's words; a name it does not know as it is."""
        key = (name or "").lower()
        return self.phrases.say(key) if key in ("white", "black") else (name or "")

    def other_side(self, name: str) -> str:
        return self.side("black" if name.lower() == "white" else "white")

    def move_words(self, text: str, short: bool = True, player: str = "", after: str | None = None) -> str:
        """A move said naturally: ``four to a1``, ``c3 to b2``; with ``short`` False, as a
        move announcement by ``player`` that says when the cup gobbled one (``after``, the
        position text after the move, tells; without it the move is said plainly)."""
        try:
            move = Move.from_text(text)
        except MoveError:
            return text
        stack = _stack(after, move.to_square)
        size = move.size or (stack[-1][1] if stack else None)
        fields = {"player": player, "to": square_name(move.to_square)}
        fields["size"] = self.phrases.number(size) if size else ""
        kind = "place" if move.from_square is None else "board"
        if move.from_square is not None:
            fields["origin"] = square_name(move.from_square)
        if short:
            return self.phrases.say(f"move.{kind}.short", **fields)
        gobbled = len(stack) > 1
        return self.phrases.say(f"move.{kind}{'.gobble' if gobbled else ''}", **fields)

    def line_fields(self, line: tuple[str, ...]) -> dict[str, str]:
        return {"first": line[0] if line else "", "last": line[-1] if line else ""}

    # ----- the presenter's calls -----------------------------------------------------------

    def event(self, event: Event, turn: str) -> Announcement | None:
        """The sentence for one referee event; ``turn`` is the side to move after it."""
        text = self.event_text(event, turn)
        topic = Topic.DOUBT if reports_doubt(event) else EVENT_TOPICS[event.type]
        return Announcement(text, topic) if text else None

    def event_text(self, event: Event, turn: str) -> str | None:
        say, to_play = self.phrases.say, self.side(turn)
        match event.type:
            case EventType.MOVE:
                mover = event.detail.get("color") or ("black" if turn == "white" else "white")
                return self.move_words(event.move or "", False, self.side(str(mover)), event.position)
            case EventType.ILLEGAL:
                return say("illegal", why=self.why(event.reason or ""), restore=self.restore(event))
            case EventType.NEEDS_ATTENTION:
                if reports_doubt(event):  # plies in doubt: nothing for the player to check
                    plies = sorted(event.detail["unsure"], key=int)
                    return say("doubt", plies=self.phrases.listing(plies))
                if event.squares:
                    return say("attention.at", squares=self.phrases.listing(list(event.squares)))
                return say("attention")
            case EventType.HELP:
                if event.squares:
                    return say("help", squares=self.phrases.listing(list(event.squares)))
                return say("help.board")
            case EventType.LIFTED:
                uncovers = tuple(event.detail.get("uncovers") or ())
                if not uncovers or not event.squares:
                    return None  # every lift said aloud would drown the rest
                owner = self.other_side(str(event.detail.get("color") or turn))
                line = self.line_fields(uncovers)
                return say("lifted.uncovers", square=event.squares[0], owner=owner, **line)
            case EventType.RESTORED:
                return say("restored", turn=to_play)
            case EventType.CLEARED:  # nothing was put right: no "board restored"
                return say("cleared.accepted" if event.detail.get("accepted") else "cleared", turn=to_play)
            case EventType.TAKEBACK:
                return say("takeback", move=self.move_words(event.move or ""), turn=to_play)
            case EventType.WIN:
                return say("win", winner=self.side(event.winner or turn))
            case EventType.LOSS:
                return self.loss(event, turn)
            case EventType.DRAW:
                termination = event.detail.get("termination")
                return say(f"draw.{termination}" if termination in ("repetition", "agreed") else "draw")
            case EventType.NEW_GAME:
                return say("new-game", turn=to_play)
            case EventType.CORRECTION:
                moves = self.phrases.listing([self.move_words(m) for m in event.moves])
                return say("correction", moves=moves, turn=to_play)
            case EventType.RESYNC:
                return say("resync")
            case EventType.SETTLED:
                return say("settled", moves=self.phrases.listing([self.move_words(m) for m in event.moves]))
            case EventType.HINT:
                return self.hint_text(Move.from_text(event.move)) if event.move else None
        return None

    def loss(self, event: Event, turn: str) -> str:
        winner = event.winner or turn
        names = {"winner": self.side(winner), "loser": self.other_side(winner)}
        termination = event.detail.get("termination")
        if termination == "uncover" or (termination is None and event.line):
            line = self.line_fields(event.line)
            return self.phrases.say("loss.uncover", owner=names["winner"], **names, **line)
        if termination in ("no-moves", "touch", "resignation"):
            return self.phrases.say(f"loss.{termination}", **names)
        return self.phrases.say("win", **names)

    def why(self, reason: str) -> str:
        kind, found = reason_kind(reason)
        fields: dict[str, str] = {"reason": reason}
        for name, value in found.items():
            if name in ("player", "color"):
                fields[name] = self.side(value)
            elif name == "count" and value in NUMBER_WORDS:
                fields[name] = self.phrases.number(NUMBER_WORDS.index(value)).lower()
            elif name == "size":
                fields[name] = self.phrases.number(int(value))
            else:
                fields[name] = value
        return self.phrases.say(f"why.{kind}", **fields)

    def restore(self, event: Event) -> str:
        """How to put an illegal move right: the cup off the square it went to (a placement)
        or back where it came from (a board move, a lift)."""
        must_move = event.detail.get("must_move")
        if must_move:
            return self.phrases.say("restore.must-move", origin=must_move)
        action = str(event.detail.get("action") or event.move or "")
        if action.startswith("lift "):
            return self.phrases.say("restore.board", origin=action.removeprefix("lift "))
        try:
            move = Move.from_text(action)
        except MoveError:
            return self.phrases.say("restore.other")
        if move.from_square is None:
            return self.phrases.say("restore.place", to=square_name(move.to_square))
        return self.phrases.say("restore.board", origin=square_name(move.from_square))

    def hint(self, move: Move, turn: str) -> Announcement:
        return Announcement(self.hint_text(move), Topic.HINT)

    def hint_text(self, move: Move) -> str:
        to = square_name(move.to_square)
        if move.from_square is None:
            return self.phrases.say("hint.place", size=self.phrases.number(move.size or 1), to=to)
        return self.phrases.say("hint.board", origin=square_name(move.from_square), to=to)

    def hint_failed(self, turn: str, reason: str) -> Announcement:
        return Announcement(self.phrases.say("hint.failed"), Topic.HINT)

    def accept_refused(self, turn: str, reason: str) -> Announcement:
        """A triple press refused while a hand is over the board: a complaint about the board
        (it outdates the help sentence, which the panel still shows)."""
        return Announcement(self.phrases.say("accept.refused"), Topic.PROBLEM)

    def takeback_offered(self, move_text: str, turn: str) -> Announcement:
        text = self.phrases.say("takeback.offered", move=self.move_words(move_text))
        return Announcement(text, Topic.OFFER)

    def fault(self, text: str | None, service: str | None = None) -> Announcement | None:
        """Said once when a fault starts (the presenter is told every frame while it lasts);
        "needs service" before camera trouble, as on the alert LED."""
        faulty = text is not None or service is not None
        starting, self._faulty = faulty and not self._faulty, faulty
        if not starting:
            return None
        return Announcement(self.phrases.say("fault.service" if service else "fault"), Topic.FAULT)


def _stack(position_text: str | None, sq: Square) -> tuple[tuple[int, int], ...]:
    """The cups on ``sq`` (bottom first, as colour and size) in a position text; none when
    there is no text or it does not read."""
    if not position_text:
        return ()
    try:
        return Position.from_text(position_text).stack(sq)
    except ValueError:
        return ()
