"""Static evaluation of a Gobblet position, in centipawn-like units from the side to move.

Only the top piece of a stack counts for lines, so the evaluation reads the rules engine's
bitboards of visible tops (``tops_mask``/``size_tops_mask``) and looks under a stack only
where it matters: a piece whose lift would uncover an opponent line is pinned. What it knows:

- lines: each row/column/diagonal scores by how many tops each colour shows in it;
  a line of W-1 (a *threat line*) is worth a lot, two threats on different squares more;
- the exception of rule 4: a threat line whose pieces can be gobbled straight from the
  opponent's external stacks (threat-line or storer rule) is worth less;
- pinned pieces: a top whose lift uncovers an opponent line cannot move (a losing uncover);
- hidden pieces: own pieces buried under opponent tops are out of play, buried opponent
  pieces are a gain but come back when the cover moves;
- material: large tops cannot be gobbled, and large pieces still in the external stacks are
  flexible threats (they may be placed on any empty square).

It is called at every leaf of the search, so it is written for speed: a loop over the line
masks with ``int.bit_count``, tables built once per variant, a cache of reserve values.
"""

from __future__ import annotations

from functools import cache

from companion.rules import GobbleRule, Position, Variant
from companion.rules.geometry import geometry

WIN_SCORE = 100_000          # MATE: a won game; scores within MATE_BOUND of it are mates
MATE_BOUND = WIN_SCORE - 1_000

# Line scores by (own tops, opponent tops) for win length W, as a fraction of W: own-only
# lines grow steeply, mixed lines count little (a top can still be gobbled to break them).
OPEN_LINE = (0, 3, 12, 45, 90, 160, 260)
THREAT = 180                  # a line of W-1 tops with the last square not the opponent's top
BLOCKED_THREAT = 40           # W-1 tops but the last square shows an opponent top
DOUBLE_THREAT = 600           # threats on two different squares: one can only block one
STACK_GOBBLE_DISCOUNT = 90    # the threat can be broken by gobbling from an external stack
PINNED = 120                  # a top whose lift uncovers an opponent line
BURIED = 25                   # a piece covered by the opponent's piece
SIZE_VALUE = (0, 4, 9, 16, 26, 38, 52, 68, 86, 106)
RESERVE_SIZE_VALUE = (0, 3, 6, 10, 16, 22, 30, 38, 48, 58)
CENTRE = 6                    # per extra line through a square beyond the minimum
TEMPO = 15                    # the side to move acts first


class Evaluator:
    """Evaluation tables for one variant; ``evaluate(position)`` scores from the side to move."""

    def __init__(self, variant: Variant) -> None:
        geo = geometry(variant.size, variant.win_length)
        self.variant = variant
        self.win = variant.win_length
        self.lines = tuple(line.mask for line in geo.lines)
        self.max_size = variant.max_piece
        self.total_pieces = variant.pieces_per_player
        self.stack_gobble = variant.gobble_rule in (GobbleRule.THREAT_LINE, GobbleRule.STORER, GobbleRule.ALWAYS)
        fewest = min(len(geo.lines_through[sq]) for sq in geo.squares)
        # Squares on more lines than the fewest (centre, long diagonals) as weighted masks.
        self.centre_masks = tuple(
            (extra, sum(1 << sq for sq in geo.squares if len(geo.lines_through[sq]) - fewest == extra))
            for extra in range(1, 8)
            if any(len(geo.lines_through[sq]) - fewest == extra for sq in geo.squares)
        )
        w = self.win
        self.own_line = tuple(OPEN_LINE[min(k, len(OPEN_LINE) - 1)] * 4 // max(w, 1) for k in range(w + 1))

    def evaluate(self, position: Position) -> int:
        """Score from the side to move's point of view (positive: good for the mover)."""
        return self.white_score(position) * (1 - 2 * position.turn) + TEMPO

    def white_score(self, position: Position) -> int:
        tops = (position.tops_mask(0), position.tops_mask(1))
        score = self._line_score(position, tops)
        score += self._material(position, tops, 0) - self._material(position, tops, 1)
        for extra, mask in self.centre_masks:
            score += CENTRE * extra * ((tops[0] & mask).bit_count() - (tops[1] & mask).bit_count())
        return score

    def _line_score(self, position: Position, tops: tuple[int, int]) -> int:
        """Open lines, threat lines (single and double), pins and the stack-gobble exception."""
        white, black = tops
        need = self.win - 1
        own_line = self.own_line
        score = 0
        threat_squares = [0, 0]
        for mask in self.lines:
            kw = (white & mask).bit_count()
            kb = (black & mask).bit_count()
            if kb == 0:
                score += own_line[kw]
            elif kw == 0:
                score -= own_line[kb]
            if kw == need:
                score += self._threat(position, 0, mask & ~white, kb, threat_squares)
            elif kb == need:
                score -= self._threat(position, 1, mask & ~black, kw, threat_squares)
        for color in (0, 1):
            squares = threat_squares[color]
            if squares & (squares - 1):  # two or more distinct completing squares
                score += DOUBLE_THREAT if color == 0 else -DOUBLE_THREAT
        return score

    def _threat(self, position: Position, color: int, last: int, others: int, threats: list[int]) -> int:
        """Value of ``color``'s W-1 line whose remaining square is ``last`` (one bit)."""
        if others:
            # The last square shows an opponent top: a threat only if ``color`` can gobble it.
            value = BLOCKED_THREAT
            sq = last.bit_length() - 1
            stack = position._stacks[sq]
            if stack and (stack[-1] >> 1) < self.max_size:
                threats[color] |= last
            # The opponent's top in this line may be pinned: lifting it uncovers ``color``'s line.
            if len(stack) >= 2 and stack[-2] & 1 == color:
                value += PINNED
        else:
            value = THREAT
            threats[color] |= last
        if self.stack_gobble and self._stack_can_break(position, color ^ 1):
            value -= STACK_GOBBLE_DISCOUNT
        return value

    def _stack_can_break(self, position: Position, breaker: int) -> bool:
        """Rule 4's exception: the opponent may gobble a piece of a line of W-1 from a stack."""
        return bool(position.reserve(breaker))

    def _material(self, position: Position, tops: tuple[int, int], color: int) -> int:
        """Visible sizes, pieces still in hand, and own pieces buried on the board."""
        mine = tops[color]
        value = 0
        for size in range(1, self.max_size + 1):
            value += SIZE_VALUE[size] * (mine & position.size_tops_mask(size)).bit_count()
        in_hand, hand_value = reserve_summary(position.reserve(color))
        value += hand_value
        buried = self.total_pieces - in_hand - mine.bit_count()
        return value - BURIED * buried


@cache
def reserve_summary(reserve: tuple[tuple[int, ...], ...]) -> tuple[int, int]:
    """(pieces in hand, their value): only stack tops can be played, so tops count double."""
    count = sum(len(stack) for stack in reserve)
    value = sum(RESERVE_SIZE_VALUE[stack[0]] for stack in reserve)
    value += sum(RESERVE_SIZE_VALUE[s] for stack in reserve for s in stack) // 2
    return count, value


@cache
def evaluator_for(variant: Variant) -> Evaluator:
    return Evaluator(variant)
