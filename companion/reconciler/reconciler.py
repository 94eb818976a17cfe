"""The reconciler: stable observations in, the game and the referee's events out.

It acts like a referee at the table:

- a clear legal move (or two, when the board was covered for a whole turn) is played;
- a clear illegal action is announced with its reason and the position to restore, and
  nothing else is accepted until the board shows that position again (or a legal move from it);
- a lifted cup is announced (the touch rule, a peek under an opponent's stack, a lift that
  uncovers the opponent's line, a lifted cup with nowhere to go);
- the board returning to the previous position takes the last move back (if enabled);
- anything it cannot explain with confidence is reported as needing attention, and it waits,
  but not for long: two unclear readings in a row open a help request (below).

Wins, losses and draws are announced as soon as the move that decides them is played.

**Paths, not guesses.** One reading can never prove a move beyond doubt: the one square that
tells two moves apart may be misread, however sure the reader is. So the reconciler keeps
every *path* (the legal moves from the start, plus the referee's state: a cup in the air, an
illegal action not yet put right) that still explains the readings so far, scored by the joint
log-likelihood of all of them (``GamePath``). Each reading extends every path by every way it
could have come about (``decoder.explain``: no change, a move, a lift, an illegal action, a
takeback, two moves). A path falls away once it is ``settings.keep`` nats (about two confident
misreads) behind the best.

What a reading shows (a move, an illegal action, ...) is announced when the best path's
account of it beats every other account by ``settings.margin``. Moves are *committed* once
every live path agrees on them (``committed_ply``); until then a later reading may still prove
an earlier move wrong (the square that told it apart is read again, or a lift shows what a
stack hides), and the reconciler says so with a ``correction`` event and the right moves. A
move is *unsure* (``unsure``) while a path within the margin of the best plays differently
there, for instance a cup placed and covered at once while the board was hidden; such plies are
reported as needing attention and do not count as known.

**Recovery.** When no path explains the board for two readings in a row, or one reading leaves
three squares unexplained (more moves were made out of sight than one reading can tell), the
reconciler does not guess the moves it did not see: it re-synchronises. The game restarts
from the tops the board shows, keeping every stack whose top did not change (and so every cup
known under it), with the other hidden cups open as in a game started mid-way, and both sides
to move kept until a move tells (``resync`` event). Only from a reading sure of every square:
otherwise, and whenever two readings in a row are left unclear, it asks for help (``help``
event, ``help_squares``): the player puts the board right or accepts what the camera sees
(``accept_board``). docs/reconciler.md tells the whole story.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from companion.errors import CompanionError
from companion.reconciler.accounts import DEFAULT_SETTINGS, PRIOR, Explanation, Kind, Settings
from companion.reconciler.decoder import (
    after_end,
    clean,
    explain,
    fits,
    two_move_explanations,
    unexplained_reason,
)
from companion.reconciler.events import Event, EventType
from companion.reconciler.hidden import HiddenCups
from companion.reconciler.likelihood import Likelihood, Reach, View, reach
from companion.reconciler.paths import (
    NEW_ROOT,
    Accounts,
    Candidate,
    GamePath,
    Group,
    LineKey,
    PathKey,
    ScoringKey,
    board_shows,
    carry_doubts,
    code_square_names,
    code_text,
    common_prefix,
    extend,
    game_over,
    game_over_now,
    group_by_claim,
    lead,
)
from companion.reconciler.referee import (
    Action,
    illegal_reason,
    put_back_reason,
    touch_reason,
    uncovered_line,
    wrong_piece_reason,
)
from companion.reconciler.unknowns import HiddenContents, warm_up
from companion.rules.game import Game, PlayedMove
from companion.rules.move import Move, MoveError
from companion.rules.outcome import Outcome, Termination
from companion.rules.position import Position
from companion.rules.square import Square, color_name, square_name
from companion.rules.variant import CLASSIC, Variant
from companion.vision.observation import Observation, class_top

RESYNC_AFTER = 2  # readings in a row that no decent path explains before recovering
LOST_SQUARES = 3  # squares no path explains that mean more happened than a reading can show
SECOND_FAULT = 2.0  # log-odds against another illegal action before the board is put right
PER_LINE = 3  # paths kept per line of moves (with different referee states)
RESYNC_CONFIDENCE = 0.8  # every square must be read at least this sure to restart from the tops
HELP_AFTER = 2  # unclear readings in a row before the referee asks for help


@dataclass(slots=True)
class HelpRequest:
    """An open request for help: the squares where the camera disagrees with the game, as
    (the game's class, the camera's class); the reading to restart from if the player accepts
    what the camera sees; the event that opened it."""

    squares: dict[Square, tuple[int, int]]
    reading: tuple[Observation, Likelihood]
    event: Event


class Reconciler:
    """Turns the stream of stable observations into the game and referee events.

    ``feed`` is called once per stable observation and returns the events it caused (often
    none). ``game`` is the game as announced so far; a device passes ``game.position`` to the
    engine.
    """

    def __init__(
        self,
        variant: Variant | str = CLASSIC,
        game: Game | None = None,
        *,
        takeback: bool = True,
        new_game: bool = True,
        settings: Settings = DEFAULT_SETTINGS,
        clock: Callable[[], float] = time.time,
        unknowns: HiddenContents | None = None,
    ) -> None:
        if isinstance(variant, str):
            variant = Variant.from_spec(variant)
        self.game = game if game is not None else Game(variant)
        self.variant = self.game.variant
        self.takeback = takeback
        self.new_game = new_game
        self.settings = settings
        self._clock = clock
        self.hidden = HiddenCups(
            unknowns
        )  # a game started mid-way (or re-synchronised): what stacks may hide
        self._timestamp = 0.0
        self._attention: tuple[int, ...] | None = None  # the reading last reported as unclear
        self._attention_event: Event | None = None  # the needs-attention event it was reported with
        self._pending_event: Event | None = None
        self._unfit = 0  # readings in a row that no path explains
        self._unclear_run = 0  # readings in a row left unclear (nothing announced from them)
        self._help: HelpRequest | None = None  # the board differs from the game: the player is asked
        self.corrections = 0  # moves withdrawn by corrections so far
        self.resyncs = 0
        self._explained: dict[ScoringKey, Accounts] = {}
        self._views: dict[LineKey, View] = {}  # this reading scored against each line's position
        self._reach: dict[ScoringKey, Reach] = {}  # lines left unscored this reading: what they could reach
        self._reset_paths()
        warm_up(self.variant)  # the hidden-contents tables a resync needs, built at start-up

    @classmethod
    def mid_game(
        cls, variant: Variant | str, tops: dict[Square, tuple[int, int]], turn: int, **options: Any
    ) -> Reconciler:
        """Start from a board already in play: only the tops are known. The game starts from
        the most likely full position; the rest stays open in ``unknowns`` and narrows each
        time a lift shows what a stack hid."""
        if isinstance(variant, str):
            variant = Variant.from_spec(variant)
        unknowns = HiddenContents(variant, tops, turn)
        game = Game(variant, start=unknowns.start_position())
        return cls(variant, game, unknowns=unknowns, **options)

    # ----- the public interface -----------------------------------------------------------

    @property
    def unknowns(self) -> HiddenContents | None:
        """What the stacks may hide (a game started mid-way or resynchronised), None when known."""
        return self.hidden.contents

    @property
    def attention(self) -> Event | None:
        """The request the referee holds open, None when it asks for nothing: the help request
        (``help_squares``), or the unclear reading it last reported, until a reading is clear."""
        if self._help is not None:
            return self._help.event
        return self._attention_event if self._attention is not None else None

    @property
    def help_squares(self) -> dict[Square, tuple[int, int]] | None:
        """While the referee asks for help: each square where the camera disagrees with the
        game, as (the class the game has there, the class the camera reads); else None."""
        return dict(self._help.squares) if self._help is not None else None

    def accept_board(self) -> list[Event]:
        """The player's answer to a help request: the board is as the camera sees it. The game
        restarts from the camera's last reading (a ``resync``, hidden cups kept from history
        where the top did not change), however unsure the reading; nothing when no help is
        asked for, a ``needs-attention`` when the reading is no possible board."""
        if self._help is None:
            return []
        observation, likelihood = self._help.reading
        events = self._resync(observation, likelihood, accepted=True)
        if events is None:
            reason = "what the camera sees is no possible board: put the board as the game has it"
            return [self._event(EventType.NEEDS_ATTENTION, reason=reason, squares=self._help.event.squares)]
        return events

    @property
    def position(self) -> Position:
        return self.game.position

    @property
    def awaiting_restore(self) -> Event | None:
        """The illegal event whose position the board must show again, if any."""
        return self._pending_event if self._shown.pending is not None else None

    @property
    def committed_ply(self) -> int:
        """Moves every live path agrees on: no later reading can change them."""
        shown = self._shown.codes
        count = len(shown)
        for path in self._beam:
            if path.root != self._shown.root:
                return self._base_ply
            count = min(count, common_prefix(path.codes, shown))
        return self._base_ply + count

    @property
    def unsure(self) -> dict[int, list[str]]:
        """Plies (1-based) of the announced game that a path within the margin of the best
        plays differently, with the moves those paths play there."""
        return {ply: sorted(texts) for ply, texts in self._unsure.items()}

    def feed(self, observation: Observation) -> list[Event]:
        """Take one stable observation; return the events it causes."""
        self._timestamp = observation.timestamp or self._clock()
        if observation.occluded:
            return []
        if observation.moved:
            return self._needs_attention("the board or the camera moved: calibrate again", observation)
        return self._track(observation)

    # ----- paths --------------------------------------------------------------------------

    def _reset_paths(self) -> None:
        """One path: the game as announced (after a new game, a resync, a mid-game reveal)."""
        self._starts: dict[int, Position] = {0: self.game.start, NEW_ROOT: Position(self.variant)}
        self._work: dict[int, tuple[Position, list[int]]] = {}
        codes = tuple(self.game.position.move_codes)
        self._base_ply = self.game.ply - len(codes)
        self._shown = GamePath(0, codes, 0.0)
        self._beam = [self._shown]
        self._unsure: dict[int, set[str]] = {}
        self._guard = 0  # after a resync: the first move may be the end of one under way then
        self._unseen_from: int | None = None  # first ply of moves announced out of sight, not yet
        #                                       followed by a move of the side they leave to move
        self._remap: dict[int, int] = {}
        self._resync_options: dict[int, HiddenContents] = {}

    def _goto(self, root: int, codes: tuple[int, ...]) -> Position:
        """A working position at the end of a path (moved there by popping and pushing)."""
        entry = self._work.get(root)
        if entry is None:
            entry = (self._starts[root].copy(), [])
            self._work[root] = entry
        position, at = entry
        common = common_prefix(at, codes)
        while len(at) > common:
            position.pop_code()
            at.pop()
        for code in codes[common:]:
            position.push_code(code)
            at.append(code)
        return position

    def _track(self, observation: Observation) -> list[Event]:
        likelihood = Likelihood(observation, self.settings.outlier)
        self._explained = {}
        self._views = {}
        self._reach = {}
        candidates = self._single_candidates(likelihood)
        children = self._children(candidates)
        # two moves made out of sight, from each path that no single action explains and whose
        # two-move account could still come close to the best (fixing the four squares that
        # disagree most at most); pairs that would fall below what is kept are not scored
        floor = children[0].score - (self.settings.keep + self.settings.margin) / 2
        kept_floor = children[0].score - self.settings.keep
        extra: list[Candidate] = []
        searched: set[LineKey] = set()
        for path in self._beam:
            if path.pending is not None or path.forfeit is not None or path.line() in searched:
                continue
            line = (path.root, path.codes, False)
            bound = self._reach.get(line)
            if bound is not None and path.score + bound.base + bound.two - PRIOR[Kind.TWO_MOVES] < floor:
                continue
            explained = self._explained.get(line)
            ranked: list[Explanation] | None = None
            if explained is None and bound is not None and bound.never_clean(self.settings.clean):
                _, view, over = self._view(path, likelihood)  # (its single accounts are not needed)
            else:
                view, over, ranked = explained or self._explained_now(path, likelihood)
            best_two = (
                path.score + view.base + sum(sorted(view.slack, reverse=True)[:4]) - PRIOR[Kind.TWO_MOVES]
            )
            if (
                best_two >= floor
                and not over
                and (
                    ranked is None
                    or not clean(view, ranked[0], self.settings)
                    or ranked[0].kind is Kind.ILLEGAL
                )
            ):
                searched.add(path.line())
                least = kept_floor - path.score - view.base + PRIOR[Kind.TWO_MOVES]
                extra += self._candidates(path, likelihood, two=True, least=least)
        if extra:
            children = self._children(candidates + extra)
        best = children[0]
        assert best.view is not None and best.explanation is not None
        fit, contradicting, _ = fits(best.view, best.explanation, self.settings)
        self._unfit = 0 if best.decent else self._unfit + 1
        if not best.decent and (
            self._unfit >= RESYNC_AFTER or (not fit and len(contradicting) >= LOST_SQUARES)
        ):
            resynced = self._resync(observation, likelihood)
            if resynced is not None:
                return resynced
        kept = children[: self.settings.width]
        groups = group_by_claim(kept)
        margin = lead(groups)
        chosen = self._representative(groups[0][1])
        rival = self._history_rival(chosen, kept)
        clear = chosen.decent and margin >= self.settings.margin and rival is None
        wrong_side = self._wrong_side_after_unseen(chosen)
        if wrong_side and clear:
            resynced = self._resync(observation, likelihood, doubt_from=self._doubt_from())
            if resynced is not None:
                return resynced
        if clear and not wrong_side:
            events = self._announce(chosen, margin)
            self._attention = None
            self._unclear_run = 0
            closed = self._close_help()
            events = events or closed  # (a move said is answer enough: the panel shows it)
        else:
            # (the side not to move seen acting after moves out of sight, on a reading too
            # unsure to restart from: the next reading is waited for)
            events = self._unclear(observation, best, groups, rival)
            if not wrong_side:
                events += self._announce_agreed(kept)
            self._unclear_run += 1
            if self._unfit >= RESYNC_AFTER or self._unclear_run >= HELP_AFTER:
                # lost and the reading too unsure to restart from, or unclear for as long (a
                # restart would throw away the paths that a later reading may still settle):
                # the player is asked rather than left waiting
                events = [e for e in events if e.type is not EventType.NEEDS_ATTENTION]
                events += self._ask_for_help(observation, likelihood)
        for path in kept:  # only the latest step's parents are kept
            if path.before is not None:
                path.before.before = None
                path.before.view = None
        if self._remap:
            kept = self._rebase(kept)
        self._beam = kept
        events += self._report_unsure()
        self.hidden.settle()
        if self.unknowns is not None and any(e.type is EventType.MOVE for e in events):
            self._follow_unknowns()
        return events

    def _wrong_side_after_unseen(self, path: GamePath) -> bool:
        """Whether ``path`` (the account about to be announced) has the side not to move act
        (an illegal action, or a lift of its cup) right after moves out of sight: announced
        and not yet followed by a move seen on its own, or about to be announced late on a
        path that needed two moves at once lately. A cup moved twice out of sight looks like
        one move, so one more move made out of sight is then as likely as the guessed moves
        and an illegal action: rather ask than guess (the reconciler resynchronises)."""
        e, before = path.explanation, path.before
        if e is None or before is None or e.action is None or e.kind not in (Kind.ILLEGAL, Kind.LIFT):
            return False
        if before.root != self._shown.root or before.pending is not None or self._resync_options:
            return False  # (right after a resync the side to move is open anyway)
        late = before.unseen > 0 and len(before.codes) > len(self._shown.codes)
        if self._unseen_from is None and not late:
            return False
        return e.action.color != self._goto(before.root, before.codes).turn

    def _doubt_from(self) -> int:
        """The first ply of the announced game the moves out of sight may have gone wrong at."""
        ply = self.game.ply + 1
        return ply if self._unseen_from is None else min(self._unseen_from, ply)

    def _single_candidates(self, likelihood: Likelihood) -> list[Candidate]:
        """Every path's single-action accounts of the reading (``_candidates``), best path
        first; a line of moves whose best possible account (``decoder.reach``) is already
        ``keep`` behind the best account found is not scored (none of it would be kept).
        In a game started mid-way a lift may show any hidden cup: every line is scored."""
        out: list[Candidate] = []
        top = -float("inf")
        for path in self._beam:
            line = (path.root, path.codes, False)
            if line not in self._explained and out and self.unknowns is None:
                bound = self._reach.get(line)
                if bound is None:
                    bound = self._reach[line] = reach(self._goto(path.root, path.codes), likelihood)
                floor = top - self.settings.keep
                if path.score + bound.best < floor and (
                    path.score + bound.ended < floor or not self._over(path)
                ):
                    continue
            found = self._candidates(path, likelihood)
            out += found
            top = max([top, *(c[0] for c in found)])
        return out

    def _over(self, path: GamePath) -> bool:
        """Whether the game on a path is over (``game_over`` without the tops)."""
        position = self._goto(path.root, path.codes)
        return path.forfeit is not None or game_over_now(position)

    def _view(self, path: GamePath, likelihood: Likelihood) -> tuple[Position, View, bool]:
        """The working position at the end of a path, the reading scored against it (one view
        per line and reading: its single-action and two-move accounts share it), and whether
        the game on the path is over."""
        position = self._goto(path.root, path.codes)
        line = path.line()
        view = self._views.get(line)
        if view is None:
            view = self._views[line] = View(position, None, likelihood=likelihood)
        return position, view, path.forfeit is not None or game_over(position, view)

    def _explained_now(self, path: GamePath, likelihood: Likelihood) -> tuple[View, bool, list[Explanation]]:
        """The single-action accounts of a line ``_single_candidates`` left unscored."""
        self._candidates(path, likelihood)
        return self._explained[(path.root, path.codes, False)]

    def _candidates(
        self, path: GamePath, likelihood: Likelihood, two: bool = False, least: float = -float("inf")
    ) -> list[Candidate]:
        """Every way the reading may have come about from this path: (score, path, explanation,
        view, over). Paths at the same position share one scoring of the reading; two-move
        accounts gaining less than ``least`` are left out."""
        key = (path.root, path.codes, two)
        explained = self._explained.get(key)
        if explained is None:
            explained = self._explain(path, likelihood, two, least)
            self._explained[key] = explained
        view, over, ranked = explained
        if two and over:
            return []
        base = path.score + view.base
        if path.pending is not None and not over:
            # waiting for the board to be put right: the same illegal view again costs nothing
            # more; another illegal action (or a lift) on top of it is a second fault
            out: list[Candidate] = []
            for e in ranked:
                if e.kind in (Kind.TAKEBACK, Kind.NEW_GAME):
                    continue
                score = base + e.score
                if e.kind is Kind.ILLEGAL and e.action == path.pending:
                    score += PRIOR[Kind.ILLEGAL]
                elif e.kind in (Kind.ILLEGAL, Kind.LIFT):
                    score -= SECOND_FAULT
                out.append((score, path, e, view, over))
            return out
        return [(base + e.score, path, e, view, over) for e in ranked]

    def _explain(
        self, path: GamePath, likelihood: Likelihood, two: bool, least: float
    ) -> tuple[View, bool, list[Explanation]]:
        position, view, over = self._view(path, likelihood)
        if two:
            changed = view.changed_squares(self.settings.changed)
            if over or len(changed) > self.settings.max_changed:
                return view, over, []
            return view, over, two_move_explanations(position, view, changed, least)
        if over:
            ranked = explain(
                position,
                view,
                moves=False,
                illegal=False,
                lifts=False,
                takeback=self.takeback and bool(path.codes),
                new_game=self.new_game,
            )
            ranked.append(after_end(view))
            return view, over, ranked
        ply = self._base_ply + len(path.codes) if path.root == 0 else len(path.codes)
        ranked = explain(
            position,
            view,
            takeback=self.takeback and bool(path.codes),
            new_game=self.new_game and ply >= 2,
            reveal=self.hidden.reveal_options(self.variant.max_piece),
        )
        return view, over, ranked

    def _children(self, candidates: list[Candidate]) -> list[GamePath]:
        """The new paths within ``keep`` of the best, best first, one per state, and at most
        ``PER_LINE`` per line of moves (the line's best referee states)."""
        candidates.sort(key=lambda c: c[0], reverse=True)
        floor = candidates[0][0] - self.settings.keep
        seen: set[PathKey] = set()
        lines: dict[LineKey, int] = {}
        out: list[GamePath] = []
        for score, path, e, view, over in candidates:
            if score < floor or len(out) == self.settings.width:
                break
            child = extend(path, e, score, view, over, self.variant.touch_rule)
            key = child.key()
            line = key[:2]
            if (
                key not in seen
                and lines.get(line, 0) < PER_LINE
                and (line in lines or len(lines) < self.settings.lines)
            ):
                seen.add(key)
                lines[line] = lines.get(line, 0) + 1
                carry_doubts(child, path, e, view, self.settings)
                out.append(child)
        return out

    def _representative(self, members: list[GamePath]) -> GamePath:
        """The path to announce the reading from: the one that continues what was announced,
        unless another is better by the margin (then what was announced is corrected)."""
        best = members[0]
        shown = self._shown.key()
        for path in members:
            if path.score < best.score - self.settings.margin:
                break
            if path.before is not None and path.before.key() == shown and path.decent:
                return path
        return best

    def _rebase(self, kept: list[GamePath]) -> list[GamePath]:
        """The announced game now grows from another start (a new game, the other side to
        move after a resync): that start becomes start 0, and paths from any other drop."""
        ((old, new),) = self._remap.items()
        self._remap = {}
        self._starts = {new: self._starts[old], NEW_ROOT: Position(self.variant)}
        self._work = {new: self._work[old]} if old in self._work else {}
        self._resync_options = {}
        self._base_ply = 0
        out = [p for p in kept if p.root == old]
        for path in out:
            path.root = new
        self._shown.root = new
        return out or [GamePath(new, tuple(self.game.position.move_codes), 0.0)]

    # ----- announcing ---------------------------------------------------------------------

    def _announce(self, path: GamePath, margin: float) -> list[Event]:
        """Bring the announced game to ``path``: correct or complete the moves before this
        reading if needed, then say what this reading shows."""
        before = path.before
        assert before is not None and path.explanation is not None
        ply = self.game.ply
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
        suspect = frozenset().union(*(p.suspect for p in near))
        ply = self.game.ply
        events = self._sync(GamePath(shown.root, codes[:agreed], shown.score, suspect=suspect))
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
                    self.hidden.base = self._resync_options[target.root].copy()
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
            self.hidden.track(self.game, move, e)
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
        self._unsure = {}
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

    # ----- unclear readings ---------------------------------------------------------------

    def _history_rival(self, chosen: GamePath, kept: list[GamePath]) -> GamePath | None:
        """A path close to ``chosen`` (within the margin) whose moves before this reading
        differ in what the board shows, or in how many there were and what the stacks hide,
        when announcing ``chosen`` would rewrite or extend the moves announced so far: the
        reading tells what it shows, but not which history led there, and a lift may still
        tell, so nothing is announced from it. Paths that differ only in a cup now covered
        with as many moves, or that reach the very same position in another number of moves,
        are announced with those plies reported unsure: no later reading can tell them apart."""
        assert chosen.before is not None
        if chosen.before.line() == self._shown.line():
            return None
        floor = chosen.score - self.settings.margin
        shows: tuple[tuple[int, ...], int, int] | None = None
        for path in kept:
            if path is chosen or path.score < floor or path.line() == chosen.line():
                continue
            if shows is None:
                shows = board_shows(self._goto(chosen.root, chosen.codes))
            other = board_shows(self._goto(path.root, path.codes))
            if other[:2] != shows[:2] or (len(path.codes) != len(chosen.codes) and other[2] != shows[2]):
                return path
        return None

    def _unclear(
        self, observation: Observation, best: GamePath, groups: list[Group], rival: GamePath | None = None
    ) -> list[Event]:
        assert best.view is not None and best.explanation is not None
        ok, contradicting, _ = fits(best.view, best.explanation, self.settings)
        if not ok:
            reason = unexplained_reason(best.view, contradicting)
        elif (
            rival is not None
            and groups[0][0] - (groups[1][0] if len(groups) > 1 else -float("inf")) >= self.settings.margin
        ):
            reason = (
                f"the board shows {self._describe(groups[0][1][0])}, but not which moves led there: "
                f"{self._history(groups[0][1][0])} or {self._history(rival)}"
            )
        elif len(groups) > 1 and groups[0][0] - groups[1][0] < self.settings.margin:
            reason = f"cannot tell {self._describe(groups[0][1][0])} from {self._describe(groups[1][1][0])}"
        else:
            reason = (
                f"{self._describe(best)} explains the board only if earlier readings were wrong "
                "on several squares: waiting for a reading that confirms it"
            )
        top = groups[0][0]
        candidates = [
            {"explanation": self._describe(members[0]), "score": round(score - top, 2)}
            for score, members in groups[:3]
        ]
        return self._needs_attention(reason, observation, contradicting, candidates)

    def _history(self, path: GamePath) -> str:
        """The moves a path plays since the announced game (before this reading)."""
        assert path.before is not None
        shown = self._shown.codes if path.root == self._shown.root else ()
        codes = path.before.codes
        return " ".join(code_text(code) for code in codes[common_prefix(shown, codes) :]) or "no move"

    def _describe(self, path: GamePath) -> str:
        """What a path says happened since the announced game: moves, or an action."""
        e = path.explanation
        assert e is not None and path.before is not None
        shown = self._shown.codes if path.root == self._shown.root else ()
        moved = e.kind in (Kind.MOVE, Kind.TWO_MOVES, Kind.NO_CHANGE)
        codes = path.codes if moved else path.before.codes
        texts = [code_text(code) for code in codes[common_prefix(shown, codes) :]]
        if moved:
            return " ".join(texts) or "no change"
        action = f"{e.kind} {e.action.text()}" if e.action is not None else str(e.kind)
        return " ".join([*texts, action])

    def _report_unsure(self) -> list[Event]:
        """Plies that another live path plays differently while it is close to the best: say
        so once. The latest move is in doubt while a path is within the margin; an earlier
        one while a path is within ``settings.doubt`` (a single reading, however sure, cannot
        tell it: the square that told it was not read again, say the cup was covered)."""
        shown = self._shown
        best = self._beam[0].score
        unsure: dict[int, set[str]] = {}
        latest = len(shown.codes) - 1
        for path in self._beam:
            if path.score < best - self.settings.doubt:
                continue
            if path.root != shown.root:
                # another start (the other side to move after a resync, or a new game):
                # nothing announced since the start is sure
                for i, code in enumerate(shown.codes):
                    unsure.setdefault(self._base_ply + i + 1, {code_text(code)}).add("another start")
                continue
            common = common_prefix(path.codes, shown.codes)
            if common == len(shown.codes) or (common == latest and path.score < best - self.settings.margin):
                continue
            # the announced moves this path replaces (aligned as a diff: a path that adds
            # or drops moves somewhere agrees again on the moves after them)
            matcher = difflib.SequenceMatcher(None, shown.codes[common:], path.codes[common:], autojunk=False)
            for tag, s0, s1, p0, p1 in matcher.get_opcodes():
                if tag == "equal":
                    continue
                others = [code_text(code) for code in path.codes[common + p0 : common + p1]] or ["no move"]
                for i in range(common + s0, common + s1):
                    texts = unsure.setdefault(self._base_ply + i + 1, {code_text(shown.codes[i])})
                    texts.update(others)
        for i in shown.suspect:
            if i < len(shown.codes):
                unsure.setdefault(self._base_ply + i + 1, {code_text(shown.codes[i])}).add(
                    "read against the board when it was made"
                )
        if self._guard and len(shown.codes) >= self._guard:
            first = shown.codes[self._guard - 1]
            unsure.setdefault(self._guard, {code_text(first)}).add(
                "the end of a move under way at the resync"
            )
        unsure = {ply: texts for ply, texts in unsure.items() if len(texts) > 1}  # not just aligned apart
        new = {ply: texts for ply, texts in unsure.items() if self._unsure.get(ply) != texts}
        self._unsure = unsure
        if not new:
            return []
        asked = "; ".join(f"ply {ply}: {' or '.join(sorted(texts))}" for ply, texts in sorted(new.items()))
        return [
            self._event(
                EventType.NEEDS_ATTENTION,
                reason=f"not sure which move was made ({asked}): later readings or a lift will tell",
                detail={"unsure": {str(ply): sorted(texts) for ply, texts in sorted(unsure.items())}},
            )
        ]

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

    # ----- asking for help ----------------------------------------------------------------

    def _ask_for_help(self, observation: Observation, likelihood: Likelihood) -> list[Event]:
        """No path has explained the board for ``RESYNC_AFTER`` readings and the reading is too
        unsure to restart from: light the squares where the camera disagrees with the game and
        say what each shows and what the game has there. The player puts the board right (a
        reading the game explains closes the request) or accepts what the camera sees
        (``accept_board``). The request is said again only when the squares change."""
        view = View(self.game.position, None, likelihood=likelihood)
        differ = {
            sq: (view.current[r], view.reading[r])
            for r, sq in enumerate(view.squares)
            if view.current[r] != view.reading[r]
        }
        if not differ:  # the board shows the game's own tops: nothing to light (yet)
            return self._close_help()
        if self._help is not None and self._help.squares == differ:
            self._help.reading = (observation, likelihood)
            return []
        names = ", ".join(square_name(sq) for sq in differ)
        event = self._event(
            EventType.HELP,
            squares=tuple(square_name(sq) for sq in differ),
            reason=f"the board differs from the game on {names}: put it as the game has it, "
            "or accept what the camera sees",
            position=self.game.position.text(),
            detail={
                "camera": {square_name(sq): self._class_text(read) for sq, (_, read) in differ.items()},
                "game": {square_name(sq): self._class_text(has) for sq, (has, _) in differ.items()},
            },
        )
        self._help = HelpRequest(differ, (observation, likelihood), event)
        return [event]

    def _close_help(self) -> list[Event]:
        """A clear reading answers an open help request: the board was put right (said with
        ``restored`` when nothing else was announced, so the panel stops pointing)."""
        if self._help is None:
            return []
        self._help = None
        return [self._event(EventType.RESTORED, position=self.game.position.text())]

    def _class_text(self, cls: int) -> str:
        top = class_top(cls, self.variant.max_piece)
        return "empty" if top is None else f"{color_name(top[0])} {top[1]}"

    # ----- recovery -----------------------------------------------------------------------

    def _resync(
        self,
        observation: Observation,
        likelihood: Likelihood,
        doubt_from: int | None = None,
        accepted: bool = False,
    ) -> list[Event] | None:
        """Restart from the tops the board shows; stacks whose top is unchanged keep their
        known contents. The side to move is unknown: both are kept until a move tells. Plies
        from ``doubt_from`` on (moves announced out of sight) are reported unsure. Only from a
        reading sure of every square, unless the player ``accepted`` it."""
        if not accepted and float(observation.probabilities.max(axis=1).min()) < RESYNC_CONFIDENCE:
            return None
        max_piece = self.variant.max_piece
        position = self.game.position
        squares = View(position, None, likelihood=likelihood).squares
        tops: dict[Square, tuple[int, int]] = {}
        known: dict[Square, list[tuple[int, int]]] = {}
        for r, sq in enumerate(squares):
            top = class_top(int(likelihood.reading[r]), max_piece)
            if top is None:
                continue
            tops[sq] = top
            if position.top(sq) == top:
                known[sq] = list(position.stack(sq))
        try:
            first = HiddenContents(self.variant, tops, position.turn, known=known)
            second = first.copy(turn=position.turn ^ 1)
            options = [(first, first.start_position()), (second, second.start_position())]
        except CompanionError:
            return None
        record = [m.text() for m in self.game.moves]
        doubted = sorted(set(self._unsure) | set(range(doubt_from or len(record) + 1, len(record) + 1)))
        self.hidden.restart(options[0][0])
        self.game = Game(self.variant, start=options[0][1], headers=self.game.headers)
        self._reset_paths()
        if len(options) > 1:
            self._starts[1] = options[1][1]
            self._resync_options = {0: options[0][0], 1: options[1][0]}
            self._beam.append(GamePath(1, (), 0.0))
        self._unfit = self._unclear_run = 0
        self._attention = None
        self._help = None
        self._pending_event = None
        self._guard = 1
        self.resyncs += 1
        return [
            self._event(
                EventType.RESYNC,
                position=self.game.position.text(),
                reason="the player accepted what the camera sees: the game goes on from it"
                if accepted
                else "the board could not be followed from the last position: "
                "the game goes on from what the board shows",
                detail={
                    "unknown": options[0][0].unknown(),
                    "record": record,
                    "unsure": doubted,
                    **({"accepted": True} if accepted else {}),
                },
            )
        ]

    # ----- a game started mid-way ---------------------------------------------------------

    def _follow_unknowns(self) -> None:
        """Replay the game from the most likely start if what was revealed changed it (the
        paths then restart from the announced game: what a lift showed is now known)."""
        if self.unknowns is None:
            return
        start = self.unknowns.start_position()
        if start == self.game.start:
            return
        game = Game(self.variant, start=start, headers=self.game.headers)
        try:
            for played in self.game.played:
                game.push(played.move, played.timestamp, played.comment)
        except MoveError:
            return  # the moves held need the start they came from: keep it
        # the same game (its consumers hold it), replayed from the better start
        self.game.start, self.game.position, self.game.played = game.start, game.position, game.played
        shown, unsure, guard, unseen = self._shown, self._unsure, self._guard, self._unseen_from
        self._reset_paths()
        self._shown.lifted, self._shown.must_move = shown.lifted, shown.must_move
        self._unsure, self._guard, self._unseen_from = unsure, guard, unseen

    def _event(self, kind: EventType, **fields: Any) -> Event:
        fields.setdefault("ply", self.game.ply)
        return Event(type=kind, timestamp=self._timestamp, **fields)
