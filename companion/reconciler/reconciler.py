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

**Layers.** ``Reconciler`` is built in layers, a module each, each using only those below it
(as python-chess builds its ``Board`` on ``BaseBoard``): ``tracking.PathTracker`` keeps the
paths and scores a reading against them; ``announcing.Announcer`` brings the announced game to
a path and builds the events; ``attention.AttentionKeeper`` reports unclear readings and asks
for help; this module decides, reading by reading, which of these to do, and recovers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from companion.reconciler.accounts import DEFAULT_SETTINGS, PRIOR, Explanation, Kind, Settings
from companion.reconciler.attention import SETTLED_BY_PLAYER, SETTLED_BY_READINGS, AttentionKeeper
from companion.reconciler.decoder import clean, fits
from companion.reconciler.doubts import plies_played_otherwise
from companion.reconciler.events import Event, EventType, Held
from companion.reconciler.hidden import HiddenCups
from companion.reconciler.likelihood import Likelihood, most_two
from companion.reconciler.paths import (
    Candidate,
    GamePath,
    Lasting,
    LineKey,
    board_shows,
    code_text,
    common_prefix,
    group_by_claim,
    lead,
    lead_past_side,
    lead_past_sizes,
    lead_past_unseen_cups,
    moves_played_otherwise,
    presumed_lawful,
    reads_every_move,
    seen_missing,
)
from companion.reconciler.referee import ActionKind
from companion.reconciler.repeats import fresh_squares
from companion.reconciler.resync import replayed_from, replayed_with_placement, restart_options
from companion.reconciler.unknowns import HiddenContents, warm_up
from companion.rules.codes import MoveCode, code_to
from companion.rules.game import Game
from companion.rules.move import Move, Placement
from companion.rules.position import Position
from companion.rules.square import Square
from companion.rules.variant import CLASSIC, Variant
from companion.vision.observation import Observation

RESYNC_AFTER = 2  # readings in a row that no decent path explains before recovering
LOST_SQUARES = 3  # squares no path explains that mean more happened than a reading can show
RESYNC_CONFIDENCE = 0.8  # every square must be read at least this sure to restart from the tops
HELP_AFTER = 2  # unclear readings in a row before the referee asks for help
ENDINGS = (EventType.WIN, EventType.LOSS, EventType.DRAW)
PROVISIONAL_LEAD = 2.0
"""Nats (about 7 to 1) by which the best account must lead on a still second look to be played
unsure rather than asked about (``_likelier_on_a_still_look``). The seen bench's still looks
left unclear led by 2.68 (bench-31's 3b1), 2.59 (bench-32's b3-d1) and 2.25 (bench-37's
b1-d1), each the move made; a cup read 0.6 against 0.35 empty leads by about 0.9 and is no
move to play (``test_still_board``)."""
HANDS_TOLD = 2  # times the board was hidden (a hand each) that the moves of one reading can use
UNPLAYABLE = (
    "the readings since leave no line that shows what the camera read then: nothing to confirm, "
    "the plies stay in doubt"
)


def hands_to_spare(chosen: GamePath, kept: list[GamePath]) -> None:
    """Mark the move ``chosen`` adds on a reading the board was hidden for more often than one
    move needs (``HANDS_TOLD``), on every kept path that plays it, as in doubt for good: the
    hands to spare may each have been a move, and moves out of sight can leave the board as
    one move leaves it (a cup moved twice, a cup placed and covered). Blind seed 243: White's
    a1-b1, Black's 2a1 and White's a3-a1 showed as a3-b1 (the a1 stack looks the same); in doubt
    because of a misread elsewhere, then "settled" by a still look that read the misread
    square again. Nothing read later tells: the board is the same either way. A hand hovering
    over one move costs its ply this doubt, never a move."""
    e, before = chosen.explanation, chosen.before
    if e is None or before is None or e.kind is not Kind.MOVE:
        return
    played = len(chosen.codes)
    index = frozenset(range(len(before.codes), played))
    for path in kept:
        if path.root == chosen.root and path.codes[:played] == chosen.codes:
            path.hold_unsure(Lasting.SPARE_HANDS, index)


