"""Putting the device together: pins, camera, vision, reconciler, hint, log, service glue, for
a real Raspberry Pi or for the embedded default (mock pins and a simulated table).

Everything is opened in one ``ExitStack`` so the pins, the camera and the log are released
whatever ends the run (the game's end in simulation, SIGTERM from systemd, Ctrl-C, an error).
"""

from __future__ import annotations

import gc
import logging
import signal
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.device.camera import CameraLink
from companion.device.config import DeviceConfig
from companion.device.health import Health
from companion.device.hint import EngineSearcher, HintWorker, MoveFinder
from companion.device.log_keeper import LogKeeper
from companion.device.loop import Companion, Players
from companion.device.notify import Notifier
from companion.device.panel import Panel, mock_pin_factory
from companion.device.presenter import Presenter
from companion.device.remote import Remote
from companion.device.reviewer import BackgroundReviewer
from companion.device.scenario import build_scenario
from companion.device.simulate import SimulatedTable, TruthRenderer
from companion.device.speech import open_speech
from companion.errors import CompanionError
from companion.rules.variant import Variant

log = logging.getLogger("gobblet-companion")

SIMULATED_HINT_SECONDS = 0.5  # the embedded default should finish a game in seconds
SIMULATED_RECONNECT_SECONDS = 0.3
SIMULATED_SPEECH_DRAIN_SECONDS = 20.0  # `run --speak` in simulation: the last sentences are still heard


def is_raspberry_pi() -> bool:
    try:
        return "Raspberry Pi" in Path("/proc/device-tree/model").read_text(errors="replace")
    except OSError:
        return False


@dataclass
class RunOptions:
    config: DeviceConfig
    variant: Variant
    database: Path
    calibration: Path
    simulate: bool
    players: Players = field(default_factory=Players)
    seed: int = 0
    renderer: str = "synth"  # simulation only: "synth" pictures or "truth" observations
    resume: bool = True
    echo: Callable[[str], None] | None = print
    say: Callable[[str], None] | None = None  # gets each sentence the voice says (the console's `say:` lines)
    speak: bool = False  # say the sentences aloud off a Pi too (on a Pi, speech.enabled does)
    searcher: MoveFinder | None = None  # default: the project's engine
    max_seconds: float | None = None
    fps: float | None = None  # simulation only: pace the simulated camera
    health: Health = field(default_factory=Health)  # what is wrong now: the web page's status reads it
    service: bool | None = None  # degrade instead of failing at start (None: when systemd runs us)
    remote: Remote | None = None  # the web page's view of the device and its commands
    linger: bool = False  # simulation only: after the game, keep showing the board until stopped
    stop: threading.Event | None = None  # set from another thread to end the run


