"""The bench's own scoring: the timeline, stable seconds, the aligned wrong-move count, the
stretches lost and the careful player, on small made-up cases."""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import re
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import numpy as np
import pytest

from companion.errors import CompanionError
from companion.reconciler.events import Event, EventType
from companion.rules import Game, Variant, parse_square
from companion.vision.cups import CupSet
from companion.vision.observation import class_index

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vision_bench", ROOT / "benchmarks" / "vision_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def frame(bench: ModuleType, name: str, kind: str = "move", tops: dict | None = None, moves: tuple = ()):
    return bench.BenchFrame(name, kind, Path(name), tops or {}, moves)


def scene(bench: ModuleType, kinds: list[str]):
    frames = [frame(bench, "00-empty", "empty"), frame(bench, "01-reference", "reference")]
    frames += [frame(bench, f"{i + 2:02d}{'a' if k == 'hand' else 'b'}", k) for i, k in enumerate(kinds)]
    return bench.BenchScene("s", Path("s"), "classic", (), {}, frames)


def test_the_timeline_is_the_same_every_run_and_covers_each_frame(bench: ModuleType) -> None:
    s = scene(bench, ["hand", "move", "move"])
    shown = bench.timeline(s, 4.0, 1.5)
    assert shown == bench.timeline(s, 4.0, 1.5)
    assert [x.frame.name for x in shown] == ["00-empty", "02a", "03b", "04b"]  # the reference is not played
    assert all(a.start + a.seconds == pytest.approx(b.start) for a, b in itertools.pairwise(shown))
    assert 0.6 * 1.5 <= shown[1].seconds <= 1.4 * 1.5 and all(
        0.6 * 4 <= x.seconds <= 1.4 * 4 for x in shown[2:]
    )
    times = [t for t, _ in bench.camera_frames(shown, 5.0)]
    assert times[1] - times[0] == pytest.approx(0.2) and times[-1] < shown[-1].start + shown[-1].seconds


def test_stable_seconds_leave_hands_out(bench: ModuleType) -> None:
    s = scene(bench, ["hand", "move"])
    shown = bench.timeline(s, 4.0, 1.5)
    end = shown[-1].start + shown[-1].seconds
    assert bench.stable_seconds(shown, 0.0, end) == pytest.approx(end - shown[1].seconds)
    assert bench.stable_seconds(shown, shown[1].start, shown[2].start) == pytest.approx(0.0)


def test_frames_of_a_still_board_the_reader_took_for_a_hand_are_no_stable_frames(bench: ModuleType) -> None:
    # the referee can act only on frames it is given: 2 s of a still board read as covered
    # (ten frames at 5 fps) are the reader's time, not the referee's
    s = scene(bench, ["move", "move"])
    shown = bench.timeline(s, 4.0, 1.5)
    end = shown[-1].start + shown[-1].seconds
    blind = tuple(shown[1].start + 0.2 * k for k in range(10))
    assert bench.stable_seconds(shown, 0.0, end, blind, 0.2) == pytest.approx(end - 2.0)
    assert bench.stable_seconds(shown, shown[2].start, end, blind, 0.2) == pytest.approx(end - shown[2].start)
    result = bench.GameResult(moves=2, blind=list(blind), step=0.2)
    result.stretches.append(bench.Stretch(0.0, 0))
    longest = result.longest(shown, end)
    assert longest["stable_seconds"] == pytest.approx(end - 2.0, abs=0.01)  # (rounded)
    assert longest["board_seconds"] == pytest.approx(end, abs=0.01)
    assert "standing" in bench.lost_text(longest)


def test_a_move_one_ply_off_after_a_missed_one_is_not_wrong_twice(bench: ModuleType) -> None:
    truth = ["4a1", "4d4", "3b2", "3c3"]
    held = ["4a1", "3b2", "3c3"]  # 4d4 missed: the rest one ply early
    assert not bench.aligned_wrong(2, "3b2", held, truth)
    assert not bench.aligned_wrong(3, "3c3", held, truth)
    assert bench.aligned_wrong(2, "2b2", ["4a1", "2b2"], truth)


