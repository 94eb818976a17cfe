"""What the referee's decoding speaks of: the kinds of account a reading may get, their
priors, the thresholds, and one account (``Explanation``).

The decoder (``decoder.py``) makes accounts of a reading; the reconciler (``reconciler.py``)
keeps the paths of moves they extend. Both share this vocabulary, and the likelihood tables
(``likelihood.py``) price the rarer kinds with ``PRIOR``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from companion.reconciler.referee import Action
from companion.rules.codes import MoveCode
from companion.rules.position import Position
from companion.rules.square import Square


class Kind(StrEnum):
    NO_CHANGE = "no-change"
    MOVE = "move"  # one legal move
    TWO_MOVES = "two-moves"  # a legal move and the reply, made while the board was covered
    TAKEBACK = "takeback"  # the board shows the position before the last move
    LIFT = "lift"  # a top cup is in the air
    ILLEGAL = "illegal"  # a physical action the rules do not allow
    NEW_GAME = "new-game"  # the board shows the start position again
    AFTER_END = "after-end"  # the game is over: whatever the board shows is not the referee's business


# Log-odds (nats) against each kind before any evidence: a plain move or nothing is the normal
# case; a takeback, a lift, an illegal action, two moves at once are each rarer. All are below
# the margin, so they order near-ties but never decide between two explanations that predict
# the same view: those are reported as ambiguous.
PRIOR: dict[Kind, float] = {
    Kind.NO_CHANGE: 0.0,
    Kind.MOVE: 0.0,
    Kind.TAKEBACK: 0.5,
    Kind.LIFT: 0.5,
    Kind.TWO_MOVES: 3.5,
    Kind.NEW_GAME: 2.0,
    Kind.ILLEGAL: 1.0,
    Kind.AFTER_END: 6.0,
}

ROUNDING = 1e-6  # nats: more than the scores' rounding can differ by, summed in another order


@dataclass(frozen=True)
class Settings:
    """The decoder's and the reconciler's thresholds, in nats (natural-log likelihood ratios)."""

    margin: float = 4.0  # announce: the best beats every other reading of the board 55 to 1
    outlier: float = 0.02  # chance that a square's reading is wrong whatever its confidence
    clean: float = 4.0  # residual below which an explanation accounts for the whole board
    misread: float = 2.0  # a square whose reading contradicts the explanation by more is a misread
    max_changed: int = 8  # the two-move search looks at this many of the squares read as changed, at most
    changed: float = 4.0  # a square may have changed when another class reads within this of its top
    keep: float = 10.0  # paths this far behind the best stay alive (two confident misreads)
    doubt: float = 7.0  # an earlier move is unsure while a path this close plays another
    width: int = 8  # paths kept at most
    lines: int = 6  # of them, different lines of moves at most (each costs a scoring of a reading)


DEFAULT_SETTINGS = Settings()


@dataclass(slots=True)
class Explanation:
    """One way the board could have come to look as observed."""

    kind: Kind
    gain: float  # log-likelihood over "no change"
    changes: tuple[tuple[Square, int], ...]  # (square, class it shows afterwards)
    codes: tuple[MoveCode, ...] = ()  # legal move codes played, in order
    action: Action | None = None  # the physical action (ILLEGAL, LIFT)
    flaws: int = 0  # squares whose reading contradicts it (set when ranked)
    prior: float = 0.0  # log-odds against it beyond its kind's

    @property
    def score(self) -> float:
        return self.gain - PRIOR[self.kind] - self.prior

    def describe(self, position: Position) -> str:
        """Short text for logs and needs-attention events."""
        if self.codes:
            return " ".join(code_texts(position, self.codes))
        if self.action is not None:
            return f"{self.kind} {self.action.text()}"
        return str(self.kind)


def code_texts(position: Position, codes: Iterable[MoveCode]) -> list[str]:
    """Texts of codes played in sequence from ``position`` (which is left unchanged)."""
    texts = []
    pushed = 0
    for code in codes:
        texts.append(position.move_from_code(code).text())
        position.push_code(code)
        pushed += 1
    for _ in range(pushed):
        position.pop_code()
    return texts