class Reconciler(AttentionKeeper):
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
        self.hidden = HiddenCups(unknowns)
        self._timestamp = 0.0
        self._attention = None
        self._attention_event = None
        self._pending_event = None
        self._unfit = 0  # readings in a row that no path explains
        self._unclear_run = 0  # readings in a row left unclear (nothing announced from them)
        self._out_of_sight = False  # the board was hidden for more moves than a reading tells:
        #                             nothing is announced until the game restarts from it
        self._help = None
        self._confirm_asked = set()
        self._doubt_event = None
        self.corrections = 0  # moves withdrawn by corrections so far
        self.resyncs = 0
        self._explained = {}
        self._views = {}
        self._reach = {}
        self._weighed = {}
        self._last_probs: np.ndarray | None = None  # the latest reading's class probabilities
        self._fresh = np.ones(self.variant.size**2, dtype=bool)  # (set by every reading)
        self._still = False
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
    def attention(self) -> Event | None:
        """The request the referee holds open, None when it asks for nothing: the help request
        (``help_squares``), or the unclear reading it last reported, until a reading is clear."""
        if self._help is not None:
            return self._help.event
        return self._attention_event if self._attention is not None else None

    @property
    def held(self) -> Held:
        """Everything the referee holds open now, for a display to show in its own order of
        urgency after each batch of events (``Held``)."""
        return Held(
            illegal=self.awaiting_restore,
            request=self._help.event if self._help is not None else None,
            unclear=self._attention_event if self._attention is not None else None,
            doubt=self._doubt_event if self._unsure else None,
        )

    @property
    def help_squares(self) -> dict[Square, tuple[int, int]] | None:
        """While the referee asks for help: each square where the camera disagrees with the
        game, as (the class the game has there, the class the camera reads); else None."""
        return dict(self._help.squares) if self._help is not None else None

    def accept_board(self) -> list[Event]:
        """The player's answer to a help request: the board is as the camera sees it. A kept
        path that shows exactly that board, every move of it shown by a reading, is played
        (``_adopt_view``: its moves, the history kept); else the game restarts from the
        camera's last reading (a ``resync``, hidden cups kept from history where the top did
        not change), however unsure the reading. Nothing
        when no help is asked for, a ``needs-attention`` when the reading is no possible board."""
        if self._help is None:
            return []
        observation, likelihood = self._help.reading
        adopted = None if self._out_of_sight else self._adopt_view(likelihood)
        if adopted is not None:
            return adopted
        if self._help.confirm:  # (asked about a board that stood still, read anew since: the
            # lines it asked about moved on, and it is no board to restart from; closed, so
            # the panel does not stay lit for a request no answer can settle)
            return self._close_help(why=UNPLAYABLE)
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
    def paths(self) -> tuple[GamePath, ...]:
        """The ways the game may have gone that the referee still weighs, the most likely
        first: each path's moves, score and what it holds open (a cup in the air, an illegal
        action, moves unsure for good). For a display or a log that shows why the referee is
        unsure; the referee's own state, to read, not to change."""
        return tuple(self._beam)

    @property
    def unsure(self) -> dict[int, list[str]]:
        """Plies (1-based) of the announced game that a path within the margin of the best
        plays differently, with the moves those paths play there."""
        return {ply: sorted(texts) for ply, texts in self._unsure.items()}

    def feed(self, observation: Observation) -> list[Event]:
        """Take one stable observation; return the events it causes."""
        self._timestamp = observation.timestamp or self._clock()
        if self._help is not None:  # (a hand since the request: the board may have been put right)
            self._help.hands += observation.hidden + int(observation.occluded)
        if observation.occluded:
            return []
        if observation.moved:
            return self._needs_attention("the board or the camera moved: calibrate again", observation)
        return self._track(observation)

    # ----- one reading: what to announce from it --------------------------------------------

    def _track(self, observation: Observation, restarted: bool = False) -> list[Event]:
        likelihood = Likelihood(observation, self.settings.outlier)
        self._likelihood = likelihood
        self._still = observation.still
        if not restarted:
            self._fresh = fresh_squares(self._last_probs, likelihood.probs)
            self._last_probs = likelihood.probs
        self._explained = {}
        self._views = {}
        self._reach = {}
        self._weighed = {}
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
            if bound is not None:
                start, slack = self._weighed_reach(path, bound.current, bound.base_row, bound.slack)
                if start + most_two(slack) - PRIOR[Kind.TWO_MOVES] < floor:
                    continue
            explained = self._explained.get(line)
            ranked: list[Explanation] | None = None
            if explained is None and bound is not None and bound.never_clean(self.settings.clean):
                _, view, over = self._view(path, likelihood)  # (its single accounts are not needed)
            else:
                view, over, ranked = explained or self._explained_now(path, likelihood)
            start, slack = self._weighed_reach(path, view.tops.current, view.base_row, view.slack_array)
            best_two = start + most_two(slack) - PRIOR[Kind.TWO_MOVES]
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
                least = kept_floor - start + PRIOR[Kind.TWO_MOVES]
                extra += self._candidates(path, likelihood, two=True, least=least)
        if extra:
            children = self._children(candidates + extra)
        best = children[0]
        if not restarted:
            replayed = self._start_placing(children)
            if replayed is not None:
                # the stacks hide another of the starts still open: the game goes on from it
                # (the same moves, every top the same) and the reading is scored again
                self._replace_start(replayed)
                return self._track(observation, restarted=True)
        assert best.view is not None and best.explanation is not None
        fit, contradicting, _ = fits(best.view, best.explanation, self.settings)
        self._unfit = 0 if best.decent else self._unfit + 1
        if not best.decent and (
            self._unfit >= RESYNC_AFTER or (not fit and len(contradicting) >= LOST_SQUARES)
        ):
            resynced = self._resync(observation, likelihood)
            if resynced is not None:
                return resynced
        kept = children
        groups = group_by_claim(kept)
        margin = lead(groups)
        chosen = self._representative(groups[0][1])
        weighed, said = kept, groups  # the paths whose claims can hold the chosen one back
        if margin < self.settings.margin and self._shown.pending is None:
            # no accusation without certainty: an illegal action that does not beat every
            # lawful account by the margin holds none of them back; the best lawful one is
            # weighed against the other lawful ones, the accusation kept as a path
            presumed = presumed_lawful(kept, self.settings.margin)
            if presumed is not None:
                weighed, lawful = presumed
                chosen = self._representative(lawful[0][1])
                margin = lead(lawful)
                if chosen.decent:  # (else the accusation stays what the reading is unclear about)
                    said = lawful
        if (
            margin < self.settings.margin
            and chosen.explanation is not None
            and chosen.explanation.kind is Kind.MOVE
        ):
            # a doubt confined to the size of the cup just placed: the likelier size is played,
            # reported unsure while the other is close, and later readings of it settle it
            margin = lead_past_sizes(weighed, chosen)
            if margin < self.settings.margin:
                # nor by an illegal action resting on a cup no second reading showed (a ghost
                # read once and "moved" away by it): kept, but it holds back no move
                margin = lead_past_unseen_cups(weighed, chosen)
        elif (
            margin < self.settings.margin
            and chosen.explanation is not None
            and chosen.explanation.kind in (Kind.NO_CHANGE, Kind.LIFT)
        ):
            # a size placed earlier still in doubt (repeated readings of the cup do not settle
            # it, ``repeats.py``): the other size's line tells this reading only through an
            # action on that cup (the lead's size put on it illegally, the other size lifted),
            # which rests on the doubt already reported; it holds back nothing the lead says
            margin = lead_past_sizes(weighed, chosen)
        if (
            margin < self.settings.margin
            and self._resync_options
            and chosen.explanation is not None
            and chosen.explanation.kind is Kind.MOVE
        ):
            # the first move after a resync, legal from one start, out of turn from the other:
            # the same board either way, and only the side to move at the resync in doubt; the
            # move is played (reported unsure: the end of a move under way at the resync), the
            # other start kept until later moves tell
            margin = max(margin, lead_past_side(weighed, chosen))
        rival = self._history_rival(chosen, weighed)
        clear = chosen.decent and margin >= self.settings.margin and rival is None
        asked = self._help is not None and not (clear and self._seen_whole(chosen))
        if asked and clear:
            asked = seen_missing(chosen, self._shown) or self._doubt_squares_guessed_across_help(chosen, kept)
        if asked:
            # asked for help, the referee said it could not follow, and play may have gone on
            # while the player looked: nothing is announced but what the reading shows seen
            # whole or explained square by square (not even moves every path agrees on)
            clear = False
        if observation.hidden > HANDS_TOLD and not (clear and self._seen_whole(chosen)):
            # hidden more often than the moves a reading can tell need: more moves may have
            # been made out of sight than the two searched, and any account of them is a guess
            self._out_of_sight = True
        elif clear and chosen.explanation is not None and chosen.explanation.kind is Kind.NEW_GAME:
            self._out_of_sight = False
        if self._out_of_sight:
            # the game restarts from the board as soon as a reading is sure enough; until then
            # nothing is announced and the player is asked at once
            resynced = self._resync(observation, likelihood)
            if resynced is not None:
                return resynced
            clear = False
            self._unfit = max(self._unfit, RESYNC_AFTER)
        wrong_side = self._wrong_side_after_unseen(chosen, observation.hidden > HANDS_TOLD)
        if wrong_side and clear:
            resynced = self._resync(observation, likelihood, doubt_from=self._doubt_from())
            if resynced is not None:
                return resynced
        if observation.still and self._help is None and not wrong_side and not self._out_of_sight:
            # a still second look, the last the board gives: the likelier account is played
            # and reported unsure rather than waited on or kept quiet
            likelier = self._likelier_on_a_still_look(chosen, weighed, kept, margin, rival)
            if likelier is not None:
                chosen, clear = likelier, True
        if clear and not wrong_side:
            if observation.hidden > HANDS_TOLD:
                hands_to_spare(chosen, kept)
            events = self._announce(chosen, margin)
            self._attention = None
            self._unclear_run = 0
            # (a second look at the board nothing touched answers no request to confirm it)
            confirming = self._still and self._help is not None and self._help.confirm
            closed = [] if confirming else self._close_help()
            events = self._answered(events, closed)  # (a move said is answer enough: the panel shows it)
        else:
            # (the side not to move seen acting after moves out of sight, on a reading too
            # unsure to restart from: the next reading is waited for)
            if self._help is not None and self._help.confirm:
                # a board asked about while it stood still is read anew: the request goes, and
                # the unclear reading takes its place on the panel (said now; or, as a repeat,
                # said already since the request opened: a request opens on a clear reading)
                self._help = None
            events = self._unclear(observation, best, said, rival)
            if not wrong_side and not self._out_of_sight and not asked:
                events += self._announce_agreed(kept)
            self._unclear_run += 1
            if self._unfit >= RESYNC_AFTER or self._unclear_run >= HELP_AFTER:
                # lost and the reading too unsure to restart from, or unclear for as long (a
                # restart would throw away the paths that a later reading may still settle):
                # the player is asked rather than left waiting
                asked_now = self._ask_for_help(observation, likelihood, kept)
                if self._help is not None:  # (the request, new or kept, is what the panel shows)
                    events = [e for e in events if e.type is not EventType.NEEDS_ATTENTION] + asked_now
                else:  # (nothing to ask: a request closed, and the reading is still unclear)
                    events = asked_now + events
        for path in kept:  # only the latest step's parents are kept
            if path.before is not None:
                path.before.before = None
                path.before.view = None
        if self._remap:
            kept = self._rebase(kept)
        elif clear and not wrong_side:
            kept = self._settle_start(kept)
        self._beam = kept
        events = self._settled(events)
        events += self._close_confirm_settled()
        if clear and not wrong_side:
            # plies stay in doubt and the board shows what may tell them (the camera reads a
            # line in doubt, or the game's board on a second look): the player is asked to
            # confirm it
            events += self._confirm_doubts(observation, likelihood)
        return events

    def _likelier_on_a_still_look(
        self,
        chosen: GamePath,
        weighed: list[GamePath],
        kept: list[GamePath],
        margin: float,
        rival: GamePath | None,
    ) -> GamePath | None:
        """The path to play, its close rivals' plies reported unsure, on a still second look
        (``Observation.still``) left unclear: ``chosen``, or the best path ``weighed`` when
        ``chosen`` only keeps the announced game (every account of a still look is "no
        change", so the line that saw a move on the first look and the one that did not are
        one claim, and the announced one was kept in silence; an accusation is no account
        to play). Played when the one move it
        adds to the announced game was seen whole on the first look, it explains the board
        (``fits``), no move of it is made up (``decent``, ``reads_every_move``, not
        ``seen_missing``), and it leads every other claim and every history rival by
        ``PROVISIONAL_LEAD``; None otherwise.

        The second look is the last the board gives: repeats of it weigh less and less
        (``repeats.py``), and the next evidence comes with the next move. Waiting there left
        the referee lost for the whole board and asking for help a player may never give
        (bench-31 at 647b118: Black's 3b1 read 0.80 beside c4's Black 4 read a 3, 2.7 nats
        ahead of "ply 6 was 3c4, no cup on b1" on the still look, lost 5.2 s). The likelier
        account is played, as a size in doubt is, and stays unsure until later readings
        settle it by ``doubt`` or a ``correction`` gives the other. Only when every path close
        to it plays an announced ply otherwise, so that the doubt is said: a path with the
        same moves and one more, or a cup in the air, would be a doubt nobody hears."""
        shown = self._shown
        lawful = next((path for path in weighed if path.pending is None), chosen)  # (no accusation)
        if chosen.before is not None and chosen.before.line() == shown.line() and lawful is not chosen:
            chosen = lawful
            rival = self._history_rival(chosen, weighed)
        e, before = chosen.explanation, chosen.before
        if e is None or before is None or e.kind is not Kind.NO_CHANGE or chosen.root != shown.root:
            return None
        if len(before.codes) != len(shown.codes) + 1 or not self._shown_but_for_doubts(before.codes[:-1]):
            return None  # (nothing to play, or more than the one move the first look saw)
        if (
            not chosen.decent
            or chosen.pending is not None
            or chosen.lifted is not None
            or chosen.must_move is not None
            or chosen.forfeit is not None
            or not reads_every_move(chosen, shown)
            or seen_missing(chosen, shown)
        ):
            return None
        assert chosen.view is not None
        ahead = margin if rival is None else min(margin, chosen.score - rival.score)
        if ahead < PROVISIONAL_LEAD or not fits(chosen.view, e, self.settings)[0]:
            return None
        floor = chosen.score - self.settings.margin
        said = all(
            path is chosen
            or path.score < floor
            or (path.root == chosen.root and plies_played_otherwise(path, chosen, self._base_ply))
            for path in kept
        )
        return chosen if said else None

    def _shown_but_for_doubts(self, codes: tuple[int, ...]) -> bool:
        """Whether ``codes`` are the announced game's moves, but perhaps at plies it holds in
        doubt (the announced game follows the likelier line there: ``_leads_in_doubt``)."""
        shown = self._shown.codes
        if codes == shown:
            return True
        if len(codes) != len(shown):
            return False
        otherwise = {
            self._base_ply + i + 1 for i, (a, b) in enumerate(zip(codes, shown, strict=True)) if a != b
        }
        return otherwise <= set(self._unsure)

    def _seen_whole(self, path: GamePath) -> bool:
        """Whether ``path`` (the account about to be announced) says at most one action
        happened since the announced game: nothing announced late, no two moves at once."""
        assert path.before is not None and path.explanation is not None
        return path.before.line() == self._shown.line() and path.explanation.kind is not Kind.TWO_MOVES

    def _doubt_squares_guessed_across_help(self, chosen: GamePath, kept: list[GamePath]) -> bool:
        """Whether ``chosen`` (clear, announcing moves late while a help request is open) is a
        guess, doubting the squares it guessed on the kept paths of its line when it is: it
        writes off a square of the reading as misread, one the request did not light with what
        the camera reads there now (a square lit is one the player was
        asked about, not one the moves made meanwhile are fitted to). Three moves made while
        the player looked can show as one made-up move and a misread (bench-27 at 2ff9e95:
        c1-a1, 1b2, a1-b3 as c1-b3, b2 read against it); the request's own reading settled
        by the next one, and the moves made after it, explain every other square. The
        squares are then doubted on every kept path of that line, as a square read against
        two moves at once is: the next reading re-reads them as the paths have them (a
        passing misread: the moves are announced then), or the paths are tainted (the same
        reading again, or a made-up move of their own to show it), and with no decent path
        left the referee restarts from the board or keeps asking."""
        view, e, request = chosen.view, chosen.explanation, self._help
        assert view is not None and e is not None and chosen.before is not None and request is not None
        _, contradicting, misread = fits(view, e, self.settings)
        squares = set(contradicting) | ({misread} if misread is not None else set())
        lit = {sq for sq, (_game, camera) in request.squares.items() if view.reading[view.row[sq]] == camera}
        squares -= lit
        if not squares:
            return False
        since = len(chosen.before.codes)
        doubt = tuple((sq, int(view.reading[view.row[sq]]), since) for sq in sorted(squares))
        for path in kept:
            if path.line() == chosen.line():
                path.doubt = tuple(dict.fromkeys(path.doubt + doubt))
        return True

    def _wrong_side_after_unseen(self, path: GamePath, out_of_sight: bool = False) -> bool:
        """Whether ``path`` (the account about to be announced) has the side not to move act
        (an illegal action, or a lift of its cup) right after moves out of sight: announced
        and not yet followed by a move seen on its own, or about to be announced late on a
        path that needed two moves at once lately, or seen on a reading ``out_of_sight`` (the
        board hidden more often than one action needs). A cup moved twice out of sight looks
        like one move, so one more move made out of sight is then as likely as the guessed
        moves and an illegal action: rather ask than guess (the reconciler resynchronises).
        The reading's own hands were not asked: blind seed 146 (four moves, Black's c1-a1 and
        a1-d1 with White's d2-d3 and d3-d2 between) was called an illegal c1-d1, one action
        seen whole, and the next reading turned it into "1d1 c1-d1", two wrong moves."""
        e, before = path.explanation, path.before
        if e is None or before is None or e.action is None or e.kind not in (Kind.ILLEGAL, Kind.LIFT):
            return False
        if before.root != self._shown.root or before.pending is not None or self._resync_options:
            return False  # (right after a resync the side to move is open anyway)
        late = before.unseen > 0 and len(before.codes) > len(self._shown.codes)
        if self._unseen_from is None and not late and not out_of_sight:
            return False
        return e.action.color != self._goto(before.root, before.codes).turn

    def _doubt_from(self) -> int:
        """The first ply of the announced game the moves out of sight may have gone wrong at."""
        ply = self.game.ply + 1
        return ply if self._unseen_from is None else min(self._unseen_from, ply)

    def _settled(self, events: list[Event], why: str = SETTLED_BY_READINGS) -> list[Event]:
        """The end of every step that changes the beam: the plies in doubt reported, hidden
        cups settled, the unknown contents followed after a move."""
        reported = self._report_unsure(why)
        events += reported
        self._note_doubt_news(events, reported)
        if self._unsure:  # a game decided with plies still in doubt: the result says which
            still = sorted(self._unsure)
            events = [
                replace(e, detail={**e.detail, "unsure": still}) if e.type in ENDINGS else e for e in events
            ]
        self.hidden.settle()
        if self.unknowns is not None and any(e.type is EventType.MOVE for e in events):
            self._follow_unknowns()
        return events

    # ----- recovery -----------------------------------------------------------------------

    def _adopt_view(self, likelihood: Likelihood) -> list[Event] | None:
        """The player says the camera sees the board right: when a kept path from the announced
        start shows exactly what it reads (its referee waiting for nothing, none of its moves
        made up to explain a misread, each shown by a reading: ``_paths_showing``), the best
        such path is played (its moves announced
        late) and every path that shows anything else is dropped; the history is kept, no
        resync. None when no path shows it. A doubted path is not played either: a square of
        the latest reading was read against it (a chain the help guard holds back, say), and
        only the next reading tells whether that was a misread; restarting from the camera's
        view, which the player vouched for, guesses no moves."""
        shows = self._paths_showing(likelihood)
        if not shows:
            return None
        best, ply = shows[0], self.game.ply
        best.hold_unsure(Lasting.ALIKE, self._told_apart_by_no_board(best))
        why = SETTLED_BY_PLAYER if self._help is not None and self._help.confirm else SETTLED_BY_READINGS
        events = self._sync(best)
        if best.unseen > 0 and any(e.type is EventType.MOVE for e in events):
            self._note_unseen(None, ply, late=True)
        self._beam = shows
        self._unfit = self._unclear_run = 0
        self._attention = None
        closed = self._close_help(accepted=True)
        return self._settled(self._answered(events, closed), why)  # (moves said are answer enough)

    def _told_apart_by_no_board(self, best: GamePath) -> frozenset[int]:
        """The moves of ``best`` (indices) that a line no longer kept plays otherwise while it
        shows the same tops: a line kept (or the announced one) with a ply in doubt played as
        one of the moves said in doubt there, the moves after it as they were. Accepting what
        the camera sees confirms the board, not which of the lines that show it was played; a
        line kept that shows it stays in the beam and in doubt (``unsure_plies``), but one left
        out for want of room is gone (bench-32: "2b3 ... b3-d1" and "3b3 ... 2d1" show the
        same board once b2-b3 covers b3; the first was crowded out, and accepting the second
        settled its "2d1", a wrong move held to the end of the game)."""
        target = board_shows(self._goto(best.root, best.codes))[0]
        bases = {p.codes: p for p in [self._shown, *self._beam] if p.root == best.root and p.pending is None}
        out: frozenset[int] = frozenset()
        for ply, texts in self._doubted_moves().items():
            i = ply - self._base_ply - 1
            for codes in bases:
                if not 0 <= i < len(codes):
                    continue
                for line in self._lines_with(best.root, codes, i, texts):
                    if line not in bases and board_shows(self._goto(best.root, line))[0] == target:
                        out |= moves_played_otherwise(best.codes, line, len(best.codes))
        return out

    def _doubted_moves(self) -> dict[int, set[str]]:
        """Each ply in doubt now or said in doubt since it last settled, with the moves said
        there (texts)."""
        doubted = {ply: set(texts) for ply, texts in self._unsure.items()}
        for ply, (_announced, texts) in self._said.items():
            doubted.setdefault(ply, set()).update(texts)
        return doubted

    def _lines_with(
        self, root: int, codes: tuple[MoveCode, ...], at: int, texts: set[str]
    ) -> list[tuple[MoveCode, ...]]:
        """``codes`` with the move at index ``at`` replaced by each legal move named in
        ``texts`` or onto the same square (a doubt left out for want of room names no move,
        and a doubt said and settled since was said with moves that are forgotten: the cup
        read on that square is what was in doubt), and the moves after it played again by
        their texts (a placement's reserve stack may differ); lines where one of them is no
        longer legal are left out."""
        legal = self._goto(root, codes[:at]).legal_codes()
        to = code_to(codes[at])
        swaps = [c for c in legal if c != codes[at] and (code_text(c) in texts or code_to(c) == to)]
        lines = [self._played_again(root, (*codes[:at], swap), codes[at + 1 :]) for swap in swaps]
        return [line for line in lines if line is not None]

    def _played_again(
        self, root: int, head: tuple[MoveCode, ...], rest: tuple[MoveCode, ...]
    ) -> tuple[MoveCode, ...] | None:
        """``head`` followed by the moves of ``rest`` found again by their texts; None when one
        of them is not legal there."""
        line = head
        for code in rest:
            text = code_text(code)
            found = next((c for c in self._goto(root, line).legal_codes() if code_text(c) == text), None)
            if found is None:
                return None
            line = (*line, found)
        return line

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
        options = restart_options(self.game, likelihood, self.hidden)
        if options is None:
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
        self._out_of_sight = False
        self._attention = None
        self._help = None
        self._confirm_asked = set()
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
        game = replayed_from(self.game, start)
        if game is None:
            return  # the moves held need the start they came from: keep it
        self._replace_start(game)

    def _start_placing(self, kept: list[GamePath]) -> Game | None:
        """The announced game replayed from another start the hidden contents still allow,
        when a path within the margin of the best says this reading shows the side to move
        placing a cup its start's external stacks lack (``replayed_with_placement``): under
        that start it is a move, not an illegal action. Only from the announced game, and
        not while both sides to move are kept after a resync (their starts are two)."""
        contents = self.unknowns
        if contents is None or self._resync_options or self._shown.pending is not None:
            return None
        floor = kept[0].score - self.settings.margin
        lawful: list[Move] = []  # placements ranked above: a start that rules one out is not taken
        for path in kept:
            e, before = path.explanation, path.before
            if path.score < floor:
                break
            if (
                e is not None
                and e.kind is Kind.MOVE
                and e.codes
                and before is not None
                and before.line() == self._shown.line()
            ):
                move = self.game.position.move_from_code(e.codes[0])
                if isinstance(move, Placement):
                    lawful.append(Move.place(move.size, move.to_square))
                continue
            if (
                e is None
                or e.kind is not Kind.ILLEGAL
                or e.action is None
                or e.action.kind is not ActionKind.PLACE
                or e.action.to is None
                or before is None
                or before.line() != self._shown.line()
                or before.pending is not None
            ):
                continue
            piece = (e.action.color, e.action.size)
            replayed = replayed_with_placement(self.game, contents, piece, e.action.to, lawful)
            if replayed is not None:
                return replayed
        return None

    def _replace_start(self, game: Game) -> None:
        """Follow ``game``, the announced game replayed from a better start (its moves and
        tops the same): the paths restart from it, the referee's state and doubts kept."""
        # the same game (its consumers hold it), replayed from the better start
        self.game.start, self.game.position, self.game.played = game.start, game.position, game.played
        shown, unsure, said = self._shown, self._unsure, self._said
        guard, unseen = self._guard, self._unseen_from
        self._reset_paths()
        self._shown.lifted, self._shown.must_move = shown.lifted, shown.must_move
        self._shown.faint = shown.faint
        self._unsure, self._said, self._guard, self._unseen_from = unsure, said, guard, unseen
