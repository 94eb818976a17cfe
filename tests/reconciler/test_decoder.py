"""Decoding single observations against the rules."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from companion.reconciler.accounts import Kind
from companion.reconciler.decoder import decide
from companion.reconciler.reconciler import Reconciler
from companion.rules import PRESETS, Game, Move
from companion.vision.observation import Observation
from tests.reconciler.helpers import observe, played, types

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "frames-dev"


def test_every_legal_first_move_is_decoded() -> None:
    for move in Game().position.legal_moves:
        game = Game()
        game.push(move)
        reconciler = Reconciler()
        events = reconciler.feed(observe(game.position))
        assert [(e.type, e.move) for e in events] == [("move", move.text())]


def test_no_change_gives_no_event() -> None:
    reconciler, game = played("classic", "4a1 4b2")
    assert reconciler.feed(observe(game.position)) == []
    assert reconciler.game.ply == 2


def test_lifting_reveals_the_known_hidden_cup() -> None:
    # Black's 4 gobbles White's 3 on c1, then moves away: c1 must show the 3 again, which
    # only history knows.
    reconciler, _ = played("rogers", "4a1 4b2 3c1 b2-c1 4d4 c1-a3")
    assert reconciler.game.position.top(2) == (0, 3)


def test_uncertain_square_is_not_taken_as_known() -> None:
    # a1 read between a White 4 and a White 3: the likelier size is played, but only as
    # unsure (the game goes on, later readings of a1 settle it); nothing is committed
    game = Game()
    game.push(Move.from_text("4a1"))
    obs = observe(game.position)
    probs = obs.probabilities.copy()
    probs[0] = 0.0
    probs[0, 4] = 0.55  # white 4
    probs[0, 3] = 0.45  # white 3
    reconciler = Reconciler()
    events = reconciler.feed(Observation(4, 4, probs, False))
    assert types(events) == ["move", "needs-attention"]
    # (the rival is the illegal 3a1: a 3 is under the 4 in its stack)
    assert reconciler.unsure == {1: ["4a1", "illegal 3a1"]} and reconciler.committed_ply == 0


def test_occluded_observations_are_ignored() -> None:
    reconciler = Reconciler()
    noise = np.random.default_rng(1).dirichlet(np.ones(9), 16)
    assert reconciler.feed(Observation(4, 4, noise, True)) == []


def test_two_moves_while_covered_are_both_reported() -> None:
    # One reading cannot tell a move and the reply made under a hand from one move and a
    # square misread (however sure the reader is); the next reading, which shows b2 again,
    # can: both moves are then reported together, and the reconciler goes on.
    reconciler, game = played("classic", "4a1")
    game.push(Move.from_text("4d4"))
    game.push(Move.from_text("3b2"))
    first = reconciler.feed(observe(game.position))
    game.push(Move.from_text("4c3"))
    events = first + reconciler.feed(observe(game.position))
    moves = [e for e in events if e.type == "move"]
    assert [e.move for e in moves] == ["4d4", "3b2", "4c3"]
    assert all(e.moves == ("4d4", "3b2") for e in moves[:2])
    assert [m.text() for m in reconciler.game.moves] == ["4a1", "4d4", "3b2", "4c3"]


def test_a_covered_placement_under_a_gobble_is_ambiguous() -> None:
    # White places a 2 or a 3 on a1 and Black covers it at once: what White placed is hidden.
    reconciler, game = played("rogers", "4d4 4c4 3d3 3c3 4b1 4a4")
    game.push(Move.from_text("2a1"))
    game.push(Move.from_text("c4-a1"))
    events = reconciler.feed(observe(game.position))
    assert "move" not in types(events)


def test_takeback_undoes_the_last_move() -> None:
    reconciler, game = played("classic", "4a1 4b2 a1-c3")
    game.pop()
    events = reconciler.feed(observe(game.position))
    assert [(e.type, e.move) for e in events] == [("takeback", "a1-c3")]
    assert reconciler.game.ply == 2


def test_takeback_can_be_switched_off() -> None:
    reconciler, game = played("classic", "4a1 4b2 a1-c3", takeback=False)
    game.pop()
    events = reconciler.feed(observe(game.position))
    assert "takeback" not in types(events)
    assert reconciler.game.ply == 3


def test_decide_is_usable_on_its_own() -> None:
    game = Game()
    game.push(Move.from_text("4a1"))
    view = observe(game.position)
    game.pop()
    decision = decide(game, view)
    assert decision.accepted is not None and decision.accepted.kind is Kind.MOVE


def test_new_game_when_the_board_is_cleared() -> None:
    reconciler, _ = played("classic", "4a1 4b2 3c3")
    events = reconciler.feed(observe(Game().position))
    assert types(events) == ["new-game"]
    assert reconciler.game.ply == 0


@pytest.mark.parametrize("variant", ["junior", "storer", "rogers"])
def test_other_variants_decode(variant: str) -> None:
    game = Game(PRESETS[variant])
    reconciler = Reconciler(variant)
    for _ in range(6):
        move = next(iter(game.position.legal_moves))
        game.push(move)
        events = reconciler.feed(observe(game.position))
        assert [e.move for e in events if e.type == "move"] == [move.text()]


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data/frames-dev is not there")
def test_scene_move_lists_replay_from_their_truth() -> None:
    """Each dev scene's truth tops (no vision) decode to exactly its moves."""
    for scene in sorted(SHARED.iterdir()):
        moves = json.loads((scene / "scene.json").read_text())["moves"]
        game, reconciler, got = Game(), Reconciler(), []
        for text in moves:
            game.push(Move.from_text(text))
            got += [e.move for e in reconciler.feed(observe(game.position)) if e.type == "move"]
        assert got == moves, scene.name
