"""What the referee asks of the players: attention to a reading it cannot make out, and
help (``help`` event) when the board cannot be followed.

A request is said once and held (``Reconciler.attention``) until a clear reading answers it.
"""

from __future__ import annotations

from typing import TypeAlias

from companion.reconciler.announcing import Announcer
from companion.reconciler.doubts import (
    describe,
    plies_held_in_doubt,
    unclear_reason,
    unsure_plies,
)
from companion.reconciler.events import Event, EventType, is_aside
from companion.reconciler.help import (
    HelpRequest,
    board_differences,
    confirm_fields,
    help_fields,
    lit_squares,
    square_classes,
)
from companion.reconciler.likelihood import Likelihood
from companion.reconciler.paths import GamePath, Group, reads_every_move
from companion.rules.outcome import Outcome
from companion.rules.square import Square, square_name
from companion.vision.observation import Observation

SETTLED_BY_READINGS = "later readings settle it"
SETTLED_BY_PLAYER = "the player confirms what the camera sees"
CLEARED_BY_READING = "the camera reads the board as the game has it: nothing to put right"
MISREAD = (
    "the camera reads the board as the game has it, and no hand passed over it since the request: "
    "it was misread, nothing to put right"
)
NOTHING_LEFT = f"{SETTLED_BY_READINGS}: nothing left to confirm"
ONWARD = frozenset(
    {EventType.MOVE, EventType.CORRECTION, EventType.TAKEBACK, EventType.RESYNC, EventType.NEW_GAME}
)
"""Events after which a doubt reported before is no longer news (the game moved on)."""
CONFIRMED_VIEW = "the player confirms what the camera sees: the game already shows it"

Question: TypeAlias = tuple[int, str, tuple[tuple[Square, int], ...]]
"""A ply in doubt, its announced move, and what the camera read where it read another board
than the game has (square, class; empty when it read the game's board): what a request to
confirm asks, once."""


