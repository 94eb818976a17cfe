"""Cups at the device, for the web page: the one game played there by tapping, the engine's
answers and hints, and the game log.

The camera does not count beans, so the web page is where a Cups game is played at the table:
``CupsTable`` keeps that game as the loop keeps the referee's, answers with the engine when a
side is the engine's, and writes every move to the log (``companion.log.recorder``). Its
methods run on the web server's worker thread, one at a time; each returns a ``CupsView``, an
immutable picture the page draws (``companion.web.cups``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from companion.engine import Engine
from companion.engine.levels import LEVELS
from companion.engine.protocol import score_text
from companion.errors import CompanionError
from companion.log import GameStore
from companion.log.recorder import GameRecorder
from companion.rules.cups import CupsGame, CupsMove, CupsPosition, CupsVariant
from companion.rules.square import color_name

ENGINE_TIME = 0.5  # seconds the engine thinks for its moves and hints on the page
OPPONENTS = ("none", *LEVELS)  # "none": two people at the table


@dataclass(frozen=True)
class CupsView:
    """The game as the page shows it, taken after each change."""

    position: CupsPosition  # a copy: the page draws it while the table plays on
    last_move: str | None
    status: str  # whose turn, or how the game ended
    moves: tuple[str, ...]
    over: bool
    playable: bool  # a person may move now (the game goes on and it is not the engine's turn)
    hint: str
    game_id: int | None


class CupsTable:
    """The one Cups game the page is playing, logged as it goes. Its methods run on the
    server's worker thread, one at a time; each returns the page's view of the game."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.game: CupsGame | None = None
        self.level: str | None = None  # the engine's level, or None for two people
        self.engine: Engine | None = None
        self.engine_side = 1  # the engine plays Black
        self.hint: str | None = None
        self._store: GameStore | None = None
        self._recorder: GameRecorder | None = None
        self._lock = threading.Lock()

    def new(self, spec: str, white: str, black: str, opponent: str) -> CupsView:
        variant = CupsVariant.from_spec(spec or "cups")
        if opponent not in OPPONENTS:
            raise CompanionError(f"unknown opponent {opponent!r}: choose one of {', '.join(OPPONENTS)}")
        with self._lock:
            self._abandon("a new Cups game was started on the web page")
            level = None if opponent == "none" else opponent
            black = "Engine (" + level + ")" if level else black
            self.game = CupsGame(variant, headers={"White": white or "White", "Black": black or "Black"})
            self.level, self.engine = level, Engine(variant, level) if level else None
            self.hint = None
            self._recorder = GameRecorder(self._open_store(), self.game)
            return self._shown()

    def play(self, text: str) -> CupsView:
        with self._lock:
            game = self._current()
            if self.engine is not None and game.turn == self.engine_side:
                raise CompanionError("it is the engine's turn")
            game.push_text(text)
            self.hint = None
            self._reply()
            self._log()
            return self._shown()

    def takeback(self) -> CupsView:
        with self._lock:
            game = self._current()
            if not game.played:
                raise CompanionError("there is no move to take back")
            game.pop()
            while self.engine is not None and game.played and game.turn == self.engine_side:
                game.pop()  # back to the person's turn
            self.hint = None
            self._log()
            return self._shown()

    def suggest(self) -> CupsView:
        with self._lock:
            game = self._current()
            if game.is_over():
                raise CompanionError("the game is over: there is no move to suggest")
            result = Engine(game.variant, "strong").search(game.position, time=ENGINE_TIME)
            proven = f", {result.value}" if result.value else ""
            self.hint = f"hint: {result.move.text()} ({score_text(result.score)}{proven})"
            return self._shown()

    def view(self) -> CupsView | None:
        """What the page shows (None before the first game): a copy of the position, whose
        turn or the result, the moves so far, and whether a person may move now."""
        game = self.game
        if game is None:
            return None
        outcome = game.outcome()
        person = self.engine is None or game.turn != self.engine_side
        status = outcome.reason if outcome is not None else f"{color_name(game.turn).capitalize()} to move"
        return CupsView(
            position=game.position.copy(),
            last_move=game.played[-1].move.text() if game.played else None,
            status=status,
            moves=tuple(p.move.text() for p in game.played),
            over=outcome is not None,
            playable=outcome is None and person,
            hint=self.hint or "",
            game_id=self._recorder.game_id if self._recorder is not None else None,
        )

    def _shown(self) -> CupsView:
        view = self.view()
        assert view is not None  # called after a game exists
        return view

    def close(self) -> None:
        with self._lock:
            self._abandon("the web page's server stopped (its game lives only while it runs)")
            if self._store is not None:
                self._store.close()
                self._store = None

    # ----- inside ------------------------------------------------------------------------------

    def _current(self) -> CupsGame:
        if self.game is None:
            raise CompanionError("no Cups game yet: start one")
        return self.game

    def _reply(self) -> None:
        """The engine's moves, while it is its turn (it moves again when the person passes)."""
        game = self._current()
        while self.engine is not None and not game.is_over() and game.turn == self.engine_side:
            move: CupsMove = self.engine.search(game.position, time=ENGINE_TIME).move
            game.push(move)

    def _log(self) -> None:
        if self._recorder is not None:
            self._recorder.sync()

    def _open_store(self) -> GameStore:
        if self._store is None:
            self._store = GameStore(self.database)
        return self._store

    def _abandon(self, reason: str) -> None:
        if self._recorder is not None:
            self._recorder.abandon(reason)
            self._recorder = None
