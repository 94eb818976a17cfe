"""Device benchmark: how fast the referee loop runs, and how long the embedded default takes.

    python benchmarks/device_loop.py [--seed 0] [--variant classic]

1. Loop rate: a generated game's frames are rendered first, then fed to the full loop
   (board reader, gate, reconciler, mock panel, log) as fast as it takes them: the frames per
   second a camera could be read at.
2. The embedded default: ``gobblet-companion run --simulate`` end to end (rendering included),
   timed, with its own report.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from companion.device.camera import CameraLink
from companion.device.config import DeviceConfig
from companion.device.hint import EngineSearcher, HintWorker
from companion.device.loop import Companion
from companion.device.panel import Panel, mock_pin_factory
from companion.device.presenter import Presenter
from companion.device.scenario import build_scenario
from companion.device.vision_link import SynthRenderer
from companion.log import GameStore
from companion.rules import Variant


class Replay:
    def __init__(self, frames: list) -> None:
        self._frames = iter(frames)

    def read(self):
        try:
            return next(self._frames)
        except StopIteration:
            raise EOFError from None

    def close(self) -> None:
        pass


def rendered_game(variant: Variant, seed: int) -> tuple[SynthRenderer, list]:
    """A generated game's frames, rendered once (and the renderer, whose observer reads them)."""
    renderer = SynthRenderer(variant, seed)
    scenario = build_scenario(
        variant, seed, stage_illegal=False, stage_takeback=False, stage_camera_fault=False
    )
    return renderer, [image for shot in scenario.shots for image in [renderer.render(shot, 0)] * shot.frames]


def loop_rate(variant: Variant, seed: int, folder: Path) -> tuple[int, float, int, str]:
    renderer, frames = rendered_game(variant, seed)
    return referee_frames(variant, renderer, frames, folder / "bench.sqlite3")


def referee_frames(
    variant: Variant, renderer: SynthRenderer, frames: list, database: Path
) -> tuple[int, float, int, str]:
    """The full loop over ``frames`` as fast as it takes them: (frames, seconds, plies, result)."""
    source = Replay(frames)
    with (
        Panel(DeviceConfig(), pin_factory=mock_pin_factory(), board_size=variant.size) as panel,
        GameStore(database) as store,
        HintWorker(EngineSearcher(), 0.5) as hints,
    ):
        companion = Companion(
            variant=variant,
            camera=CameraLink(lambda: source),
            observe=renderer.observer(),
            presenter=Presenter(panel.start()),
            store=store,
            hints=hints,
        )
        companion.start()
        started = time.perf_counter()
        companion.run(idle_sleep=0.0)
        seconds = time.perf_counter() - started
        return companion.frames, seconds, companion.game.ply, companion.game.result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    variant = Variant.from_spec(args.variant)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        frames, seconds, plies, result = loop_rate(variant, args.seed, folder)
        print(
            f"loop: {frames} frames of {variant.size}x{variant.size} 640x480 in {seconds:.2f} s = "
            f"{frames / seconds:.1f} frames/s ({plies} plies, {result})"
        )
        started = time.perf_counter()
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "companion",
                "run",
                "--simulate",
                "--quiet",
                "--variant",
                args.variant,
                "--seed",
                str(args.seed),
                "--db",
                str(folder / "run.sqlite3"),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        print(f"embedded default: exit {run.returncode} in {time.perf_counter() - started:.1f} s")
        print(run.stdout.strip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
