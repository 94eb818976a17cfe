"""The engine's line protocol on stdin/stdout, modelled on chess's UCI.

    engine | uci          -> id name ..., id author ..., option lines, "uciok"
    variant NAME          set the variant (any spec: classic, junior, storer:stacks=543.543.543)
    level NAME            greedy | easy | medium | strong
    setoption name Variant|Level value V
    position startpos [moves M1 M2 ...]
    position text <position text> [moves M1 M2 ...]     ("fen" is taken for "text")
    go [movetime MS] [depth D] [nodes N] [wtime MS btime MS winc MS binc MS movestogo N] [infinite]
                          -> info depth D score S nodes N nps R time MS pv M1 M2 ...
                          -> bestmove M
    stop                  end a running search now (it answers bestmove)
    isready               -> readyok
    ucinewgame / newgame  forget the tables
    quit                  (end of input is quit too)

Three threads, so the protocol always answers, as UCI requires. The *reader* only reads lines
and queues them: it never waits for anything, so ``stop``, ``isready`` and ``quit`` are read
whatever the engine is doing. The *worker* acts on the queued lines in order; every command
that needs the engine idle (``go``, ``position``, ``variant``, ``level``, ``setoption``,
``ucinewgame``) first stops a running search, which answers its ``bestmove``. The *search*
runs in a thread of its own and always ends with a ``bestmove`` line. End of input is
``quit``: a search in progress is stopped, its ``bestmove`` written, and the program exits.

A bad command answers ``info string error: ...`` and the engine carries on, as UCI engines do.
Scores are centipawns from the side to move; a won game is ``mate N`` (plies) in ``score``.
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TextIO

from companion import __version__
from companion.engine.engine import Engine
from companion.engine.levels import LEVELS, level_named
from companion.engine.search import MATE, SearchResult
from companion.errors import CompanionError
from companion.rules.games import position_from_text, start_position, variant_from_spec
from companion.rules.state import GameState

ENGINE_NAME = f"gobblet-companion {__version__}"
STOP_POLL = 0.02  # seconds between two stop requests while waiting for a search to end
MAX_LIMIT = 10**12  # the largest depth, node count or time (ms) a ``go`` accepts
MOVES_TO_GO = 30  # a clock with no ``movestogo`` is shared out as if this many moves remained
CLOCK_SHARE = 0.5  # never spend more than this share of the remaining clock on one move
INCREMENT_SHARE = 0.8  # and use this much of the increment
VALUE_LIMITS = ("movetime", "depth", "nodes", "wtime", "btime", "winc", "binc", "movestogo")


class ProtocolError(CompanionError, ValueError):
    """A protocol line that does not parse; the message names what is wrong."""


def score_text(score: int) -> str:
    """``cp 35`` for a heuristic score, ``mate 5`` / ``mate -4`` (plies) for a proven one."""
    if abs(score) >= MATE - 1000:
        plies = MATE - abs(score)
        return f"mate {plies if score > 0 else -plies}"
    return f"cp {score}"


def info_line(result: SearchResult) -> str:
    nps = int(result.nodes / result.seconds) if result.seconds > 0 else 0
    pv = " ".join(move.text() for move in result.pv)
    return (
        f"info depth {result.depth} score {score_text(result.score)} nodes {result.nodes} "
        f"nps {nps} time {int(result.seconds * 1000)} pv {pv}"
    )


# ----- parsing (pure, so the fuzz tests can drive it without threads) --------------------------


@dataclass(frozen=True)
class GoLimits:
    """What a ``go`` line asks for: the engine's limits (seconds, plies, nodes; None = none)."""

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None


def parse_go(args: list[str], white_to_move: bool = True) -> GoLimits:
    """The limits of ``go ...``; ``infinite`` searches until ``stop``; a clock (``wtime`` ...)
    gives the side to move a share of its time."""
    values: dict[str, int] = {}
    infinite = False
    words = iter(args)
    for word in words:
        name = word.lower()
        if name == "infinite":
            infinite = True
            continue
        if name not in VALUE_LIMITS:
            raise ProtocolError(f"go: unknown limit {word!r} (use {', '.join(VALUE_LIMITS)} or infinite)")
        value = next(words, None)
        if value is None:
            raise ProtocolError(f"go {name} needs a value")
        values[name] = _count(f"go {name}", value, minimum=0 if name in ("winc", "binc") else 1)
    if infinite:
        return GoLimits(depth=MAX_LIMIT)
    time = values["movetime"] / 1000 if "movetime" in values else _clock_time(values, white_to_move)
    return GoLimits(time=time, depth=values.get("depth"), nodes=values.get("nodes"))


