"""The device's vision glue: a fresh device calibrating itself from the empty board, a damaged
calibration refused, a second look at a board the referee could not make out."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from companion.device.vision_link import BoardObserver, ReaderObserver
from companion.errors import CompanionError
from companion.reconciler.events import Event, EventType, looks_again
from companion.rules.variant import CLASSIC
from companion.vision.gate import StabilityGate
from companion.vision.observation import Observation


@pytest.mark.slow
def test_a_fresh_device_calibrates_from_the_empty_board(tmp_path):
    from companion.vision.synth import SceneRenderer

    scene = SceneRenderer(seed=5)
    path = tmp_path / "calibration.json"
    now = [0.0]
    observe = BoardObserver(path, CLASSIC, clock=lambda: now[0])
    assert observe.fault is not None and "empty board" in observe.fault
    assert observe(scene.empty(), 0.0) is None
    assert observe.fault is None and path.exists()
    frame = scene.render({"b2": (1, 4)})
    seen = None
    for t in (1.0, 1.5, 2.0):  # the gate wants the reading to hold for a second (camera time)
        seen = observe(frame, t)
    assert seen is not None and seen.top("b2") == (1, 4)
    again = BoardObserver(path, CLASSIC)  # the next start reads the saved file
    assert again.fault is None


def test_a_damaged_calibration_is_an_error_at_start(tmp_path):
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(CompanionError):
        BoardObserver(path, CLASSIC)


class StillReader:
    """A reader that sees the same board in every frame."""

    def __init__(self, observation: Observation) -> None:
        self.observation = observation

    def read_details(self, frame: object, timestamp: float) -> StillReader:
        return self


def test_an_unclear_reading_is_looked_at_again_a_doubt_after_a_second_look_is_not():
    # the referee could not make out the board (a cup read 0.97 there, 0.03 empty: "cannot
    # tell 1a1 from no change"): it gets a second reading of it a hold time later, instead of
    # waiting for the next move; a report of plies in doubt made on that second look asks
    # for no third
    observe = ReaderObserver(
        StillReader(Observation.from_tops({"a1": (0, 1)})), StabilityGate(1.0, 3), learn=False
    )
    frame = np.zeros((4, 4, 3), np.uint8)
    assert [observe(frame, t) is not None for t in (0.0, 0.5, 1.0, 1.5, 2.0)] == [
        False,
        False,
        True,
        False,
        False,
    ]
    observe.judged([Event(EventType.NEEDS_ATTENTION, reason="cannot tell 1a1 from no change")], None)
    assert [observe(frame, t) is not None for t in (2.5, 3.0, 3.5, 4.0)] == [False, False, True, False]
    doubt = Event(
        EventType.NEEDS_ATTENTION, reason="not sure which move", detail={"unsure": {"3": ["3b1", "4b1"]}}
    )
    observe.judged([Event(EventType.MOVE, move="4c4"), doubt], None)
    assert not any(observe(frame, t) is not None for t in (4.5, 5.0, 5.5, 6.0))


def test_plies_coming_into_doubt_get_one_second_look_at_a_still_board():
    # the referee reports plies in doubt: a board left standing is read once more, marked
    # still (the referee may ask the player to confirm what it shows); a doubt said on that
    # second look asks for no third
    observe = ReaderObserver(
        StillReader(Observation.from_tops({"b1": (0, 4)})), StabilityGate(1.0, 3), learn=False
    )
    frame = np.zeros((4, 4, 3), np.uint8)
    assert [observe(frame, t) is not None for t in (0.0, 0.5, 1.0, 1.5)] == [False, False, True, False]
    doubt = Event(
        EventType.NEEDS_ATTENTION, reason="not sure which move", detail={"unsure": {"3": ["3b1", "4b1"]}}
    )
    observe.judged([Event(EventType.MOVE, move="4b1"), doubt], None)
    looks = [observe(frame, t) for t in (2.0, 2.5, 3.0, 3.5)]
    assert [look is not None for look in looks] == [False, False, True, False]
    assert looks[2] is not None and looks[2].still
    observe.judged([doubt], None)
    assert not any(observe(frame, t) is not None for t in (4.0, 4.5, 5.0, 5.5))


def test_a_help_request_said_for_an_unclear_first_look_is_looked_at_again():
    # while help is asked, a reading the referee cannot make out comes out as the request
    # (lighting the squares it adds) in place of its needs-attention; the board, if it still
    # stands, is read again as after any unclear first look (the vision bench's bench-42: the
    # moves made while help was asked told by 16b's second look, not the next board's); a
    # request said on that second look asks for no third, nor does one to confirm a board the
    # referee read clearly
    observe = ReaderObserver(
        StillReader(Observation.from_tops({"b1": (0, 4)})), StabilityGate(1.0, 3), learn=False
    )
    frame = np.zeros((4, 4, 3), np.uint8)
    assert [observe(frame, t) is not None for t in (0.0, 0.5, 1.0, 1.5)] == [False, False, True, False]
    help_asked = Event(EventType.HELP, squares=("b1", "d4"), reason="the board differs on b1, d4")
    observe.judged([help_asked], None)
    looks = [observe(frame, t) for t in (2.0, 2.5, 3.0, 3.5)]
    assert [look is not None for look in looks] == [False, False, True, False]
    assert looks[2] is not None and looks[2].still
    observe.judged([replace(help_asked, squares=("b1", "b2", "d4"))], None)
    assert not any(observe(frame, t) is not None for t in (4.0, 4.5, 5.0, 5.5))
    confirm = Event(EventType.HELP, squares=("b1",), reason="not sure of ply 3", detail={"confirm": True})
    assert looks_again([help_asked], still=False) and not looks_again([help_asked], still=True)
    assert not looks_again([Event(EventType.MOVE, move="4b1"), confirm], still=False)
