"""The size cues on every square a fresh reader reads, the wrong ones grouped (measuring only).

    PYTHONPATH=. python benchmarks/size_cues.py SCENE ... [--frames DIR] [--errors]

Each scene (a name under ``--frames``, as ``vision_bench.py`` finds them, or a folder) is
calibrated from its own ``00-empty`` and ``01-reference`` frames and each of its hand-free game
frames read once by a fresh reader, as the bench's reading pass does. For every square the
reader's own size cues are kept as its probabilities used them (``BoardReader.read_traced``,
``companion/vision/trace.py``): the region cue's size logits as matched and as placed, the edge
cue's base and rim scores, the colour's region trust and clear rims, and one cue the reader does
not use, each size's silhouette scored where that size's own base circle fits best
(``ReadTrace.scored_at`` its foot, in the region cue's logits: "own feet"). Printed:

- the wrong squares grouped by kind (truth against reading), largest group first, and with
  ``--errors`` each one's cue values;
- per cue, on white cups read within a size of the truth: how often it puts the true size ahead
  of the one read wrong, and on the cups read right, ahead of the neighbour the region cue
  ranks next;
- each way of weighing the cues (``WEIGHINGS``) re-run on the kept values: squares right, right
  at 0.9 or more, wrong at 0.9 or more on frames not flagged, and the squares it mends and
  breaks. Only the size shares change (``edges.size_shares``); whether a square holds a cup,
  and its colour, stay as read.

A square seen twice (a committed scene that copies a rendered one's frames) counts once.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.vision_bench import DEFAULT_FRAMES, SURE, calibrate_from, error_kind, find_scenes, load_scene
from companion.vision.edges import SPREAD_FLOOR, rim_spreads
from companion.vision.matching import size_logits
from companion.vision.observation import Top
from companion.vision.reader import PLACED_MM, BoardReader
from companion.vision.sources import read_image
from companion.vision.trace import CueTrace, ReadTrace


@dataclasses.dataclass(frozen=True)
class SquareCues:
    """One square of one frame: the truth, the reading and the size cues it came from."""

    where: str  # scene/frame square
    truth: Top
    read: Top
    confidence: float
    occluded: bool
    cues: CueTrace  # the size cues as the reader weighed them
    own_feet: np.ndarray  # each size scored where its own base fits, in the region cue's logits
    feet_mm: np.ndarray  # how far each size's base lies from where the region cue matched

    @property
    def probabilities(self) -> np.ndarray:  # [empty, white 1..S, black 1..S]
        return self.cues.probabilities

    @property
    def region(self) -> np.ndarray:  # the region cue's size logits as matched
        return self.cues.region

    @property
    def placed(self) -> np.ndarray:  # ... as placed (where far from its base: ``PLACED_MM``)
        return self.cues.placed

    @property
    def base(self) -> np.ndarray:
        assert self.cues.base is not None  # (``scene_cues`` keeps only traces with edges)
        return self.cues.base

    @property
    def rim(self) -> np.ndarray:
        assert self.cues.rim is not None
        return self.cues.rim


def at_own_feet(trace: ReadTrace, row: int) -> tuple[np.ndarray, np.ndarray]:
    """Square ``row``'s score for each size with its silhouette where its own base fits (in the
    region cue's size logits, unsoftened) and that foot's distance in mm from where the region
    cue matched the square: a cue the reader does not use, scored on the read's own evidence."""
    cues = trace.squares[row]
    m = cues.match
    assert cues.feet is not None
    feet = cues.feet.tolist()
    scored = [trace.scored_at(row, m.colour, dy, dx).sizes[size] for size, (dy, dx) in enumerate(feet)]
    mm = [np.hypot(m.dy - dy, m.dx - dx) / trace.scale for dy, dx in feet]
    own = size_logits([dataclasses.replace(m, sizes=np.array(scored, dtype=float))], trace.ring_px)[0]
    return own, np.array(mm)


