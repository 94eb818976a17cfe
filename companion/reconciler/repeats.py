"""Readings of a stack nothing has touched: correlated evidence, not new evidence.

A path's score was the joint log-likelihood of all its readings as if each were an independent
look at the board. They are not: a reader's error on one cup (its outline against a shadow,
a rim too faint to tell a 4 from a 3) comes from the cup, the light and the view, and repeats
on every frame until one of them changes. Counted as independent, a black 4 read as a 3 at 0.7
against 0.25 gained the wrong path about 1 nat on every board after it was placed and passed
the 4-nat margin in four readings: the referee "settled" the wrong size from one misread
repeated (bench-26, ply 10, 3d1 for 4d1).

So each square's readings are weighed as correlated evidence: the first reading after a
change counts in full and each repeat ``REPEAT_DISCOUNT`` of the one before (1, 0.65, 0.42,
0.27 ...), so that a misread held however long is worth at most ``1 / (1 - 0.65)``, 2.9, of its
readings: a cup read 0.7 against 0.25 can never pass the margin on repeats alone. (The
equicorrelated model, ``n`` readings worth ``n / (1 + (n - 1) c)``, discounts the first repeat
more; at ``c`` = 1/2 it kept every path a clean reading refutes at the floor two readings
longer than before and made the reconciler twice as slow. With 0.65 such a path, about 6 nats
behind after one reading, is about 10 behind after its first repeat, as it was at once before.)
What is a repeat is per path and square:

- a square whose contents the path changed at a reading (a cup put down, moved away, lifted,
  put back) starts afresh there: the reading after a change is new evidence, at full weight,
  and what is read of a cup a player lifts to show it, and puts back, counts again in full;
- so does a square whose reading itself changed materially since the reading before
  (``FRESH_CHANGE`` of total variation: the light changed, a shadow moved, the view is
  another; a cup put down or taken away changes it by nearly 1), the same on every path
  (a reader's own drift on one untouched cup, 0.46 a 3 then 0.75, is no such change);
- otherwise the reading repeats what the earlier readings of that stack said, and adds its
  share of the saturating total.

The first reading after a change keeps its full weight, so what tells two accounts of a move
apart at the reading it is made (and a doubt confirmed or refuted by the next reading, which
``paths.carry_doubts`` judges on the reading itself, not on the score) is as before. What a
reader's repeated doubt between two sizes can no longer do is settle the size: the ply stays
reported unsure until something changes (a lift, a move on the square, other light).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from companion.reconciler.likelihood import Likelihood

REPEAT_DISCOUNT = 0.65  # each repeat of a reading counts this much of the one before it
FRESH_CHANGE = 0.4  # total variation between a square's two readings that makes the later one new
MOST_REPEATS = 32  # repeats counted (the weight beyond is below 2e-6: those count as the last)


@cache
def repeat_weights(discount: float = REPEAT_DISCOUNT, most: int = MOST_REPEATS) -> np.ndarray:
    """The weight of each repeat of a reading (index 0: the first after a change, weight 1):
    ``discount`` to the power of the repeats before it."""
    weights = discount ** np.arange(most, dtype=float)
    weights.flags.writeable = False
    return weights


def fresh_squares(before: np.ndarray | None, now: np.ndarray) -> np.ndarray:
    """Which squares' readings (rows of class probabilities) changed materially since the
    reading before: all of them when there is none to compare."""
    if before is None or before.shape != now.shape:
        return np.ones(now.shape[0], dtype=bool)
    changed: np.ndarray = np.abs(now - before).sum(axis=1) > 2.0 * FRESH_CHANGE
    return changed


@dataclass(slots=True, eq=False)
class Weighing:
    """One reading weighed for one path (scored against its line's tops): what it adds when
    no account changes a square, what an account changing squares adds beyond its gain, and
    the path's repeats after the reading."""

    base: float  # each square's log-likelihood of its top, weighted
    keep: np.ndarray  # repeats after this reading where the account changes nothing
    extras: list[float] | None  # per square: (1 - weight) of its top's log-likelihood; None: all 1
    back: dict[int, tuple[int, float, int]]  # squares whose top is not what the path showed at
    #   the reading before: (that class, what showing it again adds beyond its gain, its repeats)
    bound: np.ndarray | None  # the most an account could gain on each square, over the
    #   unweighted gain's bound (``slack``); None: no weight anywhere

    def changed(self, changes: Sequence[tuple[int, int]]) -> float:
        """What an account changing ``changes`` ((row, class) pairs) adds beyond its gain (its
        gain takes back each top's log-likelihood in full, where the top counted only at its
        weight; what it shows instead is new and read in full, unless it is what the path
        showed there at the reading before, a cup still in the air, say: a repeat)."""
        out = 0.0
        extras, back = self.extras, self.back
        for r, cls in changes:
            if extras is not None:
                out += extras[r]
            again = back.get(r)
            if again is not None and again[0] == cls:
                out += again[1]
        return out

    def after(self, changes: Sequence[tuple[int, int]]) -> np.ndarray:
        """The repeats of the path whose account changes ``changes`` ((row, class) pairs)."""
        if not changes:
            return self.keep
        out = self.keep.copy()
        back = self.back
        for r, cls in changes:
            again = back.get(r)
            out[r] = min(again[2] + 1, MOST_REPEATS - 1) if again is not None and again[0] == cls else 1
        return out

    def slack(self, slack: np.ndarray) -> np.ndarray:
        """The most changing each square could add, given its best reading over its top
        (``slack``, unweighted): what bounds an account's gain on this path."""
        return slack if self.bound is None else np.maximum(slack + self.bound, 0.0)


def weigh(
    shown: np.ndarray | None,
    repeats: np.ndarray | None,
    current: np.ndarray,
    fresh: np.ndarray,
    likelihood: Likelihood,
    base_row: np.ndarray,
) -> Weighing:
    """This reading weighed for a path whose latest account showed ``shown`` (classes per
    square), read unchanged ``repeats`` times (None: a path with no reading yet: all count in
    full), scored against tops ``current`` (``base_row``: each square's log-likelihood of its
    top, in ``likelihood``). A square is a repeat where what an account leaves it showing is
    what the path showed at the reading before (a cup lifted and put back since is not) and
    its reading did not change materially."""
    if shown is None or repeats is None:
        return Weighing(float(base_row.sum()), np.ones(current.shape[0], dtype=np.int64), None, {}, None)
    kept = ~fresh
    same = current == shown
    other = kept & ~same  # (showing ``shown`` again there is a repeat too)
    same &= kept
    counts = repeats * same  # (repeats are kept below MOST_REPEATS)
    keep = counts + 1
    np.minimum(keep, MOST_REPEATS - 1, out=keep)
    table = repeat_weights()
    rows = np.flatnonzero(other).tolist()
    if not counts.any() and not rows:
        return Weighing(float(base_row.sum()), keep, None, {}, None)
    weights = table[counts]
    extra = (1.0 - weights) * base_row
    best = likelihood.best
    reach = best.copy()
    back = {}
    for r in rows:
        cls, n = int(shown[r]), int(repeats[r])
        again = float(likelihood.log[r, cls])
        back[r] = (cls, (float(table[n]) - 1.0) * again, n)
        reach[r] = max(best[r], float(table[n]) * again)
    # the most on each square: the best reading (or the path's last class again, at its
    # repeat's weight), less the top at its weight, over the unweighted best less the top
    bound = reach - best + extra
    return Weighing(float(weights @ base_row), keep, extra.tolist(), back, bound)
