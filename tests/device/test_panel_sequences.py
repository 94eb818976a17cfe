"""The pin sequences a player sees and hears, asserted on gpiozero's MockFactory."""

from __future__ import annotations

import pytest

from companion.device.button import Gesture
from companion.reconciler.events import Event, EventType, Held
from companion.rules.move import Move

OFF, ON = False, True
SQUARES = [f"{f}{r}" for r in "1234" for f in "abcd"]


def untouched(rig, except_squares=()):
    return [sq for sq in SQUARES if sq not in except_squares and rig.states(rig.square_pin(sq)) != [OFF]]


def test_hint_for_a_placement_counts_the_size_on_the_to_square(rig):
    rig.presenter.hint(Move.from_text("3c2"), "white")
    rig.run_for(2.4)  # three blinks (1.5 s) and most of the pause
    assert rig.states(rig.square_pin("c2")) == [OFF, ON, OFF, ON, OFF, ON, OFF]
    assert untouched(rig, ["c2"]) == []
    assert rig.states(rig.pin(rig.config.pins.turn_white)) == [OFF, ON]
    assert rig.panel.tone_history == ["A5", None]
    rig.run_for(0.2)  # the next round starts after the pause
    assert rig.states(rig.square_pin("c2"))[-1] == ON


def test_hint_for_a_move_blinks_from_and_lights_to(rig):
    rig.presenter.hint(Move.from_text("a1-c3"), "black")
    rig.run_for(1.0)
    assert rig.states(rig.square_pin("a1")) == [OFF, ON, OFF, ON, OFF, ON]
    assert rig.states(rig.square_pin("c3")) == [OFF, ON]
    assert untouched(rig, ["a1", "c3"]) == []
    assert rig.states(rig.pin(rig.config.pins.turn_black)) == [OFF, ON]
    assert rig.states(rig.pin(rig.config.pins.turn_white)) == [OFF]


def test_illegal_move_lights_squares_and_sounds_low_until_restored(rig):
    illegal = Event(EventType.ILLEGAL, ply=3, squares=("b2", "c3"), reason="a 2 cannot cover a 3")
    rig.presenter.event(illegal, "black")
    rig.run_for(1.95)
    for square in ("b2", "c3"):
        assert rig.states(rig.square_pin(square)) == [OFF, ON]
    assert rig.states(rig.pin(rig.config.pins.alert)) == [OFF, ON]
    assert rig.panel.tone_history == ["A3", None, "A3", None, "A3"]
    buzzer = [state.state for state in rig.pin(rig.config.pins.buzzer).states]
    assert buzzer == [0, 0.5, 0, 0.5, 0, 0.5]
    rig.presenter.event(Event(EventType.RESTORED, ply=3), "black")
    rig.run_for(1.0)
    for square in ("b2", "c3"):
        assert rig.states(rig.square_pin(square)) == [OFF, ON, OFF]
    assert rig.states(rig.pin(rig.config.pins.alert)) == [OFF, ON, OFF]
    assert rig.panel.tone_history[-1] is None
    assert rig.states(rig.pin(rig.config.pins.turn_black)) == [OFF, ON]


def test_win_plays_a_tune_and_lights_the_line(rig):
    line = ("a1", "b2", "c3", "d4")
    rig.presenter.event(Event(EventType.WIN, ply=9, winner="white", line=line, reason="White wins"), "black")
    rig.run_for(1.2)
    for square in line:
        assert rig.states(rig.square_pin(square)) == [OFF, ON]
    assert untouched(rig, line) == []
    assert rig.panel.tone_history == ["C5", "E5", "G5", "C6", None]
    assert rig.states(rig.pin(rig.config.pins.turn_white))[:4] == [OFF, ON, OFF, ON]


def test_losing_uncover_lights_the_revealed_line(rig):
    line = ("a4", "b4", "c4", "d4")
    loss = Event(
        EventType.LOSS, ply=12, winner="black", line=line, reason="Black wins: White's lift uncovered"
    )
    rig.presenter.event(loss, "black")
    rig.run_for(1.2)
    for square in line:
        assert rig.states(rig.square_pin(square)) == [OFF, ON]
    assert rig.states(rig.pin(rig.config.pins.alert)) == [OFF, ON]
    assert rig.panel.tone_history == ["G4", "E4", "C4", None]


