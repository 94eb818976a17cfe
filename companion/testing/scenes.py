"""Image-level robustness: random legal games rendered by the synthetic scene generator
(``companion.vision.synth``), read back by the board reader, passed through the stability
gate and refereed by the reconciler, then scored like the fault streams (``faults.py``).

Each game draws one randomised set-up (camera pose, light, colours, noise), calibrates from
its empty and reference frames as a user would, then plays: before each stable state a hand
may pass over the board (occluded frames), the light changes from state to state (overall
brightness, and sometimes a person's shade over one side), and now and then a whole turn is
made while the hand covers the board (two moves between stable states).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from companion.reconciler.reconciler import Reconciler
from companion.rules.game import Game
from companion.rules.square import square_name
from companion.rules.variant import CLASSIC, Variant
from companion.testing.faults import RunResult, Step, Stream, choose_move, run_stream
from companion.vision.calibration import calibrate
from companion.vision.gate import StabilityGate
from companion.vision.reader import BoardReader
from companion.vision.synth import SceneRenderer

FRAME_SECONDS = 0.2


@dataclass(frozen=True)
class SceneFaults:
    hand: float = 0.5  # a hand over the board before a stable state
    covered: float = 0.05  # a move made under the hand (two moves between stable states)
    dim: float = 0.35  # the room light off its calibrated level (0.75 to 1.15)
    shade: float = 0.2  # a person's shade over one side
    frames: int = 3  # frames that must agree for the gate to pass a state (2 at least)
    patience: int = 3  # frames more the camera sees while the board stays still, at most


@dataclass
class SceneRun:
    result: RunResult
    frames: int  # frames rendered and read
    observations: int  # stable observations the gate passed
    misread: int  # squares of stable observations whose best class was not the truth
    squares: int
    seconds: float  # wall time, rendering included


def scene_game(
    seed: int,
    max_plies: int = 24,
    faults: SceneFaults = SceneFaults(),
    make: Callable[[Variant], Reconciler] = Reconciler,
    variant: Variant = CLASSIC,
) -> SceneRun:
    """Render, read and referee one random game; score it against the moves really made."""
    started = time.perf_counter()
    rng = random.Random(seed)
    scene = SceneRenderer(seed=seed, size=variant.size, max_piece=variant.max_piece)
    reader = BoardReader(
        calibrate(scene.empty(), scene.reference(), max_piece=variant.max_piece), variant.size
    )
    gate = StabilityGate(hold_seconds=0.0, min_frames=faults.frames)
    game = Game(variant)
    steps: list[Step] = []
    counts: Counter = Counter()
    clock = 0.0
    misread = squares = frames = 0

    def show(tops: dict[str, tuple[int, int] | None], truth: tuple[str, ...], hand: bool) -> None:
        nonlocal clock, misread, squares, frames
        brightness = rng.uniform(0.75, 1.15) if rng.random() < faults.dim else 1.0
        shade = rng.uniform(0.2, 0.6) if rng.random() < faults.shade else 0.0
        if hand:
            counts["hand"] += 1
            for _ in range(rng.randint(1, 2)):
                clock += FRAME_SECONDS
                frames += 1
                gate.feed(
                    clock,
                    reader.read(scene.render(tops, hand=True, brightness=brightness, shade=shade), clock),
                )
        for _ in range(faults.frames + faults.patience):  # the board stays still a while
            clock += FRAME_SECONDS
            frames += 1
            stable = gate.feed(
                clock, reader.read(scene.render(tops, brightness=brightness, shade=shade), clock)
            )
            if stable is not None:
                truth_tops = scene.truth(tops)
                read = stable.tops()
                squares += len(truth_tops)
                misread += sum(read[name] != top for name, top in truth_tops.items())
                steps.append(Step(stable, truth))
                break
        else:
            counts["unseen state"] += 1  # the reading flickered all the while: the gate passed nothing

    while not game.is_over() and game.ply < max_plies:
        game.push_text(choose_move(game, rng))
        hand = rng.random() < faults.hand
        if hand and not game.is_over() and rng.random() < faults.covered / max(faults.hand, 1e-9):
            counts["covered"] += 1
            game.push_text(choose_move(game, rng))
        tops: dict[str, tuple[int, int] | None] = {
            square_name(sq): top for sq in game.position.squares if (top := game.position.top(sq))
        }
        show(tops, tuple(m.text() for m in game.moves), hand)
    stream = Stream(variant, steps, tuple(m.text() for m in game.moves), counts)
    result = run_stream(stream, make, time.perf_counter)
    return SceneRun(result, frames, len(steps), misread, squares, time.perf_counter() - started)