def test_a_stretch_runs_from_the_first_judgement_off_track_to_the_next_on_track(bench: ModuleType) -> None:
    result = bench.GameResult(moves=3)
    tracker = bench.LostTracker(result)
    attention = Event(EventType.NEEDS_ATTENTION, reason="unclear")
    tracker.observed(1.0, 0, None, True)
    tracker.observed(2.0, 1, attention, True)  # an event is off track whatever the game
    tracker.observed(3.0, 1, None, False)
    tracker.observed(9.0, 2, None, True)
    tracker.observed(10.0, 3, None, False)
    first, second = result.stretches
    assert (first.start, first.end, first.start_ply, first.end_ply) == (2.0, 9.0, 1, 2)
    assert first.reason.startswith("needs-attention") and second.end is None
    moves = bench.BenchFrame("m", "move", Path("m"), {}, ())
    shown = [bench.Showing(moves, 0.0, 20.0)]
    longest = result.longest(shown, 20.0)
    assert longest["stable_seconds"] == pytest.approx(10.0) and not longest["back"]  # 10 s to the end


def test_a_game_that_ends_off_track_is_never_back_however_short_its_last_stretch(bench: ModuleType) -> None:
    # the last boards never seen stable are no stable seconds: a stretch back after 8 s must
    # not hide that the game ended behind the truth
    result = bench.GameResult(moves=4)
    tracker = bench.LostTracker(result)
    tracker.observed(2.0, 1, None, False)
    tracker.observed(10.0, 2, None, True)
    shown = [bench.Showing(bench.BenchFrame("m", "move", Path("m"), {}, ()), 0.0, 20.0)]
    assert result.longest(shown, 20.0)["back"]
    unseen = bench.Showing(bench.BenchFrame("u", "move", Path("u"), {}, ()), 18.0, 2.0)
    tracker.showing_ended(unseen, False, False)
    longest = result.longest(shown, 20.0)
    assert not longest["back"] and longest["stable_seconds"] == pytest.approx(0.0)
    assert longest["reason"] == "the board was never seen stable"
    assert bench.lost_text(longest).endswith("(never back)")


def test_a_report_of_plies_in_doubt_is_judged_by_the_game_not_counted_lost(bench: ModuleType) -> None:
    # the referee plays on and says an earlier ply is in doubt: it asks nothing of the player,
    # so it is on track while its game is the truth's (a strict tracker counts it lost)
    unsure = Event(EventType.NEEDS_ATTENTION, reason="not sure", detail={"unsure": {"7": ["3b1", "4b1"]}})
    unclear = Event(EventType.NEEDS_ATTENTION, reason="cannot tell", detail={"candidates": []})
    assert bench.lost_cause([unsure]) is None and bench.lost_cause([unsure], strict=True) is unsure
    assert bench.lost_cause([unsure, unclear]) is unclear
    assert bench.lost_cause([Event(EventType.ILLEGAL)]) is not None
    result = bench.GameResult(moves=2)
    lenient, strict = bench.LostTracker(result), bench.LostTracker(result, strict=True)
    for tracker, flag in ((lenient, False), (strict, True)):
        cause = bench.lost_cause([unsure], flag)
        tracker.observed(1.0, 1, cause, cause is None)
        tracker.observed(5.0, 2, None, True)
    assert result.stretches == [] and [(s.start, s.end) for s in result.strict] == [(1.0, 5.0)]


def test_a_request_to_confirm_plies_in_doubt_is_judged_by_the_game_unless_strict(bench: ModuleType) -> None:
    # on a still board the referee asks the player to confirm a size in doubt while it follows
    # the game: like a report of the plies, it is judged by the game; a strict tracker, and any
    # other request for help, count it as asking
    confirm = Event(EventType.HELP, squares=("b3",), detail={"confirm": True, "plies": [3]})
    helped = Event(EventType.HELP, squares=("b3",), detail={"camera": {}, "game": {}})
    for request, lenient in ((confirm, False), (helped, True)):
        reconciler = SimpleNamespace(attention=request, awaiting_restore=None)
        assert bench.asking(reconciler) is lenient and bench.asking(reconciler, strict=True)


