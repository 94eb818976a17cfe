"""``gobblet-companion run``: the device. On a Raspberry Pi it reads the real camera and drives
the real pins until stopped; anywhere else (or with ``--simulate``) it plays one generated game
on a simulated table with gpiozero's mock pins and prints what the LEDs and buzzer do and what
the voice would say (``--speak`` says it aloud).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from companion.cli.common import number, seconds, whole_number
from companion.cli.games import add_database_arguments
from companion.device.app import RunOptions, RunSummary, is_raspberry_pi, require_hardware, run_device
from companion.device.config import (
    DeviceConfig,
    calibration_path,
    data_dir,
    database_path,
    default_config_path,
    load_config,
)
from companion.device.journal import JournalFormatter, under_journal
from companion.device.loop import Players
from companion.device.remote import Remote
from companion.errors import CompanionError
from companion.rules import VARIANT_NAMES, Variant
from companion.rules.games import is_gobblet_spec

if TYPE_CHECKING:
    from companion.web import WebServer


DEFAULT_WEB_ADDRESS = "127.0.0.1:8080"


def register(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "run",
        help="referee games: camera, LEDs, buzzer, hint button, game log",
        description=(
            "Run the companion. On a Raspberry Pi: the camera and the GPIO panel, until stopped. "
            "Elsewhere, or with --simulate: one generated game on a simulated table with mock pins, "
            "printing what the LEDs and the buzzer do and what the voice says (--speak: aloud)."
        ),
    )
    add_database_arguments(parser)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--simulate", action="store_true", help="simulated camera and mock pins, even on a Pi")
    mode.add_argument(
        "--hardware", action="store_true", help="real camera and pins; fail rather than simulate"
    )
    parser.add_argument(
        "--camera",
        default=None,
        help="camera: pi, a camera index (0) or a video file (default: camera.source)",
    )
    parser.add_argument(
        "--calibration", default=None, help="calibration file (default: the data directory's)"
    )
    parser.add_argument(
        "--variant",
        default=None,
        help=f"variant: {', '.join(VARIANT_NAMES)}, or NAME:key=value,... (default: classic)",
    )
    parser.add_argument("--white", default="White", help="White's name, for the log")
    parser.add_argument("--black", default="Black", help="Black's name, for the log")
    parser.add_argument("--place", default=None, help="where the game is played, for the log")
    parser.add_argument(
        "--new-game", action="store_true", help="start a new game instead of resuming an unfinished one"
    )
    parser.add_argument(
        "--seed", type=whole_number(0), default=0, help="simulation: which generated game to play"
    )
    parser.add_argument(
        "--renderer",
        choices=("synth", "truth"),
        default="synth",
        help="simulation: render pictures and read them (synth), or hand the referee exact readings (truth)",
    )
    parser.add_argument(
        "--fps",
        type=number("frames per second"),
        default=None,
        help="simulation: frames per second, like a camera (default: as fast as it goes)",
    )
    parser.add_argument(
        "--web",
        nargs="?",
        const=DEFAULT_WEB_ADDRESS,
        default=None,
        metavar="HOST:PORT",
        help=f"serve the web page (default address {DEFAULT_WEB_ADDRESS}); in simulation, pace the "
        "camera like a real one and keep serving after the game until Ctrl-C",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="do not print the panel's actions and the voice's sentences"
    )
    parser.add_argument(
        "--speak",
        action="store_true",
        help="say the referee's events aloud with espeak-ng off a Pi too (where there is sound)",
    )
    parser.add_argument("--verbose", action="store_true", help="log every event and decision")
    parser.add_argument("--max-seconds", type=seconds, default=None, help="stop after this many seconds")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    config_file = args.config or default_config_path()
    config = load_config(config_file)
    if args.camera:
        config = replace(config, camera=replace(config.camera, source=args.camera))
    if args.speak:
        config = replace(config, speech=replace(config.speech, enabled=True))
    simulate = _simulate(args, config)
    setup_logging(args.verbose, simulate)
    if not is_gobblet_spec(args.variant or "classic"):
        raise CompanionError(
            f"the referee plays Gobblet, not {args.variant!r} (the camera does not count beans): "
            "play Cups with `gobblet-companion play --variant cups` or on the web page"
        )
    variant = Variant.from_spec(args.variant or "classic")
    options = RunOptions(
        config=config,
        variant=variant,
        database=Path(args.db) if args.db else database_path(config),
        calibration=Path(args.calibration) if args.calibration else calibration_path(config),
        simulate=simulate,
        players=Players(
            args.white, args.black, args.place or (f"simulated table, seed {args.seed}" if simulate else None)
        ),
        seed=args.seed,
        renderer=args.renderer,
        resume=not args.new_game,
        echo=None if args.quiet else _echo,
        say=None if args.quiet else _say,
        speak=args.speak,
        max_seconds=args.max_seconds,
        fps=args.fps,
    )
    address = _web_address(args, config)
    if address is not None and simulate and args.fps is None:
        options.fps = config.camera.fps  # a person watches: frames come as from a real camera
    if simulate:
        print(
            f"gobblet-companion: no Raspberry Pi here: simulated camera and mock GPIO pins "
            f"({variant.spec}, seed {args.seed}); game log {options.database}"
        )
    with ExitStack() as stack:
        if address is not None:
            options.remote = Remote()
            options.linger = simulate  # the game ends; the page stays until Ctrl-C
            server = start_web_server(options, address, required=args.web is not None)
            if server is not None:
                stack.enter_context(server)
                stopping = " (Ctrl-C stops)" if simulate else ""
                print(f"gobblet-companion: the web page is at {server.url}{stopping}", flush=True)
        summary = run_device(options)
    if simulate:
        _report(summary, options)
    return 0


def _web_address(args: argparse.Namespace, config: DeviceConfig) -> tuple[str, int] | None:
    """``--web [HOST:PORT]`` at a terminal; the service (under systemd) serves ``[web]``'s
    address unless ``web.enabled`` is false."""
    if args.web is not None:
        return parse_address(args.web)
    if config.web.enabled and "NOTIFY_SOCKET" in os.environ:
        return config.web.host, config.web.port
    return None


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` or ``PORT`` (on 127.0.0.1), ``[::1]:PORT``."""
    host, _, port = text.strip().rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not (port.isascii() and port.isdigit()) or not 0 <= int(port) <= 65535:
        raise CompanionError(f"--web {text!r}: give HOST:PORT, such as 127.0.0.1:8080 or 0.0.0.0:8080")
    return host, int(port)


