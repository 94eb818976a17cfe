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
from itertools import islice

from companion.engine.board import PIECE_BITS, PIECE_MASK, SearchBoard, board_tables_for
from companion.rules import GobbleRule, Position, Variant
from companion.rules.geometry import geometry
from companion.rules.reserves import RESERVES

WIN_SCORE = 100_000  # MATE: a won game; scores within MATE_BOUND of it are mates
MATE_BOUND = WIN_SCORE - 1_000

# Line scores by (own tops, opponent tops) for win length W, as a fraction of W: own-only
# lines grow steeply, mixed lines count little (a top can still be gobbled to break them).
OPEN_LINE = (0, 3, 12, 45, 90, 160, 260)
THREAT = 180  # a line of W-1 tops with the last square not the opponent's top
BLOCKED_THREAT = 40  # W-1 tops but the last square shows an opponent top
DOUBLE_THREAT = 600  # threats on two different squares: one can only block one
STACK_GOBBLE_DISCOUNT = 90  # the threat can be broken by gobbling from an external stack
PINNED = 120  # a top whose lift uncovers an opponent line
BURIED = 25  # a piece covered by the opponent's piece
SIZE_VALUE = (0, 4, 9, 16, 26, 38, 52, 68, 86, 106)
RESERVE_SIZE_VALUE = (0, 3, 6, 10, 16, 22, 30, 38, 48, 58)
CENTRE = 6  # per extra line through a square beyond the minimum
TEMPO = 15  # the side to move acts first
LINE_CACHE_LIMIT = 150_000  # (white tops, black tops) pairs whose line terms are kept