def test_new_game_flashes_every_square_then_white_to_play(rig):
    rig.presenter.event(Event(EventType.NEW_GAME), "white")
    rig.run_for(1.0)
    for square in SQUARES:
        assert rig.states(rig.square_pin(square)) == [OFF, ON, OFF]
    assert rig.states(rig.pin(rig.config.pins.turn_white)) == [OFF, ON]
    assert rig.panel.tone_history == ["C5", "G5", None]


def test_takeback_is_offered_then_confirmed(rig):
    rig.presenter.takeback_offered("a1-c3", "white")
    rig.run_for(1.9)
    # the undone move's squares count two blinks, the alert LED asks
    assert rig.states(rig.square_pin("a1")) == [OFF, ON, OFF, ON, OFF]
    assert rig.states(rig.square_pin("c3")) == [OFF, ON, OFF, ON, OFF]
    assert rig.states(rig.pin(rig.config.pins.alert))[:3] == [OFF, ON, OFF]
    rig.clear()
    rig.presenter.event(Event(EventType.TAKEBACK, ply=4, move="a1-c3"), "white")
    rig.run_for(1.5)
    assert rig.states(rig.square_pin("a1")) == [OFF, ON, OFF, ON, OFF]
    assert rig.panel.tone_history == ["G5", "C5", None]
    assert rig.states(rig.pin(rig.config.pins.alert)) == [OFF]


def test_camera_fault_blinks_the_alert_without_replaying_the_scene(rig):
    rig.presenter.event(Event(EventType.WIN, ply=9, winner="white", line=("a1", "a2", "a3", "a4")), "black")
    rig.run_for(1.5)
    rig.clear()
    rig.presenter.fault("camera lost")
    rig.run_for(0.9)
    assert rig.states(rig.pin(rig.config.pins.alert)) == [OFF, ON, OFF, ON, OFF]
    assert "C5" not in rig.panel.tone_history  # the win tune does not sound again
    assert rig.states(rig.square_pin("a1")) == [ON]  # the line stays lit
    rig.presenter.fault(None)
    rig.run_for(0.3)
    assert rig.states(rig.pin(rig.config.pins.alert))[-1] == OFF


def press(rig, seconds: float) -> None:
    button = rig.pin(rig.config.pins.button)
    button.drive_low()
    rig.clock.now += seconds
    button.drive_high()


def test_button_press_hold_double_and_triple_press(rig):
    press(rig, 0.1)
    assert rig.panel.gestures() == []  # could still become a double press
    rig.clock.now += 0.5
    assert rig.panel.gestures() == [Gesture.PRESS]
    press(rig, 0.1)
    rig.clock.now += 0.2
    press(rig, 0.1)
    assert rig.panel.gestures() == []  # could still become a triple press
    rig.clock.now += 0.5
    assert rig.panel.gestures() == [Gesture.DOUBLE]
    for _ in range(3):
        press(rig, 0.1)
        rig.clock.now += 0.2
    assert rig.panel.gestures() == [Gesture.TRIPLE]  # at once, and never a press or double too
    rig.clock.now += 1.0
    assert rig.panel.gestures() == []
    button = rig.pin(rig.config.pins.button)
    button.drive_low()
    rig.clock.now += 2.1
    assert rig.panel.gestures() == [Gesture.HOLD]
    button.drive_high()
    rig.clock.now += 1.0
    assert rig.panel.gestures() == []


def test_other_boards_keep_the_square_leds_dark(rig):
    from companion.device.panel import Panel, mock_pin_factory
    from companion.device.presenter import Presenter

    factory = mock_pin_factory()
    with Panel(rig.config, pin_factory=factory, clock=rig.clock, board_size=3) as panel:
        Presenter(panel).hint(Move.from_text("2b2"), "white")
        for pin in rig.config.pins.squares:
            assert [bool(s.state) for s in factory.pin(pin).states] == [OFF]
        assert panel.tone_history == ["A5"]


def test_a_help_request_lights_the_squares_in_disagreement_with_the_alert(rig):
    help_event = Event(
        EventType.HELP,
        squares=("b2", "c3"),
        reason="the board differs from the game on b2, c3",
        detail={"camera": {"b2": "white 3", "c3": "empty"}, "game": {"b2": "white 4", "c3": "black 2"}},
    )
    rig.presenter.event(help_event, "white")
    rig.run_for(1.2)
    for square in ("b2", "c3"):
        assert rig.states(rig.square_pin(square)) == [OFF, ON]
    assert untouched(rig, except_squares=("b2", "c3")) == []
    assert rig.states(rig.pin(rig.config.pins.alert))[:4] == [OFF, ON, OFF, ON]  # blinking
    assert rig.panel.tone_history[0] == "A5"
    assert "triple press" in rig.presenter.scene.text
    rig.presenter.event(Event(EventType.RESTORED), "white")  # the board was put right
    rig.run_for(0.3)
    for square in ("b2", "c3"):
        assert rig.states(rig.square_pin(square))[-1] == OFF
    assert rig.states(rig.pin(rig.config.pins.alert))[-1] == OFF