def _count(what: str, text: str, minimum: int) -> int:
    """A whole number in plain ASCII digits within ``minimum..MAX_LIMIT``."""
    if not (text.isascii() and text.isdigit()):
        raise ProtocolError(f"{what} needs a whole number, not {text!r}")
    value = int(text)
    if not minimum <= value <= MAX_LIMIT:
        raise ProtocolError(f"{what} must be {minimum}..{MAX_LIMIT}, not {value}")
    return value


def _clock_time(values: dict[str, int], white_to_move: bool) -> float | None:
    left = values.get("wtime" if white_to_move else "btime")
    if left is None:
        return None
    increment = values.get("winc" if white_to_move else "binc", 0)
    share = left / values.get("movestogo", MOVES_TO_GO) + INCREMENT_SHARE * increment
    return max(0.001, min(share, CLOCK_SHARE * left)) / 1000


@dataclass(frozen=True)
class PositionCommand:
    """``position ...``: where the game starts (None = the variant's start) and the moves."""

    text: str | None
    moves: tuple[str, ...]


def parse_position(args: list[str]) -> PositionCommand:
    moves: list[str] = []
    if "moves" in args:
        cut = args.index("moves")
        args, moves = args[:cut], args[cut + 1 :]
    kind = args[0].lower() if args else ""
    if kind == "startpos":
        if len(args) > 1:
            raise ProtocolError(f"position startpos takes only moves after it, not {' '.join(args[1:])!r}")
        return PositionCommand(None, tuple(moves))
    if kind in ("text", "fen"):
        if len(args) < 2:
            raise ProtocolError("position text needs a position text")
        return PositionCommand(" ".join(args[1:]), tuple(moves))
    raise ProtocolError("position needs startpos or text <position text>")


def parse_setoption(args: list[str]) -> tuple[str, str]:
    """``name N value V`` -> (n, v); the name is case-insensitive, as in UCI."""
    text = " ".join(args)
    if not text.lower().startswith("name "):
        raise ProtocolError("setoption needs name <option> value <value>")
    name, found, value = text[5:].partition(" value ")
    if not found or not value.strip():
        shown = " ".join(name.split())  # one line, whatever whitespace the words held
        raise ProtocolError(f"setoption name {shown} needs a value")
    return name.strip().lower(), value.strip()


# ----- the session ------------------------------------------------------------------------------