def asking_about_c2() -> SimpleNamespace:
    """A referee asking for help about c2 (the game has a White 3, the camera reads a 4) that
    counts the player's answers and restarts from the camera's view."""
    c2 = parse_square("c2")
    w3, w4 = class_index((0, 3), 4), class_index((0, 4), 4)
    reconciler = SimpleNamespace(
        variant=Variant.from_spec("classic"), help_squares={c2: (w3, w4)}, accepted=0
    )

    def accept() -> list[Event]:
        reconciler.accepted += 1
        return [Event(EventType.RESYNC)]

    reconciler.accept_board = accept
    return reconciler


def test_the_careful_player_accepts_the_camera_only_when_the_board_agrees(bench: ModuleType) -> None:
    reconciler = asking_about_c2()
    camera_right = frame(bench, "x", tops={"c2": (0, 4)})
    player = bench.Player(3.0)
    player.saw(camera_right)  # (the board the referee read)
    assert player.answer(reconciler, camera_right, 10.0) is None  # asked: the player looks first
    assert player.answer(reconciler, camera_right, 12.9) is None
    answer = player.answer(reconciler, camera_right, 13.0)
    assert answer is not None and [e.type for e in answer] == [EventType.RESYNC] and reconciler.accepted == 1
    assert player.answer(reconciler, camera_right, 20.0) is None  # one answer a request
    game_right = frame(bench, "x", tops={"c2": (0, 3)})
    player = bench.Player(3.0)
    player.saw(game_right)
    player.answer(reconciler, game_right, 0.0)
    assert player.answer(reconciler, game_right, 5.0) is None and reconciler.accepted == 1
    reconciler.help_squares = {}
    assert player.answer(reconciler, camera_right, 30.0) is None


def test_the_careful_player_does_not_accept_once_a_move_was_made_since_the_reading(bench: ModuleType) -> None:
    # the lit square still shows what the camera read, but a cup was placed on a1 since: the
    # camera's view is of a board no longer there (bench-08 at 36.2 s accepted the view of ply
    # 7 with ply 8 on the board); the player answers when the referee has read the board anew
    reconciler = asking_about_c2()
    read = frame(bench, "x", tops={"c2": (0, 4)})
    moved_on = frame(bench, "y", tops={"c2": (0, 4), "a1": (1, 4)})
    player = bench.Player(3.0)
    player.saw(read)
    assert player.answer(reconciler, read, 10.0) is None
    assert player.answer(reconciler, moved_on, 13.5) is None and reconciler.accepted == 0
    player.saw(moved_on)  # read anew, the same request still lit
    assert player.answer(reconciler, moved_on, 14.0) is not None and reconciler.accepted == 1


def test_a_resync_counts_from_the_truth_ply_its_board_shows(bench: ModuleType) -> None:
    # an accepted camera view is the reading the help request was made from: the game may have
    # moved past it while the player looked; the moves after the resync count from that board
    truth = bench.TruthGames("classic", ("4a1", "4b2", "3c3"))
    game = Game(Variant.from_spec("classic"))
    for text in ("4a1", "4b2"):
        game.push_text(text)
    shown = game.position.text()
    assert truth.ply_showing(shown, 3) == 2
    assert truth.ply_showing(None, 3) == 3
    assert truth.ply_showing(Game(Variant.from_spec("classic")).position.text(), 3) == 0


@dataclasses.dataclass(frozen=True)
class Held:
    """What ``Misjudgement.apply`` changes of a calibration: its cups."""

    cups: CupSet


