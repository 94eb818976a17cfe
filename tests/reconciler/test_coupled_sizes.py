"""Sizes in doubt that the stacks tie together are one doubt, not two histories.

When White's cup on c2 is read between a 2 and a 3, the next cup White can place depends on
it: after 2c2 its stack that held the 2 shows a 1, after 3c2 the other stack shows a 2. A
later cup read between a 1 and a 2 is then the same doubt seen again: the line "2c2 ... 1b3"
and the line "3c2 ... 2b3" make the same moves but for the sizes of two cups placed. The
referee plays the likelier line at once and reports both plies unsure, as it does for one
cup; it used to take the second line for another history, say it could not tell the move
from a size it had ruled out ("cannot tell 1b3 from 3b3"), and ask for help about a board
that was right (bench-14's last boards, bench-19's b4 and b2)."""

from __future__ import annotations

from companion.reconciler.events import Event
from companion.rules import Move
from tests.reconciler.helpers import played, reading, types

# White's stacks after these: 2 (its 4 and 3 played), 3 and 4; Black's 4s all on column d
OPENING = "4a1 4d4 3a2 4d3 4b1 4d2"


def moved(events: list[Event]) -> list[str | None]:
    return [e.move for e in events if e.type == "move"]


C2 = {(0, 2): 0.6, (0, 3): 0.4}  # White's cup on c2, between a 2 and a 3 on every board
B3 = {(0, 1): 0.69, (0, 2): 0.3, None: 0.01}  # a small cup on b3: a 1, perhaps a 2


def test_a_second_size_tied_to_the_first_through_the_stacks_is_played_unsure() -> None:
    reconciler, game = played("classic", OPENING)
    game.push(Move.from_text("2c2"))
    events = reconciler.feed(reading(game, {"c2": C2}))
    assert moved(events) == ["2c2"]
    assert set(reconciler.unsure[7]) == {"2c2", "3c2"}
    game.push(Move.from_text("3c4"))
    assert moved(reconciler.feed(reading(game, {"c2": C2}))) == ["3c4"]
    # White's 1 on b3, read 0.69 a 1 and 0.3 a 2: only the "3c2" line has a 2 to place, so
    # its account is "3c2 3c4 2b3", 1.9 nats behind and one size off on two squares
    game.push(Move.from_text("1b3"))
    events = reconciler.feed(reading(game, {"c2": C2, "b3": B3}))
    assert moved(events) == ["1b3"]
    assert "help" not in types(events) and reconciler.help_squares is None
    assert set(reconciler.unsure[9]) >= {"1b3", "2b3"} and 7 in reconciler.unsure
    # the game goes on: Black's next move is followed, the two plies still unsure
    game.push(Move.from_text("3c3"))
    events = reconciler.feed(reading(game, {"c2": C2, "b3": B3}))
    assert moved(events) == ["3c3"] and reconciler.help_squares is None
    assert [m.text() for m in reconciler.game.moves] == [m.text() for m in game.moves]
    assert {7, 9} <= set(reconciler.unsure)


def test_a_size_the_stacks_rule_out_later_settles_when_its_line_needs_a_rule_broken() -> None:
    # White's 3 on d2 read 0.8 a 3, 0.2 a 2: after 4a1 and 3b1 (one stack down to 2) and 4c1,
    # a 2 on d2 would have left White no 2 on top of a stack. White's 2 then placed on d3 is
    # read clearly: the line "2d2" explains it only as a 2 taken from under a 3, an illegal
    # action never called (3.9 nats behind). That accusation holds the ply it stands in for
    # in doubt, as any claim about the latest reading; not the earlier size, which its line
    # needs the rule broken for: ply 7 settles ("later readings settle it")
    reconciler, game = played("classic", "4a1 4a4 3b1 4b4 4c1 4c3")
    d2 = {"d2": {(0, 3): 0.8, (0, 2): 0.2}}
    for text in ("3d2", "3a3"):
        game.push(Move.from_text(text))
        reconciler.feed(reading(game, d2))
    assert reconciler.unsure == {7: ["2d2", "3d2"]}
    game.push(Move.from_text("2d3"))
    events = reconciler.feed(reading(game, d2))
    assert moved(events) == ["2d3"]
    [settled] = [e for e in events if e.type == "settled"]
    assert settled.detail["settled"] == {"7": "3d2"} and "later readings" in (settled.reason or "")
    assert reconciler.unsure == {9: ["2d3", "illegal 2d3"]}
    assert [m.text() for m in reconciler.game.moves] == [m.text() for m in game.moves]