class ProtocolSession:
    """One conversation: ``run`` reads commands until ``quit`` or the end of input."""

    def __init__(self, out: TextIO = sys.stdout, variant: str = "classic", level: str = "strong") -> None:
        self.out = out
        self._out_lock = threading.Lock()
        self.level = level_named(level).name
        self.engine = Engine(variant, self.level)
        self.position: GameState[Any] = start_position(self.engine.variant)
        self._search: threading.Thread | None = None
        self._lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.closed = threading.Event()  # the other side stopped listening

    # ----- the reader ---------------------------------------------------------------------------

    def run(self, lines: TextIO | Iterable[str] = sys.stdin) -> int:
        """Read until ``quit`` or the end of input; then stop the search, answer, and return."""
        worker = threading.Thread(target=self._work, name="protocol", daemon=True)
        worker.start()
        source = iter(lines.readline, "") if hasattr(lines, "readline") else iter(lines)
        try:
            for raw in _readable(source):
                if self.closed.is_set():
                    break
                words = raw.split()
                if words and words[0].lower() == "quit":
                    break
                if words:
                    self._lines.put(raw)
        finally:
            self._lines.put(None)  # quit, or the end of input: the same
            worker.join()
        return 0

    # ----- the worker -------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            raw = self._lines.get()
            if raw is None:
                self._stop_search()
                return
            self.handle(raw)

    def handle(self, raw: str) -> None:
        """Act on one line (on the worker thread); a bad line answers one error line."""
        words = raw.split()
        if not words:
            return
        command, args = words[0].lower(), words[1:]
        handler: Callable[[list[str]], None] | None = getattr(self, f"cmd_{command}", None)
        if handler is None:
            self.send(f"info string error: unknown command {words[0]!r}")
            return
        try:
            handler(args)
        except (CompanionError, ValueError) as error:
            self.send(f"info string error: {error}")
        except Exception as error:  # never let one line end the engine
            self.send(f"info string error: internal error ({type(error).__name__}: {error})")

    def send(self, line: str) -> None:
        with self._out_lock:
            if self.closed.is_set():
                return
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (OSError, ValueError):  # the pipe is closed: nobody is listening any more
                self.closed.set()
                self.engine.stop()

    @property
    def searching(self) -> bool:
        return self._search is not None and self._search.is_alive()

    def _stop_search(self) -> None:
        """End a running search and wait for its ``bestmove``. The request is repeated, since
        a search that had not yet begun when asked would otherwise miss it."""
        thread = self._search
        while thread is not None and thread.is_alive():
            self.engine.stop()
            thread.join(STOP_POLL)
        self._search = None

    # ----- commands -------------------------------------------------------------------------

    def cmd_uci(self, args: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send("id author gobblet-companion team")
        self.send(f"option name Variant type string default {self.engine.variant.spec}")
        choices = " ".join(f"var {name}" for name in LEVELS)
        self.send(f"option name Level type combo default {self.level} {choices}")
        self.send("uciok")

    cmd_engine = cmd_uci

    def cmd_isready(self, args: list[str]) -> None:
        self.send("readyok")  # at once, even while searching, as UCI asks

    def cmd_stop(self, args: list[str]) -> None:
        self._stop_search()

    def cmd_variant(self, args: list[str]) -> None:
        variant = variant_from_spec(" ".join(args))
        self._stop_search()
        self.engine = Engine(variant, self.level)
        self.position = start_position(variant)

    def cmd_level(self, args: list[str]) -> None:
        level = level_named(" ".join(args)).name
        self._stop_search()
        self.engine = Engine(self.engine.variant, level)
        self.level = level

    def cmd_setoption(self, args: list[str]) -> None:
        name, value = parse_setoption(args)
        if name == "variant":
            self.cmd_variant([value])
        elif name == "level":
            self.cmd_level([value])
        else:
            raise ProtocolError(f"unknown option {name!r}: the options are Variant and Level")

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self._stop_search()
        self.engine.new_game()

    cmd_newgame = cmd_ucinewgame

    def cmd_position(self, args: list[str]) -> None:
        command = parse_position(args)
        start = command.text
        position = start_position(self.engine.variant) if start is None else position_from_text(start)
        for token in command.moves:
            position.push_code(position.code_from_move(position.parse_move(token)))
        self._stop_search()
        if position.variant != self.engine.variant:
            self.engine = Engine(position.variant, self.level)
        self.position = position

    def cmd_go(self, args: list[str]) -> None:
        limits = parse_go(args, white_to_move=self.position.turn == 0)
        self._stop_search()
        if self.position.outcome() is not None:
            self.send("bestmove (none)")
            return
        self._search = threading.Thread(
            target=self._run_search, args=(self.engine, self.position.copy(), limits), name="search"
        )
        self._search.daemon = True
        self._search.start()

    def _run_search(self, engine: Engine, position: GameState[Any], limits: GoLimits) -> None:
        """Always ends with a ``bestmove`` line, whatever happens in the search."""
        move = "(none)"
        try:
            result = engine.search(
                position, time=limits.time, depth=limits.depth, nodes=limits.nodes, on_iteration=self._info
            )
            self.send(info_line(result))
            if result.move is not None:
                move = result.move.text()
        except Exception as error:
            self.send(f"info string error: the search failed ({type(error).__name__}: {error})")
        finally:
            self.send(f"bestmove {move}")

    def _info(self, result: SearchResult) -> None:
        self.send(info_line(result))


def _readable(lines: Iterable[str]) -> Iterable[str]:
    """The lines until the end of input; a stream that fails to read (closed, or bytes that
    do not decode) ends the input like EOF does, rather than the engine."""
    try:
        yield from lines
    except (OSError, ValueError):
        return
