"""Readings of a stack nothing has touched: correlated evidence, not new evidence.

A path's score was the joint log-likelihood of all its readings as if each were an independent
look at the board. They are not: a reader's error on one cup (its outline against a shadow,
a rim too faint to tell a 4 from a 3) comes from the cup, the light and the view, and repeats
on every frame until one of them changes. Counted as independent, a black 4 read as a 3 at 0.7
against 0.25 gained the wrong path about 1 nat on every board after it was placed and passed
the 4-nat margin in four readings: the referee "settled" the wrong size from one misread
repeated (bench-26, ply 10, 3d1 for 4d1).

So each square's readings are weighed as equicorrelated evidence. ``n`` readings whose errors
share a correlation ``c`` tell as much as ``n / (1 + (n - 1) c)`` independent ones (the
variance of their mean is ``(1 + (n - 1) c) / n`` of one's), which never exceeds ``1 / c``:
the ``k``-th repeat (``k`` = 0 for the first reading) counts with weight
``n_eff(k + 1) - n_eff(k)`` (1, 1/3, 1/6, 1/10 ... at ``c`` = 1/2), and a misread held
however long is worth at most two of its readings. What is a repeat is per path and square:

- a square whose contents the path changed at a reading (a cup put down, moved away, lifted,
  put back) starts afresh there: the reading after a change is new evidence, at full weight,
  and what is read of a cup a player lifts to show it, and puts back, counts again in full;
- so does a square whose reading itself changed materially since the reading before
  (``FRESH_CHANGE`` of total variation: the light changed, a shadow moved, the view is
  another), the same on every path;
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

REPEAT_CORRELATION = 0.5  # how much of a reading's error on an untouched stack repeats in the next
FRESH_CHANGE = 0.25  # total variation between a square's two readings that makes the later one new
MOST_REPEATS = 32  # repeats counted (the weight beyond is below a hundredth: those count as the last)


@cache
def repeat_weights(correlation: float = REPEAT_CORRELATION, most: int = MOST_REPEATS) -> np.ndarray:
    """The weight of each repeat of a reading (index 0: the first after a change, weight 1):
    what it adds to the effective number of independent readings, ``n / (1 + (n - 1) c)``."""
    n = np.arange(most + 1, dtype=float)
    effective = n / (1.0 + np.maximum(n - 1.0, 0.0) * correlation)
    weights = np.diff(effective)
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
    """One reading weighed for one path (scored against its line's tops ``current``): each
    square's weight when an account leaves it showing what it shows, what an account that
    changes a square adds beyond its gain, and the path's repeats after the reading."""

    base: float  # what the reading adds if no account changes a square: weighted log-likelihoods
    shown: list[int]  # the class the path's latest account showed on each square
    counts: list[int]  # readings of it unchanged so far (0: the next counts in full)
    fresh: list[bool]  # the square's reading changed materially since the one before
    keep: np.ndarray  # repeats after this reading of the squares no account changes
    extra: list[float] | None  # per square: (1 - weight) of its current log-likelihood; None: all 1
    plain: bool  # every account scores as if each reading were new (no repeat anywhere)

    def changed(self, changes: Sequence[tuple[int, int]], log: np.ndarray) -> float:
        """What an account changing ``changes`` ((row, class) pairs) adds beyond its gain: the
        current contents' weighted share taken back, and the new contents' read in full, or
        at their repeat's weight when the path's last account showed that very class there
        (a cup still in the air, say)."""
        out = 0.0
        extra, shown, counts, fresh = self.extra, self.shown, self.counts, self.fresh
        for r, cls in changes:
            if extra is not None:
                out += extra[r]
            if cls == shown[r] and not fresh[r] and counts[r]:
                out += (float(repeat_weights()[min(counts[r], MOST_REPEATS - 1)]) - 1.0) * float(log[r, cls])
        return out

    def after(self, changes: Sequence[tuple[int, int]]) -> np.ndarray:
        """The repeats of the path that changes ``changes`` ((row, class) pairs)."""
        if not changes:
            return self.keep
        out = self.keep.copy()
        shown, counts, fresh = self.shown, self.counts, self.fresh
        for r, cls in changes:
            out[r] = min(counts[r] + 1, MOST_REPEATS) if cls == shown[r] and not fresh[r] else 1
        return out


def weigh(
    shown: np.ndarray | None,
    repeats: np.ndarray | None,
    current: np.ndarray,
    fresh: np.ndarray,
    base_row: np.ndarray,
) -> Weighing:
    """This reading weighed for a path whose latest account showed ``shown`` (classes per
    square), read unchanged ``repeats`` times (None: a path with no reading yet, all in
    full), scored against tops ``current`` (``base_row``: each square's log-likelihood of
    its top): a square counts as a repeat where the top is what the path showed and the
    reading did not change materially."""
    if shown is None or repeats is None:
        n = current.shape[0]
        ones = np.ones(n, dtype=np.int64)
        return Weighing(float(base_row.sum()), current.tolist(), [0] * n, [True] * n, ones, None, True)
    same = (current == shown) & ~fresh
    counts = np.where(same, np.minimum(repeats, MOST_REPEATS - 1), 0)
    keep = np.where(same, np.minimum(repeats + 1, MOST_REPEATS), 1)
    extra: list[float] | None = None
    total = float(base_row.sum())
    if counts.any():
        weights = repeat_weights()[counts]
        total = float(weights @ base_row)
        extra = ((1.0 - weights) * base_row).tolist()
    plain = extra is None and not ((current != shown) & ~fresh).any()
    return Weighing(total, shown.tolist(), repeats.tolist(), fresh.tolist(), keep, extra, plain)
