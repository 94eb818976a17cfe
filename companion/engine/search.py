"""Iterative-deepening negamax with alpha-beta for every variant.

The tree is searched on the engine's own ``SearchBoard`` (``board.py``: int stacks, compact
bitboards, the rules engine's hash and move-code layout), built from the ``Position`` at the
root and checked against the rules engine move for move in the tests. What makes it strong
in little time:

- at every node, an exact check for an immediate win of the side to move by a bitboard
  detector (``SearchBoard.has_win``, the rules engine's ``winning_codes``), without generating
  moves: a node with a win in one is scored at once, and a threat line at the horizon is
  never mistaken for a quiet position. The evaluation cache remembers it (an evaluation is
  only stored for a position without a win in one), so a position seen before costs one
  look-up;
- a transposition table keyed by the incremental Zobrist hash (best move, bound, depth);
- move ordering: the hash move (tried before any move is generated), then moves onto a
  square that completes the opponent's line (blocks), then killer moves and the history
  heuristic (per side);
- principal-variation search (null windows after the first move) and a small late-move
  reduction for quiet moves, re-searched at full depth when they surprise;
- the last ply (depth 1) written out as one loop: each reply's bitboards and hash are
  computed without touching the board, so a reply that ends the game, repeats or is in the
  evaluation cache costs a few integer operations; the others are made and unmade inline
  for the detector and the evaluation. The moves themselves are generated in stages (hash
  move, blocks, killers, then the rest), since most nodes are cut off by their first move.

A node is a position the search visits: every call of the tree search and every leaf scored
at the last ply (a reply that ends the game is scored without being counted, as before).

Scores are integers from the side to move's view; a won game is ``MATE - plies`` so the
fastest win and the slowest loss are preferred. A repeated position scores as a draw.
Limits by time, depth and nodes; a deadline or ``stop()`` ends the search with the best move
of the deepest finished iteration (or of the unfinished one when its first move was done).
Limits by depth or nodes are deterministic: no clock is read to decide anything then.
"""

from __future__ import annotations

import threading
import time as _time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from companion.engine.board import PIECE_BITS, PIECE_MASK, SearchBoard, board_tables_for
from companion.engine.evaluate import MATE_BOUND, WIN_SCORE, evaluator_for
from companion.errors import CompanionError
from companion.rules import Move, Position, Variant
from companion.rules.codes import (
    BOARD_FLAG,
    ORIGIN_SHIFT,
    PLACED_PIECE_SHIFT,
    PLACED_SIZE_MASK,
    PLACEMENT_SHIFT,
    SQUARE_MASK,
)
from companion.rules.geometry import ZOBRIST_BLACK_TO_MOVE
from companion.rules.reserves import TAKES, take
from companion.rules.state import GameMove

MATE = WIN_SCORE
EXACT, LOWER, UPPER = 0, 1, 2
MAX_PLY = 128
TT_LIMIT = 400_000  # entries; cleared when full (a Pi shares memory with the camera)
EVAL_CACHE_LIMIT = 200_000
WIN_IN_ONE = MATE + 1  # in the evaluation cache: the side to move has a win in one
FUTILITY_MARGIN = 150  # centipawns a single quiet move is assumed not to swing
CHECK_EVERY = 127  # nodes between two looks at the clock / stop flag (~1 ms on a loaded machine)


class SearchStopped(Exception):
    """Raised inside the tree when time, nodes or ``stop()`` end the search."""


MoveT = TypeVar("MoveT", bound=GameMove)


@dataclass
class SearchResult(Generic[MoveT]):
    """A search's answer; ``MoveT`` is the game's move (``Move`` here, any ``GameMove`` from
    the generic search of ``gamesearch.py``)."""

    move: MoveT  # a search is only asked for a position where the game goes on
    score: int
    depth: int
    nodes: int
    pv: list[MoveT] = field(default_factory=list)
    seconds: float = 0.0
    value: str | None = None  # "win" | "loss" | "draw" when proven, else None

    def to_json(self) -> dict[str, object]:
        return {
            "move": self.move.text(),
            "score": self.score,
            "depth": self.depth,
            "nodes": self.nodes,
            "pv": [m.text() for m in self.pv],
            "seconds": round(self.seconds, 3),
            "value": self.value,
        }


