"""The game seam: what the engine, the match runner, the commands and the log ask of a game.

The companion plays more than one game (Gobblet in all its variants, and Cups). Everything
that does not need to know the rules of one game speaks to these three small protocols, in
the manner of OpenSpiel's ``State``: a variant that names itself with a spec, a move that
writes itself as text, and a position with its legal moves (as integer codes, so a search
never allocates a move object), ``push_code``/``pop_code``, the outcome, its one-line text
and a hash. ``companion.rules.games`` finds the game of a spec or a position text; adding a
game is one module that implements these and one entry there.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from companion.rules.outcome import Outcome


class GameVariant(Protocol):
    """A variant of some game: its spec (``classic``, ``cups:cups=6``) rebuilds it."""

    @property
    def spec(self) -> str: ...


class GameMove(Protocol):
    """A move: a small immutable value whose ``text()`` the game's parser reads back."""

    def text(self) -> str: ...


MoveT = TypeVar("MoveT", bound=GameMove)


class GameState(Protocol[MoveT]):
    """A position of a two-player game, from the point of view of the side to move.

    ``turn`` is 0 for the first player (White, or Cups' lower row), 1 for the second; it is
    always the side whose move it is (a game where a player who cannot move passes makes
    the pass itself, so a search never sees one). Codes are small ints whose meaning only the
    game knows; ``move_from_code``/``code_from_move`` translate them. ``MoveT`` is the game's
    move type (``Move`` for Gobblet, ``CupsMove`` for Cups)."""

    @property
    def variant(self) -> GameVariant: ...

    @property
    def turn(self) -> int: ...

    @property
    def ply(self) -> int: ...

    @property
    def hash(self) -> int: ...

    @property
    def move_codes(self) -> list[int]:
        """The codes played since this position's start (its text's position)."""
        ...

    def legal_codes(self) -> list[int]: ...

    def count_moves(self) -> int: ...

    def push_code(self, code: int) -> None: ...

    def pop_code(self) -> int: ...

    def move_from_code(self, code: int) -> MoveT: ...

    def code_from_move(self, move: MoveT) -> int: ...

    def parse_move(self, text: str) -> MoveT: ...

    def check(self, move: MoveT) -> str | None: ...

    def outcome(self) -> Outcome | None: ...

    def text(self) -> str: ...

    def copy(self) -> GameState[MoveT]: ...
