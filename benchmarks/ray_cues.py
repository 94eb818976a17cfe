"""The light cups' largest two sizes as each cue tells them, the rays from each foot among them
(a census; measuring only).

    PYTHONPATH=. python benchmarks/ray_cues.py SCENE ... [--frames DIR] [--list]

Each scene (a name under ``--frames``, as ``vision_bench.py`` finds them, or a folder) is
calibrated from its own ``00-empty`` and ``01-reference`` frames and each of its hand-free game
frames read once by a fresh reader, its cues traced (``BoardReader.read_traced``), as the
bench's reading pass reads them. For every light cup whose truth and reading are both one of the
two largest sizes, each cue's say between those two sizes: the base and the rim as the reader
counts them, and the outline along rays from each size's own foot (``rays.square_misfits``) on
the log-odds and on the texture, worked out for every such cup (the reader works them out only
where both edges say the other size). Printed per cue, for all four together, and for the
reader's rule (``BoardReader._turned``: all four, and no turn to the larger size where the lamp
throws the cup's shadow toward the camera, ``rays.shadow_toward_camera``): of the cups the
reader misread, how many it says right; of the cups read right, how many it says wrong, and of
those how many were read under ``rays.TURN_BELOW`` (the only ones the reader would turn). The
reader's own reading, turn and all, is what it read; the cues are measured whatever it did with
them.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.vision_bench import DEFAULT_FRAMES, calibrate_from, find_scenes, load_scene
from companion.vision.rays import TURN_BELOW, cups_placed, shadow_toward_camera, square_misfits
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image

CUES = ("base", "rim", "rays on the log-odds", "rays on the texture")


@dataclass(frozen=True, eq=False)
class CupSays:
    """One light cup of the two largest sizes: the truth, the reading and each cue's size."""

    where: str
    truth: int  # 0: the smaller of the two sizes, 1: the larger
    read: int
    confidence: float
    turned: bool  # whether the reader turned it (``CueTrace.turned``)
    shadow_facing: bool  # the lamp throws its shadow toward the camera (``rays.shadow_toward_camera``)
    says: dict[str, int | None]  # per cue (``CUES``): 0, 1, or None where it has no say


def larger(smaller_score: float, larger_score: float, fits: bool = False) -> int | None:
    """Which of two sizes a cue says: the higher score, or for a misfit the lower; None on a tie
    or without a value."""
    if np.isnan(smaller_score) or np.isnan(larger_score) or smaller_score == larger_score:
        return None
    return int((larger_score < smaller_score) if fits else (larger_score > smaller_score))


def scene_cups(folder: Path) -> list[CupSays]:
    """Every light cup of the two largest sizes on the scene's hand-free game frames, as read
    by a fresh reader, with what each cue says of it."""
    scene = load_scene(folder)
    reader = BoardReader(calibrate_from(scene))
    models = reader.models
    top = models.max_piece
    out = []
    for frame in scene.game_frames:
        if frame.kind == "hand":
            continue
        reading, trace = reader.read_traced(read_image(str(frame.path)))
        tops = reading.observation.tops()
        matches = [cues.match for cues in trace.squares]
        placed = cups_placed(trace.bank, matches, models.view.shape)
        for row, (name, read) in enumerate(tops.items()):
            truth = frame.tops.get(name)
            cues = trace.squares[row]
            if not (truth and read and truth[0] == read[0] == 0 and {truth[1], read[1]} <= {top - 1, top}):
                continue
            assert cues.base is not None and cues.rim is not None and cues.feet is not None
            misfit = square_misfits(trace.evidence, trace.bank, models, row, cues.feet, placed)
            says = {
                "base": larger(cues.base[top - 2], cues.base[top - 1]),
                "rim": larger(cues.rim[top - 2], cues.rim[top - 1]),
                "rays on the log-odds": larger(*misfit[0], fits=True),
                "rays on the texture": larger(*misfit[1], fits=True),
            }
            out.append(
                CupSays(
                    f"{scene.name}/{frame.name} {name}",
                    truth[1] - (top - 1),
                    read[1] - (top - 1),
                    reading.observation.confidence(name),
                    cues.turned,
                    shadow_toward_camera(models, row),
                    says,
                )
            )
    return out


def read_before(cup: CupSays) -> int:
    """The size the reader had before any turn."""
    return 1 - cup.read if cup.turned else cup.read


def tally(cups: list[CupSays], label: str, says: dict[CupSays, int | None]) -> str:
    """One cue's line: misreads it says right, right reads it says wrong (and under the turn's
    bound), counted against the reading before any turn."""
    wrong = [c for c in cups if read_before(c) != c.truth]
    right = [c for c in cups if read_before(c) == c.truth]
    mends = sum(says[c] == c.truth for c in wrong)
    breaks = [c for c in right if says[c] is not None and says[c] != c.truth]
    unsure = sum(c.confidence < TURN_BELOW for c in breaks)
    return (
        f"  {label}: misreads said right {mends} of {len(wrong)}; "
        f"right reads said wrong {len(breaks)} of {len(right)} ({unsure} under {TURN_BELOW:g})"
    )


def report(cups: list[CupSays], listing: bool) -> None:
    print(f"{len(cups)} light cups of the two largest sizes")
    for cue in CUES:
        print(tally(cups, cue, {c: c.says[cue] for c in cups}))
    together = {
        c: (1 - read_before(c)) if all(c.says[q] == 1 - read_before(c) for q in CUES) else None for c in cups
    }
    under = {c: v if c.confidence < TURN_BELOW or c.turned else None for c, v in together.items()}
    rule = {c: None if v == 1 and c.shadow_facing else v for c, v in under.items()}
    print(tally(cups, "all four against the read", together))
    print(tally(cups, f"all four against the read, read under {TURN_BELOW:g}", under))
    print(tally(cups, "and not to the larger where the shadow falls toward the camera", rule))
    turned = [c for c in cups if c.turned]
    print(f"  turned by the reader: {len(turned)}, right after: {sum(c.read == c.truth for c in turned)}")
    if listing:
        for c in cups:
            if c.turned or read_before(c) != c.truth or together[c] is not None:
                says = " ".join(f"{q.split()[-1]} {c.says[q]}" for q in CUES)
                read = f"read {c.read} ({c.confidence:.2f})"
                shadow = " shadow toward the camera" if c.shadow_facing else ""
                print(f"    {c.where}: truth {c.truth} {read} turned {c.turned}; {says}{shadow}")


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="+", help="scene names or patterns, or scene folders")
    parser.add_argument("--frames", type=Path, default=DEFAULT_FRAMES, help="where scenes are found by name")
    listing = "every cup misread, turned, or that all four cues call the other size, with each cue's say"
    parser.add_argument("--list", action="store_true", help=listing)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    cups = [cup for folder in find_scenes(args.frames, args.scenes) for cup in scene_cups(folder)]
    report(cups, args.list)
    return 0


if __name__ == "__main__":
    sys.exit(main())
