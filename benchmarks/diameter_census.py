"""Each cup's diameters as a size cue, against the reader's size (measuring only).

    PYTHONPATH=. python benchmarks/diameter_census.py SCENE ... [--frames DIR] [--list]

Each scene is calibrated from its own ``00-empty`` and ``01-reference`` frames, and each of its
hand-free game frames read once by a fresh reader (as the bench's reading pass does). Every cup
on top of a square (truth from the frame's JSON) that the reader read as a cup of its colour is
then fitted by its diameters, the fit learning makes of a labelled cup (``learning.
diameter_fits``: the median of the radii its four diameters fit best at, where its base stands)
but scanning radii that span every size of its colour, placed at the size the reader read (no
truth used) with the other cups the reader read explained away. The colour's reference cups
(the ``01-reference`` frame, read and fitted the same way) give each size's radius by that
measure, so like is compared with like; the size by diameters is the one whose reference fit
lies nearest. Printed per colour and per look class: cups, right by diameters / by the reader,
on the reader's size misreads, where the reader is unsure (under ``SURE``) and where the
diameters are wrong and the reader right; ``--list`` prints every cup the two disagree on.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from benchmarks.vision_bench import DEFAULT_FRAMES, SURE, BenchFrame, calibrate_from, find_scenes, load_scene
from companion.rules.square import board_squares, square_name
from companion.vision.calibration import FIT_PAD_MM, BoardScene, explained_away
from companion.vision.learning import LabelledFrame, diameter_fits, fitted_by_diameters, where_cups_stand
from companion.vision.matching import evidence_seen
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image

SCAN = (0.86, 1.16, 0.5)
"""Radii tried: from the colour's size 1 times the first to its largest size times the second,
step mm (learning's own scan, ``RADIUS_SCAN``, about every size at once)."""


@dataclasses.dataclass(frozen=True)
class CupFit:
    """One cup on one frame: truth, the reader's size and confidence, its diameter fit (mm)."""

    where: str
    look: str
    colour: int
    truth: int
    read: int
    confidence: float
    fit: float | None  # None: most diameters found no edge in the scan

    def by_diameters(self, reference: list[float]) -> int | None:
        """The size whose reference fit lies nearest this cup's fit."""
        if self.fit is None:
            return None
        gaps = [abs(self.fit - r) if np.isfinite(r) else np.inf for r in reference]
        return int(np.argmin(gaps)) + 1


def frame_fits(reader: BoardReader, frame: BenchFrame, look: str, at_truth: bool = False) -> list[CupFit]:
    """Every cup of ``frame`` the reader read as a cup of its colour, fitted by its diameters
    placed at the size read (``at_truth``: at the true size, as learning places a labelled cup)
    where learning holds it to stand (``learning.where_cups_stand``, on the read's base fits)."""
    image = read_image(str(frame.path))
    reading = reader.read_details(image)
    obs = reading.observation
    now = reader.models
    scene = BoardScene(now.layout, now.view, reader.camera, reader.background)
    pad = int(np.ceil(FIT_PAD_MM * scene.view.scale))
    rect = reader.rectified(image)
    seen_look = reader.background.seen(rect)
    fg = evidence_seen(seen_look, reader.background, now.pixels, pad).fg
    names = [square_name(sq) for sq in board_squares(now.size)]
    read = {row: obs.top(row) for row in range(len(names))}
    standing = {row: top for row, top in read.items() if top is not None}
    spots = scene.placed(fg, pad, now.cups, standing)
    fitted = {}
    for row, name in enumerate(names):
        truth, seen = frame.tops.get(name), read[row]
        if truth is not None and seen is not None and seen[0] == truth[0]:
            fitted[row] = truth if at_truth else seen
    feet = where_cups_stand(reader, LabelledFrame(rect, fitted, fits=reading.fits), seen_look[0])
    out = []
    for row, (colour, size) in fitted.items():
        truth, seen = frame.tops[names[row]], read[row]
        assert seen is not None
        own = explained_away(fg, [spot for other, spot in spots.items() if other != row])
        radii = now.cups.radii[colour]
        tried = np.arange(radii[0] * SCAN[0], radii[-1] * SCAN[1], SCAN[2])
        best = diameter_fits(scene, own, pad, now.cups, (row, colour, radii[size - 1]), tried, feet.get(row))
        fit = fitted_by_diameters(tried, best)
        where = f"{frame.path.parent.parent.name}/{frame.name} {names[row]}"
        out.append(CupFit(where, look, colour, truth[1], seen[1], obs.confidence(row), fit))
    return out


References = dict[str, list[list[float]]]
"""Each way of saying what radius a size fits at, by name: per colour, per size (mm)."""


def scene_fits(folder: Path, at_truth: bool = False) -> tuple[list[CupFit], References]:
    """The scene's game cups fitted (``frame_fits``), and each size's radius by each reference:
    the reference cup's own fit, the calibration's radius, and the calibration's radius scaled
    by the colour's median ratio of reference fit to calibration (one cup's odd fit left out)."""
    scene = load_scene(folder)
    reader = BoardReader(calibrate_from(scene))
    look = scene.look_class
    reference = frame_fits(reader, scene.frame("01-reference"), look, at_truth=True)
    radii = [list(r) for r in reader.models.cups.radii]
    own = [[float("nan")] * len(r) for r in radii]
    for cup in reference:
        if cup.fit is not None and cup.read == cup.truth:
            own[cup.colour][cup.truth - 1] = cup.fit
    ratios = [float(np.nanmedian(np.array(o) / np.array(r))) for o, r in zip(own, radii, strict=True)]
    scaled = [[k * x for x in r] for k, r in zip(ratios, radii, strict=True)]
    cups = [
        cup
        for frame in scene.game_frames
        if frame.kind != "hand"
        for cup in frame_fits(reader, frame, look, at_truth)
    ]
    return cups, {"reference cups": own, "calibration": radii, "calibration scaled": scaled}


def tally(rows: list[tuple[CupFit, int | None]]) -> str:
    """Right by diameters / by the reader: all, misread, unsure, diameters wrong where reader right."""
    t: Counter[str] = Counter()
    for cup, size in rows:
        reader_right, diam_right = cup.read == cup.truth, size == cup.truth
        t["cups"] += 1
        t["diam"] += diam_right
        t["reader"] += reader_right
        t["nofit"] += size is None
        if not reader_right:
            t["mis"] += 1
            t["mis diam"] += diam_right
        if cup.confidence < SURE:
            t["unsure"] += 1
            t["unsure diam"] += diam_right
            t["unsure reader"] += reader_right
        t["diam wrong, reader right"] += reader_right and not diam_right
        if cup.confidence < SURE and size is not None and abs(size - cup.read) == 1:  # taken instead
            t["mended"] += diam_right and not reader_right
            t["broken"] += reader_right and not diam_right
    return (
        f"{t['cups']} cups: diameters {t['diam']}, reader {t['reader']} (no fit {t['nofit']}); "
        f"reader's misreads {t['mis']}: diameters right {t['mis diam']}; "
        f"unsure {t['unsure']}: diameters {t['unsure diam']}, reader {t['unsure reader']}; "
        f"diameters wrong where the reader is right {t['diam wrong, reader right']}; "
        f"a neighbour taken where unsure: mended {t['mended']}, broken {t['broken']}"
    )


def report(rows: list[tuple[CupFit, int | None]], listed: bool) -> None:
    """The tallies per colour, look and true size; ``listed``: each cup the two disagree on."""
    groups: dict[str, list[tuple[CupFit, int | None]]] = {"all": rows}
    for cup, size in rows:
        colour = ("white", "black")[cup.colour]
        for group in (colour, f"{colour} {cup.look}", f"{colour} {cup.truth}"):
            groups.setdefault(group, []).append((cup, size))
    for name, group in sorted(groups.items()):
        print(f"  {name}: {tally(group)}")
    if listed:
        for cup, size in rows:
            if size != cup.read:
                fit = "no fit" if cup.fit is None else f"{cup.fit:.2f} mm"
                colour = ("white", "black")[cup.colour]
                print(
                    f"    {cup.where}: {colour} {cup.truth}, read {cup.read} ({cup.confidence:.2f}),"
                    f" {fit} -> {size}"
                )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="*", help="scene names or patterns (all when none)")
    parser.add_argument("--frames", type=Path, default=DEFAULT_FRAMES, help="where scenes are found by name")
    parser.add_argument(
        "--list", action="store_true", help="every cup the diameters and the reader disagree on"
    )
    parser.add_argument(
        "--at-truth", action="store_true", help="place each fit at the true size, as learning does"
    )
    args = parser.parse_args(argv)
    fitted: list[tuple[CupFit, References]] = []
    for folder in find_scenes(args.frames, args.scenes):
        cups, refs = scene_fits(folder, args.at_truth)
        for name, ref in refs.items():
            text = "; ".join(" ".join(f"{r:.2f}" for r in c) for c in ref)
            print(f"{folder.name} {name}: {text}")
        fitted += [(cup, refs) for cup in cups]
    for name in ("reference cups", "calibration", "calibration scaled"):
        print(f"\nby {name}:")
        report([(cup, cup.by_diameters(refs[name][cup.colour])) for cup, refs in fitted], args.list)
    return 0


if __name__ == "__main__":
    sys.exit(main())
