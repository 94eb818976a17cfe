"""Paths: the ways the game may have gone that still explain every reading so far.

One reading can never prove a move beyond doubt: the one square that tells two moves apart
may be misread, however sure the reader is. So the reconciler keeps every *path* (the legal
moves from a start, plus the referee's state: a cup in the air, an illegal action not yet put
right) that still explains the readings, scored by the joint log-likelihood of all of them
(``GamePath``), each stack's repeated readings weighed as the correlated evidence they are
(``repeats.py``). Each reading extends every path by every account of it (``extend``) and carries
its doubts along (``carry_doubts``); what a path claims the reading shows (``claim``) groups
the paths for the decision (``groups``, ``lead``). The decisions themselves are the
reconciler's (``reconciler.py``); how the paths hold up is described in docs/reconciler.md.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TypeAlias

import numpy as np

from companion.reconciler.accounts import Explanation, Kind, Settings
from companion.reconciler.decoder import fits
from companion.reconciler.likelihood import View
from companion.reconciler.referee import Action, ActionKind, PhysicalKey, physical_key
from companion.rules.codes import (
    MoveCode,
    PieceCode,
    code_origin,
    code_size,
    code_squares,
    code_to,
    is_board_move,
    piece_color,
    piece_size,
)
from companion.rules.position import Position
from companion.rules.square import Square, square_name
from companion.vision.observation import Top, class_top

NEW_ROOT = -1  # the start of paths that saw the board cleared for a new game
UNSEEN_COST, UNSEEN_LIMIT = 2, 4  # readings that need two moves: at most two close together
MISSED_READINGS = 2  # readings that read a cup's square otherwise: a cup the camera does not see

PathKey: TypeAlias = tuple[
    int, tuple[MoveCode, ...], Square | None, Square | None, Action | None, Square | None
]
LineKey: TypeAlias = tuple[int, tuple[MoveCode, ...]]
Claim: TypeAlias = tuple[object, ...]
Group: TypeAlias = tuple[float, list["GamePath"]]
Candidate: TypeAlias = tuple[float, "GamePath", Explanation, View, bool, float]
"""One account of a reading from a path: (score, path, explanation, view, whether the game is
over, the score with every reading counted independently)."""
ScoringKey: TypeAlias = tuple[int, tuple[MoveCode, ...], bool]  # a line, and whether two moves are scored
Accounts: TypeAlias = tuple[View, bool, list[Explanation]]  # a line's view, over, ranked accounts


class Lasting(Enum):
    """Why a move of a path stays unsure for good: the evidence that would tell it is gone, so
    no later reading can settle it (unlike a rival path kept, which readings put behind). Each
    value is the words the referee reports it with (``doubts.unsure_plies``); a new reason is
    one member here and the one place that finds it (``GamePath.hold_unsure``)."""

    SUSPECT = "read against the board when it was made"
    """Made around a doubted square that a later move changed otherwise (``carry_doubts``)."""
    CROWDED = "another account, left out for want of room"
    """Played otherwise by a path close to the best left out of the beam (``crowded_plies``)."""
    SPARE_HANDS = "more moves made out of sight"
    """Seen on a reading the board was hidden for more often than it needs
    (``reconciler.hands_to_spare``)."""
    ALIKE = "another line shows the same board"
    """Played otherwise by a line no longer kept that shows the board the player accepted
    (``Reconciler._told_apart_by_no_board``)."""


@dataclass(frozen=True, slots=True, eq=False)
class LastingDoubts:
    """A path's moves (indices) unsure for good, by why (``Lasting``). Immutable, so a child
    path shares its parent's as they are (``carry_doubts``: the doubts outlive the readings
    that raised them) and adding to one never touches the paths it came from."""

    moves: Mapping[Lasting, frozenset[int]] = field(default_factory=dict)  # (a reason not in it: none)

    def of(self, why: Lasting) -> frozenset[int]:
        """The moves unsure for ``why``."""
        return self.moves.get(why, frozenset())

    def with_moves(self, why: Lasting, moves: frozenset[int]) -> LastingDoubts:
        """These doubts and ``moves`` unsure for ``why`` too."""
        return LastingDoubts({**self.moves, why: self.of(why) | moves})

    def by_why(self) -> Iterator[tuple[Lasting, frozenset[int]]]:
        """Each reason with its moves, in ``Lasting``'s order."""
        for why in Lasting:
            yield why, self.of(why)

    @staticmethod
    def joined(each: Sequence[LastingDoubts]) -> LastingDoubts:
        """Every move unsure in any of ``each``, for each reason: what a path that several
        agree on inherits from them (``Announcer._announce_agreed``)."""
        return LastingDoubts({why: frozenset().union(*(d.of(why) for d in each)) for why in Lasting})


