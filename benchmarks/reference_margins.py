"""Calibration's wrong-size checks measured on right and wrong references: each rule's margin,
the right references' worst against the wrong ones'.

    PYTHONPATH=. python benchmarks/reference_margins.py [FOLDER ...] [--right FIRST:END]
        [--wrong FIRST:END] [--left-off FIRST:END [--left-off-squares a1,a4]] [--json OUT]
        [--pass-fail]

Each FOLDER holds (directly or under ``frames/``) ``00-empty.jpg`` and ``01-reference.jpg``,
with its truth ``01-reference.json`` where there is one (without, the reference is taken as
right): a rendered bench scene or companion, a ``tests/data`` or frames-dev set-up. Whether it
is right (the reference layout) or wrong (a cup of another size on one square) comes from the
truth. ``--right`` adds the synthetic stress set-ups' right references
(``SceneRenderer(seed, stress=True)``, 1280x960 where ``seed % 4 == 3``, as ``vision_accuracy.py
--stress`` draws them); ``--wrong`` the stress set-ups with one cup of a neighbouring size (the
square drawn by ``default_rng((seed, 31))`` from the eight, one size up for a 1, down for a 4,
else either way); ``--left-off`` the stress set-ups with each reference cup left off in turn.

Each reference is calibrated as the product calibrates it, keeping the reference cups' reads
the wrong-size checks judge (``calibration.reference_reads``: each cup's region and edge size
logits) and what the missing-cup check weighed. A rule's margin is taken over the reference's
cups or pairs, refused above 0: ``both cues`` (``measured_size``: the best lead both cues give a
cup for another size) and ``alike pair`` (``alike_pair``: ``ALIKE_SHARE`` less the least share
a pair of neighbouring sizes steps of its colour's other pairs). Printed: each reference's
margins and what calibration said, then per rule the right references' worst margin and the
wrong ones it refuses, by the sizes slipped. ``--pass-fail`` prints only what calibration says
of each (for held-out scenes, whose margins must not be studied).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from companion.errors import CompanionError
from companion.rules import COLOR_NAMES
from companion.vision import calibration
from companion.vision.edges import size_lead
from companion.vision.sources import read_image
from companion.vision.synth import SceneRenderer

Reads = dict[int, tuple[int, int, np.ndarray, np.ndarray]]
SQUARES = ("a1", "b1", "c1", "d1", "a4", "b4", "c4", "d4")
ROWS = (0, 1, 2, 3, 12, 13, 14, 15)  # the reference squares' rows on a 4x4 board


@dataclass
class Case:
    """One reference to calibrate: its name, frames and what is wrong with it (None: right)."""

    name: str
    empty: np.ndarray
    reference: np.ndarray
    wrong: tuple[str, int] | None


@dataclass
class Outcome:
    """What calibrating a case said and the reads its wrong-size check judged."""

    name: str
    wrong: tuple[str, int] | None
    said: str | None  # the refusal, None where it calibrated
    reads: Reads
    seconds: float
    seen: dict[str, Any]  # the missing-cup check's: each cup's share, those stopped short, contrast


# ----- the rules: a margin per reference, refused above 0 ----------------------------------------


def both_cues(reads: Reads) -> float:
    """The check in use (``calibration.measured_size``): of each cup's sizes other than its own,
    the best of the lesser of the two cues' leads for it."""
    worst = -np.inf
    for _, want, region, edge in reads.values():
        for size in range(1, len(region) + 1):
            if size != want:
                worst = max(worst, min(size_lead(region, size), size_lead(edge, size)))
    return float(worst)


def least_alike(reads: Reads) -> float:
    """The pair check (``calibration.alike_pair``): ``ALIKE_SHARE`` less the least of the
    reference's ``alike_shares`` (its pairs of neighbouring sizes' steps, each as a share of its
    colour's other pairs')."""
    shares = calibration.alike_shares(reads)
    return float(calibration.ALIKE_SHARE - min(shares.values(), default=np.inf))


RULES: dict[str, Callable[[Reads], float]] = {"both cues": both_cues, "alike pair": least_alike}


# ----- the cases ---------------------------------------------------------------------------------


def frames_of(folder: Path) -> Path:
    return folder / "frames" if (folder / "frames" / "00-empty.jpg").exists() else folder


def slip_in(board: dict[str, list[list[Any]]]) -> tuple[str, int] | None:
    """The square whose top cup is not the reference layout's size, and that size; None if none."""
    for k, square in enumerate(SQUARES):
        size = board.get(square, [[None, 0]])[-1][1]
        if size != k % 4 + 1:
            return square, size
    return None


