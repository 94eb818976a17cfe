"""The junior (3x3, Gobblet Jr.) solver: proven values (win / loss with distances, draw) from
a shipped book of the positions with few pieces and proof search for the rest.

Why not one table: the junior state space is ~3.4e8 positions even up to symmetry, far too
many for a table built in Python within a first-run budget and 300 MB. But pieces never
leave the board, and the slow positions are those with few pieces on it (the longest wins,
most of the draws): the **book** holds every position with at most ``BOOK_PIECES`` (4)
pieces, 32,398 up to symmetry, with value, distance and a move that keeps the value; it is
made by this module (``--build-book``) one layer of piece count at a time, the most pieces
first, so each proof stops where the book already answers. With more pieces, wins are short,
so proof searches answer in well under a second:

- a position is 54 bits, *relative to the side to move*: for each size, a 9-bit mask of the
  mover's pieces, then the opponent's (hidden pieces included; a square holds at most one
  piece of each size). Colour symmetry is free, and the 8 board symmetries are folded in the
  tables by taking the smallest of the 8 images (``canonical``);
- the distance search, ``wins(k, n)``: the mover can force a line within n plies (odd n). An
  AND/OR search with the hash move first and the opponent's last refutation first, trying
  threat-making moves first; ``loses(k, n)`` is its dual for even n. Iterating n = 1, 2, 3,
  ... gives the exact distance of the first result found. A proven win never depends on a
  repetition (a draw can never be part of a forced win), so wins are stored in the table
  whatever the path; "no win within n" can depend on the path, so it is stored only when no
  repetition was met below it;
- the value proof (``prove``), for what the distance search does not settle in time: a
  depth-first search without a depth limit that decides whether a side can force a line at
  all, a repeated position counting as a draw. Its "no forced win" answers are checked
  before they count: the positions it visited must contain a closed set in which the
  defender always has a move back into the set (``JuniorSolver.verify``);
- a repeated position is a draw, as in the published analyses: a position on the current
  search path ends that line of play with no win for anyone. Values are those of the
  position alone, whatever the game's history (as in the published analyses, and what the
  book can hold): a win is played out along strictly decreasing distances, so it never
  repeats a position.

Time (``solve`` with a limit T): the distance search alone to 0.1 T (most positions end
there); then the value proof (with the distance of what it proves, and the move) runs in a
forked copy of the solver while the distance search goes on here, both to 0.8 T: two cores,
or two shares of a loaded machine, and each search gets nearly the whole budget instead of a
part of it. Where processes cannot be forked, the two run one after the other (0.6 T, 0.8 T).

What it guarantees: "win"/"loss" answers are proofs (a strategy that ends in a line of the
winner's whatever the defence; the distance is given when the distance search found it).
"draw" is a proof too: each side has a strategy that never lets the other complete a line
(so with best play the game repeats). A position not settled within the time limit is
answered with value None, the horizon of the distance search, and the safest move known.
Its move generation is checked against the rules engine (perft and random games) by the
tests.
"""

from __future__ import annotations

import threading
import time as _time
from bisect import bisect_right
from collections.abc import Container, Mapping
from dataclasses import dataclass
from pathlib import Path

from companion.engine.junior.bits import (
    SIDE_BIT,
    Moves,
    canonical,
    expand,
    has_line_move,
    pack,
    threatens,
    unpack,
)
from companion.engine.junior.book import BOOK_PATH, Book, shipped_book
from companion.engine.junior.proof import ProofProcess
from companion.rules import Position

MAX_DISTANCE = 60  # plies: the distance search never looks further (the longest junior win is far shorter)


class SolverStopped(Exception):
    """Time ran out or the caller cancelled; tables keep what was proven."""


@dataclass
class JuniorAnswer:
    value: str | None  # "win" | "loss" | "draw" (all proven) | None (not settled in time)
    distance: int | None  # plies to the end of the game with best play, when known (win/loss)
    code: int | None  # a value-preserving move code (None if the game is over)
    horizon: int  # plies the distance search finished: no forced line for either side within it
    nodes: int


