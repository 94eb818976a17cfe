"""Soak: the referee loop on the simulated camera for a long time, with random faults.

    python benchmarks/soak.py [--minutes 30] [--fps 10] [--seed 0] [--mean-gap 45]

Game after game (each a generated game with a hint asked every few plies, an illegal
placement and a takeback, drawn by the synthetic renderer and read by the real board reader),
through the device's own parts: the camera link, the loop, the mock-pin panel, the hint
worker and the log keeper. Every ``--mean-gap`` seconds on average one fault starts:

- camera gone: reads and reopens fail for 5-15 s (the link declares it lost, reconnects);
- garbage: 1-5 s of flat, noisy or wrongly shaped frames;
- disk full: every write to the log fails with ENOSPC for 10-40 s;
- killed hint: the engine dies in every hint for 20 s.

While a fault lasts the simulated table does not move on, as a real board waits for a
player. Reported every ``--report-every`` seconds: frames/s and resident memory; at the end:
frames, games, the faults started by kind, the faults the device says it survived, and the
games and moves lost: the referee's moves (at each game's end and at the stop) that the log
does not hold once the keeper has written what it kept, which must be 0.
"""

from __future__ import annotations

import argparse
import errno
import logging
import random
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from companion.device.camera import CameraLink
from companion.device.config import DeviceConfig
from companion.device.health import Health
from companion.device.hint import EngineSearcher, HintWorker
from companion.device.log_keeper import LogKeeper
from companion.device.loop import Companion
from companion.device.panel import Panel, mock_pin_factory
from companion.device.presenter import Presenter
from companion.device.scenario import build_scenario
from companion.device.simulate import SimulatedTable
from companion.device.vision_link import SynthRenderer
from companion.log import GameStore, log_error
from companion.rules import Variant
from companion.rules.position import Position

FAULT_SECONDS = {"camera gone": (5, 15), "garbage": (1, 5), "disk full": (10, 40), "killed hint": (20, 20)}


class FillableDisk(GameStore):
    """The log on a disk that the soak fills for a while: writes fail as SQLite's do (ENOSPC)."""

    full = False

    def _transaction(self):  # type: ignore[override]
        if self.full:
            raise log_error(self.path, OSError(errno.ENOSPC, "No space left on device"), "writing to it")
        return super()._transaction()


class KillableSearcher:
    """The project's engine, killed (raising mid-search) while ``killed`` is set."""

    def __init__(self) -> None:
        self.engine = EngineSearcher()
        self.killed = False

    def search(self, position: Position, seconds: float, cancel: threading.Event):
        if self.killed:
            time.sleep(min(seconds, 0.1))
            raise RuntimeError("the hint engine was killed")
        return self.engine.search(position, seconds, cancel)


@dataclass
class Faults:
    """The schedule: one fault at a time, at random times and of random kinds."""

    rng: random.Random
    mean_gap: float
    disk: Callable[[], FillableDisk | None]
    searcher: KillableSearcher
    clock: Callable[[], float] = time.monotonic
    active: str | None = None
    until: float = 0.0
    next_at: float = 0.0
    started: Counter = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.next_at = self.clock() + self.rng.expovariate(1 / self.mean_gap)

    def tick(self) -> str | None:
        now = self.clock()
        if self.active is not None and now >= self.until:
            self._switch(self.active, False)
            self.active = None
            self.next_at = now + self.rng.expovariate(1 / self.mean_gap)
        if self.active is None and now >= self.next_at:
            kind = self.rng.choice(list(FAULT_SECONDS))
            low, high = FAULT_SECONDS[kind]
            self.active, self.until = kind, now + self.rng.uniform(low, high)
            self.started[kind] += 1
            self._switch(kind, True)
        return self.active

    def _switch(self, kind: str, on: bool) -> None:
        if kind == "disk full":
            disk = self.disk()
            if disk is not None:
                disk.full = on
        elif kind == "killed hint":
            self.searcher.killed = on


class Tables:
    """The camera's view: one simulated table after another (a game each), faults in between."""

    def __init__(
        self,
        variant: Variant,
        renderer: SynthRenderer,
        panel: Panel,
        presenter: Presenter,
        faults: Faults,
        fps: float,
        seed: int,
        on_game_end: Callable[[], None],
    ) -> None:
        self.variant, self.renderer, self.fps, self.seed = variant, renderer, fps, seed
        self.button = panel.button.pin
        self.presenter = presenter
        self.faults = faults
        self.on_game_end = on_game_end
        self.rng = np.random.default_rng(seed)
        self.missed: list[str] = []
        self.table = self._next_table()

    def _next_table(self) -> SimulatedTable:
        scenario = build_scenario(self.variant, self.seed, hint_every=6, stage_camera_fault=False)
        self.seed += 1
        return SimulatedTable(
            scenario,
            self.renderer,
            button=self.button,
            showing=lambda: self.presenter.scene.name,
            fps=self.fps,
        )

    def open(self) -> Tables:
        if self.faults.tick() == "camera gone":
            raise OSError("simulated camera unplugged")
        return self

    def read(self) -> np.ndarray:
        fault = self.faults.tick()
        if fault == "camera gone":
            raise OSError("simulated camera unplugged")
        if fault == "garbage":
            time.sleep(1 / self.fps)
            return self._garbage()
        while True:
            try:
                return self.table.read()
            except EOFError:
                self.on_game_end()
                self.missed.extend(self.table.missed)
                self.table.close()
                self.table = self._next_table()

    def _garbage(self) -> np.ndarray:
        kind = self.rng.integers(3)
        if kind == 0:
            return np.zeros((480, 640, 3), np.uint8)
        if kind == 1:
            return self.rng.integers(0, 256, (480, 640, 3), dtype=np.uint8)
        return np.zeros((8, 640), np.uint8)

    def close(self) -> None:
        """The camera link closes the camera when it is lost; the tables stay."""


def resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def lost_moves(database: Path, played: list[tuple[int, list[str]]]) -> tuple[int, int]:
    """(games, moves) the referee played that the log does not hold."""
    games_lost = moves_lost = 0
    with GameStore(database, create=False) as store:
        for game_id, moves in played:
            try:
                stored = [row.move for row in store.moves(game_id)] if store.game(game_id) else []
            except Exception:
                games_lost += 1
                moves_lost += len(moves)
                continue
            moves_lost += sum(1 for i, move in enumerate(moves) if i >= len(stored) or stored[i] != move)
    return games_lost, moves_lost


def soak(args: argparse.Namespace, folder: Path) -> int:
    variant = Variant.from_spec(args.variant)
    database = folder / "soak.sqlite3"
    health = Health()
    searcher = KillableSearcher()
    keeper = LogKeeper(database, health, open_store=FillableDisk)
    faults = Faults(
        random.Random(args.seed),
        args.mean_gap,
        lambda: keeper.store if isinstance(keeper.store, FillableDisk) else None,
        searcher,
    )
    renderer = SynthRenderer(variant, args.seed)
    played: list[tuple[int, list[str]]] = []
    with (
        Panel(DeviceConfig(), pin_factory=mock_pin_factory(), board_size=variant.size) as panel,
        HintWorker(searcher, 0.5) as hints,
        keeper,
    ):
        presenter = Presenter(panel.start())
        holder: list[Companion] = []

        def game_end() -> None:
            companion = holder[0]
            played.append((companion.game_id, [p.move.text() for p in companion.game.played]))

        tables = Tables(variant, renderer, panel, presenter, faults, args.fps, args.seed, game_end)
        camera = CameraLink(tables.open, max_bad_frames=10, reconnect_delay=2.0, name="simulated camera")
        companion = Companion(
            variant=variant,
            camera=camera,
            observe=renderer.observer(),
            presenter=presenter,
            store=keeper,
            hints=hints,
            health=health,
        )
        holder.append(companion)
        companion.start()
        stop = threading.Event()
        worker = threading.Thread(target=companion.run, args=(stop, 0.0), name="soak-loop")
        started = time.monotonic()
        rss_start = resident_mb()
        worker.start()
        print(f"{'minute':>6} {'frames/s':>9} {'RSS MB':>7}  faults so far")
        frames_before, last = 0, started
        rss_warm = float("nan")
        while time.monotonic() - started < args.minutes * 60 and worker.is_alive():
            time.sleep(min(args.report_every, args.minutes * 60 - (time.monotonic() - started)))
            now, frames = time.monotonic(), companion.frames
            print(
                f"{(now - started) / 60:6.1f} {(frames - frames_before) / (now - last):9.2f} "
                f"{resident_mb():7.1f}  {dict(faults.started)}",
                flush=True,
            )
            frames_before, last = frames, now
            rss_warm = rss_warm if rss_warm == rss_warm else resident_mb()  # NaN until the first report
        stop.set()
        worker.join()
        seconds = time.monotonic() - started
        faults.tick()
        for kind in list(FAULT_SECONDS):
            faults._switch(kind, False)
        played.append((companion.game_id, [p.move.text() for p in companion.game.played]))
        played = [(keeper.real_id(game_id), moves) for game_id, moves in played]
        rss_end = resident_mb()
        keeper.flush(force=True)
        summary = {
            "frames": companion.frames,
            "seconds": seconds,
            "step_errors": companion.step_errors,
            "survived": health.survived,
            "open_faults": [fault.part for fault in health.faults()],
            "delayed_writes": keeper.delayed,
            "pending_writes": keeper.pending,
            "reconnects": camera.reconnects,
            "missed": tables.missed,
        }
    games_lost, moves_lost = lost_moves(database, played)
    finished = sum(1 for _, moves in played[:-1] if moves)
    print(
        f"\n{summary['frames']} frames in {seconds / 60:.1f} min = "
        f"{summary['frames'] / seconds:.2f} frames/s; {finished} games played to their end, "
        f"{sum(len(m) for _, m in played)} moves"
    )
    print(
        f"resident memory: {rss_start:.1f} MB at start, {rss_warm:.1f} MB after the first report, "
        f"{rss_end:.1f} MB at the end"
    )
    print(
        f"faults started: {sum(faults.started.values())} {dict(faults.started)}; the device counted "
        f"{summary['survived']} survived, {summary['step_errors']} step errors, "
        f"{summary['reconnects']} camera reconnects, {summary['delayed_writes']} delayed log writes"
    )
    print(f"player waited in vain for: {summary['missed'] or 'nothing'}")
    print(
        f"games lost: {games_lost}, moves lost: {moves_lost} "
        f"(log writes still pending at the end: {summary['pending_writes']})"
    )
    return 0 if games_lost == moves_lost == 0 and summary["pending_writes"] == 0 else 1


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--fps", type=float, default=10.0, help="the simulated camera's frame rate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--mean-gap", type=float, default=45.0, help="mean seconds between two faults")
    parser.add_argument("--report-every", type=float, default=60.0, help="seconds between two report lines")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with tempfile.TemporaryDirectory() as tmp:
        return soak(args, Path(tmp))


if __name__ == "__main__":
    raise SystemExit(main())
