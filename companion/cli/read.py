"""``gobblet-companion read``: what the camera sees on each square, image by image."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.cli.common import whole_number
from companion.rules.square import FILE_NAMES
from companion.vision.calibration import Calibration
from companion.vision.observation import Observation
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image


def register(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "read",
        help="read each square's top cup from images",
        description=(
            "Read every square of the board in each image: empty, or the visible cup's colour and "
            "size with a confidence. With --json, one JSON object per image per line."
        ),
    )
    parser.add_argument("--calibration", required=True, metavar="FILE", help="file written by calibrate")
    parser.add_argument("images", nargs="+", metavar="IMG", help="images to read")
    parser.add_argument("--json", action="store_true", help="print one JSON object per image")
    parser.add_argument(
        "--size",
        type=whole_number(2, 16),
        default=4,
        help="board size the calibration must be for (default 4; refused otherwise)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    calibration = Calibration.load(Path(args.calibration), args.size)
    reader = BoardReader(calibration)
    words = calibration.trust_words()
    if words is not None:
        # before the boards; on stderr with --json, whose stdout is one JSON object per line
        print(
            f"{args.calibration}: the reference layout was taken on trust "
            f"(calibrate --cups-as-set-out), {words}",
            file=sys.stderr if args.json else sys.stdout,
        )
    for name in args.images:
        observation = reader.read(read_image(name))
        if args.json:
            print(json.dumps(observation.to_json(image=name)), flush=True)
        else:
            print(board_text(name, observation), flush=True)
    return 0


def board_text(name: str, observation: Observation) -> str:
    """A diagram, rank n at the top: ``.`` empty, ``W3``/``B2`` cups, ``?`` when unsure."""
    n = observation.size
    covered = "  OCCLUDED (a hand or arm over or beside the board)"
    lines = [f"{name}:" + (covered if observation.occluded else "")]
    for rank in range(n, 0, -1):
        cells = []
        for f in range(n):
            square = f"{FILE_NAMES[f]}{rank}"
            top = observation.top(square)
            cell = " ." if top is None else f"{'WB'[top[0]]}{top[1]}"
            cells.append(cell + ("?" if observation.confidence(square) < 0.9 else " "))
        lines.append(f"  {rank} " + " ".join(cells))
    lines.append("     " + "   ".join(FILE_NAMES[:n]))
    return "\n".join(lines)
