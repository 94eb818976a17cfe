"""``gobblet-companion markers``: a printable sheet of the board's four ArUco markers."""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.errors import CompanionError
from companion.vision.geometry import BoardLayout
from companion.vision.markers import INSTRUCTIONS, write_marker_sheet


def register(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "markers",
        help="write a printable A4 sheet of the four board markers at true scale",
        description=(
            "Write the four corner markers (DICT_4X4_50, 24 mm) on an A4 sheet: vector PDF, or PNG at --dpi."
        ),
    )
    parser.add_argument(
        "--out",
        default="calibration/markers-a4-300dpi.png",
        metavar="FILE",
        help="a .pdf or .png file (default calibration/markers-a4-300dpi.png)",
    )
    parser.add_argument("--dpi", type=int, default=300, help="PNG resolution (default 300)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        path = write_marker_sheet(Path(args.out), BoardLayout(), args.dpi)
    except OSError as error:
        reason = error.strerror or error
        raise CompanionError(f"cannot write the marker sheet to {args.out}: {reason}") from None
    scale = "vector PDF" if path.suffix.lower() == ".pdf" else f"{args.dpi} DPI PNG"
    print(f"wrote {path} ({scale}, A4, print at 100%)")
    for line in INSTRUCTIONS:
        print(f"  {line}")
    return 0
