"""What the referee believed, reading by reading, in a vision-bench replay: the readings the
replay gave it (``vision_bench.py --readings FILE``) fed again to a fresh reconciler, with the
player's answers where the player gave them, printing each reading's squares asked for, the
events and the paths kept (each one's moves past the common ones and how far it trails).

    PYTHONPATH=. .venv/bin/python benchmarks/vision_bench.py bench-32 --no-read --readings r.jsonl
    PYTHONPATH=. .venv/bin/python benchmarks/referee_trace.py r.jsonl --squares b3,d1 --from 50

The reconciler is deterministic: the same readings, and the player's answers at the same
points, give the replay's events again, in seconds and without a frame read. The readings are
what the reader gave, learning included, so a change to the referee traced this way is measured
before the reader would read otherwise (a batch the referee now says otherwise may teach the
reader something else): the vision bench's replay is the measure, this the microscope."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from companion.reconciler.events import Event
from companion.reconciler.paths import GamePath, code_text, common_prefix
from companion.reconciler.reconciler import Reconciler
from companion.rules import Variant
from companion.vision.observation import Observation, class_top

DIGITS = 4  # probabilities kept to this many decimals: the events come out the same


def reading_entry(scene: str, variant: str, frame: str, observation: Observation) -> dict:
    """One stable observation the replay fed its referee, as a line of ``--readings``."""
    return {
        "scene": scene,
        "variant": variant,
        "t": round(observation.timestamp, 2),
        "frame": frame,
        "still": observation.still,
        "hidden": observation.hidden,
        "occluded": observation.occluded,
        "moved": observation.moved,
        "probabilities": np.round(observation.probabilities, DIGITS).tolist(),
    }


def answer_entry(scene: str, variant: str, frame: str, t: float) -> dict:
    """The player's answer to a help request (the camera's view accepted), as a line."""
    return {"scene": scene, "variant": variant, "t": round(t, 2), "frame": frame, "accepted": True}


def observation_of(entry: dict, variant: Variant) -> Observation:
    """The stable observation a ``reading_entry`` line holds."""
    return Observation(
        variant.size,
        variant.max_piece,
        np.asarray(entry["probabilities"], dtype=float),
        occluded=entry["occluded"],
        moved=entry["moved"],
        timestamp=entry["t"],
        hidden=entry["hidden"],
        still=entry["still"],
    )


@dataclass
class Step:
    """One line of the trace fed again: the entry, the events it gave and the paths kept after."""

    entry: dict
    events: list[Event]
    paths: tuple[GamePath, ...]


def refeed(entries: Iterable[dict]) -> Iterator[Step]:
    """Feed one scene's lines to a fresh reconciler: each reading, and each answer accepted."""
    reconciler: Reconciler | None = None
    for entry in entries:
        if reconciler is None:
            reconciler = Reconciler(entry["variant"])
        if entry.get("accepted"):
            events = reconciler.accept_board()
        else:
            events = reconciler.feed(observation_of(entry, reconciler.variant))
        yield Step(entry, events, reconciler.paths)


def class_name(index: int, max_piece: int) -> str:
    top = class_top(index, max_piece)
    return "--" if top is None else f"{'WB'[top[0]]}{top[1]}"


def square_text(probabilities: np.ndarray, name: str, variant: Variant, most: int = 3) -> str:
    """A square's likeliest classes as read, e.g. ``b3 W3 0.39 W2 0.23 W4 0.16``."""
    observation = Observation(variant.size, variant.max_piece, probabilities, False)
    row = probabilities[observation.row(name)]
    best = np.argsort(row)[::-1][:most]
    return name + " " + " ".join(f"{class_name(int(i), variant.max_piece)} {row[i]:.2f}" for i in best)


def paths_text(paths: tuple[GamePath, ...], most: int) -> list[str]:
    """The paths kept, the best first: how far each trails the best (weighed, as pruning asks,
    and counted independently) and its moves past those every path shown shares."""
    if not paths:
        return []
    shown = paths[:most]
    shared = min(common_prefix(shown[0].codes, p.codes) for p in shown)
    lead, plain = shown[0].score, shown[0].independent
    lines = []
    for path in shown:
        moves = " ".join(code_text(c) for c in path.codes[shared:]) or "(shared)"
        state = "tainted " if path.tainted else "doubted " if path.doubt else ""
        kind = path.explanation.kind if path.explanation is not None else "-"
        lines.append(f"{path.score - lead:7.2f} {path.independent - plain:7.2f}  {state}{kind}: {moves}")
    return lines


def trace_lines(steps: Iterable[Step], squares: list[str], most: int, since: float) -> Iterator[str]:
    for step in steps:
        entry = step.entry
        if entry["t"] < since:
            continue
        variant = Variant.from_spec(entry["variant"])
        if entry.get("accepted"):
            yield f"{entry['t']:7.1f} {entry['frame']}  the player accepts what the camera sees"
        else:
            look = "still look" if entry["still"] else "first look"
            yield f"{entry['t']:7.1f} {entry['frame']}  {look}, hidden {entry['hidden']}"
            probabilities = np.asarray(entry["probabilities"], dtype=float)
            yield from (f"        {square_text(probabilities, sq, variant)}" for sq in squares)
        yield from (
            f"    {event.type}: {event.move or ''} {event.reason or ''}".rstrip() for event in step.events
        )
        yield from (f"      {line}" for line in paths_text(step.paths, most))


def load(path: Path, scene: str | None) -> list[dict]:
    """The lines of one scene (the file's first when ``scene`` is None)."""
    entries = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if not entries:
        return []
    wanted = scene or entries[0]["scene"]
    return [e for e in entries if e["scene"] == wanted]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("readings", type=Path, help="a file vision_bench.py --readings wrote")
    parser.add_argument("--scene", help="the scene to trace (default the file's first)")
    parser.add_argument("--squares", default="", help="squares whose reading to print, e.g. b3,d1")
    parser.add_argument("--paths", type=int, default=6, help="paths to print after each reading (default 6)")
    parser.add_argument(
        "--from", dest="since", type=float, default=0.0, help="print from this camera time on"
    )
    args = parser.parse_args(argv)
    try:
        entries = load(args.readings, args.scene)
    except (OSError, ValueError, KeyError, TypeError) as error:  # (a file not --readings wrote)
        print(
            f"referee_trace: cannot read {args.readings} ({type(error).__name__}: {error})", file=sys.stderr
        )
        return 2
    if not entries:
        print(
            f"referee_trace: no readings of {args.scene or 'any scene'} in {args.readings}", file=sys.stderr
        )
        return 2
    squares = [s for s in args.squares.split(",") if s]
    for line in trace_lines(refeed(entries), squares, args.paths, args.since):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