@pytest.mark.parametrize(("accepted", "said"), [(False, "nothing to put right"), (True, "camera confirmed")])
def test_a_request_to_confirm_goes_dark_without_claiming_the_board_was_restored(rig, accepted, said):
    # the board was right all along, only the camera in doubt: the player put nothing right
    asked = Event(
        EventType.HELP,
        squares=("b3",),
        reason="not sure of ply 3: is the board as the camera sees it on b3?",
        detail={"camera": {"b3": "white 4"}, "game": {"b3": "white 4"}, "plies": [3], "confirm": True},
    )
    rig.presenter.event(asked, "black")
    rig.run_for(0.3)
    rig.presenter.event(Event(EventType.CLEARED, detail={"plies": [3], "accepted": accepted}), "black")
    rig.run_for(0.3)
    assert rig.states(rig.square_pin("b3"))[-1] == OFF
    assert rig.states(rig.pin(rig.config.pins.alert))[-1] == OFF
    assert rig.presenter.scene.text == f"{said}, black to play" and "restored" not in rig.presenter.scene.text


def test_a_correction_is_told_with_a_beep(rig):
    correction = Event(EventType.CORRECTION, ply=3, moves=("4b3", "3c1"))
    rig.presenter.event(correction, "black")
    rig.run_for(0.3)
    assert rig.panel.tone_history == ["A5", None]
    assert "4b3 3c1" in rig.presenter.scene.text


def doubt(*plies):
    unsure = {str(ply): ["3b1", "4b1"] for ply in plies}
    return Event(EventType.NEEDS_ATTENTION, reason="not sure which move was made", detail={"unsure": unsure})


def settled(ply, move="4b1"):
    return Event(EventType.SETTLED, moves=(move,), detail={"settled": {str(ply): move}})


def test_a_settled_doubt_stops_the_alert_blinking(rig):
    report = doubt(7)
    rig.presenter.batch([report], Held(doubt=report), "black")
    rig.run_for(1.2)
    assert rig.states(rig.pin(rig.config.pins.alert))[:3] == [OFF, ON, OFF]  # blinking
    rig.presenter.batch([settled(7)], Held(), "black")
    rig.run_for(1.2)
    after = rig.states(rig.pin(rig.config.pins.alert))
    rig.run_for(1.2)
    assert rig.states(rig.pin(rig.config.pins.alert)) == after and after[-1] == OFF  # at rest
    assert rig.presenter.scene.name == "idle" and "sure now: 4b1" in rig.presenter.scene.text
    assert rig.states(rig.pin(rig.config.pins.turn_black))[-1] == ON


def test_the_alert_blinks_on_while_another_ply_is_in_doubt(rig):
    report = doubt(5, 7)
    rig.presenter.batch([report], Held(doubt=report), "black")
    rig.presenter.batch([settled(5)], Held(doubt=report), "black")
    assert rig.presenter.scene.name == "attention"
    rig.presenter.batch([settled(7)], Held(), "black")
    assert rig.presenter.scene.name == "idle"


def test_a_move_shown_after_a_doubt_rests_the_panel(rig):
    # the doubt is news until the next move: the referee still holds the ply in doubt, but a
    # blinking alert for the rest of the game would say nothing
    report = doubt(7)
    rig.presenter.batch([report], Held(doubt=report), "black")
    rig.presenter.batch([Event(EventType.MOVE, ply=8, move="3c1")], Held(), "white")
    assert rig.presenter.scene.name == "idle" and "3c1" in rig.presenter.scene.text


def test_a_settled_doubt_leaves_a_later_request_about_the_board_shown(rig):
    report = doubt(7)
    rig.presenter.batch([report], Held(doubt=report), "black")
    unclear = Event(EventType.NEEDS_ATTENTION, squares=("c3",), reason="no move explains the board")
    rig.presenter.batch([unclear], Held(unclear=unclear, doubt=report), "black")
    rig.presenter.batch([settled(7)], Held(unclear=unclear), "black")
    assert rig.presenter.scene.name == "attention" and "c3" in rig.presenter.scene.squares
    rig.run_for(1.2)
    assert rig.states(rig.pin(rig.config.pins.alert))[:3] == [OFF, ON, OFF]