NO_LASTING_DOUBTS = LastingDoubts()
"""The doubts of a path none of whose moves is unsure for good (shared: they never change)."""


@dataclass(slots=True, eq=False)
class GamePath:
    """One way the game may have gone, and the referee's state at the latest reading."""

    root: int  # the start it grows from (key of the reconciler's starts)
    codes: tuple[MoveCode, ...]  # legal moves from that start
    score: float  # joint log-likelihood of the readings (up to a constant)
    explanation: Explanation | None = None  # how this path explains the latest reading
    before: GamePath | None = None  # the path before the latest reading
    view: View | None = None  # the latest reading scored against ``before``'s position
    lifted: Square | None = None  # a cup of the side to move is in the air
    must_move: Square | None = None  # touch rule: a lifted cup was put back and must move
    pending: Action | None = None  # an illegal action on the board, not yet put right
    forfeit: Square | None = None  # touch rule: a cup lifted that had nowhere to go
    doubt: tuple[tuple[Square, int, int], ...] = ()  # squares a reading contradicted: (square, what it
    #                                  read, moves before that reading), not yet re-read
    lasting: LastingDoubts = NO_LASTING_DOUBTS  # moves (indices) unsure for good, by why
    tainted: bool = False  # a later move made a doubted square show what was read there
    written_off: tuple[tuple[Square, int, int], ...] = ()  # squares its accounts wrote off as a
    #                                  lone misread: (square, what was read, readings that read
    #                                  it so), while every reading since read it so
    unread: frozenset[int] = frozenset()  # moves (indices) whose cup no reading has shown on its
    #                                       square (a cup of its colour read there) while on top
    missed: tuple[tuple[int, int], ...] = ()  # of those, (index, readings that read its square as
    #                                           no cup of its colour while it stood on top)
    unseen: int = 0  # recent readings that needed two moves (decays by one a reading)
    faint: tuple[tuple[Square, int], ...] = ()  # cups the latest account's lift uncovered where the
    #                                  stack's contents were a guess, read by less than the margin
    shown: np.ndarray | None = None  # the class the latest account showed on each square
    repeats: np.ndarray | None = None  # per square, readings of what it shows, unchanged, so far
    #                                  (``repeats.py``; None: none yet)
    plain: float | None = None  # the joint log-likelihood with every reading counted as independent
    #                             evidence (repeats not weighed: what pruning asks); None: ``score``

    @property
    def independent(self) -> float:
        """The score with every reading counted as independent evidence (``plain``)."""
        return self.score if self.plain is None else self.plain

    @property
    def decent(self) -> bool:
        """Every reading since the last announced one was explained, but for misreads that
        the next reading re-read as this path has them, and no two readings close together
        needed moves made out of sight: only such a path is announced. (A path that needs
        moves made out of sight again and again is more likely made up to fit a stretch the
        camera did not see.)"""
        return not self.tainted and not self.doubt and self.unseen <= UNSEEN_LIMIT

    def key(self) -> PathKey:
        return (self.root, self.codes, self.lifted, self.must_move, self.pending, self.forfeit)

    def line(self) -> LineKey:
        return (self.root, self.codes)

    def hold_unsure(self, why: Lasting, moves: frozenset[int]) -> None:
        """Hold ``moves`` (indices) unsure for good, for ``why``: the one way a lasting doubt
        is added."""
        self.lasting = self.lasting.with_moves(why, moves)


