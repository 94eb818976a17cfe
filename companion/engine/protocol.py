"""The engine's line protocol on stdin/stdout, modelled on chess's UCI.

    engine | uci          -> id name ..., id author ..., option lines, "engineok"/"uciok"
    variant NAME          set the variant (any spec: classic, junior, storer:stacks=543.543.543)
    level NAME            greedy | easy | medium | strong
    position startpos [moves M1 M2 ...]
    position text <position text> [moves M1 M2 ...]
    go [movetime MS] [depth D] [nodes N]
                          -> info depth D score S nodes N nps R time MS pv M1 M2 ...
                          -> bestmove M
    stop                  end a running search now (it answers bestmove)
    isready               -> readyok
    ucinewgame / newgame  forget the tables
    quit

Searches run in a thread, so ``stop`` and ``isready`` are answered while one runs. A bad
command answers ``info string error: ...`` and the engine carries on, as UCI engines do.
Scores are centipawns from the side to move; a won game is ``mate N`` (plies) in ``score``.
"""

from __future__ import annotations

import sys
import threading
from typing import TextIO

from companion import __version__
from companion.engine.engine import Engine
from companion.engine.search import MATE, SearchResult
from companion.errors import CompanionError
from companion.rules import Move, Position, Variant
from companion.rules.variant import VariantError

ENGINE_NAME = f"gobblet-companion {__version__}"


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


class ProtocolSession:
    """One conversation: reads commands, writes answers; ``run`` until ``quit`` or EOF."""

    def __init__(self, out: TextIO = sys.stdout, variant: str = "classic", level: str = "strong") -> None:
        self.out = out
        self.lock = threading.Lock()
        self.level = level
        self.engine = Engine(variant, level)
        self.position = Position(self.engine.variant)
        self.thread: threading.Thread | None = None

    def send(self, line: str) -> None:
        with self.lock:
            self.out.write(line + "\n")
            self.out.flush()

    def run(self, lines: TextIO = sys.stdin) -> int:
        for raw in lines:
            if not self.handle(raw):
                break
        self.wait()
        return 0

    def handle(self, raw: str) -> bool:
        """Act on one line; False means quit."""
        words = raw.split()
        if not words:
            return True
        command, args = words[0].lower(), words[1:]
        if command == "quit":
            self.engine.stop()
            return False
        handler = getattr(self, f"cmd_{command}", None)
        if handler is None:
            self.send(f"info string error: unknown command {command!r}")
            return True
        try:
            handler(args)
        except (CompanionError, ValueError) as error:
            self.send(f"info string error: {error}")
        return True

    # ----- commands -------------------------------------------------------------------------

    def cmd_uci(self, args: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send("id author gobblet-companion team")
        self.send("option name Variant type string default classic")
        self.send("option name Level type combo default strong var greedy var easy var medium var strong")
        self.send("uciok")

    cmd_engine = cmd_uci

    def cmd_isready(self, args: list[str]) -> None:
        self.send("readyok")

    def cmd_variant(self, args: list[str]) -> None:
        self.wait()
        try:
            variant = Variant.from_spec(" ".join(args))
        except VariantError as error:
            raise CompanionError(str(error)) from None
        self.engine = Engine(variant, self.level)
        self.position = Position(variant)

    def cmd_level(self, args: list[str]) -> None:
        self.wait()
        self.level = " ".join(args)
        self.engine = Engine(self.engine.variant, self.level)

    def cmd_setoption(self, args: list[str]) -> None:
        text = " ".join(args)
        name, _, value = text.partition(" value ")
        name = name.removeprefix("name ").strip().lower()
        if name == "variant":
            self.cmd_variant([value])
        elif name == "level":
            self.cmd_level([value])
        else:
            raise CompanionError(f"unknown option {name!r}")

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self.wait()
        self.engine.new_game()

    cmd_newgame = cmd_ucinewgame

    def cmd_position(self, args: list[str]) -> None:
        self.wait()
        moves: list[str] = []
        if "moves" in args:
            cut = args.index("moves")
            args, moves = args[:cut], args[cut + 1 :]
        if args[:1] == ["startpos"]:
            position = Position(self.engine.variant)
        elif args[:1] in (["text"], ["fen"]):
            position = Position.from_text(" ".join(args[1:]))
            if position.variant != self.engine.variant:
                self.cmd_variant([position.variant.spec])
        else:
            raise CompanionError("position needs startpos or text <position text>")
        for token in moves:
            position.push(Move.from_text(token))
        self.position = position

    def cmd_go(self, args: list[str]) -> None:
        self.wait()
        limits = {"movetime": None, "depth": None, "nodes": None}
        for name, value in zip(args[::2], args[1::2], strict=False):
            if name not in limits or not value.isdigit():
                raise CompanionError(f"go takes movetime MS, depth D and nodes N, not {name} {value}")
            limits[name] = int(value)
        if self.position.outcome() is not None:
            self.send("bestmove (none)")
            return
        seconds = limits["movetime"] / 1000 if limits["movetime"] is not None else None
        position = self.position.copy()
        self.thread = threading.Thread(
            target=self._search, args=(position, seconds, limits["depth"], limits["nodes"]), daemon=True
        )
        self.thread.start()

    def _search(
        self, position: Position, seconds: float | None, depth: int | None, nodes: int | None
    ) -> None:
        result = self.engine.search(position, time=seconds, depth=depth, nodes=nodes, on_iteration=self._info)
        self.send(info_line(result))
        self.send(f"bestmove {result.move.text() if result.move else '(none)'}")

    def _info(self, result: SearchResult) -> None:
        self.send(info_line(result))

    def cmd_stop(self, args: list[str]) -> None:
        self.engine.stop()
        self.wait()

    def wait(self) -> None:
        if self.thread is not None:
            self.thread.join()
            self.thread = None