def mate_value(score: int) -> str | None:
    """'win'/'loss' for a proven mate score, else None (a heuristic score proves nothing)."""
    if score >= MATE_BOUND:
        return "win"
    if score <= -MATE_BOUND:
        return "loss"
    return None


@dataclass
class Limits:
    time: float | None = None  # seconds
    depth: int | None = None
    nodes: int | None = None

    def deadline_after(self, start: float) -> float | None:
        """When a search started at ``start`` must stop: a safety margin short of the time
        asked, since the clock is read only every few hundred nodes and the answer must still
        be built. Every search (Python, compiled, any game's) keeps the same margin."""
        return start + 0.93 * self.time - 0.005 if self.time is not None else None


def limits_reached(stop: threading.Event, nodes: int, node_limit: int | None, deadline: float | None) -> bool:
    """Whether a search must stop now: asked to, out of nodes, or past its deadline. Shared by
    every Python search (this one and gamesearch's), so they all stop for the same reasons."""
    return (
        stop.is_set()
        or (node_limit is not None and nodes >= node_limit)
        or (deadline is not None and _time.perf_counter() >= deadline)
    )


class Searcher:
    """One search engine for one variant; keeps its tables between searches of a game."""

    def __init__(self, variant: Variant, max_depth: int = 64) -> None:
        self.variant = variant
        self.tables = board_tables_for(variant)  # the board's square numbers and move codes
        self.evaluator = evaluator_for(variant)
        self.evaluate = self.evaluator.score  # on the search board
        self.max_depth = max_depth
        self.tt: dict[int, tuple[int, int, int, int]] = {}
        self.eval_cache: dict[int, int] = {}
        self.history: tuple[defaultdict[int, int], defaultdict[int, int]] = (
            defaultdict(int),
            defaultdict(int),
        )
        self.killers: list[list[int]] = [[0, 0] for _ in range(MAX_PLY + 2)]
        self.completing: dict[int, int] = {}  # tops -> squares completing a line of W-1 of them
        self.stop_event = threading.Event()
        self.nodes = 0
        self.on_iteration: Callable[[SearchResult], None] | None = None  # after each finished depth
        self.root_best: tuple[int, int] | None = None  # (code, score): the best root move so far
        self.root_moves: list[int] = []  # the root's legal moves (rules codes)

    # ----- public ---------------------------------------------------------------------------

    def stop(self) -> None:
        self.stop_event.set()

    def search(
        self,
        position: Position,
        limits: Limits,
        stop_event: threading.Event | None = None,
        only: list[int] | None = None,
    ) -> SearchResult:
        """Search a copy of ``position`` within ``limits`` (among the move codes ``only``, if
        given); the caller's position is untouched."""
        self._prepare(position, limits, stop_event)
        max_depth = min(limits.depth or self.max_depth, self.max_depth)
        legal = self.pos.legal_codes()
        from_rules = self.tables.from_rules
        self.root_moves = legal
        root_codes = [from_rules(c) for c in legal if only is None or c in only] or [
            from_rules(c) for c in legal
        ]
        best_code, best_score, done_depth = root_codes[0], 0, 0
        for depth in range(1, max_depth + 1):
            self.root_best = None
            try:
                best_code, score = self._root(depth, root_codes, best_code)
            except SearchStopped:
                if self.root_best is not None:
                    best_code, best_score = self.root_best
                break
            best_score, done_depth = score, depth
            if self.on_iteration is not None:
                self.on_iteration(self._result(best_code, best_score, depth))
            if abs(score) >= MATE_BOUND and MATE - abs(score) <= depth:
                break  # a proven result within the full-width horizon cannot change
            if self.deadline is not None and _time.perf_counter() - self.start > 0.55 * (
                self.deadline - self.start
            ):
                break  # the next iteration would not finish; keep the rest of the budget
        return self._result(best_code, best_score, max(done_depth, 1))

    def score_moves(self, position: Position, depth: int) -> list[tuple[int, int]]:
        """Every root move (the rules engine's code) with its full-window score at ``depth``
        (for the weaker levels, which choose among nearly-best moves)."""
        self._prepare(position, Limits(depth=depth), None)
        codes = self.pos.legal_codes()
        from_rules = self.tables.from_rules
        return list(zip(codes, self._score_all([from_rules(code) for code in codes], depth), strict=True))

    def _score_all(self, codes: list[int], depth: int) -> list[int]:
        """Each board code's full-window score at ``depth``, in order."""
        return [self._child(code, depth, -MATE - 1, MATE + 1, 0, 0) for code in codes]

    def _prepare(self, position: Position, limits: Limits, stop_event: threading.Event | None) -> None:
        outcome = position.outcome()
        if outcome is not None:
            raise CompanionError(f"the game is over ({outcome.reason}): there is no move to find")
        self.pos = position.copy()  # for the root's moves and the principal variation
        self.board = SearchBoard(self.pos, self.evaluator.piece_values)
        self.stop_event = stop_event or threading.Event()
        self.start = _time.perf_counter()
        self.deadline = limits.deadline_after(self.start)
        self.node_limit = limits.nodes
        self.nodes = 0
        if len(self.tt) > TT_LIMIT:
            self.tt.clear()
        if len(self.eval_cache) > EVAL_CACHE_LIMIT:
            self.eval_cache.clear()
        for table in self.history:
            table.clear()

    # ----- the tree -------------------------------------------------------------------------

    def _root(self, depth: int, codes: list[int], previous_best: int) -> tuple[int, int]:
        """One iteration at the root: its best move and score (also kept in ``root_best`` as
        they improve, for a search stopped half-way)."""
        board = self.board
        ordered = self._order(codes, self.tt.get(board.hash, (0, 0, 0, previous_best))[3] or previous_best, 0)
        alpha, beta = -MATE - 1, MATE + 1
        best: tuple[int, int] | None = None
        for index, code in enumerate(ordered):
            score = self._child(code, depth, alpha, beta, 0, index)
            if score > alpha or best is None:
                alpha = max(alpha, score)
                best = self.root_best = (code, score)
        if best is None:
            raise CompanionError("the game is over: there is no move to find")  # _prepare said so
        if len(codes) == len(self.root_moves):  # a restricted root's value is not the position's
            self.tt[board.hash] = (depth, EXACT, alpha, best[0])
        return best

    def _child(self, code: int, depth: int, alpha: int, beta: int, ply: int, index: int) -> int:
        """Play ``code`` and score it for the mover (principal-variation search with LMR)."""
        board = self.board
        mover = board.turn
        undo = board.make(code)
        try:
            decided = board.result
            if decided is not None:
                return MATE - ply - 1 if decided == mover else -(MATE - ply - 1)
            if index == 0:
                return -self._negamax(depth - 1, -beta, -alpha, ply + 1)
            reduce = 1 if depth >= 3 and index >= 4 and code not in self.killers[ply] else 0
            score = -self._negamax(depth - 1 - reduce, -alpha - 1, -alpha, ply + 1)
            if score > alpha and (reduce or score < beta):
                score = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
            return score
        finally:
            board.unmake(code, undo)

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if not self.nodes & CHECK_EVERY:
            self._check_limits()
        board = self.board
        key = board.hash
        if board.seen[key] > 1:
            return 0
        # The evaluation cache also knows a win in one (an evaluation is only ever stored for a
        # position without one), which spares most calls of the detector.
        static = self.eval_cache.get(key)
        if static is None:
            if board.has_win():
                self.eval_cache[key] = WIN_IN_ONE
                return MATE - ply - 1
        elif static == WIN_IN_ONE:
            return MATE - ply - 1
        if depth <= 0 or ply >= MAX_PLY:
            if static is None:
                static = self.eval_cache[key] = self.evaluate(board)
            return static
        entry = self.tt.get(key)
        tt_move = 0
        if entry is not None:
            e_depth, flag, e_score, tt_move = entry
            if e_depth >= depth:
                e_score = _from_tt(e_score, ply)
                if (
                    flag == EXACT
                    or (flag == LOWER and e_score >= beta)
                    or (flag == UPPER and e_score <= alpha)
                ):
                    return e_score
        if depth == 1:
            return self._frontier(alpha, beta, ply, key, tt_move, static)
        original_alpha = alpha
        best_score, best_code = -MATE - 1, 0
        index = 0
        for code in self.move_order(tt_move, ply):
            score = self._child(code, depth, alpha, beta, ply, index)
            index += 1
            if score > best_score:
                best_score, best_code = score, code
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self._reward(code, depth, ply)
                        break
        if index == 0:
            return -(MATE - ply)  # no legal move: the side to move loses
        flag = UPPER if best_score <= original_alpha else LOWER if best_score >= beta else EXACT
        self.tt[key] = (depth, flag, _to_tt(best_score, ply), best_code)
        return best_score

    def _frontier(self, alpha: int, beta: int, ply: int, key: int, tt_move: int, standing: int | None) -> int:
        """A node one ply above the horizon (no win in one for the side to move, checked by the
        caller): each move is played and its position scored at once, with the opponent's
        immediate win found exactly. One loop instead of a call per leaf.

        The hot path of the whole search, written out deliberately: each leaf is made and
        unmade inline on the board's arrays (``SearchBoard.make``/``unmake`` do the same with the
        move stack and the seen positions, which a leaf does not need), and the end-of-turn
        check only looks at the mover's lines when the move lands on a square completing one
        (a line of the mover's can only be made through ``to``, and only on such a square)."""
        board = self.board
        cache = self.eval_cache
        evaluate = self.evaluate
        if not tt_move and beta < MATE_BOUND:
            if standing is None:  # the node's static evaluation, unless the caller had it
                standing = cache[key] = evaluate(board)
            if standing - FUTILITY_MARGIN >= beta and not self._opponent_threatens():
                return standing  # futility: one quiet move will not bring it back under beta
        stacks, tops, size_tops, rids, zobrist = (
            board.stacks,
            board.tops,
            board.size_tops,
            board.rid,
            board.zobrist,
        )
        values, line_masks, seen, has_win = board.piece_values, board.line_masks, board.seen, board.has_win
        mover = board.turn
        other = mover ^ 1
        own, theirs = tops[mover], tops[other]
        material, rid = board.material, rids[mover]
        parent_hash = key ^ ZOBRIST_BLACK_TO_MOVE
        completing = self.completing.get(own)
        if completing is None:
            completing = self.completing_squares(own)
        won = MATE - ply - 1  # the mover completes a line with this move
        lost = -(MATE - ply - 2)  # the opponent completes one with the next
        threat_squares = board.tables.threats
        takes = TAKES[rid]  # what each placement leaves of the mover's external stacks
        square_mask = SQUARE_MASK
        nodes = self.nodes
        original_alpha = alpha
        best_score, best_code = -MATE - 1, 0
        for code in self.move_order(tt_move, ply, True):
            # The leaf's colour bitboards and hash, read without changing the board: a leaf
            # that ends the game, repeats or is in the cache needs nothing else.
            to = code & square_mask
            to_bit = 1 << to
            below = stacks[to]
            leaf_own = own | to_bit
            leaf_theirs = theirs
            if below & 1 == other and below:  # the top covered here was the opponent's
                leaf_theirs ^= to_bit
            if code & BOARD_FLAG:
                origin = code >> ORIGIN_SHIFT & square_mask
                origin_bit = 1 << origin
                above = stacks[origin]
                piece = above & PIECE_MASK
                rest = above >> PIECE_BITS
                leaf_own ^= origin_bit
                leaf_hash = parent_hash ^ zobrist[piece][origin] ^ zobrist[piece][to]
                if rest:  # the lift reveals a piece
                    if rest & 1 == mover:
                        leaf_own |= origin_bit
                    else:
                        leaf_theirs |= origin_bit
            else:
                origin = rest = -1
                entry = takes.get(code >> PLACEMENT_SHIFT) or take(rid, code >> PLACEMENT_SHIFT)
                piece = (code >> PLACED_PIECE_SHIFT & PLACED_SIZE_MASK) | mover
                leaf_hash = parent_hash ^ entry[1 + mover] ^ zobrist[piece][to]
            # the end-of-turn check (as in SearchBoard.make)
            decided = -1
            if rest > 0 and leaf_theirs & origin_bit:
                for mask in line_masks[origin]:
                    if leaf_theirs & mask == mask:
                        decided = other
                        break
            if decided < 0 and completing & to_bit:
                for mask in line_masks[to]:
                    if leaf_own & mask == mask:
                        decided = mover
                        break
            if decided >= 0:
                score = won if decided == mover else -won
            else:
                nodes += 1
                if leaf_hash in seen:
                    score = 0  # a repetition
                else:
                    cached = cache.get(leaf_hash)
                    if cached is None:
                        # make the leaf on the board (as SearchBoard.make, without the move stack)
                        # for the win detector and the evaluation, then unmake it
                        leaf_material = material + values[piece]
                        stacks[to] = below << PIECE_BITS | piece
                        size_tops[piece >> 1] ^= to_bit
                        if below:
                            covered = below & PIECE_MASK
                            size_tops[covered >> 1] ^= to_bit
                            leaf_material -= values[covered]
                        if origin >= 0:
                            stacks[origin] = rest
                            size_tops[piece >> 1] ^= origin_bit
                            leaf_material -= values[piece]
                            if rest:
                                revealed = rest & PIECE_MASK
                                size_tops[revealed >> 1] ^= origin_bit
                                leaf_material += values[revealed]
                        else:
                            rids[mover] = entry[0]
                        tops[mover] = leaf_own
                        tops[other] = leaf_theirs
                        board.turn = other
                        board.material = leaf_material
                        threats = threat_squares.get(leaf_theirs)  # SearchBoard.has_win's first look, inline
                        if threats is None:
                            threats = board.tables.threat_squares(leaf_theirs)
                        if threats and has_win():
                            score = cache[leaf_hash] = WIN_IN_ONE
                        else:
                            score = cache[leaf_hash] = evaluate(board)
                        board.turn = mover
                        tops[mover] = own
                        tops[other] = theirs
                        stacks[to] = below
                        size_tops[piece >> 1] ^= to_bit
                        if below:
                            size_tops[covered >> 1] ^= to_bit
                        if origin >= 0:
                            stacks[origin] = above
                            size_tops[piece >> 1] ^= origin_bit
                            if rest:
                                size_tops[revealed >> 1] ^= origin_bit
                        else:
                            rids[mover] = rid
                    else:
                        score = cached
                    score = lost if score == WIN_IN_ONE else -score
                if not nodes & CHECK_EVERY:
                    self.nodes = nodes
                    self._check_limits()
            if score > best_score:
                best_score, best_code = score, code
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self._reward(code, 1, ply)
                        break
        board.material = material
        self.nodes = nodes
        if best_score == -MATE - 1:  # every score is above that
            return -(MATE - ply)  # no legal move: the side to move loses
        flag = UPPER if best_score <= original_alpha else LOWER if best_score >= beta else EXACT
        self.tt[key] = (
            1,
            flag,
            best_score if -MATE_BOUND < best_score < MATE_BOUND else _to_tt(best_score, ply),
            best_code,
        )
        return best_score

    def _opponent_threatens(self) -> bool:
        board = self.board
        return bool(self.completing_squares(board.tops[board.turn ^ 1]))

    def _check_limits(self) -> None:
        # The tables are also capped during a long search (memory: a Pi shares it with the
        # camera); a 1 s search never reaches these caps, so they change nothing there.
        if len(self.eval_cache) > 2 * EVAL_CACHE_LIMIT:
            self.eval_cache.clear()
        if len(self.tt) > TT_LIMIT:
            self.tt.clear()
        if limits_reached(self.stop_event, self.nodes, self.node_limit, self.deadline):
            raise SearchStopped

    # ----- move ordering --------------------------------------------------------------------

    def move_order(self, tt_move: int, ply: int, lazy: bool = False) -> Iterator[int]:
        """Moves in the order of the module docstring: the hash move, tried before any move is
        generated, then blocks, killers and the rest by history. At the last ply (``lazy``)
        the rest is generated in stages too, since most of those nodes are cut off by their
        first move; above it, all of it is ordered as soon as the hash move is done (the
        subtrees of the first moves change the history, and the order must not depend on
        that: a search is the same with or without the stages).

        Public, on the board of the last search (or ``score_moves``), so that the stages can
        be checked against that order's plain definition from outside."""
        if tt_move:
            yield tt_move
        if lazy:
            yield from self._after_hash_move(tt_move, ply)
        else:
            yield from list(self._after_hash_move(tt_move, ply))

    def _after_hash_move(self, tt_move: int, ply: int) -> Iterator[int]:
        """Every move but the hash move, in order, generated lazily: the blocks alone (only
        moves landing on the opponent's completing squares), then the killers checked alone,
        then the full list, built and sorted only when all of those failed. The order is that
        of sorting every move by history (stable) and moving blocks, then killers, to the
        front."""
        board = self.board
        history = self.history[board.turn]
        blocks = self.completing_squares(board.tops[board.turn ^ 1])
        front = []
        if blocks:
            front = board.legal_codes(blocks)
            if tt_move in front:
                front.remove(tt_move)
            front.sort(key=history.__getitem__, reverse=True)
            yield from front
        for killer in self.killers[ply]:
            if killer != tt_move and not blocks >> (killer & SQUARE_MASK) & 1 and board.is_legal(killer):
                front.append(killer)
                yield killer
        codes = board.legal_codes()
        codes.sort(key=history.__getitem__, reverse=True)
        if tt_move:
            front.append(tt_move)
        if front:
            tried = set(front)
            yield from [code for code in codes if code not in tried]
        else:
            yield from codes

    def _order(self, codes: list[int], first: int, ply: int) -> list[int]:
        """The root's order: the previous best first, then the staged order, of ``codes``
        only (a search restricted to some moves must not wander to the others)."""
        allowed = set(codes)
        return [c for c in self.move_order(first, ply) if c in allowed]

    def completing_squares(self, tops: int) -> int:
        """Squares that would complete a line of W-1 of these tops (the board tables' threat
        squares as one bitboard, kept by tops for the frontier's one look-up): the blocks that
        ``move_order`` puts first, public with it."""
        squares = self.completing.get(tops)
        if squares is None:
            tables = self.board.tables
            threats = tables.threats.get(tops)
            if threats is None:
                threats = tables.threat_squares(tops)
            squares = 0
            for _, bit, _, _ in threats:
                squares |= bit
            if len(self.completing) > EVAL_CACHE_LIMIT:
                self.completing.clear()
            self.completing[tops] = squares
        return squares

    def _reward(self, code: int, depth: int, ply: int) -> None:
        self.history[self.board.turn][code] += depth * depth
        killers = self.killers[ply]
        if killers[0] != code:
            killers[1] = killers[0]
            killers[0] = code

    def _hash_move(self, key: int) -> int:
        """The best move the table holds for a position (0: none)."""
        entry = self.tt.get(key)
        return 0 if entry is None else entry[3]

    # ----- results --------------------------------------------------------------------------

    def _result(self, code: int, score: int, depth: int) -> SearchResult:
        pv = self._principal_variation(code, depth)
        return SearchResult(
            move=pv[0],
            score=score,
            depth=depth,
            nodes=self.nodes,
            pv=pv,
            seconds=_time.perf_counter() - self.start,
            value=mate_value(score),
        )

    def _principal_variation(self, code: int, depth: int) -> list[Move]:
        """The best move, then hash moves while they are legal and the game goes on (played on
        the rules engine's position: board codes are translated)."""
        pos = self.pos
        to_rules = self.tables.to_rules
        code = to_rules(code)
        line: list[Move] = []
        pushed = 0
        seen = set()
        while True:
            line.append(pos.move_from_code(code))
            pos.push_code(code)
            pushed += 1
            if pos.line_result() is not None or pos.hash in seen or pushed >= max(depth, 1):
                break
            seen.add(pos.hash)
            hash_move = self._hash_move(pos.hash)
            if not hash_move or to_rules(hash_move) not in pos.legal_codes():
                break
            code = to_rules(hash_move)
        for _ in range(pushed):
            pos.pop_code()
        return line


def _to_tt(score: int, ply: int) -> int:
    """Mate scores are stored relative to the node, so a transposition at another ply reads right."""
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


def _from_tt(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score