def extend(
    path: GamePath, e: Explanation, score: float, view: View, over: bool, touch_rule: bool
) -> GamePath:
    """The path after ``path`` explains the reading as ``e`` (the referee's state included)."""
    child = GamePath(path.root, path.codes, score, e, path, view)
    kind = e.kind
    if kind is Kind.NEW_GAME:
        child.root, child.codes = NEW_ROOT, ()
        return child
    if kind is Kind.TAKEBACK:
        child.codes = path.codes[:-1]
        return child
    if over:
        child.forfeit = path.forfeit
        return child
    if path.pending is not None:
        if kind is Kind.MOVE:
            child.codes = path.codes + e.codes
        elif kind is not Kind.NO_CHANGE:
            child.pending = path.pending
        return child
    f = view.tops
    if kind is Kind.NO_CHANGE:
        child.must_move = path.lifted if path.lifted is not None and touch_rule else path.must_move
    elif kind is Kind.LIFT:
        action = e.action
        assert action is not None and action.origin is not None
        if action.color == f.turn:
            child.lifted = action.origin
            child.must_move = path.must_move
            if touch_rule and not f.fits_elsewhere(f.row[action.origin]):
                child.forfeit = action.origin
        elif touch_rule:
            child.pending = action
    elif kind is Kind.ILLEGAL:
        child.pending = e.action
    elif kind in (Kind.MOVE, Kind.TWO_MOVES):
        first = e.codes[0]
        touched = path.must_move if path.must_move is not None else path.lifted
        if touch_rule and touched is not None and code_origin(first) != touched:
            child.pending = touched_action(view, first)
        else:
            child.codes = path.codes + e.codes
    return child


def crowded_plies(kept: GamePath, rival: GamePath) -> frozenset[int]:
    """The moves of ``kept`` made before its latest reading (indices) that ``rival`` plays
    differently, ``rival`` being a path close to the best left out for want of room in the
    beam (not by the readings): with it gone nothing can tell those moves again, so they stay
    unsure. (Several sizes in doubt at once multiply the lines: four cups each read between
    two sizes are 16 histories, and the beam keeps 6; the true one, 1.6 nats behind, was left
    out, and the cups' sizes it played were then "settled" the other way.)"""
    if rival.root != kept.root or kept.before is None:
        return frozenset()
    return moves_played_otherwise(kept.codes, rival.codes, len(kept.before.codes))


def moves_played_otherwise(kept: Sequence[MoveCode], rival: Sequence[MoveCode], upto: int) -> frozenset[int]:
    """The moves of ``kept`` (indices below ``upto``) that ``rival`` replaces or drops,
    aligned as a diff, as ``doubts.unsure_plies`` reports a rival kept: not the moves it
    agrees on again after them."""
    common = common_prefix(kept, rival)
    if common >= upto:
        return frozenset()
    matcher = difflib.SequenceMatcher(None, kept[common:], rival[common:], autojunk=False)
    return frozenset(
        i
        for tag, k0, k1, _, _ in matcher.get_opcodes()
        if tag != "equal"
        for i in range(common + k0, min(common + k1, upto))
    )


