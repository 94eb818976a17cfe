"""``gobblet-companion calibrate``: fix the board's geometry and learn its cups, into a file."""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.cli.common import number, whole_number
from companion.errors import CompanionError, ReferenceLayoutError
from companion.rules.square import COLOR_NAMES
from companion.vision.calibration import calibrate, parse_corners
from companion.vision.geometry import BoardLayout
from companion.vision.sources import read_image

INSIST = "--cups-as-set-out"
DARKER = "--white-darker"


def register(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "calibrate",
        help="calibrate the camera view of the board from an empty-board image",
        description=(
            "Find the board from its four ArUco markers (or four grid corners given by hand) in an "
            "empty-board image, optionally learn the cups from a reference-layout image (White's "
            "sizes 1-4 on a1-d1, Black's on a4-d4), and save the calibration as JSON."
        ),
    )
    parser.add_argument("--empty", required=True, metavar="IMG", help="image of the empty board")
    parser.add_argument("--reference", metavar="IMG", help="image of the reference layout (recommended)")
    parser.add_argument(
        "--corners",
        metavar='"x,y x,y x,y x,y"',
        help="image pixels of the a1, d1, d4, a4 grid corners, for a board without markers",
    )
    parser.add_argument(
        INSIST,
        action="store_true",
        help=(
            "the reference cups already stand as the layout says: calibrate although a cup "
            "measures like another size or looks the other colour, or rank 1 looks the darker "
            "(a square with no cup at all, a colour that cannot be told from the board, and sizes "
            "out of order are still refused)"
        ),
    )
    parser.add_argument(
        DARKER,
        action="store_true",
        help=(
            "White's cups (the first player's) are the darker set, e.g. red against yellow or dark "
            "wood against natural: rank 1 is then expected to look the darker"
        ),
    )
    parser.add_argument("--out", required=True, metavar="FILE", help="calibration file to write")
    parser.add_argument("--size", type=whole_number(3, 8), default=4, help="board size, 3 to 8 (default 4)")
    parser.add_argument(
        "--pieces",
        type=whole_number(1, 8),
        default=None,
        help="cup sizes per colour (default: 4, or 3 on 3x3)",
    )
    parser.add_argument(
        "--square-mm", type=number("millimetres"), default=60.0, help="grid square side in mm (default 60)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    pieces = args.pieces or (3 if args.size == 3 else 4)
    if pieces > args.size:
        raise CompanionError(
            f"--pieces {pieces}: the reference layout of a {args.size}x{args.size} board has room "
            f"for 1 to {args.size} sizes"
        )
    layout = BoardLayout(size=args.size, square_mm=args.square_mm)
    empty = read_image(args.empty)
    reference = read_image(args.reference) if args.reference else None
    corners = parse_corners(args.corners) if args.corners else None
    try:
        calibration = calibrate(
            empty,
            reference,
            corners,
            layout,
            pieces,
            trust_layout=args.cups_as_set_out,
            white_darker=args.white_darker,
        )
    except ReferenceLayoutError as error:
        if not error.trustable:
            raise
        raise CompanionError(f"{error}; {advice(error, args.white_darker)}") from None
    out = Path(args.out)
    calibration.save(out)
    camera = calibration.camera
    how = (
        "markers " + ", ".join(str(i) for i in sorted(calibration.markers))
        if calibration.markers
        else "--corners"
    )
    print(
        f"board {args.size}x{args.size} located from {how}; "
        f"camera about {camera.centre[2] / 10:.0f} cm above it"
    )
    x0, y0, kx, ky = calibration.layout.marker_frame
    if (x0, y0, kx, ky) != (0.0, 0.0, 1.0, 1.0):
        print(
            f"grid lines seen {x0:+.1f}/{y0:+.1f} mm and x{1 / kx:.3f}/x{1 / ky:.3f} from where the markers "
            "put them: the grid lines are trusted"
        )
    if calibration.reference:
        for colour in (0, 1):
            diameters = " ".join(f"{2 * r:.0f}" for r in calibration.cups.radii[colour])
            print(f"learned {COLOR_NAMES[colour]} cups, apparent diameters (mm): {diameters}")
        words = calibration.trust_words()
        if words is not None:
            print(f"{INSIST}: the reference layout was taken on trust, {words}")
    else:
        print("no --reference: using default cup sizes and colours (a reference image makes reading surer)")
    print(f"wrote {out}")
    return 0


def advice(error: ReferenceLayoutError, white_darker: bool) -> str:
    """What the user may do about a refusal a right reference can meet: for the ranks swapped,
    say which set is White's (the frames cannot tell a darker White set from swapped ranks);
    for the rest, take the layout on trust."""
    if error.kind != "ranks swapped":
        return f"if the cups already stand so, add {INSIST}"
    if white_darker:
        return f"if White's cups are the lighter set, leave out {DARKER}"
    return f"if White's cups are the darker set, add {DARKER}"
