"""The vision bench's committed scene specs are exactly what the generator writes from its seed,
and what they describe is playable: every game legal, every camera pose in view."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from companion.rules import Game, Move, Variant

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "render_bench"
SPECS = BENCH / "specs"


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("render_bench_generate", BENCH / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generate() -> ModuleType:
    return load_generator()


def committed() -> list[str]:
    return sorted(p.name[: -len(".scene.json")] for p in SPECS.glob("*.scene.json"))


def test_the_committed_specs_are_the_generators(generate: ModuleType) -> None:
    """Regenerating from the default seed gives the committed files byte for byte (a change to
    the generator, or to the rules' move choice, shows up here rather than as a silent drift)."""
    written: dict[str, str] = {}
    for index in range(generate.DEFAULT_COUNT):
        for name, spec, truth in generate.scene(generate.DEFAULT_SEED, index):
            written[f"{name}.scene.json"] = generate.dumps(spec)
            written[f"{name}.truth.json"] = generate.dumps(truth)
    on_disk = {p.name: p.read_text() for p in SPECS.glob("*.json")}
    assert sorted(written) == sorted(on_disk)
    assert [n for n in written if written[n] != on_disk[n]] == []


def test_the_same_seed_writes_the_same_scene_and_another_seed_another(generate: ModuleType) -> None:
    first = generate.scene(7, 3)
    assert generate.scene(7, 3) == first
    assert generate.scene(8, 3) != first


def test_the_set_spans_the_looks_the_issue_asks_for() -> None:
    metas = [json.loads((SPECS / f"{n}.truth.json").read_text())["bench"] for n in committed()]
    games = [m for m in metas if "calibrates" not in m]
    assert len(games) == 42
    classes = {m["look_class"] for m in games}
    assert classes == {"standard", "dim-warm", "low-side", "pale-cups", "glossy", "colour-pair"}
    assert sum(m["resolution"] == [1280, 960] for m in games) >= 8
    assert max(m["tilt_deg"] for m in games) > 15 and all(m["tilt_deg"] <= 20 for m in games)
    yaws = sorted(m["yaw_deg"] for m in games)
    assert yaws[0] < 90 and yaws[-1] > 270  # any rotation
    assert {m["cups"] for m in games} >= {"natural", "orange/blue", "yellow/red"}
    assert sum("light_change" in m for m in games) >= 3
    frames = [f for n in committed() for f in json.loads((SPECS / f"{n}.truth.json").read_text())["frames"]]
    hands, moves = (sum(f["kind"] == kind for f in frames) for kind in ("hand", "move"))
    assert 0.28 <= hands / moves <= 0.4  # hands in about a third of the moves
    purposes = [m["purpose"] for m in metas if "calibrates" in m]
    assert purposes.count("light-b") >= 3 and purposes.count("wrong-cup") >= 3


@pytest.mark.parametrize("name", [n for n in committed() if n.count("-") == 1])
def test_each_game_is_legal_and_its_frames_follow_it(name: str) -> None:
    truth = json.loads((SPECS / f"{name}.truth.json").read_text())
    spec = json.loads((SPECS / f"{name}.scene.json").read_text())
    game = Game(Variant.from_spec(truth["variant"]))
    for text in truth["moves"]:
        game.push(Move.from_text(text))  # raises on an illegal move
    frames = truth["frames"]
    assert [f["name"] for f in frames] == [f["name"] for f in spec["frames"]]
    assert [f["name"] for f in frames] == sorted(f["name"] for f in frames)  # play order is name order
    assert frames[0]["kind"] == "empty" and frames[1]["kind"] == "reference"
    hands = [f for f in frames if f["kind"] == "hand"]
    moves = [f for f in frames if f["kind"] == "move"]
    assert [f["move"] for f in moves] == truth["moves"]
    # a hand in a third of the moves is checked over the set: a game may draw none (bench-39,
    # 18 moves, (2/3)**18 = 0.07 %)
    assert all(f["hand"]["holding"] for f in hands)
    assert (moves[-1]["winner"] is not None) == (
        game.outcome() is not None and game.outcome().winner is not None
    )


@pytest.mark.parametrize("name", committed())
def test_every_camera_pose_keeps_the_board_and_markers_in_view(generate: ModuleType, name: str) -> None:
    look = json.loads((SPECS / f"{name}.scene.json").read_text())["look"]
    assert generate.in_view_margin(look) >= generate.MIN_MARGIN_PX * look["res"][0] / 640


def test_a_reference_only_spec_is_the_scenes_first_two_frames(generate: ModuleType) -> None:
    _, spec, truth = generate.scene(generate.DEFAULT_SEED, 50)[0]
    cut_spec, cut_truth = generate.reference_only(spec, truth)
    assert [f["name"] for f in cut_spec["frames"]] == ["00-empty", "01-reference"]
    assert cut_spec["frames"] == spec["frames"][:2] and cut_spec["look"] == spec["look"]
    assert cut_truth["frames"] == truth["frames"][:2] and cut_truth["moves"] == []
    assert len(spec["frames"]) > 2 and truth["moves"]  # the scene itself is a game


def test_some_later_colour_pair_scenes_give_white_the_darker_colour(
    generate: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From ``DARKER_WHITE_FROM`` on, every other colour-pair scene swaps the pair's colours, and
    nothing else: its stream draws what it would have drawn (the scenes before are the committed
    ones, byte for byte, above)."""
    darker = [i for i in range(200) if generate.plan(i).white_darker]
    assert darker[0] >= generate.DARKER_WHITE_FROM
    assert all(generate.plan(i).look_class == "colour-pair" for i in darker)
    assert 0 < len(darker) < len([i for i in range(generate.DARKER_WHITE_FROM, 200) if i % 6 == 5])
    index = darker[0]
    _, spec, truth = generate.scene(generate.DEFAULT_SEED, index)[0]
    monkeypatch.setattr(generate, "DARKER_WHITE_FROM", 10**6)
    _, plain_spec, plain_truth = generate.scene(generate.DEFAULT_SEED, index)[0]
    look, plain = spec["look"], plain_spec["look"]
    assert (look["light_color"], look["dark_color"]) == (plain["dark_color"], plain["light_color"])
    assert {**look, "light_color": 0, "dark_color": 0} == {**plain, "light_color": 0, "dark_color": 0}
    assert truth["bench"].pop("white_darker") is True and "white_darker" not in plain_truth["bench"]
    assert truth == plain_truth and spec["frames"] == plain_spec["frames"]