def carry_doubts(
    child: GamePath, path: GamePath, e: Explanation, view: View, settings: Settings, still: bool = False
) -> None:
    """Carry the path's doubts. When a reading contradicts a path on two or more squares
    (or on one its explanation changes), those squares are doubted: the next reading
    shows whether they were misread (they read as the path has them: the doubt goes) or
    the path is wrong. A path that then makes a doubted square show what was read there
    by a move of its own, or is contradicted there the same way again, is tainted: it
    explains the board away with made-up moves, and is never announced. A path whose
    next move changes a doubted square otherwise can never be checked there: its moves
    since the doubtful reading are suspect (``Lasting.SUSPECT``: announced as unsure). Moves made out of sight
    that fit only with a square read against them are two faults at once: the square is
    doubted too, so the next reading must confirm them before they are announced.

    A ``still`` second look (``Observation.still``) re-reads a board nothing touched: the
    same cups, light and view, so the same misread, not a second contradiction. A doubted
    square it reads the same way stays doubted, for a reading after a change to tell, and
    taints nothing. (bench-39: c4-a3's white 4 read a 3 on a3, 0.42 against 0.04, then the
    same on the still look: the true path tainted for good, the referee never back.)"""
    ok, contradicting, misread = fits(view, e, settings)
    if e.kind is Kind.TWO_MOVES and misread is not None:
        ok = False
    child.tainted = path.tainted
    child.lasting = path.lasting
    child.unread, child.missed = unread_moves(child, path, e, view)
    child.unseen = path.unseen + UNSEEN_COST if e.kind is Kind.TWO_MOVES else max(path.unseen - 1, 0)
    reading = view.reading
    held: tuple[tuple[Square, int, int], ...] = ()  # doubts a still look re-read the same way
    if path.doubt:
        changes = dict(e.changes)
        for doubt in path.doubt:
            sq, read, since = doubt
            again = sq in contradicting and reading[view.row[sq]] == read
            if still and again:
                held += (doubt,)
            elif changes.get(sq) == read or again:
                child.tainted = True
            elif sq in changes:
                child.hold_unsure(Lasting.SUSPECT, frozenset(range(since, len(child.codes))))
    if path.faint and moved_away(e, path.faint):
        child.tainted = True
    child.written_off, made_true = written_off(path, e, view, misread if ok else None)
    if made_true:
        child.tainted = True
    raised = () if ok else tuple((sq, reading[view.row[sq]], len(path.codes)) for sq in contradicting)
    kept = {sq for sq, _, _ in held}
    child.doubt = held + tuple(d for d in raised if d[0] not in kept)
    child.faint = faint_cups(view, e, settings)


def written_off(
    path: GamePath, e: Explanation, view: View, misread: Square | None
) -> tuple[tuple[tuple[Square, int, int], ...], bool]:
    """The squares ``path`` wrote off as a lone misread (``fits`` allows one square read
    against an account) that the reading ``e`` accounts for still reads so, with how many
    readings have (``misread``, this account's own, counts one); and whether ``e`` makes one
    read so ``MISSED_READINGS`` times show what was read there by a move.

    A lone misread is no doubt (one reading in four has one: doubting each would hold most
    moves back a reading), but a path that says the camera misread a square again and again
    and then moves a cup so that the square shows what the camera read explains the board
    away with a move: the readings were right, and the path had the board wrong. Such a path
    is tainted, as one that explains a doubted square so is (``carry_doubts``). Generated
    games did so on still looks: a Black 3 read on c2 once, at a resync, read empty four
    times, then "moved" to d3 (blind seed 407); a White cup read on b1 twice where the path
    had none, then "moved" there from under d3 (confident seed 446, after a
    restart): wrong moves both. Read so once is not enough: a misread that happens to show
    the next move's cup (a Black 4 read on d2 just before Black's 4d2) would taint the true
    path."""
    reading, changes = view.reading, dict(e.changes)
    made_true = any(changes.get(sq) == read and n >= MISSED_READINGS for sq, read, n in path.written_off)
    kept = tuple(
        (sq, read, n + 1)
        for sq, read, n in path.written_off
        if sq not in changes and reading[view.row[sq]] == read
    )
    if misread is not None and all(sq != misread for sq, _, _ in kept):
        kept += ((misread, int(reading[view.row[misread]]), 1),)
    return kept, made_true


