"""The paths the reconciler keeps, and how one reading extends them.

Every path is one way the game may have gone (``paths.GamePath``); each reading grows every
path by every account of it (``decoder.explain``), scored against the path's position, and
the best few are kept. This layer holds the paths and their working positions and does the
scoring; what to announce from them is decided above it (``reconciler.Reconciler``).
"""

from __future__ import annotations

import numpy as np

from companion.reconciler.accounts import PRIOR, Explanation, Kind, Settings
from companion.reconciler.decoder import after_end, explain, two_move_explanations
from companion.reconciler.doubts import plies_played_otherwise
from companion.reconciler.hidden import HiddenCups
from companion.reconciler.likelihood import Likelihood, Reach, View, reach
from companion.reconciler.paths import (
    NEW_ROOT,
    Accounts,
    Candidate,
    GamePath,
    Lasting,
    LineKey,
    PathKey,
    ScoringKey,
    board_shows,
    carry_doubts,
    common_prefix,
    crowded_plies,
    extend,
    game_over,
    game_over_now,
    out_of_turn_from_the_other_start,
    sizes_apart,
)
from companion.reconciler.repeats import Weighing, weigh
from companion.reconciler.unknowns import HiddenContents
from companion.rules.game import Game
from companion.rules.position import Position
from companion.rules.variant import Variant

SECOND_FAULT = 2.0  # log-odds against another illegal action before the board is put right
PER_LINE = 3  # paths kept per line of moves (with different referee states)
RIVALS_KEPT = 2  # lines kept past the width because they hold an announced ply in doubt
SETTLED_MOVES = 2  # after a resync: moves announced from one start before the other may drop