class Evaluator:
    """Evaluation tables for one variant; ``evaluate(position)`` scores from the side to move.

    The line terms depend only on which colour shows on each square, and the same pair of
    colour masks recurs in many positions of a search (different sizes, hidden pieces or
    stacks), so they are cached by that pair; pins and the stack-gobble discount are added per
    call, the tops' sizes come from the search board's running ``material`` and the pieces in
    hand from a cache by the two external stacks."""

    def __init__(self, variant: Variant) -> None:
        geo = geometry(variant.size, variant.win_length)
        tables = board_tables_for(variant)  # the search board's compact square numbers
        self.variant = variant
        self.win = variant.win_length
        self.lines = tables.lines
        self.max_size = variant.max_piece
        self.total_pieces = variant.pieces_per_player
        self.stack_gobble = variant.gobble_rule in (
            GobbleRule.THREAT_LINE,
            GobbleRule.STORER,
            GobbleRule.ALWAYS,
        )
        fewest = min(len(geo.lines_through[sq]) for sq in geo.squares)
        # Squares on more lines than the fewest (centre, long diagonals) as weighted masks.
        self.centre_masks = tuple(
            (
                extra,
                tables.compact(
                    sum(1 << sq for sq in geo.squares if len(geo.lines_through[sq]) - fewest == extra)
                ),
            )
            for extra in range(1, 8)
            if any(len(geo.lines_through[sq]) - fewest == extra for sq in geo.squares)
        )
        w = self.win
        # a line holding k tops of one colour and none of the other counts own_line[k] for that
        # colour; a line holding both colours counts nothing (but for a line of W-1)
        self.own_line = tuple(OPEN_LINE[min(k, len(OPEN_LINE) - 1)] * 4 // max(w, 1) for k in range(w + 1))
        self.line_cache: dict[int, tuple[int, int, int, tuple[tuple[int, int, int], ...], int, int]] = {}
        self.shift = (
            variant.size * variant.size
        )  # above every square's bit: (white << shift | black) is exact
        # what a visible top adds to the board's running material, by piece code size << 1 | colour
        self.piece_values = tuple(
            (SIZE_VALUE[code >> 1] if code & 1 == 0 else -SIZE_VALUE[code >> 1]) if code >= 2 else 0
            for code in range(2 * self.max_size + 2)
        )
        self.hand_cache: dict[int, int] = {}  # white's reserve id << 16 | black's -> hand term

    def evaluate(self, position: Position) -> int:
        """Score from the side to move's point of view (positive: good for the mover)."""
        return self.score(SearchBoard(position, self.piece_values))

    def score(self, board: SearchBoard) -> int:
        """``evaluate`` on the search's board. This runs at most nodes of the search, so it
        only looks things up: the line terms by the pair of colour bitboards, the tops' sizes
        from the board's running ``material``, the pieces in hand by the pair of reserves."""
        white, black = board.tops
        lines = self.line_cache.get(white << self.shift | black)
        if lines is None:
            lines = self._lines(white, black)
        score, white_threats, black_threats, blocked, white_lines, black_lines = lines
        if blocked:
            stacks = board.stacks
            largest = board.size_tops[self.max_size]
            for last, square, color in blocked:  # a line of W-1 whose last square shows the other colour
                under = stacks[square] >> PIECE_BITS & PIECE_MASK
                if under and under & 1 == color:
                    score += PINNED if color == 0 else -PINNED  # lifting that top uncovers the line
                if not largest & last:  # a threat only if that top can still be gobbled
                    if color == 0:
                        white_threats |= last
                    else:
                        black_threats |= last
            if white_threats & (white_threats - 1):  # two or more distinct completing squares
                score += DOUBLE_THREAT
            if black_threats & (black_threats - 1):
                score -= DOUBLE_THREAT
        rids = board.rid
        if self.stack_gobble:  # rule 4: the opponent may gobble into a line of W-1 from a stack
            if white_lines and RESERVES[rids[1]]:
                score -= STACK_GOBBLE_DISCOUNT * white_lines
            if black_lines and RESERVES[rids[0]]:
                score += STACK_GOBBLE_DISCOUNT * black_lines
        hands = rids[0] << 16 | rids[1]
        hand = self.hand_cache.get(hands)
        if hand is None:
            hand = self._hand(rids[0], rids[1])
        if board.turn:
            return TEMPO - score - board.material - hand
        return score + board.material + hand + TEMPO

    def _hand(self, white_rid: int, black_rid: int) -> int:
        in_white, white_hand = reserve_summary(RESERVES[white_rid])
        in_black, black_hand = reserve_summary(RESERVES[black_rid])
        # buried(w) - buried(b) = (in hand(b) - in hand(w)) + (visible(b) - visible(w));
        # the visible part is in the lines' entry
        hand = self.hand_cache[white_rid << 16 | black_rid] = (
            white_hand - black_hand - BURIED * (in_black - in_white)
        )
        return hand

    def _lines(
        self, white: int, black: int
    ) -> tuple[int, int, int, tuple[tuple[int, int, int], ...], int, int]:
        """What the tops' colours alone decide: (score of lines, threats, centre and visible
        count, and double threats unless a blocked line may add a threat square; white's and
        black's open threat squares; blocked lines of W-1 as (last
        square's bit, that square, colour of the line); white's and black's lines of W-1)."""
        need = self.win - 1
        own_line = self.own_line
        score = 0
        white_threats = black_threats = 0
        white_lines = black_lines = 0
        blocked = []
        # by which colours the line holds (each line's counts are taken only where they
        # matter: this runs on every miss of the cache)
        for mask in self.lines:
            w = white & mask
            b = black & mask
            if not b:  # white's alone (or empty): open for white
                kw = w.bit_count()
                score += own_line[kw]
                if kw == need:
                    white_lines += 1
                    score += THREAT
                    white_threats |= mask ^ w
            elif not w:  # black's alone: open for black
                kb = b.bit_count()
                score -= own_line[kb]
                if kb == need:
                    black_lines += 1
                    score -= THREAT
                    black_threats |= mask ^ b
            elif w.bit_count() == need:  # both colours: worth nothing unless one has W-1
                white_lines += 1
                last = mask ^ w
                score += BLOCKED_THREAT
                blocked.append((last, last.bit_length() - 1, 0))
            elif b.bit_count() == need:
                black_lines += 1
                last = mask ^ b
                score -= BLOCKED_THREAT
                blocked.append((last, last.bit_length() - 1, 1))
        score += BURIED * (white.bit_count() - black.bit_count())
        for extra, mask in self.centre_masks:
            score += CENTRE * extra * ((white & mask).bit_count() - (black & mask).bit_count())
        if not blocked:  # the threats are final: the double threats are decided here too
            if white_threats & (white_threats - 1):  # two or more distinct completing squares
                score += DOUBLE_THREAT
            if black_threats & (black_threats - 1):
                score -= DOUBLE_THREAT
        entry = (score, white_threats, black_threats, tuple(blocked), white_lines, black_lines)
        cache = self.line_cache
        if len(cache) > LINE_CACHE_LIMIT:  # forget the older half (a dict keeps insertion order)
            for key in list(islice(cache, LINE_CACHE_LIMIT // 2)):
                cache.pop(key, None)  # (searches in two threads share this cache)
        cache[white << self.shift | black] = entry
        return entry


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
