"""``gobblet-companion replay``: run recorded frames through the whole pipeline as if they came
from the camera (board reader, stability gate, reconciler) and print what the referee says.

Stills are each held in front of the camera for ``--hold`` seconds (by default the gate's
full time, so each still is one stable board); a video plays at its own frame rate. Output is
one event per line (JSON with ``--json``), then the final position and the game record.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from companion.cli.common import number
from companion.errors import CompanionError
from companion.reconciler.events import Event
from companion.reconciler.reconciler import Reconciler
from companion.rules.record import write_record
from companion.rules.variant import Variant
from companion.vision.calibration import Calibration
from companion.vision.gate import StabilityGate
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image

VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".h264")
GATE_SECONDS = StabilityGate().hold_seconds
STILL_SHOWINGS = StabilityGate().min_frames  # frames a still is shown as, over its hold time
TIME_TOLERANCE = 1e-6  # frame times are sums of floats: a still's last showing is this late


def register(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "replay",
        help="replay camera frames through the referee and print its events",
        description="Read frames (images, or a video) in the order given, as if they came from "
        "the camera, and print the referee's events, the final position and the game record.",
    )
    parser.add_argument("--calibration", required=True, help="calibration file (from calibrate)")
    parser.add_argument("frames", nargs="+", metavar="FRAME", help="images in play order, or a video")
    parser.add_argument("--variant", default="classic", help="variant spec (default classic)")
    parser.add_argument(
        "--hold",
        type=number("seconds", zero=True),
        default=GATE_SECONDS,
        help=f"seconds each still is held before the camera (default {GATE_SECONDS})",
    )
    parser.add_argument(
        "--no-takeback",
        action="store_true",
        help="do not take a move back when the board returns to the previous position",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    variant = Variant.from_spec(args.variant)
    calibration = Calibration.load(Path(args.calibration), variant.size)
    reader = BoardReader(calibration, variant.size)
    reconciler = Reconciler(variant, takeback=not args.no_takeback)
    gate = StabilityGate()
    shown, observation = None, None
    for image, timestamp in frames(args.frames, args.hold):
        if image is not shown or observation is None:  # a still shown again is not read again
            shown, observation = image, reader.read(image, timestamp)
        stable = gate.feed(timestamp, observation)
        if stable is not None:
            for event in reconciler.feed(stable):
                print_event(event, args.json)
    print_summary(reconciler, args.json)
    return 0


def frames(paths: list[str], hold: float) -> Iterator[tuple[np.ndarray, float]]:
    """Every frame with its time: a still is shown as many frames as the gate wants, spread
    over ``hold`` seconds."""
    clock = 0.0
    for path in paths:
        if Path(path).suffix.lower() in VIDEO_SUFFIXES:
            end = 0.0
            for image, offset in video_frames(path):
                yield image, clock + offset
                end = offset
            clock += end + 1.0
            continue
        image = read_image(path)
        for k in range(STILL_SHOWINGS):
            yield image, clock + hold * k / (STILL_SHOWINGS - 1) + (TIME_TOLERANCE if k else 0.0)
        clock += hold + 1.0


def video_frames(path: str) -> Iterator[tuple[np.ndarray, float]]:
    if not Path(path).is_file():
        raise CompanionError(f"{path}: no such video")
    capture = cv2.VideoCapture(path)
    if not capture.isOpened():
        raise CompanionError(f"{path}: not a video this program can read")
    fps = capture.get(cv2.CAP_PROP_FPS) or 30.0
    index = 0
    try:
        while True:
            ok, image = capture.read()
            if not ok:
                break
            yield image, index / fps
            index += 1
    finally:
        capture.release()
    if index == 0:
        raise CompanionError(f"{path}: the video has no frames")


def print_event(event: Event, as_json: bool) -> None:
    if as_json:
        print(json.dumps(event.to_json()), flush=True)
        return
    words = [f"ply {event.ply}", str(event.type)]
    for part in (event.move, " ".join(event.line) or None, event.reason):
        if part:
            words.append(part)
    print(": ".join(words[:2]) + (" " + " - ".join(words[2:]) if len(words) > 2 else ""), flush=True)


def print_summary(reconciler: Reconciler, as_json: bool) -> None:
    game = reconciler.game
    moves = [m.text() for m in game.moves]
    record = write_record(game)
    if as_json:
        print(
            json.dumps(
                {"type": "final", "position": game.position.text(), "moves": moves, "result": game.result}
            )
        )
        print(json.dumps({"type": "record", "record": record}))
        return
    print(f"final position: {game.position.text()}")
    print(record)