class PathTracker:
    """The lowest layer of ``Reconciler``: the paths, their working positions and the scoring
    of a reading against them. The attributes below are set by ``Reconciler.__init__``."""

    game: Game
    """The game as announced so far."""
    variant: Variant
    settings: Settings
    takeback: bool
    new_game: bool
    hidden: HiddenCups  # a game started mid-way (or re-synchronised): what stacks may hide
    _explained: dict[ScoringKey, Accounts]
    _views: dict[LineKey, View]  # this reading scored against each line's position
    _reach: dict[ScoringKey, Reach]  # lines left unscored this reading: what they could reach
    _fresh: np.ndarray  # squares whose reading changed materially since the one before
    _still: bool  # the reading is a second look at a board nothing touched (``Observation.still``)
    _likelihood: Likelihood  # the reading being scored
    _weighed: dict[GamePath, Weighing]  # by path: this reading weighed for it

    @property
    def unknowns(self) -> HiddenContents | None:
        """What the stacks may hide (a game started mid-way or resynchronised), None when known."""
        return self.hidden.contents

    def _reset_paths(self) -> None:
        """One path: the game as announced (after a new game, a resync, a mid-game reveal)."""
        self._starts: dict[int, Position] = {0: self.game.start, NEW_ROOT: Position(self.variant)}
        self._work: dict[int, tuple[Position, list[int]]] = {}
        codes = tuple(self.game.position.move_codes)
        self._base_ply = self.game.ply - len(codes)
        self._shown = GamePath(0, codes, 0.0)
        self._beam = [self._shown]
        self._unsure: dict[int, set[str]] = {}
        self._said: dict[int, tuple[str | None, set[str]]] = {}  # plies said in doubt: the move
        #                                                            announced then, what was said
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

    def _single_candidates(self, likelihood: Likelihood) -> list[Candidate]:
        """Every path's single-action accounts of the reading (``_candidates``), best path
        first; a line of moves whose best possible account (``decoder.reach``) is already
        ``keep`` behind the best account found is not scored (none of it would be kept).
        In a game started mid-way a lift may show any hidden cup: every line is scored."""
        out: list[Candidate] = []
        top = top_plain = -float("inf")
        for path in self._beam:
            line = (path.root, path.codes, False)
            if line not in self._explained and out and self.unknowns is None:
                bound = self._reach.get(line)
                if bound is None:
                    bound = self._reach[line] = reach(self._goto(path.root, path.codes), likelihood)
                start, slack = self._weighed_reach(path, bound.current, bound.base_row, bound.slack)
                gain = float(slack.sum())  # (every account's gain is within what its squares add)
                plain = path.independent + bound.base
                ended = PRIOR[Kind.AFTER_END]
                if self._dropped(start + min(bound.single, gain), plain + bound.single, top, top_plain) and (
                    self._dropped(start + gain - ended, plain + bound.total_slack - ended, top, top_plain)
                    or not self._over(path)
                ):
                    continue
            found = self._candidates(path, likelihood)
            out += found
            top = max([top, *(c[0] for c in found)])
            top_plain = max([top_plain, *(c[5] for c in found)])
        return out

    def _dropped(self, score: float, plain: float, best: float, best_plain: float) -> bool:
        """Whether a path scoring ``score`` (``plain`` with every reading counted independently)
        is dropped beside the best ones (``best``, ``best_plain``): more than ``keep`` behind
        with repeated readings weighed as correlated (``repeats.py``), or more than ``doubt``
        behind so weighed and more than ``keep`` behind counted independently.

        Repeats weighed make a wrong path fall behind more slowly, and each path kept costs a
        scoring of every reading (the referee was 1.5 to 2 times slower for it). A path past
        ``doubt`` plays no ply that is reported unsure, and one ``keep`` behind counted
        independently is what was dropped before repeats were weighed: such a path is
        contradicted by readings of several squares or by several readings of one, each
        confident, and keeping it for the correlated count alone would only keep a path
        that a wrong move could come from no sooner than it came from before."""
        return score < best - self.settings.keep or (
            score < best - self.settings.doubt and plain < best_plain - self.settings.keep
        )

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
        if two and (over or self._still):
            return []
        if self._still:
            ranked = [e for e in ranked if as_it_was(e, path)]
        weighing = self._weighing(path, view.tops.current, view.base_row)
        base = path.score + weighing.base
        plain = path.independent + view.base
        pending = path.pending is not None and not over
        if not pending and weighing.bound is None:
            return [(base + e.score, path, e, view, over, plain + e.score) for e in ranked]
        row = view.row
        out: list[Candidate] = []
        for e in ranked:
            score = e.score
            if pending:
                # waiting for the board to be put right: the same illegal view again costs nothing
                # more; another illegal action (or a lift) on top of it is a second fault
                if e.kind in (Kind.TAKEBACK, Kind.NEW_GAME):
                    continue
                if e.kind is Kind.ILLEGAL and e.action == path.pending:
                    score += PRIOR[Kind.ILLEGAL]
                elif e.kind in (Kind.ILLEGAL, Kind.LIFT):
                    score -= SECOND_FAULT
            weighed = base + score
            if e.changes:
                weighed += weighing.changed([(row[sq], cls) for sq, cls in e.changes])
            out.append((weighed, path, e, view, over, plain + score))
        return out

    def _weighing(self, path: GamePath, current: np.ndarray, base_row: np.ndarray) -> Weighing:
        """This reading weighed for ``path`` (``repeats.weigh``), kept per path for the reading."""
        cached = self._weighed.get(path)
        if cached is None:
            cached = self._weighed[path] = weigh(
                path.shown, path.repeats, current, self._fresh, self._likelihood, base_row
            )
        return cached

    def _weighed_reach(
        self, path: GamePath, current: np.ndarray, base_row: np.ndarray, slack: np.ndarray
    ) -> tuple[float, np.ndarray]:
        """What the reading adds to ``path`` when no account changes a square (``Weighing.base``,
        the path's score added), and the most changing each square could add
        (``Weighing.slack``): the bounds that spare scoring a line (``Reach``, weighed)."""
        weighing = self._weighing(path, current, base_row)
        return path.score + weighing.base, weighing.slack(slack)

    def _weigh_child(self, child: GamePath, path: GamePath, e: Explanation, view: View) -> None:
        """What ``child`` shows after ``e``, and its repeats (``Weighing.after``)."""
        weighing = self._weighing(path, view.tops.current, view.base_row)
        if not e.changes:
            child.shown, child.repeats = view.tops.current, weighing.keep
            return
        changes = [(view.row[sq], cls) for sq, cls in e.changes]
        shown = view.tops.current.copy()
        for r, cls in changes:
            shown[r] = cls
        child.shown, child.repeats = shown, weighing.after(changes)

    def _explain(
        self, path: GamePath, likelihood: Likelihood, two: bool, least: float
    ) -> tuple[View, bool, list[Explanation]]:
        position, view, over = self._view(path, likelihood)
        if two:
            if over:
                return view, over, []
            changed = view.likeliest_changed(self.settings.changed, self.settings.max_changed)
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
        """The new paths within ``keep`` of the best (and not ``_dropped``), best first, one
        per state, and at most ``PER_LINE`` per line of moves (the line's best referee
        states), ``settings.width`` paths of ``settings.lines`` lines at most; then the best
        line of each announced ply still in doubt that found no room (``RIVALS_KEPT`` at
        most): past the width, or within the margin and past the number of lines. A path
        within the margin of the best left out for want of room even then leaves the plies it
        plays differently unsure on every path kept (``crowded_plies``): nothing can tell them
        again. (Such a line kept as a rival costs a scoring and loses nothing: its plies stay
        unsure either way, and later readings, or a board the player accepts, can tell it.)"""
        candidates.sort(key=lambda c: c[0], reverse=True)
        best, best_plain = candidates[0][0], max(c[5] for c in candidates)
        floor = best - self.settings.keep
        close = best - self.settings.margin  # (a rival a reading cannot tell apart)
        seen: set[PathKey] = set()
        lines: dict[LineKey, int] = {}
        out: list[GamePath] = []
        left_out: list[GamePath] = []  # lines close to the best with no room left for them
        no_room: list[Candidate] = []  # new lines within the margin past the number of lines
        rest: list[Candidate] = []  # past the width
        for at, candidate in enumerate(candidates):
            score, path, e, view, over, plain = candidate
            if score < floor or len(out) == self.settings.width:
                rest = candidates[at:]
                break
            if self._dropped(score, plain, best, best_plain):
                continue
            child = extend(path, e, score, view, over, self.variant.touch_rule)
            child.plain = plain
            key = child.key()
            line = key[:2]
            if (
                key not in seen
                and lines.get(line, 0) < PER_LINE
                and (line in lines or len(lines) < self.settings.lines)
            ):
                seen.add(key)
                lines[line] = lines.get(line, 0) + 1
                self._adopt_child(child, path, e, view)
                out.append(child)
                continue
            if score >= close:
                left_out.append(child)
                if line not in lines:
                    no_room.append(candidate)
        out += self._rivals_crowded_out(no_room + rest, best, lines)
        for score, path, e, view, over, _ in rest:
            if score < close:
                break
            left_out.append(extend(path, e, score, view, over, self.variant.touch_rule))
        for rival in left_out:
            if rival.line() not in lines:
                for child in out:
                    child.hold_unsure(Lasting.CROWDED, crowded_plies(child, rival))
        return out

    def _adopt_child(self, child: GamePath, path: GamePath, e: Explanation, view: View) -> None:
        """What a kept child carries from its parent: doubts, what it shows, its repeats."""
        carry_doubts(child, path, e, view, self.settings, self._still)
        self._weigh_child(child, path, e, view)

    def _rivals_crowded_out(
        self, rest: list[Candidate], top: float, lines: dict[LineKey, int]
    ) -> list[GamePath]:
        """The best path of each line left out for room alone (past the width or the number of
        lines, not past what is kept) that plays an announced move differently while it is
        still within ``settings.doubt`` of the best (``top``), ``RIVALS_KEPT`` at most. The ply
        it doubts is settled by readings that put its line behind, never by a beam crowded
        with the leader's own variants (an illegal placement pending, a lift, a move doubted
        on the next square): that would settle a size the reader misreads on every frame
        (bench-26's ply 10, "3d1" for 4d1, 3.5 nats behind when it fell out). Nor is a line
        within the margin lost when the leader's other lines take the number of lines while
        places are free (bench-32's "2b3 ... b3-d1", 3.0 nats behind six lines of "3b3" and
        "4b3": accepting the board it showed later played "3b3 ... 2d1", a 3 held hidden
        under b3's 4)."""
        out: list[GamePath] = []
        shown = self._shown
        for score, path, e, view, over, plain in rest:
            if len(out) == RIVALS_KEPT or score < top - self.settings.doubt:
                break
            child = extend(path, e, score, view, over, self.variant.touch_rule)
            child.plain = plain
            line = child.line()
            if line in lines or child.root != shown.root:
                continue
            if common_prefix(child.codes, shown.codes) == len(shown.codes):
                continue  # (it plays every announced move: no ply of it in doubt)
            lines[line] = 1
            self._adopt_child(child, path, e, view)
            out.append(child)
        return out

    def _representative(self, members: list[GamePath]) -> GamePath:
        """The path to announce the reading from: the one that continues what was announced,
        unless another is better by the margin (then what was announced is corrected), or
        better at all on a line that differs from it only where it is in doubt
        (``_leads_in_doubt``)."""
        best = members[0]
        shown = self._shown.key()
        for path in members:
            if path.score < best.score - self.settings.margin:
                break
            if path.before is not None and path.before.key() == shown and path.decent:
                return best if path is not best and self._leads_in_doubt(best) else path
        return best

    def _leads_in_doubt(self, best: GamePath) -> bool:
        """Whether ``best``, ahead of the path that continues the announced game, continues a
        line that plays otherwise only plies already reported in doubt (``_unsure``): the
        announced game follows the likelier line there (a correction, the plies still in doubt)
        rather than hold its own until a reading tells them by the margin. On the vision bench's
        bench-44 White's 3 on a4, read 0.33 a 2, 0.29 a 4, 0.27 a 3, was played a 4 and held
        so while the 3's line led, 7.2 s of stable frames lost (1.2 s following it). Not on a
        still look: its reading repeats the last one (``repeats.py``), and on bench-44's last
        board the wrong line led on the still look alone, by 0.34 nats, and following it ended
        the game off track."""
        before = best.before
        if self._still or before is None or not best.decent or before.root != self._shown.root:
            return False
        if best.pending is not None or best.lifted is not None or before.pending is not None:
            return False
        otherwise = plies_played_otherwise(before, self._shown, self._base_ply)
        return bool(otherwise) and otherwise <= set(self._unsure)

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

    def _settle_start(self, kept: list[GamePath]) -> list[GamePath]:
        """After a resync both sides to move are kept as starts until moves tell. The other
        start can stay alive at a constant gap for the rest of the game: its first step was two
        moves out of sight (a move of its own the real one covered) or an illegal action, and
        every later move is the same on both; left alone it would make every later ply unsure.
        Once the best path held ``SETTLED_MOVES`` moves before this reading, clear readings
        have kept it on the announced start and the other start is behind it by the margin,
        the other start is dropped, as it is at once
        when the other start wins (``_rebase``)."""
        root, best = self._shown.root, kept[0]
        if not self._resync_options or best.root != root or best.before is None:
            return kept
        if len(best.before.codes) < SETTLED_MOVES:  # (the moves announced before this reading)
            return kept
        floor = best.score - self.settings.margin
        others = [p for p in kept if p.root != root and p.root in self._resync_options]
        if any(p.score >= floor for p in others):
            return kept
        self._resync_options = {}
        return [p for p in kept if p not in others]

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
            if path.before is not None and path.before.line() == chosen.before.line():
                continue  # (the same moves before this reading: what it shows is the lead's to tell)
            if out_of_turn_from_the_other_start(path, chosen):
                continue  # (only the side to move at the resync in doubt: later moves tell)
            if shows is None:
                shows = board_shows(self._goto(chosen.root, chosen.codes))
            other = board_shows(self._goto(path.root, path.codes))
            if (
                len(path.codes) == len(chosen.codes)
                and other[1] == shows[1]
                and sizes_apart(shows[0], other[0])
            ):
                continue  # (cups' sizes in doubt: their later readings tell; reported unsure)
            if other[:2] != shows[:2] or (len(path.codes) != len(chosen.codes) and other[2] != shows[2]):
                return path
        return None


def as_it_was(e: Explanation, path: GamePath) -> bool:
    """Whether ``e`` leaves the board on ``path`` as it was: nothing happened, the same illegal
    view the path waits to see put right, the cup the path has in the air still in the air, or
    a game over. A second look at a board nothing touched (``Observation.still``) is told only
    so: the same reading again is a repeat, and an account that reads it as news ("1a3, then
    taken back" for a path without 1a3) would count it in full where the path that read it
    first counts it as the repeat it is. A cup in the air is told by the lift of it again: "no
    change" from a path with a cup in the air says it was put back (the touch rule's cup that
    must move), and the square it left reads against the path. Told so, a still look at a cup
    held in the air called an illegal action, or asked for help: in the generated game of
    confident seed 446 the game then restarted from the board twice and held three wrong
    moves."""
    if e.kind in (Kind.NO_CHANGE, Kind.AFTER_END):
        return True
    if e.kind is Kind.LIFT and path.lifted is not None:
        return e.action is not None and e.action.origin == path.lifted
    return e.kind in (Kind.ILLEGAL, Kind.LIFT) and path.pending is not None and e.action == path.pending