def scene_cues(folder: Path) -> list[SquareCues]:
    """Every square of the scene's hand-free game frames, read by a fresh reader with its cues
    traced (``BoardReader.read_traced``)."""
    scene = load_scene(folder)
    reader = BoardReader(calibrate_from(scene))
    out = []
    for frame in scene.game_frames:
        if frame.kind == "hand":
            continue
        reading, trace = reader.read_traced(read_image(str(frame.path)))
        obs = reading.observation
        if any(cues.base is None for cues in trace.squares):
            raise SystemExit(f"{scene.name}: no outline in the calibration, no edge cue to weigh")
        for row, (name, top) in enumerate(obs.tops().items()):
            own, mm = at_own_feet(trace, row)
            out.append(
                SquareCues(
                    f"{scene.name}/{frame.name} {name}",
                    frame.tops.get(name),
                    top,
                    obs.confidence(name),
                    obs.occluded,
                    trace.squares[row],
                    own,
                    mm,
                )
            )
    return out


# ----- ways of weighing the cues -------------------------------------------------------------

Shares = Callable[[SquareCues], np.ndarray]


def as_read(sq: SquareCues) -> np.ndarray:
    """The reader's own size shares."""
    return sq.cues.reweighed()


def faint_rim_abstains(sq: SquareCues) -> np.ndarray:
    """``size_shares`` with a rim under ``SPREAD_FLOOR`` never stopping the base from moving a
    size, whatever the colour's region trust: the reader lets it only where that trust is below
    1, so such a square is weighed with its trust a hair under 1 (1e-9: the sum is the same)."""
    trust = sq.cues.trust
    faint = rim_spreads(sq.rim)[0] < SPREAD_FLOOR
    return sq.cues.reweighed(trust=min(trust, 1.0 - 1e-9) if faint else trust)


def own_feet_mean(sq: SquareCues) -> np.ndarray:
    """Each size sized on the mean of its score as matched and where its own base fits."""
    return sq.cues.reweighed(placed=(sq.region + sq.own_feet) / 2)


def own_feet_far(sq: SquareCues) -> np.ndarray:
    """``own_feet_mean`` only where the size the region cue reads has its own base
    ``PLACED_MM`` or more from where it matched (as ``_placed`` weighs the size it stands as)."""
    leader = int(np.argmax(sq.region))
    return own_feet_mean(sq) if sq.feet_mm[leader] >= PLACED_MM else as_read(sq)


WEIGHINGS: dict[str, Shares] = {
    "as read": as_read,
    "faint rim abstains": faint_rim_abstains,
    "own feet, mean": own_feet_mean,
    f"own feet, mean at {PLACED_MM:g} mm": own_feet_far,
}


