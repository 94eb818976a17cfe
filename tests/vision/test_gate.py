import pytest

from companion.errors import CompanionError
from companion.vision.gate import StabilityGate
from companion.vision.observation import Observation

A = Observation.from_tops({"a1": (0, 1)})
B = Observation.from_tops({"a1": (0, 2)})
HAND = Observation.from_tops({"a1": (1, 4)}, occluded=True)


def feed_all(gate, frames):
    return [gate.feed(t, obs) for t, obs in frames]


def test_reports_once_frames_agree_for_the_hold_time():
    gate = StabilityGate(hold_seconds=1.0, min_frames=3)
    out = feed_all(gate, [(0.0, A), (0.5, A), (0.9, A), (1.0, A), (1.5, A)])
    assert out[:3] == [None, None, None]
    assert out[3] is not None and out[3].top("a1") == (0, 1) and out[3].timestamp == 1.0
    assert out[4] is None  # each settled period is reported once
    assert gate.stable is out[3]


def test_a_change_restarts_the_wait():
    gate = StabilityGate(hold_seconds=1.0, min_frames=2)
    out = feed_all(gate, [(0.0, A), (0.8, B), (1.5, B), (1.8, B)])
    assert out[:3] == [None, None, None]
    assert out[3].top("a1") == (0, 2)


def test_occluded_frames_never_pass_and_reset_agreement():
    gate = StabilityGate(hold_seconds=1.0, min_frames=1)
    out = feed_all(gate, [(0.0, A), (0.9, HAND), (1.0, A), (1.5, A), (2.0, A)])
    assert out[:4] == [None, None, None, None]
    assert out[4] is not None  # agreement counted again from 1.0
    gate = StabilityGate(hold_seconds=0.0, min_frames=1)
    assert gate.feed(0.0, HAND) is None


def test_same_board_after_a_hand_is_reported_again_and_moved_is_carried():
    gate = StabilityGate(hold_seconds=0.5, min_frames=1)
    first = feed_all(gate, [(0.0, A), (0.6, A)])[-1]
    moved = Observation.from_tops({"a1": (0, 1)}, moved=True)
    out = feed_all(gate, [(0.7, HAND), (0.8, moved), (1.2, A), (1.4, A)])
    assert first is not None and out[-1] is not None
    assert out[-1].moved is True


def test_agreeing_probabilities_are_averaged():
    gate = StabilityGate(hold_seconds=0.0, min_frames=2)
    sure = Observation.from_tops({"a1": (0, 1)}, certainty=0.99)
    less = Observation.from_tops({"a1": (0, 1)}, certainty=0.79)
    out = feed_all(gate, [(0.0, sure), (0.1, less)])
    assert out[1].confidence("a1") == pytest.approx(0.89)


def test_bad_settings_are_refused():
    with pytest.raises(CompanionError):
        StabilityGate(hold_seconds=-1)


def test_the_reading_passed_counts_how_often_the_board_was_hidden_since_the_last():
    # Two hands (runs of occluded frames, however long) between two settled boards; the
    # count starts again after each reading passed. The referee reads more than two as more
    # moves made out of sight than one reading can tell.
    gate = StabilityGate(hold_seconds=0.0, min_frames=1)
    frames = [(0.0, A), (0.1, A), (0.2, HAND), (0.3, HAND), (0.4, B), (0.5, B)]
    frames += [(0.6, HAND), (0.7, A), (0.8, HAND), (0.9, A), (1.0, A)]
    out = feed_all(gate, frames)
    assert [o.hidden for o in out if o is not None] == [0, 1, 2]
    gate = StabilityGate(hold_seconds=1.0, min_frames=1)
    out = feed_all(gate, [(0.0, A), (1.0, A), (1.1, HAND), (1.2, B), (1.3, HAND), (1.4, B), (2.5, B)])
    assert [o.hidden for o in out if o is not None] == [0, 2]


def test_a_second_look_reports_the_same_board_once_it_has_held_still_again():
    # a consumer that could not make out the reading asks for another: the board, still
    # standing, is reported again once fresh frames have agreed for the hold time
    gate = StabilityGate(hold_seconds=1.0, min_frames=3)
    first = feed_all(gate, [(0.0, A), (0.5, A), (1.0, A)])[-1]
    assert first is not None
    gate.look_again()
    out = feed_all(gate, [(1.2, A), (1.7, A), (2.1, A), (2.2, A), (3.5, A)])
    assert out[:3] == [None, None, None]  # fresh frames, the hold time again
    assert out[3] is not None and out[3].top("a1") == (0, 1) and out[3].timestamp == 2.2
    assert out[3].hidden == 0  # no hand in between
    assert out[4] is None  # and once: not again unless asked
    assert out[3].still and not first.still  # nothing touched it: a repeat of the first


def test_a_second_look_is_news_when_the_board_was_covered_or_changed_meanwhile():
    # a hand over the board, or a frame reading it otherwise, between the two looks: a move
    # may have been made, and the second report is not marked as the same still board
    for between in (HAND, B):
        gate = StabilityGate(hold_seconds=1.0, min_frames=3)
        assert feed_all(gate, [(0.0, A), (0.5, A), (1.0, A)])[-1] is not None
        gate.look_again()
        out = feed_all(gate, [(1.1, between), (1.2, A), (1.7, A), (2.2, A)])
        assert out[3] is not None and out[3].top("a1") == (0, 1) and not out[3].still
    # nor after the gate was reset (the camera re-opened: frames unseen meanwhile)
    gate = StabilityGate(hold_seconds=1.0, min_frames=3)
    assert feed_all(gate, [(0.0, A), (0.5, A), (1.0, A)])[-1] is not None
    gate.look_again()
    gate.reset()
    assert not feed_all(gate, [(1.2, A), (1.7, A), (2.2, A)])[-1].still
    # nor is a board that settled again without being asked for a second look
    gate = StabilityGate(hold_seconds=1.0, min_frames=3)
    out = feed_all(gate, [(0.0, A), (0.5, A), (1.0, A), (1.1, HAND), (1.2, A), (1.7, A), (2.2, A)])
    assert out[2] is not None and out[6] is not None and not out[6].still


def test_at_rest_while_the_board_stands_as_last_reported():
    # what accepting the camera's view asks: no hand over the board, nothing changed since the
    # reading the referee was given
    gate = StabilityGate(hold_seconds=0.5, min_frames=1)
    assert not gate.at_rest  # nothing reported yet
    feed_all(gate, [(0.0, A), (0.6, A)])
    assert gate.at_rest
    gate.feed(0.7, HAND)
    assert not gate.at_rest  # a hand over the board
    gate.feed(0.8, B)
    assert not gate.at_rest  # a changed board, not settled yet
    gate.feed(0.9, A)
    assert gate.at_rest  # as it was
    gate.look_again()
    assert gate.at_rest  # (a second look asked for changes nothing on the board)
