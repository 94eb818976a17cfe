"""The referee's side of a replay fed again (``benchmarks/referee_trace.py``): the readings the
vision bench gave its referee, and the player's answers, written as lines and fed to a fresh
reconciler, give the same events, so a stretch can be traced reading by reading without a frame."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.referee_trace import answer_entry, load, main, reading_entry, refeed, trace_lines
from companion.reconciler.events import Event
from companion.reconciler.reconciler import Reconciler
from companion.rules import Game, Move
from companion.vision.observation import Observation
from tests.reconciler.helpers import observe, reading

UNSURE_4 = {"b3": {(0, 4): 0.8, (0, 3): 0.2}}  # White's 4 on b3, perhaps a 3


def summary(events: list[Event]) -> list[tuple[str, str | None, str | None]]:
    return [(str(e.type), e.move, e.reason) for e in events]


def played_with_an_answer() -> tuple[list[dict], list[Event]]:
    """A game whose 4b3 stays in doubt, asked about on a still look and accepted: the lines a
    replay would write, and every event the referee gave."""
    reconciler = Reconciler("classic")
    game = Game(reconciler.variant)
    lines: list[dict] = []
    said: list[Event] = []

    def feed(observation: Observation, t: float) -> None:
        observation = replace(observation, timestamp=t)
        said.extend(reconciler.feed(observation))
        lines.append(reading_entry("s", "classic", f"{len(lines):02d}b", observation))

    t = 1.0
    for text in ("4a1", "4d4", "4b3", "4c4", "4c1"):
        game.push(Move.from_text(text))
        feed(reading(game, UNSURE_4) if game.ply >= 3 else observe(game.position), t)
        t += 4.0
    feed(replace(reading(game, UNSURE_4), still=True), t)
    assert [e.type for e in said][-1] == "help" and reconciler.unsure  # (the premise: asked)
    said.extend(reconciler.accept_board())
    lines.append(answer_entry("s", "classic", lines[-1]["frame"], t + 3.0))
    return lines, said


def test_the_lines_fed_again_give_the_same_events(tmp_path: Path) -> None:
    lines, said = played_with_an_answer()
    path = tmp_path / "readings.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    steps = list(refeed(load(path, None)))
    assert [event for step in steps for event in summary(step.events)] == summary(said)
    assert "settled" in [str(e.type) for e in steps[-1].events]  # (the answer replayed too)


def test_the_trace_prints_the_squares_asked_for_and_the_answer() -> None:
    lines, _ = played_with_an_answer()
    text = list(trace_lines(refeed(lines), ["b3"], most=2, since=0.0))
    assert any(line.startswith("        b3 W4 0.80 W3 0.20") for line in text)
    assert any(line.endswith("the player accepts what the camera sees") for line in text)
    assert any(line.strip().startswith("help:") for line in text)


def test_only_the_scene_asked_for_is_loaded(tmp_path: Path) -> None:
    lines, _ = played_with_an_answer()
    other = [{**line, "scene": "t"} for line in lines[:2]]
    path = tmp_path / "readings.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in [*lines, *other]))
    assert len(load(path, "t")) == 2 and len(load(path, None)) == len(lines)


@pytest.mark.parametrize("text", [None, "not json\n", '{"frame": "01b"}\n', "[1]\n"])
def test_a_file_not_of_readings_is_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str | None
) -> None:
    """Absent, not JSON, or lines without a scene: one line on stderr and exit 2, no traceback."""
    path = tmp_path / "readings.jsonl"
    if text is not None:
        path.write_text(text)
    assert main([str(path)]) == 2
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 1 and said[0].startswith(f"referee_trace: cannot read {path} (")