def test_a_misjudged_size_is_refused_where_it_passes_its_neighbour(bench: ModuleType) -> None:
    """``--misjudge`` stands for a calibration the device could hold: a white 3 taken 1.2 times
    its size passes the white 4 here (26.3 mm against 25.9), which ``calibrate`` and
    ``Calibration.load`` refuse, so the bench refuses it too (it held two wrong moves on
    bench-08); 1.15 keeps the sizes in order and is played."""
    heights = (14.0, 18.0, 22.0, 26.0)
    cups = CupSet(((13.2, 17.5, 21.9, 25.9), (13.5, 17.8, 21.9, 25.8)), (heights, heights))
    kept = bench.Misjudgement.parse("white:3:1.15").apply(Held(cups))
    assert kept.cups.radii[0] == pytest.approx((13.2, 17.5, 21.9 * 1.15, 25.9))
    past_the_4 = re.escape("white size-4 cups (25.9 mm) are not larger than the size-3")
    with pytest.raises(CompanionError, match=past_the_4):
        bench.Misjudgement.parse("white:3:1.2").apply(Held(cups))
    past_the_2 = re.escape("white size-3 cups (17.3 mm) are not larger than the size-2")
    with pytest.raises(CompanionError, match=past_the_2):
        bench.Misjudgement.parse("white:3:0.79").apply(Held(cups))


def test_each_request_is_followed_as_the_player_meets_it(bench: ModuleType) -> None:
    # a confirm request about ply 3 lit on b3 from 10 s, with the camera right there, closed by
    # the next reading at 11.4 s and settled by later readings at 20 s; a help request from
    # 30 s that the player accepts at 33 s. What accepting would change is tried on a copy of
    # the referee: here a stand-in whose answer settles nothing
    b3 = parse_square("b3")
    w4 = class_index((0, 4), 4)
    confirm = Event(EventType.HELP, squares=("b3",), detail={"confirm": True, "plies": [3]})
    helped = Event(EventType.HELP, squares=("b3",), detail={"camera": {}, "game": {}})
    referee = SimpleNamespace(
        attention=confirm,
        help_squares={b3: (class_index((0, 3), 4), w4)},
        variant=Variant.from_spec("classic"),
        game=Game(Variant.from_spec("classic")),
        unsure={3: ["3b3", "4b3"]},
        resyncs=0,
        accept_board=lambda: [],
    )
    result = bench.GameResult()
    watch = bench.RequestWatch(result)
    board = frame(bench, "x", tops={"b3": (0, 4)})
    watch.after(referee, [], 10.0, board, answered=False)
    watch.after(referee, [], 10.8, board, answered=False)  # (a still look: the same request)
    referee.attention = None
    watch.after(referee, [Event(EventType.MOVE, move="1a1", ply=4)], 11.4, board, answered=False)
    settled = Event(
        EventType.SETTLED, reason="later readings settle it: ply 3 was 4b3", detail={"settled": {"3": "4b3"}}
    )
    watch.tell([settled], 20.0)
    referee.attention = helped
    watch.after(referee, [], 30.0, frame(bench, "y", tops={"b3": (0, 3)}), answered=False)
    referee.attention = None
    watch.after(referee, [], 33.0, board, answered=True)
    watch.ended(40.0)
    first, second = (r.figures() for r in result.requests)
    assert first["kind"] == "confirm" and first["open_seconds"] == 1.4 and first["closed_by"] == "reading"
    assert first["camera_right"] and first["plies"] == [3] and first["settled_alone"] is True
    assert first["answer_changes"] == "nothing"
    assert second["kind"] == "help" and second["closed_by"] == "accepted" and not second["camera_right"]
    assert second["settled_alone"] is None
    totals = bench.request_totals(result.requests)
    assert totals["requests"] == 2 and totals["confirm"] == 1 and totals["accepted"] == 1
    assert totals["confirm_settled_alone"] == 1 and totals["open_seconds_max"] == 3.0


