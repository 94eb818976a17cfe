"""A second look at a board nothing touched is a repeat, not news.

The gate takes a second look at a board the referee could not make out, and marks it
``still`` when every frame in between agreed with the first and none was covered: no move
can have been made. A small White 1 read 0.85 a 1 and 0.06 empty leaves "1b3" 2.7 nats
ahead of "no change", under the margin. Read again, the line with 1b3 counts the reading as
the repeat it is (0.65 of it); the line without it told the same reading as news ("1b3,
then taken back"), counted it in full and stayed 3.1 nats behind, so the referee asked for
help about a board that was right (bench-00 and 06). Told only by accounts that leave each
line's board as it was, the line without the cup falls behind by the margin."""

from __future__ import annotations

from dataclasses import replace

from companion.reconciler.events import Event
from companion.rules import Move
from tests.reconciler.helpers import observe, played, reading, types

# White's stacks after these show a 1 (b1's stack), a 3 and a 4
OPENING = "4a1 4d4 3a2 4d3 2b1 4d2"
SMALL = {(0, 1): 0.85, None: 0.06, (0, 2): 0.09}  # a White 1 on b3, perhaps nothing


def moved(events: list[Event]) -> list[str | None]:
    return [e.move for e in events if e.type == "move"]


def test_a_still_second_look_settles_a_small_cup_read_unsure() -> None:
    reconciler, game = played("classic", OPENING)
    game.push(Move.from_text("1b3"))
    first = reading(game, {"b3": SMALL})
    assert types(reconciler.feed(first)) == ["needs-attention"]  # cannot tell 1b3 from no change
    events = reconciler.feed(replace(first, still=True))
    assert moved(events) == ["1b3"] and "help" not in types(events)
    assert [m.text() for m in reconciler.game.moves] == [m.text() for m in game.moves]


def test_the_same_reading_not_marked_still_may_be_news() -> None:
    # without the gate's word that nothing was touched, a move and its takeback may have
    # been made in between: the repeat settles nothing, and the player is asked
    reconciler, game = played("classic", OPENING)
    game.push(Move.from_text("1b3"))
    first = reading(game, {"b3": SMALL})
    reconciler.feed(first)
    events = reconciler.feed(first)
    assert moved(events) == [] and "help" in types(events)


def test_a_still_look_invents_no_move() -> None:
    # a board read clearly is read again: nothing is said; a doubt between sizes stays one
    reconciler, game = played("classic", OPENING)
    assert reconciler.feed(replace(observe(game.position), still=True)) == []
    game.push(Move.from_text("1b3"))
    between = reading(game, {"b3": {(0, 1): 0.6, None: 0.35, (0, 2): 0.05}})
    assert types(reconciler.feed(between)) == ["needs-attention"]
    events = reconciler.feed(replace(between, still=True))
    assert moved(events) == [] and len(reconciler.game.moves) == len(OPENING.split())