def reread(sq: SquareCues, shares: Shares) -> tuple[Top, float]:
    """The square's top and confidence with its cup probability split by ``shares``."""
    if sq.read is None:
        return None, sq.confidence
    p = sq.probabilities
    s = (len(p) - 1) // 2
    cup = 1.0 - p[0]
    white = p[1 : s + 1].sum() / max(cup, 1e-12)
    split = cup * shares(sq)
    q = np.concatenate([[p[0]], split * white, split * (1.0 - white)])
    k = int(q.argmax())
    return (None if k == 0 else ((k - 1) // s, (k - 1) % s + 1)), float(q[k])


# ----- reports ---------------------------------------------------------------------------------


def kind(sq: SquareCues) -> str:
    """What was read wrong (``vision_bench.error_kind``), a size as truth and reading."""
    coarse = error_kind(sq.truth, sq.read)
    if sq.truth is None or sq.read is None or coarse == "colour":
        return coarse
    return f"{('white', 'black')[sq.truth[0]]} {sq.truth[1]} read {sq.read[1]}"


def error_text(sq: SquareCues) -> str:
    cues = " ".join(
        f"{cue} [{_values(getattr(sq, cue))}]" for cue in ("region", "placed", "own_feet", "base", "rim")
    )
    flagged = " [occluded]" if sq.occluded else ""
    clear = " clear" if sq.cues.clear else ""
    return f"  {sq.where}: {kind(sq)} ({sq.confidence:.2f}){flagged} {cues} trust {sq.cues.trust:.2f}{clear}"


def _values(values: np.ndarray) -> str:
    return " ".join(f"{v:.3g}" for v in values)


def cue_leads(squares: list[SquareCues]) -> None:
    """Per cue, how often it puts a white cup's true size ahead of its neighbour: the size read
    wrong, or for a cup read right the neighbour the region cue ranks next."""
    tallies: dict[str, Counter[str]] = {}
    for sq in squares:
        if sq.truth is None or sq.read is None or sq.truth[0] != 0 or sq.read[0] != 0:
            continue
        true = sq.truth[1] - 1
        if sq.read == sq.truth:
            near = [s for s in (true - 1, true + 1) if 0 <= s < len(sq.region)]
            other, label = max(near, key=lambda s: sq.region[s]), "right"
        elif abs(sq.read[1] - sq.truth[1]) == 1:
            other, label = sq.read[1] - 1, "wrong"
        else:
            continue
        tally = tallies.setdefault(f"white {true + 1} read {label} (against {other + 1})", Counter())
        tally["cups"] += 1
        for cue in ("region", "base", "rim", "own_feet"):
            values = getattr(sq, cue)
            tally[cue] += bool(values[true] > values[other])
    print("\ntrue size ahead, per cue:")
    for label, t in sorted(tallies.items()):
        cues = ", ".join(f"{cue} {t[cue]}" for cue in ("region", "base", "rim", "own_feet"))
        print(f"  {label}: {t['cups']} cups; {cues}")


def weighings(squares: list[SquareCues]) -> None:
    """Each way of weighing the cues, re-run on the kept values."""
    print("\nweighings (squares right, right >= 0.9, wrong >= 0.9 not flagged; mended / broken):")
    before = [reread(sq, as_read) for sq in squares]
    for name, shares in WEIGHINGS.items():
        after = [reread(sq, shares) for sq in squares]
        right = sum(top == sq.truth for sq, (top, _) in zip(squares, after, strict=True))
        sure = sum(top == sq.truth and c >= SURE for sq, (top, c) in zip(squares, after, strict=True))
        wrong = sum(
            top != sq.truth and c >= SURE and not sq.occluded
            for sq, (top, c) in zip(squares, after, strict=True)
        )
        changes = [
            (sq, old[0] == sq.truth)
            for sq, old, new in zip(squares, before, after, strict=True)
            if (old[0] == sq.truth) != (new[0] == sq.truth)
        ]
        mended = Counter(kind(sq) for sq, was in changes if not was)
        broken = Counter(f"{kind(sq).split(' read')[0]} read otherwise" for sq, was in changes if was)
        print(
            f"  {name}: {right}/{len(squares)}, {sure}, {wrong}; mended {dict(mended)}; broken {dict(broken)}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="+", help="scene names or patterns, or scene folders")
    parser.add_argument("--frames", type=Path, default=DEFAULT_FRAMES, help="where scenes are found by name")
    parser.add_argument("--errors", action="store_true", help="every wrong square's cue values")
    args = parser.parse_args(argv)
    squares: dict[str, SquareCues] = {}
    for folder in find_scenes(args.frames, args.scenes):
        for sq in scene_cues(folder):
            squares.setdefault(sq.where, sq)
    kept = list(squares.values())
    wrong = [sq for sq in kept if sq.read != sq.truth]
    print(f"{len(kept)} squares, {len(wrong)} wrong; by kind:")
    for label, n in Counter(kind(sq) for sq in wrong).most_common():
        print(f"  {n:4d}  {label}")
    if args.errors:
        print("\nwrong squares:")
        for sq in wrong:
            print(error_text(sq))
    cue_leads(kept)
    weighings(kept)
    return 0


if __name__ == "__main__":
    sys.exit(main())
