"""Which announced plies a rival path holds in doubt (``plies_held_in_doubt`` in doubts.py): the
plies it plays otherwise, an earlier one while it is within ``doubt`` of the best, the latest
alone only within the margin; what the referee asks the player about (``_lines_to_ask``)."""

from __future__ import annotations

from companion.reconciler.accounts import DEFAULT_SETTINGS
from companion.reconciler.doubts import plies_held_in_doubt
from companion.reconciler.paths import GamePath

SHOWN = GamePath(0, (11, 12, 13), 0.0)
"""The announced game: three plies after ``BASE`` announced before it."""
BASE = 4


def held(codes: tuple[int, ...], behind: float, root: int = 0) -> set[int]:
    """The plies a path playing ``codes``, ``behind`` nats under the best (``SHOWN``), holds."""
    return plies_held_in_doubt(GamePath(root, codes, -behind), SHOWN, BASE, 0.0, DEFAULT_SETTINGS)


def test_the_latest_ply_alone_is_held_only_within_the_margin() -> None:
    margin = DEFAULT_SETTINGS.margin
    assert held((11, 12, 23), margin - 0.1) == {7}
    assert held((11, 12, 23), margin + 0.1) == set()


def test_an_earlier_ply_is_held_within_the_doubt() -> None:
    doubt = DEFAULT_SETTINGS.doubt
    assert DEFAULT_SETTINGS.margin < doubt - 0.1
    assert held((11, 22, 13), doubt - 0.1) == {6}
    assert held((11, 22, 13), doubt + 0.1) == set()


def test_the_plies_are_aligned_past_a_move_dropped() -> None:
    # a path without the second move agrees again on the third: only ply 6 is held
    assert held((11, 13), 1.0) == {6}


def test_no_ply_is_held_by_the_game_itself_or_from_another_start() -> None:
    assert held((11, 12, 13), 0.0) == set()
    assert held((11, 22, 13), 1.0, root=1) == set()
