"""The light cups' largest two sizes as each cue tells them, the rays from each foot among them
(a census; measuring only).

    PYTHONPATH=. python benchmarks/ray_cues.py SCENE ... [--frames DIR] [--list]

Each scene (a name under ``--frames``, as ``vision_bench.py`` finds them, or a folder) is
calibrated from its own ``00-empty`` and ``01-reference`` frames and each of its hand-free game
frames read once by a fresh reader, its cues traced (``BoardReader.read_traced``), as the
bench's reading pass reads them. For every light cup whose truth and reading are both one of the
two largest sizes, each cue's say between those two sizes: the base and the rim as the reader
counts them, and the outline along rays from each size's own foot (``rays.square_misfits``) on
the log-odds and on the texture. Printed per cue, and for all four together against the
reading (the rule measured as a turn of the size and left out: docs/vision-findings.md, "Along rays
from the foot: measured, not kept"): of the cups the reader misread, how many it says right; of
the cups read right, how many it says wrong, and of those how many were read under ``UNSURE``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.rays import cups_placed, square_misfits
from benchmarks.vision_bench import DEFAULT_FRAMES, calibrate_from, find_scenes, load_scene
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image

CUES = ("base", "rim", "rays on the log-odds", "rays on the texture")
UNSURE = 0.9
"""A reading held under this is one a cue could have turned without making a sure one."""


@dataclass(frozen=True, eq=False)
class CupSays:
    """One light cup of the two largest sizes: the truth, the reading and each cue's size."""

    where: str
    truth: int  # 0: the smaller of the two sizes, 1: the larger
    read: int
    confidence: float
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
                    says,
                )
            )
    return out


def tally(cups: list[CupSays], label: str, says: dict[CupSays, int | None]) -> str:
    """One cue's line: misreads it says right, right reads it says wrong (and of those, read
    under ``UNSURE``)."""
    wrong = [c for c in cups if c.read != c.truth]
    right = [c for c in cups if c.read == c.truth]
    mends = sum(says[c] == c.truth for c in wrong)
    breaks = [c for c in right if says[c] is not None and says[c] != c.truth]
    unsure = sum(c.confidence < UNSURE for c in breaks)
    return (
        f"  {label}: misreads said right {mends} of {len(wrong)}; "
        f"right reads said wrong {len(breaks)} of {len(right)} ({unsure} under {UNSURE:g})"
    )


def report(cups: list[CupSays], listing: bool) -> None:
    print(f"{len(cups)} light cups of the two largest sizes")
    for cue in CUES:
        print(tally(cups, cue, {c: c.says[cue] for c in cups}))
    together = {c: (1 - c.read) if all(c.says[q] == 1 - c.read for q in CUES) else None for c in cups}
    under = {c: v if c.confidence < UNSURE else None for c, v in together.items()}
    print(tally(cups, "all four against the read", together))
    print(tally(cups, f"all four against the read, read under {UNSURE:g}", under))
    if listing:
        for c in cups:
            if c.read != c.truth or together[c] is not None:
                says = " ".join(f"{q.split()[-1]} {c.says[q]}" for q in CUES)
                print(f"    {c.where}: truth {c.truth} read {c.read} ({c.confidence:.2f}); {says}")


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="+", help="scene names or patterns, or scene folders")
    parser.add_argument("--frames", type=Path, default=DEFAULT_FRAMES, help="where scenes are found by name")
    listing = "every cup misread, or that all four cues call the other size, with each cue's say"
    parser.add_argument("--list", action="store_true", help=listing)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    cups = [cup for folder in find_scenes(args.frames, args.scenes) for cup in scene_cups(folder)]
    report(cups, args.list)
    return 0


if __name__ == "__main__":
    sys.exit(main())
