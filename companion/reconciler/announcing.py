"""Saying what happened: the announced game brought to the chosen path, and the events.

The paths (``tracking``) say what the board may show; this layer changes the announced game
to follow the one chosen (a move, a correction of earlier moves, a takeback, a new game) and
builds the event for each change, with its reason and the position after it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from companion.reconciler.accounts import Explanation, Kind
from companion.reconciler.decoder import fits
from companion.reconciler.events import Event, EventType
from companion.reconciler.paths import NEW_ROOT, GamePath, LastingDoubts, code_square_names, common_prefix
from companion.reconciler.referee import (
    Action,
    held_reason,
    illegal_reason,
    put_back_reason,
    touch_reason,
    uncovered_line,
    wrong_piece_reason,
)
from companion.reconciler.tracking import PathTracker
from companion.rules.game import Game, PlayedMove
from companion.rules.move import Move
from companion.rules.outcome import Outcome, Termination
from companion.rules.square import Square, color_name, square_name


class Announcer(PathTracker):
    """The layer of ``Reconciler`` that changes the announced game and says so in events."""

    corrections: int
    _timestamp: float
    _pending_event: Event | None

    def _announce(self, path: GamePath, margin: float) -> list[Event]:
        """Bring the announced game to ``path``: correct or complete the moves before this
        reading if needed, then say what this reading shows."""
        before = path.before
        assert before is not None and path.explanation is not None
        ply = self.game.ply
        if before.pending is not None and path.pending is None and self._pending_event is None:
            # an illegal action never called (a lawful account was played instead) and now
            # put right: nothing to restore, the announced game follows the path's moves
            events = self._sync(path)
            path.unseen = 0
            return events
        events = self._sync(before)
        late = before.unseen > 0 and any(e.type is EventType.MOVE for e in events)
        events += self._act(path, before, margin)
        path.unseen = 0
        self._shown = path
        self._note_unseen(path.explanation.kind, ply, late)
        return events

    def _note_unseen(self, kind: Kind | None, ply: int, late: bool) -> None:
        """Remember moves announced out of sight (two at once, or seen late after a reading
        that needed two moves) from ``ply`` on:
        the board after them may also be one more move of a side (a cup moved twice looks like
        one move), which only the side that moves next tells; a move of the side they leave
        to move, seen in a reading of its own, confirms them."""
        if kind is Kind.MOVE:
            self._unseen_from = None
        elif late or kind is Kind.TWO_MOVES:
            first = ply + 1
            self._unseen_from = first if self._unseen_from is None else min(self._unseen_from, first)

    def _announce_agreed(self, kept: list[GamePath]) -> list[Event]:
        """When the latest reading is unclear, still announce the earlier moves that every
        path within the margin of the best agrees on (each of them decent)."""
        shown = self._shown
        if shown.pending is not None or shown.lifted is not None or shown.must_move is not None:
            return []
        floor = kept[0].score - self.settings.margin
        near = [p for p in kept if p.score >= floor]
        if any(not p.decent or p.root != shown.root or p.pending is not None for p in near):
            return []
        codes = near[0].codes
        agreed = min(common_prefix(codes, p.codes) for p in near)
        if agreed <= len(shown.codes) or codes[: len(shown.codes)] != shown.codes:
            return []
        ply = self.game.ply
        agreed_path = GamePath(
            shown.root, codes[:agreed], shown.score, lasting=LastingDoubts.joined([p.lasting for p in near])
        )
        events = self._sync(agreed_path)
        if all(p.unseen > 0 for p in near) and any(e.type is EventType.MOVE for e in events):
            self._note_unseen(None, ply, late=True)
        return events

    def _sync(self, target: GamePath) -> list[Event]:
        """Make the announced game follow ``target``'s moves (a correction when they differ,
        moves seen late when they only add to it); take its referee state."""
        shown = self._shown
        events: list[Event] = []
        if target.line() != shown.line():
            withdrawn: list[str] = []
            restarted = False  # the game now grows from another start: a correction says so
            if target.root == NEW_ROOT:
                events += self._start_new_game()
                common = 0
            elif target.root != shown.root:
                withdrawn = [m.text() for m in self.game.moves[self._base_ply :]]
                self.game = Game(self.variant, start=self._starts[target.root], headers=self.game.headers)
                if target.root in self._resync_options:
                    # what the stacks may hide, counted with the other side to move: the moves
                    # that follow are tracked from it (not from the start given up)
                    self.hidden.restart(self._resync_options[target.root].copy())
                self._remap = {target.root: 0}
                common = 0
                restarted = True
            else:
                common = common_prefix(shown.codes, target.codes)
                while len(self.game.position.move_codes) > common:
                    withdrawn.append(self.game.pop().text())
                withdrawn.reverse()
            added = []
            for code in target.codes[common:]:
                color = self.game.turn
                move = self.game.position.move_from_code(code)
                if not withdrawn:
                    self.hidden.track(self.game, move, None)
                self._push(code, move)
                added.append((move.text(), code, color, self.game.position.text()))
            if withdrawn:
                self.hidden.rebuild(self.game)
            texts = tuple(text for text, *_ in added)
            first_ply = self.game.ply - len(added)
            if withdrawn or restarted:
                self.corrections += len(withdrawn)
                detail: dict[str, object] = {"withdrawn": withdrawn}
                if restarted:
                    detail["start"] = self.game.start.text()
                shown_now = " ".join(texts) or "no move"
                reason = (
                    f"later readings show {shown_now} where {' '.join(withdrawn)} was announced"
                    if withdrawn
                    else f"later readings show {color_name(self.game.start.turn)} was to move at the resync"
                )
                events.append(
                    self._event(
                        EventType.CORRECTION,
                        ply=first_ply,
                        moves=texts,
                        reason=reason,
                        position=self.game.position.text(),
                        detail=detail,
                    )
                )
            for i, (text, code, color, position) in enumerate(added):
                events.append(
                    self._event(
                        EventType.MOVE,
                        move=text,
                        moves=texts if len(texts) > 1 else (),
                        squares=code_square_names(code),
                        ply=first_ply + i + 1,
                        position=position,
                        reason="corrected" if withdrawn else "moves seen late: earlier readings were unclear",
                        detail={"color": color_name(color), "late": True},
                    )
                )
            outcome = self.game.outcome() if added else None
            if outcome is not None:
                events.append(self._outcome_event(outcome))
        if target.pending is None:
            self._pending_event = None
        self._shown = target
        return events

    def _act(self, path: GamePath, before: GamePath, margin: float) -> list[Event]:
        """The events of what ``path`` says this reading shows (the game is at ``before``)."""
        e = path.explanation
        assert e is not None
        kind = e.kind
        game = self.game
        if kind is Kind.NEW_GAME:
            return self._start_new_game()
        if kind is Kind.TAKEBACK:
            return self._take_back()
        if kind is Kind.AFTER_END or game.is_over():
            return []
        if before.pending is not None:
            if path.pending is not None and self._pending_event is None:
                # an accusation held back while the camera could not tell it from a lawful
                # account (which was played, reported unsure), now beyond doubt: said now,
                # after the correction that withdrew the lawful account's moves
                return [self._illegal(held_reason(game, path.pending), path.pending)]
            if kind is Kind.NO_CHANGE:
                self._pending_event = None
                return [self._event(EventType.RESTORED, position=game.position.text())]
            if kind is Kind.MOVE:
                self._pending_event = None
                restored = self._event(EventType.RESTORED, position=game.position.text())
                return [restored, *self._play(e, path, margin)]
            return []
        if kind is Kind.NO_CHANGE:
            if before.lifted is not None and path.must_move == before.lifted:
                reason = put_back_reason(game, before.lifted)
                if reason is not None:
                    return [
                        self._event(
                            EventType.ILLEGAL,
                            reason=reason,
                            squares=(square_name(before.lifted),),
                            position=game.position.text(),
                            detail={"must_move": square_name(before.lifted)},
                        )
                    ]
            return []
        if kind is Kind.LIFT:
            action = e.action
            assert action is not None and action.origin is not None
            if before.lifted == action.origin:
                return []
            events = [self._lifted_event(action.origin)]
            if path.pending is not None:
                peek = touch_reason(game, action.origin) or "that stack may not be touched"
                events.append(self._illegal(f"touch rule: {peek}", action))
            elif path.forfeit is not None:
                forfeit = game.lift(action.origin)
                if forfeit is not None:
                    events.append(self._outcome_event(forfeit))
            return events
        if kind is Kind.ILLEGAL:
            assert e.action is not None
            return [self._illegal(illegal_reason(game, e.action), e.action)]
        if path.pending is not None:  # a move, but not of the cup the touch rule says must move
            touched = before.must_move if before.must_move is not None else before.lifted
            assert touched is not None  # (a path is pending after a move only under the touch rule)
            move = game.position.move_from_code(e.codes[0])
            return [self._illegal(wrong_piece_reason(game, touched, move.text()), path.pending)]
        return self._play(e, path, margin)

    def _play(self, e: Explanation, path: GamePath, margin: float) -> list[Event]:
        events = []
        texts: list[str] = []
        misread = fits(path.view, e, self.settings)[2] if path.view is not None else None
        for code in e.codes:
            move = self.game.position.move_from_code(code)
            self.hidden.track(self.game, move, e, path.faint)
            self._push(code, move)
            texts.append(move.text())
            detail: dict[str, object] = {
                "color": color_name(self.game.turn ^ 1),
                "margin": round(min(margin, 99.0), 2),
            }
            if misread is not None:
                detail["misread"] = square_name(misread)
            events.append(
                self._event(
                    EventType.MOVE,
                    move=move.text(),
                    squares=code_square_names(code),
                    position=self.game.position.text(),
                    detail=detail,
                )
            )
        if len(texts) > 1:
            why = "two moves were made while the board was covered"
            events = [replace(ev, moves=tuple(texts), reason=why) for ev in events]
        outcome = self.game.outcome()
        if outcome is not None:
            events.append(self._outcome_event(outcome))
        return events

    def _push(self, code: int, move: Move) -> None:
        """Play a move the paths found legal (its code is legal here: no need to check it)."""
        self.game.position.push_code(code)
        self.game.played.append(PlayedMove(move, self._timestamp))

    def _lifted_event(self, origin: Square) -> Event:
        position = self.game.position
        line = uncovered_line(position, origin)
        top = position.top(origin)
        detail: dict[str, object] = {"color": color_name(top[0]) if top else None}
        reason = None
        if line is not None:
            names = [square_name(sq) for sq in line.squares]
            detail["uncovers"] = names
            reason = (
                f"lifting {square_name(origin)} uncovers {color_name(position.turn ^ 1)}'s line "
                f"{' '.join(names)}: put the cup on a piece of that line or lose"
            )
        return self._event(EventType.LIFTED, squares=(square_name(origin),), reason=reason, detail=detail)

    def _illegal(self, reason: str, action: Action) -> Event:
        move = action.move()
        event = self._event(
            EventType.ILLEGAL,
            move=move.text() if move else None,
            squares=action.squares(),
            reason=reason,
            position=self.game.position.text(),
            detail={"action": action.text(), "color": color_name(action.color)},
        )
        self._pending_event = event
        return event

    def _take_back(self) -> list[Event]:
        move = self.game.pop()
        self._pending_event = None
        return [self._event(EventType.TAKEBACK, move=move.text(), position=self.game.position.text())]

    def _start_new_game(self) -> list[Event]:
        self.game = Game(self.variant)
        self._pending_event = None
        self._unsure, self._said = {}, {}
        self.hidden.restart(None)
        self._remap = {NEW_ROOT: 0}
        return [self._event(EventType.NEW_GAME, detail={"variant": self.variant.spec})]

    def _outcome_event(self, outcome: Outcome) -> Event:
        if outcome.winner is None:
            kind = EventType.DRAW
        elif outcome.termination is Termination.LINE:
            kind = EventType.WIN
        else:
            kind = EventType.LOSS
        return self._event(
            kind,
            winner=outcome.winner_name,
            line=tuple(square_name(sq) for sq in outcome.line),
            reason=outcome.reason,
            position=self.game.position.text(),
            detail={"termination": str(outcome.termination)},
        )

    def _event(self, kind: EventType, **fields: Any) -> Event:
        fields.setdefault("ply", self.game.ply)
        return Event(type=kind, timestamp=self._timestamp, **fields)