@dataclass
class RunSummary:
    game_id: int
    plies: int
    result: str
    reason: str | None
    frames: int
    seconds: float
    resumed: bool
    missed: list[str] = field(default_factory=list)
    staged: list[str] = field(default_factory=list)

    @property
    def fps(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else 0.0


def _settle_memory() -> None:
    """Move what start-up loaded (calibration, tables, the resumed game) out of the garbage
    collector's sight: during play its collections then scan only what play allocates, so a
    collection never holds up a frame for long (the longest pause measured with the
    reconciler's fault mix fell from 14.5 to 6 ms)."""
    gc.collect()
    gc.freeze()


def run_device(options: RunOptions) -> RunSummary:
    stop = options.stop or threading.Event()
    with ExitStack() as stack:
        _stop_on_sigterm(stop, stack, interrupt=options.linger)
        parts = _open_parts(options, stack)
        companion = stack.enter_context(Companion(**parts.companion_kwargs))
        companion.start(resume=options.resume)
        _settle_memory()
        if parts.table is not None and companion.resumed:
            parts.table.resume_at(companion.game.position)
        started = time.monotonic()
        if options.max_seconds is not None:
            timer = threading.Timer(options.max_seconds, stop.set)
            timer.daemon = True
            timer.start()
            stack.callback(timer.cancel)
        companion.run(stop, idle_sleep=0.0 if options.simulate else 0.005)
        seconds = time.monotonic() - started
        outcome = companion.game.outcome()
        keeper = parts.companion_kwargs["store"]
        return RunSummary(
            game_id=keeper.real_id(companion.game_id),
            plies=companion.game.ply,
            result=companion.game.result,
            reason=outcome.reason if outcome else None,
            frames=companion.frames,
            seconds=seconds,
            resumed=companion.resumed,
            missed=list(parts.table.missed) if parts.table else [],
            staged=list(parts.table.scenario.staged) if parts.table else [],
        )


def _stop_on_sigterm(stop: threading.Event, stack: ExitStack, interrupt: bool = False) -> None:
    """systemd stops the service with SIGTERM: finish the frame, close pins, camera and log.
    With ``interrupt`` (a simulation that lingers for the web page), Ctrl-C ends it the same way."""
    if threading.current_thread() is not threading.main_thread():
        return
    for number in (signal.SIGTERM, signal.SIGINT) if interrupt else (signal.SIGTERM,):
        previous = signal.signal(number, lambda signum, frame: stop.set())
        stack.callback(signal.signal, number, previous)


@dataclass
class _Parts:
    companion_kwargs: dict[str, Any]
    table: SimulatedTable | None = None


def _open_parts(options: RunOptions, stack: ExitStack) -> _Parts:
    config, variant = options.config, options.variant
    # Real pins only on a Pi; a PC with a real camera (camera.source = 0) gets mock pins.
    factory = mock_pin_factory() if options.simulate or not is_raspberry_pi() else None
    panel = stack.enter_context(
        Panel(config, pin_factory=factory, board_size=variant.size, echo=options.echo)
    ).start()
    presenter = Presenter(panel)
    notifier = stack.enter_context(Notifier())
    service = notifier.enabled if options.service is None else options.service
    store = stack.enter_context(LogKeeper(options.database, options.health, repair=service))
    budget = min(config.hint.time, SIMULATED_HINT_SECONDS) if options.simulate else config.hint.time
    hints = stack.enter_context(HintWorker(options.searcher or EngineSearcher(config.hint.level), budget))
    if config.log.review and (options.linger or not options.simulate):  # not in a quick simulation
        reviewer: BackgroundReviewer | None = stack.enter_context(
            BackgroundReviewer(options.database, nodes=config.log.review_nodes)
        )
    else:
        reviewer = None
    kwargs: dict[str, Any] = dict(
        variant=variant,
        presenter=presenter,
        store=store,
        hints=hints,
        notifier=notifier,
        health=options.health,
        players=options.players,
        snapshots=config.log.snapshots,
        encode_jpeg=encode_jpeg,
        remote=options.remote,
        reviewer=reviewer,
    )
    if options.simulate:
        table = _simulated_table(options, panel, presenter, factory)
        stack.enter_context(table)
        kwargs["camera"] = CameraLink(
            table.plug,
            max_bad_frames=config.camera.max_bad_frames,
            reconnect_delay=SIMULATED_RECONNECT_SECONDS,
            name="simulated camera",
        )
        kwargs["observe"] = _simulated_observe(options, table)
        _give_voice(presenter, options, stack)
        return _Parts(kwargs, table)
    from companion.device.vision_link import BoardObserver, ExposureStore, camera_advice, camera_opener

    exposure = ExposureStore(options.calibration.with_suffix(".camera.json"))
    observe = BoardObserver(
        options.calibration, variant, on_calibrated=exposure.adopt, health=options.health if service else None
    )
    exposure.calibration_id = observe.calibration_id
    camera = stack.enter_context(
        CameraLink(
            camera_opener(config.camera.source, is_raspberry_pi(), config.camera, exposure),
            max_bad_frames=config.camera.max_bad_frames,
            reconnect_delay=config.camera.reconnect_delay,
            frame_timeout=config.camera.frame_timeout,
            advice=camera_advice(config.camera.source),
        )
    )
    if not service:  # at a terminal a missing camera is an error; the service waits for it
        camera.open_now()
    kwargs["camera"] = camera
    kwargs["observe"] = observe
    _give_voice(presenter, options, stack)
    return _Parts(kwargs)


def _give_voice(presenter: Presenter, options: RunOptions, stack: ExitStack) -> None:
    """The voice beside the panel (``speech.enabled``), opened last: a run that fails to start
    says only why it failed, not also that it would have been silent. Aloud on a Pi (or with
    ``speak``); elsewhere, as its pins are mock pins, its sentences are only printed."""
    speech = open_speech(
        options.config.speech,
        aloud=options.speak or (not options.simulate and is_raspberry_pi()),
        echo=options.say,
        drain_seconds=SIMULATED_SPEECH_DRAIN_SECONDS if options.simulate else 0.0,
    )
    if speech is not None:
        presenter.speech = stack.enter_context(speech)


def _simulated_table(options: RunOptions, panel: Panel, presenter: Presenter, factory: Any) -> SimulatedTable:
    truth = options.renderer == "truth"
    scenario = build_scenario(
        options.variant, options.seed, stable_frames=1 if truth else 4, hand_frames=1 if truth else 2
    )
    button = factory.pin(options.config.pins.button)
    holder: list[SimulatedTable] = []
    if truth:
        renderer: Any = TruthRenderer(lambda: holder[0], options.variant.size, options.variant.max_piece)
    else:
        from companion.device.vision_link import SynthRenderer

        renderer = SynthRenderer(options.variant, options.seed)
    table = SimulatedTable(
        scenario,
        renderer,
        button=button,
        showing=lambda: presenter.scene.name,
        fps=options.fps,
        linger=options.linger,
    )
    holder.append(table)
    log.info(
        "simulated table: a %d-ply %s game (seed %d), %d shots",
        scenario.game.ply,
        options.variant.spec,
        options.seed,
        len(scenario.shots),
    )
    return table


def _simulated_observe(options: RunOptions, table: SimulatedTable) -> Callable:
    renderer = table.renderer
    if isinstance(renderer, TruthRenderer):
        return renderer.observe
    from companion.device.vision_link import SynthRenderer  # (loaded already: it made the renderer)

    if isinstance(renderer, SynthRenderer):
        return renderer.observer()
    raise TypeError(f"no observer for the renderer {renderer!r}")


def encode_jpeg(frame: Any) -> bytes | None:
    import cv2

    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return bytes(data) if ok else None


def require_hardware() -> None:
    if not is_raspberry_pi():
        raise CompanionError(
            "--hardware needs a Raspberry Pi (no /proc/device-tree/model saying so); use --simulate"
        )
