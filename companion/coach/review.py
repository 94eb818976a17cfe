"""The post-game review: every ply of a game judged against the engine's best move.

For each ply the review gives the value of the position for the side that moved (the value
of its best move), the value after the move played, the best move, and a verdict in the
words chess players know from their programs' "computer analysis":

- **losing uncover**: the move lifted a cup off the opponent's line and lost on the spot;
- **blunder**: a position that was not lost turned into a proven loss, or a swing of at
  least ``BLUNDER_SWING``;
- **missed win**: a forced win was on the board (``missed_win`` says in how many plies) and
  the move played does not keep it;
- **mistake** / **inaccuracy**: a swing of at least ``MISTAKE_SWING`` / ``INACCURACY_SWING``;
- **only move**: every other move loses, and the move played does not.

Swings are measured on scores clipped to ``±SCORE_CAP`` (a won game is worth ``SCORE_CAP``),
so a missed mate does not dwarf every other figure of the summary.

Where the values come from decides what a verdict means. In junior they are exact: every
legal move's value comes from the junior solver, so each verdict is a fact about the game.
In the other variants they come from the alpha-beta search with a fixed budget per position
(a node count by default, so the same game always gets the same review; ``--time`` makes it
a time per position instead): a proven win or loss is one the search found within its
horizon, anything else is the search's estimate, and ``GameReview.method`` says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum

from companion.engine import MATE
from companion.engine.evaluate import MATE_BOUND
from companion.engine.junior import JuniorSolver
from companion.engine.search import Limits, Searcher, SearchResult
from companion.errors import CompanionError
from companion.rules import Color, Game, Move, MoveCode, Position, Termination, Variant, color_name
from companion.rules.square import COLORS

SCORE_CAP = 1000  # a won game, on the scale swings are measured on (two threats score 600)
INACCURACY_SWING = 60  # about a third of a threat (an open line of W-1 scores 180)
MISTAKE_SWING = 150  # most of a threat handed over
BLUNDER_SWING = 400  # more than two threats' difference: the game's balance turned
DEFAULT_NODES = 20_000  # nodes per position outside junior (about 0.5 s on a loaded 2-core machine)
REVIEW_VERSION = 1  # of the stored JSON; a review of another version is computed again

Progress = Callable[[int, int], None]  # (plies reviewed, plies in all)


class ReviewError(CompanionError, ValueError):
    """A game that cannot be reviewed (no move), or a stored review that does not read."""


class Verdict(StrEnum):
    LOSING_UNCOVER = "losing uncover"
    BLUNDER = "blunder"
    MISSED_WIN = "missed win"
    MISTAKE = "mistake"
    INACCURACY = "inaccuracy"
    ONLY_MOVE = "only move"


SYMBOLS: dict[Verdict, str] = {
    Verdict.LOSING_UNCOVER: "??",
    Verdict.BLUNDER: "??",
    Verdict.MISSED_WIN: "?",
    Verdict.MISTAKE: "?",
    Verdict.INACCURACY: "?!",
    Verdict.ONLY_MOVE: "!",
}
"""The record's annotation symbol for each verdict (as in chess: ``??`` a blunder, ``?`` a
mistake, ``?!`` dubious, ``!`` a good move)."""


@dataclass(frozen=True)
class Value:
    """A position's value for one side: an engine score (``±(MATE - plies)`` when proven won
    or lost, else centipawn-like), and whether it is exact (the junior solver's)."""

    score: int
    exact: bool = False

    @property
    def outcome(self) -> str | None:
        """``"win"``/``"loss"`` when proven (by the solver or a mate the search found),
        ``"draw"`` when the solver proved it, else None."""
        if self.score >= MATE_BOUND:
            return "win"
        if self.score <= -MATE_BOUND:
            return "loss"
        return "draw" if self.exact else None

    @property
    def plies(self) -> int | None:
        """Plies to the end of the game with best play, for a proven win or loss."""
        return MATE - abs(self.score) if self.outcome in ("win", "loss") else None

    @property
    def capped(self) -> int:
        return max(-SCORE_CAP, min(SCORE_CAP, self.score))

    def flipped(self) -> Value:
        """The same position's value for the other side."""
        return Value(-self.score, self.exact)

    def text(self) -> str:
        """``#7`` (wins in 7 plies), ``#-4`` (loses in 4), ``=`` (proven draw), ``+0.35``."""
        plies = self.plies
        if plies is not None:
            return f"#{plies}" if self.score > 0 else f"#-{plies}"
        if self.exact:
            return "="
        return f"{self.score / 100:+.2f}"


def after_move(value: Value) -> Value:
    """The value one ply earlier, for the other side: a result one ply further away."""
    if value.score >= MATE_BOUND:
        return Value(-(value.score - 1), value.exact)
    if value.score <= -MATE_BOUND:
        return Value(-(value.score + 1), value.exact)
    return value.flipped()


@dataclass(frozen=True)
class PlyReview:
    ply: int  # 1 for the first move played from the game's start
    mover: Color
    move: str
    best: str
    before: Value  # the position's value for the mover: its best move's
    after: Value  # the value of the move played, for the mover
    verdict: Verdict | None
    missed_win: int | None = None  # the plies of the forced win the move let go
    uncover: str | None = None  # the line a losing uncover revealed: "Black's line a1 b2 c3"

    @property
    def loss(self) -> int:
        """How much the move gave away, on the capped scale (0 for the best move)."""
        return max(0, self.before.capped - self.after.capped)

    @property
    def symbol(self) -> str:
        return SYMBOLS[self.verdict] if self.verdict is not None else ""

    def white_value(self) -> Value:
        """The value of the position after the move, from White's side, a result's plies
        counted from there: what an evaluation graph plots and a record's ``[%eval]`` holds."""
        score = self.after.score
        if score >= MATE_BOUND:
            score += 1
        elif score <= -MATE_BOUND:
            score -= 1
        return Value(score if self.mover == COLORS[0] else -score, self.after.exact)

    def describe(self) -> str:
        """One line a player reads: the verdict and what was better."""
        words = self.verdict.value.capitalize() if self.verdict is not None else ""
        if self.verdict is Verdict.LOSING_UNCOVER and self.uncover:
            return f"{words}: lifting it uncovered {self.uncover}"
        if self.verdict is Verdict.MISSED_WIN and self.missed_win is not None:
            words += f" (a win in {self.missed_win} {'ply' if self.missed_win == 1 else 'plies'})"
        if self.verdict is Verdict.ONLY_MOVE or self.best == self.move:
            return words
        return f"{words}; best {self.best} ({self.before.text()})".lstrip("; ")

    def to_json(self) -> dict[str, object]:
        return {
            "ply": self.ply,
            "mover": color_name(self.mover),
            "move": self.move,
            "best": self.best,
            "before": self.before.score,
            "after": self.after.score,
            "before_text": self.before.text(),
            "after_text": self.after.text(),
            "loss": self.loss,
            "verdict": self.verdict.value if self.verdict is not None else None,
            "symbol": self.symbol,
            "missed_win": self.missed_win,
            "uncover": self.uncover,
        }


@dataclass(frozen=True)
class Summary:
    """One player's figures: what a player asks first after a game."""

    color: Color
    moves: int
    blunders: int  # losing uncovers included
    mistakes: int
    inaccuracies: int
    missed_wins: int
    only_moves: int
    average_loss: float  # per move, on the capped scale

    def to_json(self) -> dict[str, object]:
        return {
            "player": color_name(self.color),
            "moves": self.moves,
            "blunders": self.blunders,
            "mistakes": self.mistakes,
            "inaccuracies": self.inaccuracies,
            "missed_wins": self.missed_wins,
            "only_moves": self.only_moves,
            "average_loss": round(self.average_loss, 1),
        }


@dataclass(frozen=True)
class GameReview:
    variant: str
    exact: bool  # every value is the junior solver's
    method: str  # where the values come from, in words: "exact (junior solver)", ...
    plies: tuple[PlyReview, ...]

    def summary(self, color: Color) -> Summary:
        own = [p for p in self.plies if p.mover == color]
        count = _verdict_counter(own)
        return Summary(
            color=color,
            moves=len(own),
            blunders=count(Verdict.BLUNDER, Verdict.LOSING_UNCOVER),
            mistakes=count(Verdict.MISTAKE),
            inaccuracies=count(Verdict.INACCURACY),
            missed_wins=count(Verdict.MISSED_WIN),
            only_moves=count(Verdict.ONLY_MOVE),
            average_loss=sum(p.loss for p in own) / len(own) if own else 0.0,
        )

    def marked(self) -> list[PlyReview]:
        """The plies worth jumping to: blunders, losing uncovers and missed wins."""
        return [p for p in self.plies if p.verdict in MARKED]

    def to_json(self) -> dict[str, object]:
        return {
            "version": REVIEW_VERSION,
            "variant": self.variant,
            "exact": self.exact,
            "method": self.method,
            "summary": [self.summary(color).to_json() for color in COLORS],
            "plies": [p.to_json() for p in self.plies],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> GameReview:
        """A review read back (from the log); ``ReviewError`` if it is not one of this version."""
        try:
            if data["version"] != REVIEW_VERSION:
                raise ReviewError(f"a stored review of version {data['version']}, not {REVIEW_VERSION}")
            exact = bool(data["exact"])
            plies = tuple(_ply_from_json(entry, exact) for entry in _entries(data["plies"]))
            return cls(str(data["variant"]), exact, str(data["method"]), plies)
        except (KeyError, TypeError, ValueError) as error:
            if isinstance(error, ReviewError):
                raise
            raise ReviewError(f"a stored review does not read: {error}") from None


MARKED = (Verdict.BLUNDER, Verdict.LOSING_UNCOVER, Verdict.MISSED_WIN)


def stored_review(data: Mapping[str, object] | None) -> GameReview | None:
    """A review kept in the log, read back; None when there is none, or it is of another
    version or does not read (it is then made again, never half-shown)."""
    if data is None:
        return None
    try:
        return GameReview.from_json(data)
    except ReviewError:
        return None


def _verdict_counter(plies: list[PlyReview]) -> Callable[..., int]:
    def count(*verdicts: Verdict) -> int:
        return sum(1 for p in plies if p.verdict in verdicts)

    return count


def _entries(value: object) -> list[Mapping[str, object]]:
    if not isinstance(value, list):
        raise TypeError("plies is not a list")
    return value


def _ply_from_json(entry: Mapping[str, object], exact: bool) -> PlyReview:
    verdict = entry["verdict"]
    missed, uncover = entry.get("missed_win"), entry.get("uncover")
    return PlyReview(
        ply=_whole(entry["ply"]),
        mover=COLORS[("white", "black").index(str(entry["mover"]))],
        move=str(entry["move"]),
        best=str(entry["best"]),
        before=Value(_whole(entry["before"]), exact),
        after=Value(_whole(entry["after"]), exact),
        verdict=Verdict(str(verdict)) if verdict is not None else None,
        missed_win=_whole(missed) if missed is not None else None,
        uncover=str(uncover) if uncover is not None else None,
    )


def _whole(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{value!r} is not a whole number")
    return value


# ----- judging one ply ------------------------------------------------------------------------


def judge(before: Value, after: Value, only_move: bool, ending: Termination | None) -> Verdict | None:
    """The verdict for a move from its values (the mover's view). ``only_move``: every other
    move loses; ``ending``: how the move ended the game, if it did."""
    if ending is Termination.UNCOVER:
        return Verdict.LOSING_UNCOVER
    if before.outcome != "loss" and after.outcome == "loss":
        return Verdict.BLUNDER
    if before.outcome == "win" and after.outcome != "win":
        return Verdict.MISSED_WIN
    swing = max(0, before.capped - after.capped)
    if not before.exact:  # exact values have no swings but these
        if swing >= BLUNDER_SWING:
            return Verdict.BLUNDER
        if swing >= MISTAKE_SWING:
            return Verdict.MISTAKE
        if swing >= INACCURACY_SWING:
            return Verdict.INACCURACY
    if only_move and after.outcome != "loss":
        return Verdict.ONLY_MOVE
    return None


@dataclass(frozen=True)
class Judged:
    """What a judge of positions says of one: the best move, its value, the value of the move
    played, and whether every other move loses."""

    best: MoveCode
    before: Value
    after: Value
    only_move: bool


EXACT_METHOD = "exact (junior solver)"


def review_method(variant: Variant, nodes: int | None = None, seconds: float | None = None) -> str:
    """How a review of a game in ``variant`` with these limits finds its values, in words (a
    stored review made otherwise is made again when asked for this way)."""
    if variant.spec == "junior":
        return EXACT_METHOD
    if seconds is not None:
        return f"search, {seconds:g} s per position (not repeatable)"
    return f"search, {nodes or DEFAULT_NODES} nodes per position"


class ExactJudge:
    """Junior: every legal move's value from the solver (a child's value, one ply further)."""

    method = EXACT_METHOD
    exact = True

    def __init__(self) -> None:
        self.solver = JuniorSolver.with_book()

    def judge(self, position: Position, played: MoveCode) -> Judged:
        values = {code: self._child_value(position, code) for code in position.legal_codes()}
        best = max(values, key=lambda code: values[code].score)
        others = [value for code, value in values.items() if code != played]
        only = bool(others) and all(value.outcome == "loss" for value in others)
        return Judged(best, values[best], values[played], only)

    def _child_value(self, position: Position, code: MoveCode) -> Value:
        position.push_code(code)
        try:
            ended = position.outcome()
            if ended is not None:
                return _ended_value(ended.winner, position.turn)
            answer = self.solver.solve(position)
            if answer.value == "draw":
                return Value(0, True)
            if answer.value is None or answer.distance is None:  # untimed, the solver settles all
                raise ReviewError(f"the junior solver left {position.text()} unsettled")
            sign = 1 if answer.value == "win" else -1
            return after_move(Value(sign * (MATE - answer.distance), True))
        finally:
            position.pop_code()


def _ended_value(winner: Color | None, to_move: Color) -> Value:
    """The mover's value of a move that ended the game (``to_move`` is the other side now)."""
    if winner is None:
        return Value(0, True)
    return Value(MATE - 1 if winner != to_move else -(MATE - 1), True)


class SearchJudge:
    """Other variants: the alpha-beta search with a fixed budget per position. The played move
    and the other moves are scored at the depth the best move's search finished, so the
    values compared were found with the same look-ahead."""

    exact = False

    def __init__(self, position: Position, nodes: int | None, seconds: float | None) -> None:
        self.searcher = Searcher(position.variant)
        self.nodes = None if seconds is not None else nodes or DEFAULT_NODES
        self.seconds = seconds
        self.method = review_method(position.variant, nodes, seconds)

    def judge(self, position: Position, played: MoveCode) -> Judged:
        best = self._finished(position, Limits(time=self.seconds, nodes=self.nodes), None)
        if best is None:  # not even depth 1 in the budget: score it at depth 1
            best = self._finished(position, Limits(depth=1), None)
            assert best is not None  # a depth-1 search always finishes its iteration
        depth = best.depth
        best_code = position.code_from_move(best.move)
        before = Value(best.score)
        after = before
        if best_code != played:
            scored = self._finished(position, Limits(depth=depth), [played])
            after = Value(scored.score) if scored is not None else before
            if before.outcome == "win" and after.outcome != "win":
                after = self._recheck(position, played, after)
            if after.score > before.score:  # the played move was better than the best found
                before, best_code = after, played
        others = [code for code in position.legal_codes() if code != played]
        only = False
        if others and best_code == played and before.outcome != "loss":
            rest = self._finished(position, Limits(depth=depth), others)
            only = rest is not None and rest.score <= -MATE_BOUND
        return Judged(best_code, before, after, only)

    def _recheck(self, position: Position, played: MoveCode, after: Value) -> Value:
        """A move that seems to let a win go, looked at again from the opponent's side with
        the whole budget: a win that takes longer than the best one can lie beyond the depth
        the moves were compared at, and "missed win" must not be said of a move that keeps it."""
        position.push_code(played)
        try:
            if position.outcome() is not None:
                return after
            reply = self._finished(position, Limits(time=self.seconds, nodes=self.nodes), None)
        finally:
            position.pop_code()
        if reply is None or reply.score > -MATE_BOUND:
            return after
        return after_move(Value(reply.score))

    def _finished(
        self, position: Position, limits: Limits, only: list[MoveCode] | None
    ) -> SearchResult[Move] | None:
        """The deepest iteration the search finished within ``limits`` (a stopped iteration's
        best is only the best of the moves it reached)."""
        finished: list[SearchResult[Move]] = []
        self.searcher.on_iteration = finished.append
        self.searcher.search(position, limits, None, only)
        return finished[-1] if finished else None


Judge = ExactJudge | SearchJudge


def judge_for(position: Position, nodes: int | None = None, seconds: float | None = None) -> Judge:
    """The exact judge in junior, else the search with its budget."""
    if review_method(position.variant) == EXACT_METHOD:
        return ExactJudge()
    return SearchJudge(position, nodes, seconds)


def review_game(
    game: Game,
    nodes: int | None = None,
    seconds: float | None = None,
    on_progress: Progress | None = None,
) -> GameReview:
    """Review every move of ``game`` (from its start position). Outside junior, ``nodes`` per
    position (default ``DEFAULT_NODES``), or ``seconds`` per position instead; junior is
    exact and takes neither."""
    if not game.played:
        raise ReviewError("the game has no move to review")
    position = game.start.copy()
    judge_ = judge_for(position, nodes, seconds)
    plies = []
    total = len(game.played)
    for index, played in enumerate(_codes(game)):
        plies.append(_review_ply(judge_, position, played, index + 1))
        if on_progress is not None:
            on_progress(index + 1, total)
    return GameReview(game.variant.spec, judge_.exact, judge_.method, tuple(plies))


def _codes(game: Game) -> Iterator[MoveCode]:
    replay = game.start.copy()
    for played in game.played:
        code = replay.code_from_move(played.move)
        yield code
        replay.push_code(code)


def _review_ply(judge_: Judge, position: Position, played: MoveCode, ply: int) -> PlyReview:
    mover = position.turn
    judged = judge_.judge(position, played)
    move_text = position.move_from_code(played).text()
    best_text = position.move_from_code(judged.best).text()
    position.push_code(played)
    ended = position.line_result()
    termination = ended.termination if ended is not None else None
    verdict = judge(judged.before, judged.after, judged.only_move, termination)
    uncover = None
    if ended is not None and ended.winner is not None and termination is Termination.UNCOVER:
        uncover = f"{color_name(ended.winner).capitalize()}'s line {ended.line_text()}"
    missed = judged.before.plies if verdict is Verdict.MISSED_WIN else None
    return PlyReview(ply, mover, move_text, best_text, judged.before, judged.after, verdict, missed, uncover)
