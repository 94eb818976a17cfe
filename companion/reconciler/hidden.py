"""Hidden-cup tracking: what the stacks may hide in a game whose start the referee did not see
whole (started mid-way, or restarted from the board after a resync).

``HiddenContents`` (``unknowns.py``) counts every start the tops allow; ``HiddenCups`` keeps it
level with the game the reconciler announces: each move tells it what the move showed (a lift
uncovers a cup), a correction replays the corrected moves from the game's start again, and
the cups each lift was seen to uncover are remembered for that replay. When what was seen
contradicts every start left, tracking stops (``contents`` becomes None): the game keeps its
most likely start rather than list wrong unknowns.
"""

from __future__ import annotations

from companion.errors import CompanionError
from companion.reconciler.accounts import Explanation
from companion.reconciler.unknowns import HiddenContents
from companion.rules.game import Game
from companion.rules.move import Move, Placement
from companion.rules.position import Position
from companion.rules.square import Square
from companion.vision.observation import class_index, class_top

Piece = tuple[int, int]
RevealKey = tuple[int, str]  # (ply, move text): the move that lifted a cup


class HiddenCups:
    """The hidden contents of the stacks along the announced game (None when all are known)."""

    def __init__(self, contents: HiddenContents | None) -> None:
        self.contents = contents
        self.base = contents.copy() if contents is not None else None  # at the game's start
        self.reveals: dict[RevealKey, Piece | None] = {}  # the cup each lift uncovered

    def restart(self, contents: HiddenContents | None) -> None:
        """A new start (a resync, a new game): nothing revealed yet."""
        self.contents = contents
        self.base = contents.copy() if contents is not None else None
        self.reveals = {}

    def known_stack(self, position: Position, sq: Square) -> list[Piece] | None:
        """The whole stack of ``sq`` in ``position`` (the announced game's) when every cup of
        it is known, None when part of it is only the start's hypothesis: a game whose start
        was seen whole knows every stack; one that began from the tops knows what was placed,
        moved and revealed, and its start's hidden cups are a guess (counted from the
        hypotheses left while they are followed, none known once they are not)."""
        if self.base is None:
            return list(position.stack(sq))
        if self.contents is None:
            return None
        stack = self.contents.stacks.get(sq)
        if stack is None or stack.bound > 1:
            return None
        return list(stack.known)

    def reveal_options(self, max_piece: int) -> dict[Square, list[int]] | None:
        """For each stack whose top hides an unknown part: every class a lift may show."""
        if self.contents is None:
            return None
        out = {}
        for sq, stack in self.contents.stacks.items():
            if len(stack.known) == 1 and stack.bound > 1:
                out[sq] = [class_index(p, max_piece) for p in self.contents.under_top(sq)]
        return out

    def track(
        self,
        game: Game,
        move: Move,
        explanation: Explanation | None,
        faint: tuple[tuple[Square, int], ...] = (),
    ) -> None:
        """Tell the hidden contents what a move showed (before it is played on ``game``): the
        cup the reading showed under a lifted one, or (for moves seen late, and for a cup the
        reading told from the start's guess by less than the margin: ``faint``) the likeliest.
        One faint reading is no fact about a stack: taken as one, the game would be replayed
        from a start that hides it, and no later reading of the square could undo it (blind
        game 3020: a White 1 read once at 0.86 where c4 was empty, then read empty four times,
        made a start that hid White's 2 and 3 under d1, and White's 3c4 "illegal")."""
        contents = self.contents
        if contents is None:
            return
        try:
            if isinstance(move, Placement):
                contents.put(move.to_square, (game.turn, move.size), solve=False)
                return
            origin = move.from_square
            assert origin is not None
            stack = game.position.stack(origin)
            shown = stack[-2] if len(stack) > 1 else None
            for sq, cls in explanation.changes if explanation is not None else ():
                if sq == origin and (sq, cls) not in faint:
                    shown = class_top(cls, game.variant.max_piece)
            self.reveals[(game.ply + 1, move.text())] = shown
            contents.move(origin, move.to_square, shown, solve=False)
        except CompanionError:
            self.contents = None

    def rebuild(self, game: Game) -> None:
        """After a correction: what the stacks may hide, from the game's start again along
        the corrected moves (with the cups each lift was seen to uncover)."""
        if self.base is None:
            return
        contents = self.base.copy()
        position = game.start.copy()
        try:
            for ply, played in enumerate(game.played, start=1):
                move = played.move
                if isinstance(move, Placement):
                    contents.put(move.to_square, (position.turn, move.size), solve=False)
                elif move.from_square is not None:
                    stack = position.stack(move.from_square)
                    shown = self.reveals.get((ply, move.text()), stack[-2] if len(stack) > 1 else None)
                    contents.move(move.from_square, move.to_square, shown, solve=False)
                position.push(move)
            contents.settle()
        except CompanionError:
            self.contents = None
            return
        self.contents = contents

    def settle(self) -> None:
        """Count the hidden contents once after the moves of a reading (``track`` only records
        them); a contradiction stops the listing as it would have per move."""
        if self.contents is None:
            return
        try:
            self.contents.settle()
        except CompanionError:
            self.contents = None