def unread_moves(
    child: GamePath, path: GamePath, e: Explanation, view: View
) -> tuple[frozenset[int], tuple[tuple[int, int], ...]]:
    """The moves of ``child`` (indices) whose cup no reading has shown yet: a cup of its colour
    read on its square while it stood on top (its size may be in doubt: that is a doubt of its
    own). A cup placed and covered at once by the next move (two moves in one reading: any size
    of it shows the same board), or put where the readings saw none and moved on before one
    did, stays unread for good: nothing but the story that needs it says it was there. With
    them, how many readings read each one's square as no cup of its colour while it stood
    (``missed``): a cup the camera looked at again and again without seeing is a story about
    a misread, not a cup seen late (bench-12 at 1f2c791: a White 4 on c4 the camera never saw,
    "explained" as 2c4, read empty on four readings, then c4-c1)."""
    unread, missed = path.unread, dict(path.missed)
    if unread and (child.root != path.root or len(child.codes) < len(path.codes)):
        unread = frozenset(i for i in unread if child.root == path.root and i < len(child.codes))
    new = range(len(path.codes), len(child.codes)) if e.kind in (Kind.MOVE, Kind.TWO_MOVES) else range(0)
    if not unread and not new:
        return frozenset(), ()
    codes, changes, reading, max_piece = child.codes, dict(e.changes), view.reading, view.max_piece
    out = set()
    for i in (*unread, *new):
        sq = code_to(codes[i])
        if any(sq in code_squares(code) for code in codes[i + 1 :]):
            out.add(i)  # (covered or moved on: no later reading can show it)
            continue
        r = view.row[sq]
        shows, read = changes.get(sq, view.current[r]), reading[r]
        if not read or not shows or (read - 1) // max_piece != (shows - 1) // max_piece:
            out.add(i)
            missed[i] = missed.get(i, 0) + 1
    return frozenset(out), tuple(sorted((i, n) for i, n in missed.items() if i in out))


def _shared_moves(path: GamePath, announced: GamePath) -> int:
    """How many moves ``path`` shares with the announced game: none from another start."""
    return common_prefix(path.codes, announced.codes) if path.root == announced.root else 0


def seen_missing(path: GamePath, announced: GamePath) -> bool:
    """Whether ``path`` plays, past what it shares with ``announced``, a move whose cup no
    reading showed though ``MISSED_READINGS`` or more read its square as no cup of its colour
    while it stood there: a cup the camera kept looking at and never saw. While the player is
    asked for help, a chain of moves late that needs one is a guess (bench-12 at 1f2c791:
    "2c4", read empty four times, then "c4-c1" for White's 2c1, the moves that explain a White
    4 the camera never saw). A cup missed once and moved on is not (a misread the next moves
    explain: in a generated game, White's 4 on c4 read as a Black 2 once, then moved to a1
    while a hand hid the board)."""
    common = _shared_moves(path, announced)
    return any(common <= i and n >= MISSED_READINGS for i, n in path.missed)


def reads_every_move(path: GamePath, announced: GamePath) -> bool:
    """Whether every move ``path`` plays past what it shares with ``announced`` was shown by a
    reading: no cup unread (``unread``: placed and covered at once, put where none was seen),
    none made around a square read against the path that can no longer be checked
    (``Lasting.SUSPECT``). Accepting what the camera sees never plays a path that explains it with
    moves no reading showed (bench-12 at 1f2c791: "2a3", covered at once by "d4-a3", for a
    White 4 on c4 the camera never saw)."""
    common = _shared_moves(path, announced)
    return not any(common <= i < len(path.codes) for i in path.unread | path.lasting.of(Lasting.SUSPECT))


def faint_cups(view: View, e: Explanation, settings: Settings) -> tuple[tuple[Square, int], ...]:
    """The cups ``e`` says a lift uncovered where the stack's contents were a guess (what the
    start taken on a hypothesis put there, ``View.under``), when the reading told them from
    that guess by less than the margin. One faint reading is all that shows them: unlike a
    cup put down, whose rival account (no cup there) is a path kept and scored by every
    later reading, the guess the reveal replaced is kept by no path."""
    if e.kind not in (Kind.MOVE, Kind.TWO_MOVES, Kind.LIFT):
        return ()
    put = {code_to(code) for code in e.codes}
    out = []
    for sq, shown in e.changes:
        r = view.row[sq]
        guess = view.under[r]
        if sq in put or shown == guess:
            continue
        if view.gain[r][shown] - view.gain[r][guess] < settings.margin:
            out.append((sq, shown))
    return tuple(out)