def start_web_server(options: RunOptions, address: tuple[str, int], required: bool) -> WebServer | None:
    """The page's server, listening. Asked for with --web, a server that cannot start is an
    error; the service's (``[web]``) only says why in the journal: the referee runs without it.
    Public: that choice is ``run``'s contract with the service, and is checked without a game."""
    from companion.web import WebServer, WebSettings  # only when asked: aiohttp is not light

    assert options.remote is not None
    settings = WebSettings(
        database=options.database,
        calibration=options.calibration,
        data=data_dir(),
        size=options.variant.size,
        max_piece=options.variant.max_piece,
        config=options.config,
        host=address[0],
        port=address[1],
    )
    try:
        return WebServer(options.remote, settings).start()
    except CompanionError as error:
        if required:
            raise
        logging.getLogger("gobblet-companion").warning("no web page: %s", error)
        options.remote = None
        return None


def _simulate(args: argparse.Namespace, config: DeviceConfig) -> bool:
    if args.simulate or config.camera.source == "simulate":
        return True
    if args.hardware:
        require_hardware()
        return False
    if config.camera.source == "auto":
        return not is_raspberry_pi()
    return False


def _echo(text: str) -> None:
    print(f"  panel: {text}", flush=True)


def _say(text: str) -> None:
    print(f"  say: {text}", flush=True)


def setup_logging(verbose: bool, simulate: bool) -> None:
    """INFO to the journal on the device, each line with its priority (``journalctl -p
    warning`` works); quieter in simulation, where the panel's lines are the story. Public:
    what the journal gets is the service's contract, checked without running a game."""
    level = logging.INFO if verbose or not simulate else logging.WARNING
    handler = logging.StreamHandler(sys.stderr)
    if under_journal():
        handler.setFormatter(JournalFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logging.basicConfig(level=level, handlers=[handler], force=True)


def _report(summary: RunSummary, options: RunOptions) -> None:
    how = "resumed" if summary.resumed else "played"
    print(
        f"game {summary.game_id} {how}: {summary.plies} plies, {summary.result}"
        + (f" ({summary.reason})" if summary.reason else "")
    )
    for staged in summary.staged:
        print(f"  staged: {staged}")
    if summary.missed:
        print(f"  the simulated player waited in vain for: {', '.join(summary.missed)}")
    print(
        f"{summary.frames} frames in {summary.seconds:.1f} s ({summary.fps:.1f} frames/s); "
        f"`gobblet-companion games show {summary.game_id} --db {options.database}` shows the log"
    )
    if summary.result == "*" and summary.reason is None:
        raise CompanionError("the simulated game did not reach its end (see the messages above)")
