"""Accepting what the camera sees confirms the board, not which line that shows it was played.

bench-32 (seen): White's 2 on b3 read a 3, moved to d1 and read a 3 there, then b3 covered.
"2b3 ... b3-d1" and "3b3 ... 2d1" (the 3 left on b3, a 2 placed on d1) show the same tops once
b3 is covered. On an AMD EPYC the true line had been left out of the beam: six lines of the
leader's ("3b3" with 4d1, 2d1, an illegal 3d1, ...) took the room, 3.0 nats ahead of it, and a
rival line was kept only past the width, never past the number of lines. Accepting played the
other line, its "2d1" settled: a wrong move held to the end of the game. Now a rival within the
margin left out by the number of lines keeps its place as one left out by the width does, and
accepting plays the true line; when no room is left even for rivals, a ply on which the lines
that show the accepted board differ stays in doubt, whichever line is played.

The same here on a small beam (2 lines, 3 paths), which leaves no room for the true line as
bench-32's many sizes in doubt did."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.reconciler import tracking
from companion.reconciler.accounts import Settings
from companion.rules import Move
from tests.reconciler.helpers import played, reading, types

OPENING = "4a1 4d4 3a2 4d3 4b1 4c4"  # White's stacks show a 2 and a 3: either may go to b3
A_2_READ_A_3 = {(0, 3): 0.7, (0, 2): 0.3}
MOVED_AWAY = {None: 0.6, (0, 3): 0.4}  # b3 once the 2 left it: perhaps the 3 still there
PLAYED = [  # (the move, what the camera reads where it misreads)
    ("2b3", {"b3": A_2_READ_A_3}),
    ("3d2", {"b3": A_2_READ_A_3}),
    ("b3-d1", {"b3": MOVED_AWAY, "d1": A_2_READ_A_3}),
    ("3c3", {"b3": MOVED_AWAY, "d1": A_2_READ_A_3}),
    ("a1-b3", {"d1": {(0, 2): 0.95, (0, 3): 0.05}}),  # b3 covered; the 2 on d1 read right
]


SMALL = Settings(lines=2, width=3)


def test_a_line_in_doubt_keeps_its_place_when_the_leader_s_lines_take_the_room() -> None:
    # b3-d1 read: the leader's "3b3 3d2 b3-d1" and "3b3 3d2 2d1" are the two lines; "2b3 3d2
    # b3-d1", 2.2 nats behind, was left out and "ply 7 was 3b3" said settled by the room alone
    reconciler, game = played("classic", OPENING, settings=SMALL)
    said = []
    for text, misread in PLAYED[:3]:
        game.push(Move.from_text(text))
        said += reconciler.feed(reading(game, misread))
    assert "settled" not in types(said)
    assert "2b3" in reconciler.unsure.get(7, ())  # the line itself, not "left out for want of room"


def test_accepting_a_board_two_lines_show_leaves_the_plies_they_differ_on_unsure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tracking, "RIVALS_KEPT", 0)  # no room past the beam's: the true line left out
    reconciler, game = played("classic", OPENING, settings=SMALL)
    for text, misread in PLAYED:
        game.push(Move.from_text(text))
        reconciler.feed(reading(game, misread))
    still = replace(reading(game, PLAYED[-1][1]), still=True)
    [asked] = [e for e in reconciler.feed(still) if e.type == "help"]
    assert asked.squares == ("d1",) and 9 in asked.detail["plies"]
    events = reconciler.accept_board()
    record = [m.text() for m in reconciler.game.moves]
    assert record[6:9] == ["3b3", "3d2", "2d1"]  # the line played: it shows the board too
    assert "settled" not in types(events)  # ("ply 9 was 2d1" before)
    assert "another line shows the same board" in reconciler.unsure[9]
    assert 7 in reconciler.unsure
    game.push(Move.from_text("2c1"))  # the plies stay in doubt on the moves that follow
    reconciler.feed(reading(game, {}))
    assert {7, 9} <= set(reconciler.unsure)
