"""A game played away from the camera (at the terminal, or on the web page) written to the log
as it goes, one transaction a move, as the referee writes its own.

Cups is played this way (the camera does not count beans), and so is any Gobblet game a
person enters by hand: ``play --log``. The rows are the same as the referee's, so ``games
list|show|export`` and the web page's game views read them back like any other game.
"""

from __future__ import annotations

from companion.log.store import GameStore
from companion.rules.game import BaseGame
from companion.rules.games import start_position

ABANDONED = "abandoned"  # the termination of a game closed unfinished (as the referee writes it)


class GameRecorder:
    """Mirrors one game into a ``GameStore``: call ``moved``/``took_back`` after each change."""

    def __init__(self, store: GameStore, game: BaseGame, place: str | None = None) -> None:
        self.store = store
        self.game = game
        start = game.start.text()
        self.game_id = store.start_game(
            game.variant.spec,
            white=game.headers.get("White", "White"),
            black=game.headers.get("Black", "Black"),
            place=place,
            start_position=None if start == start_position(game.variant).text() else start,
        )
        self._logged = 0  # moves of the game already in the log
        self._ended = False
        self.sync()

    def sync(self) -> None:
        """Bring the log level with the game: take back what was undone, add what was played,
        and write the ending once it is known."""
        game, base = self.game, self.game.start.ply
        if self._logged > len(game.played):
            self.store.take_back(self.game_id, base + len(game.played) + 1)
            self._logged, self._ended = len(game.played), False
        while self._logged < len(game.played):
            position = game.position.copy()  # the position after the next move to log
            for _ in range(len(game.played) - self._logged - 1):
                position.pop_code()
            played = game.played[self._logged]
            self._logged += 1
            self.store.add_move(
                self.game_id,
                base + self._logged,
                played.move.text(),
                position.text(),
                timestamp=played.timestamp,
            )
        outcome = game.outcome()
        if outcome is not None and not self._ended:
            self.store.finish(
                self.game_id, outcome.result, termination=str(outcome.termination), reason=outcome.reason
            )
            self._ended = True

    moved = sync
    took_back = sync

    def abandon(self, reason: str = "the players left it unfinished") -> None:
        """An unfinished game that nobody will finish: closed as the referee closes one."""
        if self.game.outcome() is None:
            self.store.finish(self.game_id, "*", termination=ABANDONED, reason=reason)
            self._ended = True