def folder_case(folder: Path) -> Case:
    """A folder's reference; without a truth file (``tests/data/calibration``'s) it is right."""
    where = frames_of(folder)
    truth = where / "01-reference.json"
    wrong = slip_in(json.loads(truth.read_text())["board"]) if truth.exists() else None
    empty, reference = (read_image(where / f"{name}.jpg") for name in ("00-empty", "01-reference"))
    return Case(folder.name, empty, reference, wrong)


def stress_scene(seed: int) -> SceneRenderer:
    resolution = (1280, 960) if seed % 4 == 3 else (640, 480)
    return SceneRenderer(seed, resolution=resolution, stress=True)


def right_case(seed: int) -> Case:
    scene = stress_scene(seed)
    return Case(f"stress-{seed}", scene.empty(), scene.reference(), None)


def wrong_case(seed: int) -> Case:
    """The stress set-up with one cup of a neighbouring size (module docstring)."""
    scene = stress_scene(seed)
    rng = np.random.default_rng((seed, 31))
    k = int(rng.integers(len(SQUARES)))
    size = k % 4 + 1
    other = 2 if size == 1 else 3 if size == 4 else size + int(rng.choice([-1, 1]))
    tops = scene.reference_tops()
    tops[SQUARES[k]] = (k // 4, other)
    empty = scene.empty()
    return Case(f"stress-{seed}", empty, scene.render(tops), (SQUARES[k], other))


def left_off_cases(seed: int, squares: tuple[str, ...] = SQUARES) -> Iterator[Case]:
    """The stress set-up's reference with each cup of ``squares`` left off in turn, the
    ``k``-th square's frame drawing frame ``k + 3``'s noise (after the empty and the reference
    frames), as leftoff28 rendered them."""
    scene = stress_scene(seed)
    empty = scene.empty()
    tops = scene.reference_tops()
    for k, square in enumerate(SQUARES):
        if square not in squares:
            continue
        frame = scene.render({s: top for s, top in tops.items() if s != square}, frame=k + 3)
        yield Case(f"stress-{seed}-no-{square}", empty, frame, (square, 0))


@contextmanager
def recorded(module: Any, name: str, keep: Callable[[tuple[Any, ...], Any], None]) -> Iterator[None]:
    """``module.name`` handing each call's arguments and result to ``keep``."""
    original = getattr(module, name)

    def recording(*args: Any) -> Any:
        out = original(*args)
        keep(args, out)
        return out

    setattr(module, name, recording)
    try:
        yield
    finally:
        setattr(module, name, original)


def shares(args: tuple[Any, ...]) -> dict[int, float]:
    """Each reference cup's evidence as a share of its silhouette's area (``_unclear_cups``'
    arguments: scores, cups, layout, scale); ``CLEAR_SHARE`` and more is clear."""
    scores, cups, ref, scale = args
    return {
        row: float(score / (np.pi * cups.radii[ref[row][0]][ref[row][1] - 1] ** 2 * scale**2))
        for row, score in scores.items()
    }


def run(case: Case) -> Outcome:
    """Calibrate ``case``, keeping the reads the wrong-size check judged (the last
    ``reference_reads``), and what the missing-cup check weighed (the last ``_unclear_cups``,
    ``stopped_short`` and ``not_shown``)."""
    kept: dict[str, Any] = {}
    start = time.process_time()
    said = None
    with (
        recorded(calibration, "reference_reads", lambda a, out: kept.update(reads=out[0])),
        recorded(calibration, "_unclear_cups", lambda a, _: kept.update(shares=shares(a), radii=a[1].radii)),
        recorded(calibration, "stopped_short", lambda a, out: kept.update(short=out, raw=dict(a[0]))),
        recorded(calibration, "not_shown", lambda a, out: kept.update(contrast=dict(a[2]))),
    ):
        try:
            calibration.calibrate(case.empty, case.reference)
        except CompanionError as refused:
            said = str(refused)
    seen = {key: kept.get(key, {}) for key in ("shares", "short", "contrast", "raw", "radii")}
    return Outcome(case.name, case.wrong, said, kept.get("reads", {}), time.process_time() - start, seen)


# ----- the report --------------------------------------------------------------------------------


def slip_text(wrong: tuple[str, int] | None) -> str:
    if wrong is None:
        return "right"
    square, size = wrong
    if size == 0:
        return f"no cup on {square}"
    colour = COLOR_NAMES[0 if square.endswith("1") else 1]
    return f"a {colour} {size} on {square} for the {'abcd'.index(square[0]) + 1}"


def margins(outcome: Outcome) -> dict[str, float]:
    return {name: rule(outcome.reads) for name, rule in RULES.items()} if outcome.reads else {}


def slip_kind(wrong: tuple[str, int]) -> str:
    """``1-2``, ``2-3`` or ``3-4``: the two sizes a slip confuses."""
    square, size = wrong
    return "-".join(map(str, sorted({"abcd".index(square[0]) + 1, size})))


def summary(outcomes: list[Outcome]) -> list[str]:
    """Per rule: the right references' worst margin (and where) and the wrong ones it refuses,
    by the sizes slipped; then what calibration said of them."""
    lines = []
    read = [o for o in outcomes if o.reads]
    slips = [o for o in outcomes if o.wrong is not None and o.wrong[1] > 0]
    kinds = sorted({slip_kind(o.wrong) for o in slips if o.wrong is not None})

    def by_kind(refused: Callable[[Outcome], bool]) -> str:
        tally = [
            (kind, [refused(o) for o in slips if o.wrong is not None and slip_kind(o.wrong) == kind])
            for kind in kinds
        ]
        return ", ".join(f"{kind} {sum(r)} of {len(r)}" for kind, r in tally)

    def refuses(name: str) -> Callable[[Outcome], bool]:
        return lambda o: bool(o.reads) and margins(o)[name] > 0

    for name in RULES:
        found = [(margins(o)[name], o.name) for o in read if o.wrong is None]
        worst = max(found, default=(float("nan"), "-"))
        lines.append(
            f"{name:12s} right {len(found)}: worst {worst[0]:+.3f} ({worst[1]}), refused "
            f"{sum(m > 0 for m, _ in found)}; wrong refused: " + by_kind(refuses(name))
        )
    rights = [o for o in outcomes if o.wrong is None]
    lines.append(
        f"calibration  right {len(rights)}: refused {sum(o.said is not None for o in rights)}; wrong "
        "refused: " + by_kind(lambda o: o.said is not None)
    )
    left_off = [o for o in outcomes if o.wrong is not None and o.wrong[1] == 0]
    if left_off:
        lines.append(f"left off     refused {sum(o.said is not None for o in left_off)} of {len(left_off)}")
    return lines


def span(text: str) -> range:
    """``FIRST:END`` as a range; empty for ''."""
    if not text:
        return range(0)
    first, end = map(int, text.split(":"))
    return range(first, end)


def cases(args: argparse.Namespace) -> Iterator[Case]:
    """The references asked for, made one at a time (a synthetic one is rendered when its turn
    comes)."""
    for folder in args.folders:
        yield folder_case(folder)
    yield from (right_case(seed) for seed in span(args.right))
    yield from (wrong_case(seed) for seed in span(args.wrong))
    for seed in span(args.left_off):
        yield from left_off_cases(seed, tuple(args.left_off_squares.split(",")))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, help="reference folders (see above)")
    parser.add_argument("--right", default="", help="stress set-ups FIRST:END, right references")
    parser.add_argument("--wrong", default="", help="stress set-ups FIRST:END, a cup of a neighbouring size")
    parser.add_argument("--left-off", default="", help="stress set-ups FIRST:END, each cup left off in turn")
    parser.add_argument("--left-off-squares", default=",".join(SQUARES), help="with --left-off: only these")
    parser.add_argument("--json", type=Path, help="write every outcome's margins here")
    parser.add_argument("--pass-fail", action="store_true", help="print only whether each passes")
    args = parser.parse_args()
    outcomes = []
    records = []
    for case in cases(args):
        outcome = run(case)
        outcomes.append(outcome)
        said = outcome.said or "calibrated"
        if args.pass_fail:
            print(f"{outcome.name}: {said}", flush=True)
            continue
        found = margins(outcome)
        shown = " ".join(f"{v:+.2f}" for v in found.values())
        print(f"{outcome.name:28s} {slip_text(outcome.wrong):24s} {shown}  {said[:90]}", flush=True)
        records.append(
            {
                "name": outcome.name,
                "wrong": outcome.wrong,
                "said": outcome.said,
                "seconds": round(outcome.seconds, 2),
                "margins": found,
                "shares": {str(r): round(v, 3) for r, v in outcome.seen["shares"].items()},
                "short": list(outcome.seen["short"]),
                "raw": {str(r): round(float(v), 3) for r, v in outcome.seen["raw"].items()},
                "radii": [[round(float(v), 3) for v in colour] for colour in outcome.seen["radii"]],
                "contrast": {str(r): round(float(v), 2) for r, v in outcome.seen["contrast"].items()},
                "reads": {
                    str(row): [c, s, [round(float(x), 4) for x in r], [round(float(x), 4) for x in e]]
                    for row, (c, s, r, e) in outcome.reads.items()
                },
            }
        )
    if not args.pass_fail:
        print("rules:", ", ".join(RULES))
        print("\n".join(summary(outcomes)))
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