def test_a_square_read_right_by_hand_takes_the_top_the_reader_gave_its_misread(bench: ModuleType) -> None:
    """``--read-right``: the true class and the class read exchange their probabilities on the
    square named (bench-32's white 2 on b3 on 12b, read W3 0.39 / W2 0.20 / W4 0.19); a square
    already read right, and every other square, stay as read."""
    from companion.vision.observation import Observation

    p = np.zeros((16, 9))
    p[:, 0] = 1.0
    seen = Observation(4, 4, p, False)
    b3 = seen.row("b3")
    p[b3] = [0.002, 0.034, 0.20, 0.39, 0.19, 0.007, 0.043, 0.085, 0.05]
    p[seen.row("d1")] = [0.0, 0.1, 0.5, 0.35, 0.05, 0.0, 0.0, 0.0, 0.0]
    mended = bench.read_right(seen, {"b3": (0, 2), "d1": (0, 2)}, ("b3", "d1"))
    assert mended.top("b3") == (0, 2) and mended.confidence("b3") == pytest.approx(0.39)
    assert mended.probabilities[b3, class_index((0, 3), 4)] == pytest.approx(0.20)
    others = np.delete(mended.probabilities, b3, axis=0)
    np.testing.assert_array_equal(others, np.delete(p, b3, axis=0))  # d1, read right, as read
    assert seen.top("b3") == (0, 3)  # (the reading itself kept)


@pytest.mark.parametrize("spec", ["bench-32/12b-move", "12b-move:b3", "bench-32/12b-move:z9", "bench-32/:b3"])
def test_a_square_to_read_right_names_its_scene_frame_and_square(bench: ModuleType, spec: str) -> None:
    mend = bench.ReadRight.parse("bench-32/12b-move:b3")
    assert mend == bench.ReadRight("bench-32", "12b-move", "b3") and str(mend) == "bench-32/12b-move:b3"
    with pytest.raises(CompanionError, match="SCENE/FRAME:SQUARE"):
        bench.ReadRight.parse(spec)


@pytest.mark.slow  # a calibration and two reads: about 2 s of CPU
def test_the_replays_reader_reads_right_only_the_frame_shown(bench: ModuleType) -> None:
    """The committed bench-32 13b (``tests/data/shadows/bench-32``): the reader told to read b3
    right there reads its white 2 as the truth has it while 13b is shown, with the top the
    reader gave b3, and reads it as any reader does while another frame is shown."""
    from companion.vision.sources import read_image
    from tests.shared_calibrations import PALE_SHADOWS, frame_truth, frames_calibration

    image = read_image(PALE_SHADOWS / "13b-move.jpg")
    truth = frame_truth(PALE_SHADOWS, "13b-move")
    shown = frame(bench, "13b-move", tops=truth)
    plain = bench.WatchedReader(frames_calibration(PALE_SHADOWS)).read(image)
    reader = bench.WatchedReader(frames_calibration(PALE_SHADOWS), {"13b-move": ("b3",)})
    reader.showing = frame(bench, "12b-move", tops=truth)
    np.testing.assert_array_equal(reader.read(image).probabilities, plain.probabilities)
    reader.showing = shown
    mended = reader.read(image)
    assert mended.top("b3") == truth["b3"] == (0, 2)
    assert mended.confidence("b3") == pytest.approx(plain.confidence("b3"))


def test_a_scene_with_boards_missing_is_read_and_not_replayed(bench: ModuleType) -> None:
    # a replay that jumps over moves would score made-up losses: a set of a few frames (the
    # committed pale set) is read only, and says so
    few = bench.load_scene(ROOT / "tests" / "data" / "pale" / "bench-06")
    assert len(few.moves) == 16 and few.boards_missing == 14
    assert dataclasses.replace(few, moves=few.moves[:2]).boards_missing == 0
    args = SimpleNamespace(
        misjudge=None, no_read=True, no_replay=False, trust_layout=False, white_darker=False
    )
    run = bench.run_scene(few, None, args)
    assert run.game is None and run.failed is None