def test_a_doubt_reported_with_a_request_leaves_the_request_lit(rig):
    # the referee asks for help and reports a ply in doubt in the same batch (the doubt comes
    # last): the squares to look at stay lit, the doubt is said aloud only
    asked = Event(EventType.HELP, squares=("b2", "c3"), reason="the board differs from the game on b2, c3")
    rig.presenter.batch([asked, doubt(7)], Held(request=asked, doubt=doubt(7)), "white")
    rig.run_for(1.2)
    assert rig.presenter.scene.name == "help"
    for square in ("b2", "c3"):
        assert rig.states(rig.square_pin(square))[-1] == ON
    illegal = Event(EventType.ILLEGAL, squares=("a1",), reason="a 2 cannot cover a 3")
    rig.presenter.batch([illegal, doubt(8)], Held(illegal=illegal, doubt=doubt(8)), "white")
    assert rig.presenter.scene.name == "illegal" and "a1" in rig.presenter.scene.squares


def test_the_doubt_blinks_once_the_request_it_came_with_closes(rig):
    # the request closes ("board restored") with the ply still in doubt and no move since: the
    # alert blinks for it (main rested, the doubt said aloud only)
    asked = Event(EventType.HELP, squares=("b2",), reason="the board differs from the game on b2")
    report = doubt(7)
    rig.presenter.batch([asked, report], Held(request=asked, doubt=report), "white")
    rig.presenter.batch([Event(EventType.RESTORED)], Held(doubt=report), "white")
    assert rig.presenter.scene.name == "attention" and not rig.presenter.scene.squares
    rig.clear()
    rig.run_for(1.2)
    assert rig.states(rig.square_pin("b2")) == [OFF]
    assert {OFF, ON} <= set(rig.states(rig.pin(rig.config.pins.alert)))  # blinking


def test_an_unclear_reading_keeps_a_waiting_illegal_move_shown(rig):
    # the referee still waits for the board to be put right: the squares and the low tone stay
    illegal = Event(EventType.ILLEGAL, squares=("a1",), reason="a 2 cannot cover a 3")
    rig.presenter.batch([illegal], Held(illegal=illegal), "white")
    unclear = Event(EventType.NEEDS_ATTENTION, squares=("c3",), reason="no move explains the board")
    shown = rig.presenter.scene
    rig.presenter.batch([unclear], Held(illegal=illegal, unclear=unclear), "white")
    rig.run_for(1.0)
    # not shown again: the tone goes on rather than starting over, and c3 stays dark
    assert rig.presenter.scene is shown and rig.states(rig.square_pin("c3")) == [OFF]


def test_moves_said_after_a_complaint_leave_it_shown(rig):
    unclear = Event(EventType.NEEDS_ATTENTION, squares=("c3",), reason="no move explains the board")
    moved = Event(EventType.MOVE, ply=4, move="4b1")
    rig.presenter.batch([unclear, moved], Held(unclear=unclear), "white")
    assert rig.presenter.scene.name == "attention" and "c3" in rig.presenter.scene.squares
    rig.presenter.batch([], Held(), "white")  # a clear reading, nothing new: the complaint goes
    assert rig.presenter.scene.name == "idle"


def test_a_help_request_beside_a_waiting_illegal_move_lights_both(rig):
    # the referee waits for b4 to be put right and asks about a1 and c2 meanwhile: the illegal
    # move's squares, alert and low tone stay, the request's squares light too, and the text
    # says a triple press answers the request
    illegal = Event(EventType.ILLEGAL, squares=("b4",), reason="White may not gobble its own piece")
    asked = Event(EventType.HELP, squares=("a1", "c2"), reason="the board differs from the game on a1, c2")
    rig.presenter.batch([illegal], Held(illegal=illegal), "white")
    shown = rig.presenter.scene
    rig.presenter.batch([asked], Held(illegal=illegal, request=asked), "white")
    scene = rig.presenter.scene
    assert scene.name == "illegal" and set(scene.squares) == {"a1", "b4", "c2"}
    assert "triple press" in scene.text and scene.sound == shown.sound
    rig.clear()
    rig.run_for(1.2)
    for square in ("a1", "b4", "c2"):
        assert rig.states(rig.square_pin(square)) == [ON], square