def moved_away(e: Explanation, faint: tuple[tuple[Square, int], ...]) -> bool:
    """Whether ``e`` moves a faint cup away (a move, legal or not, from its square) at the
    very next reading: a cup one faint reading showed, made to leave by the account that
    needs it gone, which is how a ghost is explained away (a misread, a wrong guess of what
    a stack hid) when no reading tells the story twice."""
    origins = {code_origin(code) for code in e.codes if is_board_move(code)}
    action = e.action
    if e.kind is Kind.ILLEGAL and action is not None and action.origin is not None and action.to is not None:
        origins.add(action.origin)
    return any(sq in origins for sq, _ in faint)


# ----- grouping paths by what they claim --------------------------------------------------


def group_by_claim(paths: list[GamePath]) -> list[Group]:
    """Paths grouped by what they say this reading shows (the same move, the same action,
    no change), best group first; each group's score is its best path's."""
    grouped: dict[Claim, list[GamePath]] = {}
    for path in paths:
        grouped.setdefault(claim(path), []).append(path)
    return sorted(((members[0].score, members) for members in grouped.values()), key=lambda g: -g[0])


def lead(grouped: list[Group]) -> float:
    """How far the best group leads. When it is an illegal action, the groups close behind
    that are illegal actions too do not count against it: the referee can say that the board
    shows an illegal action (and the position to restore) without knowing which; no move is
    accepted either way."""
    top = grouped[0]
    rest = grouped[1:]
    if is_illegal(top):
        rest = [group for group in rest if not is_illegal(group)]
    return top[0] - rest[0][0] if rest else float("inf")


def same_cup_other_size(a: Top, b: Top) -> bool:
    """Whether two tops are cups of one colour and two sizes (what a reading between two sizes
    of a cup leaves in doubt)."""
    return a is not None and b is not None and a[0] == b[0] and a[1] != b[1]


def sizes_apart(shows: Sequence[PieceCode], other: Sequence[PieceCode]) -> bool:
    """Whether two boards' tops (``board_shows``) differ, and only where each shows a cup of
    the same colour and another size: what sizes in doubt leave open. One size in doubt can
    bring another with it, through the stacks: when White's 2 went on a4 its next cup is a 1,
    when it was a 3 its next may be a 2, so a reading between a 1 and a 2 on a1 is one doubt
    with a4's, not a second history."""
    differ = [(x, y) for x, y in zip(shows, other, strict=True) if x != y]
    return bool(differ) and all(
        x and y and same_cup_other_size((piece_color(x), piece_size(x)), (piece_color(y), piece_size(y)))
        for x, y in differ
    )


def shows_one_size_apart(path: GamePath, chosen: GamePath) -> bool:
    """Whether ``path``, from the same line as ``chosen``, says this reading shows what
    ``chosen`` says on every square but one, where each has a cup of the same colour and
    another size: a move or a lift, a cup placed or an illegal placement, that a reading
    between two sizes of one cup cannot tell apart (its later readings can)."""
    e, c, view = path.explanation, chosen.explanation, chosen.view
    if e is None or c is None or view is None or path.before is None or chosen.before is None:
        return False
    if path.before.line() != chosen.before.line():
        return False
    theirs, mine = dict(e.changes), dict(c.changes)
    differ = []
    for sq in theirs.keys() | mine.keys():
        now = view.current[view.row[sq]]
        if theirs.get(sq, now) != mine.get(sq, now):
            differ.append((theirs.get(sq, now), mine.get(sq, now)))
    if len(differ) != 1:
        return False
    ((x, y),) = differ
    return same_cup_other_size(class_top(x, view.max_piece), class_top(y, view.max_piece))


def moves_sizes_apart(a: GamePath, b: GamePath) -> bool:
    """Whether two paths make the same moves but for the sizes of cups placed, each on the
    same square (at any plies since the start they share): one cup's size in doubt, or
    several whose doubts the stacks tie together (``sizes_apart``)."""
    if a.root != b.root or len(a.codes) != len(b.codes):
        return False
    differ = [(x, y) for x, y in zip(a.codes, b.codes, strict=True) if physical_key(x) != physical_key(y)]
    return bool(differ) and all(
        not is_board_move(x) and not is_board_move(y) and code_to(x) == code_to(y) for x, y in differ
    )