class AttentionKeeper(Announcer):
    """The layer of ``Reconciler`` that reports unclear readings and opens and closes help
    requests."""

    _attention: tuple[int, ...] | None  # the reading last reported as unclear
    _attention_event: Event | None  # the needs-attention event it was reported with
    _help: HelpRequest | None  # the board differs from the game: the player is asked
    _confirm_asked: set[Question]  # the questions the player was asked to confirm (``_questions``)
    _doubt_event: Event | None  # the last report of plies in doubt, until a move is announced

    def _unclear(
        self, observation: Observation, best: GamePath, groups: list[Group], rival: GamePath | None = None
    ) -> list[Event]:
        reason, contradicting = unclear_reason(best, groups, self._shown, self.settings, rival)
        top = groups[0][0]
        candidates = [
            {"explanation": describe(members[0], self._shown), "score": round(score - top, 2)}
            for score, members in groups[:3]
        ]
        return self._needs_attention(reason, observation, contradicting, candidates)

    def _report_unsure(self, why: str = SETTLED_BY_READINGS) -> list[Event]:
        """Plies that another live path plays differently while it is close to the best
        (``unsure_plies``): each doubt said once, and how it settled once it did.

        A ply is said again only when a move nobody said comes into doubt there; its
        alternatives narrowing is not news (a player would hear the same doubt over and
        over). A ply said in doubt that leaves it with its announced move standing is said
        to be settled (``settled``); one whose move a correction replaced was said by the
        correction."""
        unsure = unsure_plies(self._beam, self._shown, self._base_ply, self._guard, self.settings)
        self._unsure = unsure
        events = self._settled_doubts(unsure, why)
        said = {ply: self._said.get(ply, (self._move_at(ply), set())) for ply in unsure}
        new = {ply: texts for ply, texts in unsure.items() if not texts <= said[ply][1]}
        if not new:
            return events
        for ply, texts in new.items():
            self._said[ply] = (said[ply][0], texts | said[ply][1])
        asked = "; ".join(f"ply {ply}: {' or '.join(sorted(texts))}" for ply, texts in sorted(new.items()))
        return [
            *events,
            self._event(
                EventType.NEEDS_ATTENTION,
                reason=f"not sure which move was made ({asked}): later readings or a lift will tell",
                detail={"unsure": {str(ply): sorted(texts) for ply, texts in sorted(unsure.items())}},
            ),
        ]

    def _note_doubt_news(self, events: list[Event], reported: list[Event]) -> None:
        """Keep the report of plies in doubt (``reported``, this batch's) as news until a move,
        a correction, a takeback or a restart is announced after it (``Held.doubt``): the panel
        blinks for a doubt until the player sees the next move, as a report said once."""
        report = next((e for e in reported if e.type is EventType.NEEDS_ATTENTION), None)
        if report is not None:
            self._doubt_event = report
        elif any(e.type in ONWARD for e in events):
            self._doubt_event = None

    def _settled_doubts(self, unsure: dict[int, set[str]], why: str) -> list[Event]:
        """The plies said in doubt that no longer are, forgotten; a ``settled`` event for those
        whose announced move stands (later readings agreed with it, or the player confirmed
        what the camera sees: ``why``)."""
        settled: dict[int, str] = {}
        for ply in sorted(set(self._said) - set(unsure)):
            announced, _ = self._said.pop(ply)
            if announced is not None and self._move_at(ply) == announced:
                settled[ply] = announced
        if not settled:
            return []
        said = "; ".join(f"ply {ply} was {move}" for ply, move in settled.items())
        return [
            self._event(
                EventType.SETTLED,
                moves=tuple(settled.values()),
                reason=f"{why}: {said}",
                detail={"settled": {str(ply): move for ply, move in settled.items()}},
            )
        ]

    def _move_at(self, ply: int) -> str | None:
        """The announced game's move at ``ply`` (1-based), None past its end."""
        moves = self.game.moves
        return moves[ply - 1].text() if 0 < ply <= len(moves) else None

    def _needs_attention(
        self,
        reason: str | None,
        observation: Observation,
        squares: tuple[Square, ...] = (),
        candidates: list[dict[str, object]] | None = None,
    ) -> list[Event]:
        """Report an unclear board once per distinct reading, not on every observation."""
        reading = tuple(int(i) for i in observation.probabilities.argmax(axis=1))
        if reading == self._attention:
            return []
        self._attention = reading
        detail: dict[str, object] = {"candidates": candidates} if candidates else {}
        self._attention_event = self._event(
            EventType.NEEDS_ATTENTION,
            reason=reason,
            squares=tuple(square_name(sq) for sq in squares),
            detail=detail,
        )
        return [self._attention_event]

    def _ask_for_help(
        self, observation: Observation, likelihood: Likelihood, kept: list[GamePath]
    ) -> list[Event]:
        """No path has explained the board for ``RESYNC_AFTER`` readings and the reading is too
        unsure to restart from: light the squares where the camera disagrees with the game, or
        where a path within the margin of the best (``kept``) shows another top than both (the
        square that tells them apart: ``lit_squares``), and say what each shows and what the
        game has there. The player puts the board right (a reading the game explains closes
        the request) or accepts what the camera sees (``accept_board``). The request is said
        again only when the squares change."""
        floor = kept[0].score - self.settings.margin
        shown = [p.shown for p in kept if p.score >= floor and p.shown is not None]
        differ, others = lit_squares(self.game.position, likelihood, shown)
        if not any(has != read for has, read in differ.values()):
            return self._close_help()  # the board shows the game's own tops: nothing to ask (yet)
        if self._help is not None and self._help.squares == differ:
            self._help.reading = (observation, likelihood)
            return []
        event = self._event(EventType.HELP, **help_fields(differ, self.game.position, others))
        self._help = HelpRequest(differ, (observation, likelihood), event)
        return [event]

    def _confirm_doubts(self, observation: Observation, likelihood: Likelihood) -> list[Event]:
        """On a clear reading, with plies in doubt that what the board shows now can tell, ask
        the player to confirm what the camera sees (once a question):

        - the camera reads another board than the game has, and a path close to the best (one
          of the lines in doubt) shows exactly that board: the squares where it differs from
          the game are lit, on the reading that first shows it (a first look after a move
          too: the player must have the time to answer while the board stands);
        - or, on a second look at a board nothing touched (``Observation.still``), the camera
          reads the game's board, and a path close to the best plays a ply in doubt
          differently and shows another cup on some square: those squares are lit.

        Repeated readings of an untouched cup are weighed as one piece of evidence
        (``repeats.py``), so a size read 0.9 against 0.1 on every board stays in doubt to the
        end of the game however long the board stands, and a line held on a size read wrong
        early stays ahead of the readings that later tell the other. A referee at a table
        would look, and ask. Accepting (``accept_board``) keeps only the paths that show what
        the camera sees (``_paths_showing``): the plies settle (``settled``), or the game is
        corrected to that line. A player who sees the camera wrong leaves it, and the next
        clear reading closes the request with the doubt as it was. A doubt the board cannot
        tell (a cup covered since, the stacks' contents) is not asked about.

        Each request is an alert LED and a beep the player must deal with, so only the lines
        whose answer matters are asked about (``_lines_to_ask``): a question is each ply in
        doubt with its announced move and what the camera reads on the squares lit
        (``_questions``), asked once; a request opened for a new one lights them all again (the
        player may answer all at once), and once the game is decided not about a line that ends
        it the same way: the players play on from neither. A ply asked about while the camera
        read the game's line, or another board, is asked again when the camera reads a board
        of a line in doubt it did not read then: the player who left the first request (the
        camera was wrong then) can answer this one (bench-32's White 2 read a 3 on b3 and d1,
        asked about and rightly left, then read a 2 on d1: asked only when it moved again,
        too late to answer, and the game held the 3 to its end)."""
        if self._help is not None or not self._unsure:
            return []
        lead = self._beam[0]
        if lead.line() != self._shown.line():
            return []
        position = self.game.position
        classes = square_classes(position, likelihood)
        lit = {sq: (has, read) for sq, (has, read) in classes.items() if has != read}
        if not lit and not self._still:
            return []  # (the game's own board: asked on a second look at it, if at all)
        unsure = set(self._unsure)
        asked = self._questions(unsure, lit)
        if asked <= self._confirm_asked:
            return []
        lines = self._lines_to_ask(lead, unsure, self.game.outcome())
        if not lines:
            return []
        others: dict[Square, set[int]] = {}
        if lit:
            if not any(p in lines for p in self._paths_showing(likelihood)):
                return []  # (no line in doubt shows what the camera reads)
            others = {sq: {read} for sq, (_has, read) in lit.items()}
        elif lead in self._paths_showing(likelihood):
            for path in lines:
                shown = board_differences(self._goto(path.root, path.codes), likelihood)
                for square, (shows, _read) in shown.items():
                    others.setdefault(square, set()).add(shows)
            lit = {sq: classes[sq] for sq in sorted(others)}
        if not lit:
            return []
        self._confirm_asked |= asked
        event = self._event(EventType.HELP, **confirm_fields(lit, others, sorted(unsure), position))
        self._help = HelpRequest(lit, (observation, likelihood), event, confirm=True)
        return [event]

    def _questions(self, plies: set[int], lit: dict[Square, tuple[int, int]]) -> set[Question]:
        """What a request to confirm asks: each ply in doubt with its announced move, and what
        the camera reads where it reads another board than the game has (``lit``; nothing when
        it reads the game's board)."""
        view = tuple(sorted((sq, read) for sq, (_has, read) in lit.items()))
        return {(ply, self._move_at(ply) or "", view) for ply in plies}

    def _lines_to_ask(self, lead: GamePath, plies: set[int], ended: Outcome | None) -> list[GamePath]:
        """The kept paths close to the best (``lead``, on the announced line) whose answer would
        matter to the player: from the announced start, waiting for nothing, holding one of
        ``plies`` (the plies in doubt) in doubt (``plies_held_in_doubt``: the latest ply alone
        only within the margin); and, once the game is decided (``ended``), not ending it the
        same way (the players play on from neither).

        A line that plays only the latest ply otherwise and trails past the margin is no doubt
        the referee reports, and asking about it asked the player about a doubt nobody heard of
        (bench-24's ply 23: White's 1b4 in doubt against an illegal 2b4, which the next move
        settles, and the request lit b4 for "no cup there", 5.9 nats behind)."""
        lines = []
        for path in self._beam[1:]:
            if path.pending is not None or path.lifted is not None:
                continue
            if not plies & plies_held_in_doubt(path, self._shown, self._base_ply, lead.score, self.settings):
                continue
            if ended is not None and self._goto(path.root, path.codes).outcome() == ended:
                continue
            lines.append(path)
        return lines

    def _paths_showing(self, likelihood: Likelihood) -> list[GamePath]:
        """The kept paths from the announced start that show exactly what the camera reads, the
        best first: their referee waiting for nothing, ``decent`` (none of their moves made up
        to explain a misread, no square of the latest reading read against them: only the next
        reading tells whether that was a misread; no stretch of moves out of sight again and
        again), and every move they play past the announced game shown by a reading
        (``reads_every_move``: no cup placed and covered at once, none resting on a square read
        against it). Accepting plays such a path; for any other the player's answer restarts
        the game from the camera's view, which guesses no moves."""
        return [
            p
            for p in self._beam
            if p.root == self._shown.root
            and p.pending is None
            and p.lifted is None
            and p.must_move is None
            and p.forfeit is None
            and p.decent
            and reads_every_move(p, self._shown)
            and not board_differences(self._goto(p.root, p.codes), likelihood)
        ]

    def _close_help(self, accepted: bool = False, why: str | None = None) -> list[Event]:
        """A clear reading (or the player, ``accepted``) answers an open help request: the
        event that says so, for the caller to say when nothing else says what became of the
        board (``is_aside``), so the panel stops pointing.

        A request about a board that differed from the game closes with the board put right
        (``restored``) when a hand passed over the board since it opened (``HelpRequest.hands``:
        each move, each cup put right, is a hand). With none, the board the camera now reads
        as the game has it is the board it asked about: it was misread, and nobody put anything
        right (``cleared``). A request to confirm what the camera reads closes with nothing put
        right either (``cleared``): the board was right all along, only the camera in doubt, and
        "board restored" told the player of a correction they never made. ``why`` says why
        when it is neither the player's answer nor a clear reading."""
        request, self._help = self._help, None
        if request is None:
            return []
        position = self.game.position.text()
        if not request.confirm and request.hands and not accepted:
            return [self._event(EventType.RESTORED, position=position)]
        if request.confirm:
            plies = list(request.event.detail.get("plies", ()))
            detail: dict[str, object] = {"plies": plies, "accepted": accepted}
            reason = SETTLED_BY_PLAYER if accepted else CLEARED_BY_READING
        else:
            detail = {"accepted": accepted}
            reason = CONFIRMED_VIEW if accepted else MISREAD
        return [self._event(EventType.CLEARED, position=position, reason=why or reason, detail=detail)]

    def _close_confirm_settled(self) -> list[Event]:
        """A request to confirm plies that later readings settled (still looks at the board
        asked about: nothing else keeps it open) is closed: no answer can settle them any more,
        and the panel would stay lit for a request with nothing left to ask."""
        request = self._help
        if request is None or not request.confirm or set(request.event.detail["plies"]) & set(self._unsure):
            return []
        return self._close_help(why=NOTHING_LEFT)

    def _answered(self, events: list[Event], closed: list[Event]) -> list[Event]:
        """``events`` said of a reading (or the player's answer) that ``closed`` a request:
        they are answer enough when one of them says what became of the board (a move, an
        illegal action, ...: the panel shows it), else the request's own close comes first.
        A lift alone, a doubt settled or a report of plies in doubt (``is_aside``) left the
        panel lit for a request that was gone."""
        return events if any(not is_aside(e) for e in events) else [*closed, *events]