TABLE_BUDGET = 1_000_000  # entries in all tables before they are cleared (memory stays well under 300 MB)
CHILDREN_BUDGET = (
    100_000  # positions whose children are kept (a few hundred bytes each) before they are forgotten
)
_UNSEEN: tuple[int, ...] = (-1,)  # not in the children cache (None and () are answers of ``expand``)
DISTANCE_SHARE = 0.6  # of the time limit: the distance search (iterative deepening) first,
SEARCH_SHARE = 0.8  # then the proof of the value without a distance,
QUICK_SHARE = 0.1  # (with a second process: the distance search alone to 0.1 T, then
# both searches at once to 0.8 T)
FORK_AT_LEAST = 0.05  # seconds left for the searches: less is not worth a second process
UNTIMED_HORIZON = 15  # without a time limit, the distance search goes this far before the proof
CHOICE_SHARE = 0.9  # then the choice of the move (the rest is a margin,
MARGIN = 0.05  # at least this many seconds)
CHECK_EVERY = 63  # nodes between two looks at the clock (a few ms under load)
LOST = -1  # the value proof's answer "this side loses / the attacker wins"
CLOSED = 1 << 30  # ... "holds, leaning on no position of the current line"


class JuniorSolver:
    """Proof searches with tables that persist across calls (and can be saved as a book).

    Two searches, both over positions relative to the side to move and folded by symmetry:

    - the **distance search** (``wins``/``loses``, iterative deepening on the number of
      plies) proves wins and losses with their exact distance;
    - the **value proof** (``_no_forced_win``/``_can_hold``) decides any position without a
      depth limit, a repeated position counting as a draw: a depth-first AND/OR search in which
      a position on the current line counts as held (the defender may repeat). A "won" or
      "lost" answer of it never relies on that assumption, so it is proven outright; a "held"
      answer is only a trial until ``verify`` has checked that the trial answers contain a
      closed set: every attacker move from a member leads to a member where the defender has a
      recorded move back into the set (or a line at once). The defender can then stay in the
      set for ever or win, so the attacker has no forced win, whatever the path. A draw is a
      position where neither side has a forced win, each shown by such a set.
    """

    def __init__(self) -> None:
        self.win_at: dict[int, int] = {}  # canonical key -> smallest n proven a win
        self.no_win: dict[int, int] = {}  # canonical key -> largest n proven not a win
        self.best: dict[int, int] = {}  # exact key -> child that won
        self.refute: dict[int, int] = {}  # exact key -> grandchild that refuted it
        self.book: Book = {}  # canonical -> (value, distance, child canon)
        # the value proof: proven outright ...
        self.won: dict[int, tuple[int, int]] = {}  # canonical -> (rank, child the opponent cannot hold)
        self.lost: dict[int, int] = {}  # canonical -> rank
        # ... and verified closed sets
        self.cannot_win: set[int] = set()  # the mover has no forced win
        self.holds: dict[int, int] = {}  # the mover avoids losing: -> child canonical (-1: wins now)
        self.rank = 0  # won/lost order: a won position's child has a smaller rank, so play ends
        # trial answers: canonical -> ([child,] lowest depth leant on, place in the journal)
        self._trial_cannot_win: dict[int, tuple[int, int]] = {}
        self._trial_holds: dict[int, tuple[int, int, int]] = {}
        self._journal: list[tuple[int, int]] = []  # trial answers in order: (kind, key)
        self._attacking: dict[int, int] = {}  # the current line: key -> depth
        self._defending: dict[int, int] = {}
        self._marks: list[int] = []  # the current line: journal length at each depth
        self._canonical: dict[int, int] = {}
        self._children: dict[int, tuple[int, ...] | None] = {}  # key -> the children in ``expand``'s order
        self.nodes = 0
        self.repeats = 0
        self.path: set[int] = set()
        self.deadline: float | None = None
        self.stop_event = threading.Event()
        self._proof: ProofProcess | None = None  # a value proof running in another process

    # ----- the distance search ----------------------------------------------------------------

    def wins(self, k: int, n: int, side: int) -> bool:
        """Can the mover (``side``) of ``k`` force a line within ``n`` plies? The move that
        won here before is tried before any move is generated: in iterative deepening it
        usually wins again, and generating moves is most of the cost of a node."""
        self._tick()
        if n < 3:
            return has_line_move(k)
        ck = self._canonical.get(k)
        if ck is None:
            ck = self._canonical[k] = canonical(k)
        entry = self.book.get(ck)
        if entry is not None:
            return entry[0] == "win" and entry[1] <= n
        known = self.win_at.get(ck)
        if known is not None and known <= n:
            return True
        if self.no_win.get(ck, 0) >= n:
            return False
        path = self.path
        me, them = k | side * SIDE_BIT, side ^ 1
        path.add(me)
        repeats = self.repeats
        found = None
        try:
            best = self.best.get(k)
            if (
                best is not None
                and best | them * SIDE_BIT not in path
                and self._all_replies_lose(best, n - 2, side)
            ):
                found = best
            else:
                moves = self._kids(k)
                if moves is None:
                    return True
                for child in moves:
                    if child | them * SIDE_BIT in path:
                        self.repeats += 1
                    elif child != best and self._all_replies_lose(child, n - 2, side):
                        found = child
                        break
        finally:
            path.discard(me)
        if found is not None:
            self.best[k] = found
            self.win_at[ck] = n if known is None else min(n, known)
            return True
        if self.repeats == repeats:
            self.no_win[ck] = n
        return False

    def _all_replies_lose(self, child: int, n: int, side: int) -> bool:
        """Every move of the opponent in ``child`` leaves ``side`` a win within ``n`` plies?
        The last refutation is tried before any reply is generated (see ``wins``)."""
        if n < 3 and not threatens(child):
            return False  # the opponent places a piece anywhere and no line can follow
        path = self.path
        node = child | (side ^ 1) * SIDE_BIT
        path.add(node)
        try:
            first = self.refute.get(child)
            if first is not None and self._refutes(first, n, side):
                return False
            replies = self._kids(child)
            if replies is None:
                return False
            for grandchild in replies:
                if grandchild != first and self._refutes(grandchild, n, side):
                    self.refute[child] = grandchild
                    return False
        finally:
            path.discard(node)
        return True

    def _refutes(self, grandchild: int, n: int, side: int) -> bool:
        """Does the opponent's reply leading to ``grandchild`` escape ``side``'s win within
        ``n`` plies (a repetition is a draw: an escape)?"""
        if grandchild | side * SIDE_BIT in self.path:
            self.repeats += 1
            return True
        return not self.wins(grandchild, n, side)

    def loses(self, k: int, n: int, side: int) -> bool:
        """Does every move of the mover of ``k`` let the opponent force a line within n-1 plies?"""
        self.nodes += 1
        if self._kids(k) is None:
            return False
        return self._all_replies_lose(k, n - 1, side ^ 1)

    def _kids(self, k: int) -> tuple[int, ...] | None:
        """The children of ``k`` in ``expand``'s order (None: the mover completes a line),
        kept between calls: iterative deepening and the value proof's checks meet the same
        positions again and again, and generating moves is most of the cost of a node."""
        kids = self._children.get(k, _UNSEEN)
        if kids is _UNSEEN:
            moves = expand(k)
            kids = None if moves is None else tuple([child for _, child, _ in moves])
            if len(self._children) >= CHILDREN_BUDGET:
                self._children.clear()
            self._children[k] = kids
        return kids

    def _tick(self) -> None:
        """Count a node; every ``CHECK_EVERY + 1`` nodes, stop if the time is up."""
        self.nodes += 1
        if not self.nodes & CHECK_EVERY:
            self._check()

    def _check(self) -> None:
        if self.stop_event.is_set() or (self.deadline is not None and _time.perf_counter() > self.deadline):
            raise SolverStopped
        if self._proof is not None and self._proof.ready():
            raise SolverStopped  # the value proof in the other process has answered

    # ----- the value proof (no depth limit; repetition is a draw) -----------------------------

    def _canon(self, k: int) -> int:
        c = self._canonical.get(k)
        if c is None:
            c = self._canonical[k] = canonical(k)
        return c

    def _no_forced_win(self, ck: int, depth: int) -> int:
        """Can the mover of ``ck`` (canonical) not force a line? ``LOST`` (-1) when it can:
        proven (``won``). Otherwise the lowest depth of the current line this answer leans
        on (``CLOSED`` when none): a trial until it is verified, which happens as soon as it
        leans on nothing above itself."""
        known = self._known(ck, "win", self.won, self.cannot_win, self._trial_cannot_win, self._attacking)
        if known is not None:
            return known
        self._tick()
        moves = self._kids(ck)
        if moves is None or ck in self.win_at:
            self.won[ck] = (-1, 0)  # a line at once, or a win the distance search proved
            return LOST
        mark = len(self._journal)
        self._attacking[ck] = depth
        self._marks.append(mark)
        low = CLOSED
        try:
            for child in moves:
                c = self._canon(child)
                held = self._can_hold(c, depth + 1)
                if held == LOST:
                    self._rollback(mark)
                    self.rank += 1
                    self.won[ck] = (self.rank, c)
                    return LOST
                low = min(low, held)
        finally:
            del self._attacking[ck]
            self._marks.pop()
        return self._settle(0, ck, (), low, mark, depth)

    def _can_hold(self, ck: int, depth: int) -> int:
        """Can the mover of ``ck`` avoid losing? ``LOST`` when it cannot: proven (``lost``);
        otherwise as ``_no_forced_win``."""
        known = self._known(ck, "loss", self.lost, self.holds, self._trial_holds, self._defending)
        if known is not None:
            return known
        self._tick()
        moves = self._kids(ck)
        mark = len(self._journal)
        if moves is None:  # a line at once: proven as it stands
            self.holds[ck] = -1
            return CLOSED
        won, win_at = self.won, self.win_at
        self._defending[ck] = depth
        self._marks.append(mark)
        try:
            for child in moves:
                c = self._canon(child)
                if c in won:
                    continue
                if c in win_at:
                    won[c] = (-1, 0)
                    continue
                low = self._no_forced_win(c, depth + 1)
                if low != LOST:
                    break
                self._rollback(mark)
            else:
                self.rank += 1
                self.lost[ck] = self.rank  # every move lets the opponent force a line
                return LOST
        finally:
            del self._defending[ck]
            self._marks.pop()
        return self._settle(1, ck, (c,), low, mark, depth)

    def _settle(self, kind: int, ck: int, trial: tuple[int, ...], low: int, mark: int, depth: int) -> int:
        """Record a trial answer (``kind`` 1: the defender holds with ``trial``'s child, 0:
        the attacker has no forced win) that leans on depth ``low``; once that is not above
        ``ck`` itself, verify it with everything recorded since ``mark``."""
        if kind:
            self._trial_holds[ck] = (trial[0], low, len(self._journal))
        else:
            self._trial_cannot_win[ck] = (low, len(self._journal))
        self._journal.append((kind, ck))
        if low >= depth:
            return self._commit(mark, (kind, ck))
        return low

    def _known(
        self,
        ck: int,
        losing: str,
        lost: Container[int],
        held: Container[int],
        trials: Mapping[int, tuple[int, ...]],
        line: dict[int, int],
    ) -> int | None:
        """What one side's tables already say of ``ck``: ``LOST``, ``CLOSED`` (verified, or
        the book's value is not ``losing`` for this side), a trial's lowest depth (and what it
        was made under), the depth on the current line (a repetition: held), or None when it
        must be searched."""
        if ck in lost:
            return LOST
        if ck in held:
            return CLOSED
        entry = self.book.get(ck)
        if entry is not None:
            return LOST if entry[0] == losing else CLOSED
        trial = trials.get(ck)
        if trial is not None:  # (..., lowest depth, place in the journal)
            return min(trial[-2], self._owner(trial[-1]))
        return line.get(ck)

    def _owner(self, position: int) -> int:
        """The depth of the deepest position of the current line that was already being
        searched when the trial answer at ``position`` of the journal was made: the answer
        may lean on it (and on anything above it)."""
        return bisect_right(self._marks, position) - 1

    def _rollback(self, mark: int) -> None:
        """Forget the trial answers made since ``mark``: they may rest on a position that has
        just been found lost."""
        journal = self._journal
        while len(journal) > mark:
            kind, ck = journal.pop()
            if kind:
                self._trial_holds.pop(ck, None)
            else:
                self._trial_cannot_win.pop(ck, None)

    def _commit(self, mark: int, top: tuple[int, int]) -> int:
        """The trial answers since ``mark`` lean on nothing outside them: verify them and keep
        what survives as proven. Returns ``CLOSED`` if ``top`` survived (it always should),
        else 0 (a trial leaning on the root, which the root's own check will reject)."""
        entries = self._journal[mark:]
        del self._journal[mark:]
        attack = set()
        hold = {}
        for kind, ck in entries:
            if kind:
                hold[ck] = self._trial_holds.pop(ck)[0]
            else:
                attack.add(ck)
                del self._trial_cannot_win[ck]
        self.verify(attack, hold)
        kind, ck = top
        if ck in (self.holds if kind else self.cannot_win):
            return CLOSED
        return 0

    def verify(self, attack: set[int], hold: dict[int, int]) -> None:
        """Add to the proven tables the largest part of these trial answers that is closed
        together with them (a greatest fixpoint, recomputed from ``expand`` alone): every
        attacker move from a member of ``attack`` leads to a member of ``hold`` (or of the
        proven ``holds``), whose recorded move is legal and leads back into ``attack`` (or
        the proven ``cannot_win``), or completes a line (-1).

        Public because it trusts nothing but ``expand``: sets proven elsewhere (another
        solver's ``cannot_win`` and ``holds``) can be checked afresh by a new solver, and
        whatever fails the check is left out rather than believed."""
        replies: dict[int, set[int] | None] = {}
        for ck in attack:
            self._tick()
            moves = self._kids(ck)
            replies[ck] = None if moves is None else {self._canon(child) for child in moves}
        for ck, chosen in list(hold.items()):
            self._tick()
            moves = self._kids(ck)
            if chosen == -1:
                legal = moves is None
            else:
                legal = moves is not None and any(self._canon(child) == chosen for child in moves)
            if not legal:
                del hold[ck]
        changed = True
        while changed:
            changed = False
            for ck in list(attack):
                kids = replies[ck]
                if kids is None or any(kid not in hold and not self._holds(kid) for kid in kids):
                    attack.discard(ck)
                    changed = True
            for ck, chosen in list(hold.items()):
                if chosen != -1 and chosen not in attack and not self._cannot_win(chosen):
                    del hold[ck]
                    changed = True
        self.cannot_win |= attack
        self.holds.update(hold)

    def _holds(self, ck: int) -> bool:
        """Proven: the mover of ``ck`` never loses (a verified set, or the book)."""
        return ck in self.holds or self.book.get(ck, ("loss",))[0] != "loss"

    def _cannot_win(self, ck: int) -> bool:
        """Proven: the mover of ``ck`` has no forced win (a verified set, or the book)."""
        return ck in self.cannot_win or self.book.get(ck, ("win",))[0] != "win"

    def prove(self, ck: int) -> str | None:
        """The value of canonical ``ck`` for its mover ("win", "loss", "draw"), from the value
        proof alone (no distance, no history: a repeated position is a draw), or None when
        the deadline came first."""
        try:
            if self._no_forced_win(ck, 0) == LOST:
                return "win"
            if ck not in self.cannot_win:
                return None  # a trial that did not survive verification (not seen so far)
            if self._can_hold(ck, 0) == LOST:
                return "loss"
            return "draw" if ck in self.holds else None
        except SolverStopped:
            return None
        finally:
            self._trial_cannot_win, self._trial_holds, self._journal = {}, {}, []
            self._attacking, self._defending, self._marks = {}, {}, []

    def known(self, ck: int) -> str | None:
        """What the value proof has established for canonical ``ck`` so far."""
        if ck in self.won:
            return "win"
        if ck in self.lost:
            return "loss"
        if ck in self.cannot_win and ck in self.holds:
            return "draw"
        return None

    # ----- answers --------------------------------------------------------------------------

    def value(
        self, k: int, side: int, root: set[int], horizon: int = MAX_DISTANCE, proved: str | None = None
    ) -> tuple[str | None, int, int]:
        """The distance search: ("win"/"loss", exact distance, nodes), or (None, the horizon
        finished, nodes) when neither side forces a line within ``horizon`` plies or the
        deadline came first. With the value already ``proved`` ("win" or "loss"), only that
        side's distances are tried: half the iterations."""
        start_nodes = self.nodes
        book = self.book.get(canonical(k))
        if book is not None:  # a draw: no forced line at any distance
            return (book[0], book[1], 0) if book[0] != "draw" else (None, horizon, 0)
        n = 0
        try:
            for n in range(1, horizon + 1):
                self.path = set(root)
                if n % 2 and proved != "loss" and self.wins(k, n, side):
                    return "win", n, self.nodes - start_nodes
                if not n % 2 and proved != "win" and self.loses(k, n, side):
                    return "loss", n, self.nodes - start_nodes
        except SolverStopped:
            return None, n - 1, self.nodes - start_nodes
        return None, horizon, self.nodes - start_nodes

    def solve(
        self,
        position: Position,
        time_limit: float | None = None,
        stop_event: threading.Event | None = None,
    ) -> JuniorAnswer:
        """Value of ``position`` and a move that keeps it: the fastest win, the slowest loss, a
        move that keeps a proven draw; with ``time_limit``, the answer comes within it (value
        None, and the safest move found, when the proofs did not finish)."""
        start = _time.perf_counter()
        self._trim()
        self.stop_event = stop_event or threading.Event()
        search_end = start + SEARCH_SHARE * time_limit if time_limit is not None else None
        k = pack(position)
        side = position.turn
        root = {k | side * SIDE_BIT}  # the search path starts here: the value ignores the game's history
        moves = expand(k)
        start_nodes = self.nodes
        if moves is None:
            code = next(c for c, line in _codes_and_lines(k, side) if line)
            return JuniorAnswer("win", 1, code, 1, 1)
        if not moves:
            return JuniorAnswer("loss", 1, _any_code(k, side), 0, 0)
        booked = self._from_book(k, moves)
        if booked is not None:
            return booked
        ck = canonical(k)
        choice_end = (
            start + min(CHOICE_SHARE * time_limit, time_limit - MARGIN) if time_limit is not None else None
        )
        # 1. the distance search, for the short wins and losses that most positions have
        self.deadline = start + QUICK_SHARE * time_limit if time_limit is not None else None
        distance: int | None
        value, distance, _ = self.value(
            k, side, root, UNTIMED_HORIZON if time_limit is None else MAX_DISTANCE
        )
        horizon = distance
        proof = None
        if (
            value is None
            and search_end is not None
            and not self.stop_event.is_set()
            and (search_end - _time.perf_counter() > FORK_AT_LEAST)
        ):
            # 2. the value proof in a second process (then the distance of what it proves,
            # and its move), while this one carries on with the distance search
            proof = ProofProcess.start(self, (k, ck, moves, side), (search_end, choice_end))
        if value is None and proof is not None:
            self.deadline, self._proof = search_end, proof
            try:
                value, distance, _ = self.value(k, side, root, MAX_DISTANCE)
                horizon = distance if value is None else horizon
                answer = proof.result(choice_end if value is None and not self.stop_event.is_set() else None)
            finally:
                self._proof = None
                proof.close()
            if value is None and answer is not None:
                return JuniorAnswer(*answer, horizon, self.nodes - start_nodes)
        elif value is None:
            # 2'. the same in this process, after more of the distance search
            self.deadline = start + DISTANCE_SHARE * time_limit if time_limit is not None else None
            value, distance, _ = self.value(k, side, root, MAX_DISTANCE)
            horizon = distance if value is None else horizon
            if value is None:
                self.deadline = search_end
                value, distance = self.proven_value(k, ck, side, root)
        nodes = self.nodes - start_nodes
        self.deadline = choice_end
        code = self.choose_move(k, ck, moves, side, value, distance)
        return JuniorAnswer(value, distance if value in ("win", "loss") else None, code, horizon, nodes)

    def proven_value(self, k: int, ck: int, side: int, root: set[int]) -> tuple[str | None, int | None]:
        """The value proof (draws, and wins too long for the distance search), then the
        distance of the proven result if the time allows (one side's iterations only)."""
        proved = self.known(ck) or self.prove(ck)
        if proved not in ("win", "loss"):
            return proved, None
        value, distance, _ = self.value(k, side, root, MAX_DISTANCE, proved)
        return (value, distance) if value is not None else (proved, None)

    def choose_move(
        self,
        k: int,
        ck: int,
        moves: Moves,
        side: int,
        value: str | None,
        distance: int | None,
    ) -> int:
        """The move for a proven (or unsettled) ``value``: ``_choose`` within the deadline
        already set, else the fallback. Also what the proof process answers with."""
        try:
            return self._choose(k, ck, moves, side, {k | side * SIDE_BIT}, value, distance)
        except SolverStopped:
            return self._fallback(k, moves)
        finally:
            self.deadline = None

    def _choose(
        self,
        k: int,
        ck: int,
        moves: Moves,
        side: int,
        root: set[int],
        value: str | None,
        distance: int | None,
    ) -> int:
        """The move for a value: a win kept at its distance (or by a child of smaller rank), a
        draw kept inside its proven set, the slowest loss, or (not settled) the safest move."""
        if value == "win" and distance is not None:
            return _code_of(moves, self._winning_child(k, moves, side, distance, root))
        if value == "win":
            rank, child = self.won[ck]
            if rank < 0:  # proven by the distance search, whose distance did not come in time
                return _code_of(moves, self._winning_child(k, moves, side, self.win_at[ck], root))
            for _, c, code in moves:
                if self._canon(c) == child:
                    return code
            raise AssertionError("a proven win has no winning move")
        if value == "draw":
            child = self.holds[ck]
            for _, c, code in moves:
                if self._canon(c) == child:
                    return code
            raise AssertionError("a proven draw has no holding move")
        if value == "loss" and distance is None:
            # every move loses: the one whose win for the opponent was proven last
            return max(moves, key=lambda m: self.won.get(self._canon(m[1]), (0, 0))[0])[2]
        return self._defend(moves, side, root, value)

    def _fallback(self, k: int, moves: Moves) -> int:
        """When the time is up: the child that last proved a win, else a move into a position
        proven not won for the opponent, else one where the opponent has no line at once
        and no proven win, else the first."""
        best = self.best.get(k)
        for _, child, code in moves:
            if child == best:
                return code
        for _, child, code in moves:
            if self._canon(child) in self.cannot_win:
                return code
        for _, child, code in moves:
            c = self._canon(child)
            if c not in self.won and c not in self.win_at and not has_line_move(child):
                return code
        return moves[0][2]

    def _from_book(self, k: int, moves: Moves | None) -> JuniorAnswer | None:
        entry = self.book.get(canonical(k))
        if entry is None or not moves:
            return None
        value, distance, child_key = entry
        for _, child, code in moves:
            if canonical(child) == child_key:
                return JuniorAnswer(value, distance if value in ("win", "loss") else None, code, distance, 0)
        return None

    @classmethod
    def with_book(cls, path: Path = BOOK_PATH) -> JuniorSolver:
        """A solver that knows the shipped book (if the file is there), shared with every
        other solver of the process."""
        solver = cls()
        solver.book = shipped_book(path)
        return solver

    def _winning_child(self, k: int, moves: Moves, side: int, distance: int, root: set[int]) -> int:
        """A child that keeps the win in ``distance`` plies: the one that proved it, else the
        first that proves it again (the tables make that quick); the book's choice too."""
        book = self.book.get(canonical(k))
        hints = [self.best.get(k)] + [c for _, c, _ in moves if book and canonical(c) == book[2]]
        for child in [c for c in hints if c is not None] + [m[1] for m in moves]:
            self.path = set(root)
            self.path.add(k | side * SIDE_BIT)
            if self._all_replies_lose(child, distance - 2, side):
                return child
        raise AssertionError("a proven win has no winning move")

    def _defend(self, moves: Moves, side: int, root: set[int], value: str | None) -> int:
        """A lost or unsettled position: a move into a position proven not won for the
        opponent if there is one (unsettled only); else the move whose win for the opponent
        is furthest, by deepening over all moves together (n = 1, 3, 5, ...: the moves the
        opponent wins from within n drop out), so that running out of time still leaves the
        move that has resisted longest."""
        if value is None:
            for _, child, code in moves:
                if self._canon(child) in self.cannot_win:
                    return code
        alive = [(child, code) for _, child, code in moves]
        if value is None:  # leave out moves whose win for the opponent is already proven
            alive = [
                (child, code)
                for child, code in alive
                if self._canon(child) not in self.won and self._canon(child) not in self.win_at
            ] or alive
        # the opponent's line at once, checked for every move before any deadline can stop it
        alive = [(child, code) for child, code in alive if not has_line_move(child)] or alive[:1]
        last = alive[0][1]
        survivors: list[tuple[int, int]] = []
        tested = 0
        try:
            for n in range(3, MAX_DISTANCE, 2):
                survivors, tested = [], 0
                for child, code in alive:
                    self.path = set(root)
                    if self.wins(child, n, side ^ 1):
                        last = code
                    else:
                        survivors.append((child, code))
                    tested += 1
                if not survivors:
                    return last  # every move loses: the one refuted last loses slowest
                alive = survivors
        except SolverStopped:
            # out of time within a pass: a move that has resisted this pass, else one it has
            # not reached (both resisted the pass before)
            pool = survivors + alive[tested + 1 :]
            if pool:
                return pool[0][1]
        return alive[0][1]

    def _trim(self) -> None:
        """Keep the tables within ``TABLE_BUDGET`` entries in all (about 100 MB): past it,
        everything learnt is forgotten at once (the book stays), which keeps every proven set
        consistent with the others."""
        tables = (
            self.win_at,
            self.no_win,
            self.best,
            self.refute,
            self._canonical,
            self.won,
            self.lost,
            self.cannot_win,
            self.holds,
        )
        self._children.clear()  # a cache of ``expand``, rebuilt by each answer's searches
        if sum(len(table) for table in tables) > TABLE_BUDGET:
            for table in tables:
                table.clear()


def _codes_and_lines(k: int, turn: int) -> list[tuple[int, bool]]:
    """Every legal move code of the mover with whether it completes the mover's line."""
    position = unpack(k, turn)
    out = []
    for code in position.legal_codes():
        position.push_code(code)
        result = position.line_result()
        out.append((code, result is not None and result.winner != position.turn))
        position.pop_code()
    return out


def _any_code(k: int, turn: int) -> int | None:
    codes = unpack(k, turn).legal_codes()
    return codes[0] if codes else None


def _code_of(moves: Moves, child: int) -> int:
    for _, c, code in moves:
        if c == child:
            return code
    raise AssertionError("the proven child is not a move of this position")