def lead_past_sizes(paths: list[GamePath], chosen: GamePath) -> float:
    """How far ``chosen``'s claim leads the claims of the paths that only doubt the sizes of
    cups placed (``shows_one_size_apart``, ``moves_sizes_apart``) left out: ``lead`` over the
    others."""
    return lead(
        group_by_claim(
            [
                p
                for p in paths
                if p is chosen or not (shows_one_size_apart(p, chosen) or moves_sizes_apart(p, chosen))
            ]
        )
    )


def illegal_on_a_cup_unseen(path: GamePath, chosen: GamePath) -> bool:
    """Whether ``path`` says this reading shows an illegal action that rests on a cup no
    second reading showed where it needs one: the cup it puts down is read as another there
    (its own square read against it), or the cup it moves away was shown by the previous
    reading alone (its account of that reading put it there, ``chosen``'s history never had
    it, and this reading shows it gone). Such a story asks two faults of the readings at
    once, the players breaking the rules and the camera seeing a cup that was not there (a
    ghost read once, then "moved" by the very action that is called illegal); the lead's
    account needs the misread alone. It is kept (later readings may still prove it) but does
    not hold back the lead's announcement."""
    e, before = path.explanation, path.before
    if e is None or e.kind is not Kind.ILLEGAL or e.action is None or before is None:
        return False
    changed = {sq for sq, _ in e.changes}
    if any(sq in changed for sq, _, _ in path.doubt):
        return True
    origin, last = e.action.origin, before.explanation
    if e.action.kind is not ActionKind.MOVE or origin is None or last is None or chosen.before is None:
        return False
    if before.line() == chosen.before.line() or last.kind not in (Kind.MOVE, Kind.TWO_MOVES):
        return False
    return any(sq == origin and shown for sq, shown in last.changes)


def lead_past_unseen_cups(paths: list[GamePath], chosen: GamePath) -> float:
    """``lead_past_sizes`` with the illegal actions resting on a cup no second reading showed
    (``illegal_on_a_cup_unseen``) left out too."""
    return lead(
        group_by_claim(
            [
                p
                for p in paths
                if p is chosen
                or not (
                    shows_one_size_apart(p, chosen)
                    or moves_sizes_apart(p, chosen)
                    or illegal_on_a_cup_unseen(p, chosen)
                )
            ]
        )
    )


def out_of_turn_from_the_other_start(path: GamePath, chosen: GamePath) -> bool:
    """Whether ``path`` says the very action ``chosen`` plays as a move (the first since a
    resync) was made out of turn from another start: the board it shows is the same, and
    only which side was to move at the resync is in doubt."""
    e, c, before = path.explanation, chosen.explanation, chosen.before
    return (
        e is not None
        and c is not None
        and before is not None
        and not before.codes
        and e.kind is Kind.ILLEGAL
        and c.kind is Kind.MOVE
        and path.root != chosen.root
        and e.action is not None
        and e.action.text() == code_text(c.codes[0])
    )


def lead_past_side(paths: list[GamePath], chosen: GamePath) -> float:
    """How far ``chosen``'s claim leads once the paths that play its action out of turn from
    the other start (``out_of_turn_from_the_other_start``) are left out."""
    return lead(group_by_claim([p for p in paths if not out_of_turn_from_the_other_start(p, chosen)]))


def accuses(path: GamePath) -> bool:
    """Whether ``path`` has a player's illegal action standing on the board: one its account
    of this reading makes (a cup placed or moved against the rules, the touch rule's cup not
    the one moved), or one it already had and has not put right."""
    return path.pending is not None and not peeks(path)


def peeks(path: GamePath) -> bool:
    """Whether ``path``'s account of this reading is a fresh lift the touch rule forbids (the
    opponent's cup lifted): a hand's doing, not a cup seen, which the presumption of legality
    leaves alone (``presumed_lawful``)."""
    e, before = path.explanation, path.before
    return (
        path.pending is not None
        and e is not None
        and e.kind is Kind.LIFT
        and (before is None or before.pending is None)
    )


