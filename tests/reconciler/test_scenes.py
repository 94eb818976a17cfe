"""Image level: rendered games through the board reader, the stability gate and the
reconciler (``benchmarks/reconciler_scenes.py`` runs more of them, with three frames a state)."""

from __future__ import annotations

import pytest

from companion.testing.scenes import SceneFaults, scene_game


@pytest.mark.slow
def test_rendered_games_are_refereed_right() -> None:
    # two frames per stable state to keep it quick; hands before half the states, light
    # changes, and (seed 2) a turn made under the hand
    for seed in (0, 2):
        run = scene_game(seed, max_plies=12, faults=SceneFaults(frames=2))
        result = run.result
        assert result.wrong == 0 and result.silent == 0, (seed, result.summary())
        assert result.right >= result.moves - 1, (seed, result.summary())
        assert run.observations >= 10