def presumed_lawful(paths: list[GamePath], margin: float) -> tuple[list[GamePath], list[Group]] | None:
    """The paths (best first) that accuse no one and their claims, best first, when one does
    accuse and no accusation leads every lawful account by ``margin``; None otherwise.

    A referee accuses a player only when it is sure: an illegal action is announced when it
    beats every lawful account of the reading by the margin, as any claim must. Below that
    the camera cannot tell the two apart, and the lawful account is what the table plays on,
    reported unsure while the accusation is close; the accusation stays a path, and fresh
    evidence (a lift, a later clear reading, the cup moved on) can still raise it past the
    margin. The lawful claims are weighed among themselves, each with the evidence of the
    accusations that say the reading shows what it says but for one cup's size
    (``shows_one_size_apart``: "3c4 placed from under its 4" beside "4c4"): the same cup put
    down, only its size in doubt, so their probabilities add (whether a cup was put down at
    all is not in doubt because the size is). A fresh lift the touch rule forbids close to the
    best (``peeks``) leaves the weighing as it was: a hand's doing, not a cup's size."""
    lawful = [p for p in paths if not accuses(p) and not peeks(p)]
    accusing = [p for p in paths if accuses(p)]
    if not lawful or not accusing or accusing[0].score >= lawful[0].score + margin:
        return None
    if any(peeks(p) and p.score > paths[0].score - margin for p in paths):
        return None  # (a forbidden lift in the doubt: weighed as any claim, as it was)
    groups = [
        (
            functools.reduce(
                np.logaddexp,
                (p.score for p in accusing if shows_one_size_apart(p, members[0])),
                score,
            ),
            members,
        )
        for score, members in group_by_claim(lawful)
    ]
    return lawful, sorted(groups, key=lambda g: -g[0])


def is_illegal(group: Group) -> bool:
    e = group[1][0].explanation
    return e is not None and e.kind is Kind.ILLEGAL


def claim(path: GamePath) -> Claim:
    e = path.explanation
    assert e is not None
    if e.codes:
        keys: tuple[PhysicalKey, ...] = tuple(physical_key(code) for code in e.codes)
        return ("moves", *keys)
    if e.action is not None:
        return (str(e.kind), e.action)
    return (str(e.kind),)


# ----- move codes in words ----------------------------------------------------------------


def code_text(code: MoveCode) -> str:
    """A move code as the physical action's text (``2b3``, ``a1-c3``), without a position."""
    if is_board_move(code):
        return "-".join(square_name(sq) for sq in code_squares(code))
    return f"{code_size(code)}{square_name(code_to(code))}"


def code_square_names(code: MoveCode) -> tuple[str, ...]:
    return tuple(square_name(sq) for sq in code_squares(code))


def common_prefix(a: Sequence[MoveCode], b: Sequence[MoveCode]) -> int:
    """How many moves two lines share from their start."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def touched_action(view: View, code: MoveCode) -> Action:
    """A legal move's code as the physical action (for a move the touch rule forbids)."""
    to = code_to(code)
    f = view.tops
    if is_board_move(code):
        origin = code_origin(code)
        top = class_top(f.current_list[f.row[origin]], view.max_piece)
        assert top is not None
        return Action(ActionKind.MOVE, top[0], top[1], to=to, origin=origin)
    return Action(ActionKind.PLACE, f.turn, code_size(code), to=to)


# ----- what a position shows ----------------------------------------------------------------


def board_shows(position: Position) -> tuple[tuple[int, ...], int, int]:
    """What the board shows of a position (each square's top, the side to move), and the
    position itself (hidden cups and reserves included: its hash)."""
    return (tuple(stack[-1] if stack else 0 for stack in position.piece_stacks), position.turn, position.hash)


def game_over_now(position: Position) -> bool:
    """``game_over`` without the position's tops (generating the moves)."""
    return position.line_decided or position.repetitions() >= 3 or not position.legal_codes()


def game_over(position: Position, view: View) -> bool:
    """A full line, threefold repetition or no legal move (``Position.outcome`` without
    generating the moves again)."""
    return position.line_decided or position.repetitions() >= 3 or not view.tops.codes
