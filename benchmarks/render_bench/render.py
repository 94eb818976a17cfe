"""Render the bench's scenes: check each camera pose, render every frame, post-process, keep a status.

    python benchmarks/render_bench/render.py [SCENE ...] [--out DIR] [--raw DIR] [--bpy PYTHON]
                                              [--check-only] [--status-only]

Runs with any Python that has numpy and opencv (the project's venv or the bpy venv); Blender
itself runs as ``--bpy`` (default ``/tmp/bpy-venv/bin/python``, or ``$BENCH_BPY``). For each
scene (all specs in ``specs/``, or those named, in the order named):

1. ``scene.py --corners-only`` projects the board's edge and the markers: a scene whose board
   or markers come closer than 6 px to the image's edge is refused (exit status 1 at the end);
2. ``scene.py`` renders the frames not yet rendered into ``RAW/SCENE/`` (it resumes);
3. ``post.py`` writes ``OUT/SCENE/`` in frames-dev's layout;
4. ``OUT/STATUS.md`` is written again: which scenes are there, with how many frames, the
   render time per frame, how to read them and how to run the bench.

Rendering is slow (seconds a frame at 640x480 on two cores, four times that at 1280x960): run it
in the background, ``nice -n 19``. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from post import post_scene  # noqa: E402  (beside this script, not a package)

SPECS = HERE / "specs"
DEFAULT_OUT = Path("/work/bench-data")
DEFAULT_BPY = os.environ.get("BENCH_BPY", "/tmp/bpy-venv/bin/python")
TIMES = "render-times.json"

STATUS_HEAD = """# Vision bench frames: status

Rendered by `benchmarks/render_bench/render.py` from the specs committed in
`benchmarks/render_bench/specs/` (written by `generate.py`, seed 2026). This file is written
again after every scene; do not edit it by hand.

## Layout (frames-dev's)

- `<scene>/scene.json`: `variant`, `moves`, `frames` (how many are here), `of_frames` (in the
  spec), `resolution`, `bench` (look class, wood, cups, camera; `light_change` for scenes whose
  light changes during the game; `calibrates`/`purpose` for calibration-only companions).
- `<scene>/frames/NAME.jpg` + `NAME.json`: `00-empty`, `01-reference`, then per ply
  `NNa-hand` (a hand over the board, holding the lifted cup: `moving`) before some moves and
  `NNb-move` (`move`, `moves`, `winner`). Every JSON has `kind`, `board` (each square's stack,
  bottom first, as [colour, size]), `top`, `grid_corners_px` (a1, d1, d4, a4); frames under the
  changed light have `"light": "b"`.
- Companions: `bench-NN-light-b` (00-empty and 01-reference under the light bench-NN switches
  to), `bench-NN-wrong-cup` (a reference frame with one cup of the wrong size: the user's
  mistake that makes calibration misjudge a size), `bench-NN-ref-c` (the reference layout
  again, every cup right, at other offsets: for calibration's checks).

## Running the bench

    PYTHONPATH=. .venv/bin/python benchmarks/vision_bench.py                 # every scene here
    PYTHONPATH=. .venv/bin/python benchmarks/vision_bench.py bench-00 bench-03 --json out.json

See docs/vision-bench.md in the repo.

## Scenes
"""


def corners_ok(bpy: str, spec: Path, raw: Path) -> tuple[bool, float]:
    first = json.loads(spec.read_text())["frames"][0]["name"]
    check = raw / "corners"
    subprocess.run(
        [bpy, str(HERE / "scene.py"), str(spec), str(check), first, "--corners-only"],
        check=True,
        capture_output=True,
    )
    result = json.loads((check / f"{first}.truth.json").read_text())
    return bool(result["in_view"]), float(result["in_view_margin_px"])


def render(bpy: str, spec: Path, raw: Path) -> tuple[int, float]:
    """Frames rendered now and the wall seconds it took."""
    started = time.time()
    process = subprocess.run(
        [bpy, str(HERE / "scene.py"), str(spec), str(raw)],
        capture_output=True,
        text=True,
    )
    if process.returncode != 0:
        raise SystemExit(f"{spec.name}: the renderer failed:\n{process.stderr[-2000:]}")
    return process.stdout.count("rendered "), time.time() - started


def write_status(out: Path, specs: Path) -> None:
    times = json.loads((out / TIMES).read_text()) if (out / TIMES).exists() else {}
    lines = [STATUS_HEAD]
    lines.append("| scene | class | resolution | variant | plies | frames here / in spec | s per frame |")
    lines.append("|---|---|---|---|---|---|---|")
    done = 0
    for spec in sorted(specs.glob("*.scene.json"), key=lambda p: p.name[: -len(".scene.json")]):
        name = spec.name[: -len(".scene.json")]
        truth = json.loads(spec.with_name(name + ".truth.json").read_text())
        meta = truth.get("bench", {})
        here = out / name / "scene.json"
        count = json.loads(here.read_text())["frames"] if here.exists() else 0
        done += count == len(truth["frames"])
        t = times.get(name)
        per = f"{t['seconds'] / t['frames']:.1f}" if t and t["frames"] else "-"
        kind = meta.get("look_class", "?") + (f" ({meta['purpose']})" if "purpose" in meta else "")
        if "light_change" in meta:
            kind += f", light changes at frame {meta['light_change']['from_frame']:02d}"
        lines.append(
            f"| {name} | {kind} | {'x'.join(map(str, meta.get('resolution', [])))} | {truth['variant']} "
            f"| {len(truth['moves'])} | {count} / {len(truth['frames'])} | {per} |"
        )
    lines.append("")
    lines.append(
        f"{done} of {len(list(specs.glob('*.scene.json')))} scenes complete; updated {time.ctime()}."
    )
    (out / "STATUS.md").write_text("\n".join(lines) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="*", help="scene names (default: every spec)")
    parser.add_argument("--specs", type=Path, default=SPECS, help="spec folder (default specs/)")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"frames folder (default {DEFAULT_OUT})"
    )
    parser.add_argument("--raw", type=Path, default=None, help="raw renders (default OUT/.raw)")
    parser.add_argument("--bpy", default=DEFAULT_BPY, help=f"Python with bpy (default {DEFAULT_BPY})")
    parser.add_argument("--check-only", action="store_true", help="only check that the camera poses fit")
    parser.add_argument("--status-only", action="store_true", help="only write STATUS.md again")
    args = parser.parse_args()
    raw = args.raw or args.out / ".raw"
    args.out.mkdir(parents=True, exist_ok=True)
    if args.status_only:
        write_status(args.out, args.specs)
        return 0
    names = args.scenes or [p.name[: -len(".scene.json")] for p in sorted(args.specs.glob("*.scene.json"))]
    refused = []
    for name in names:
        spec = args.specs / f"{name}.scene.json"
        if not spec.exists():
            print(f"{name}: no spec {spec}", file=sys.stderr)
            return 2
        fits, margin = corners_ok(args.bpy, spec, raw)
        print(f"{name}: board and markers {'in view' if fits else 'NOT in view'} (margin {margin:.0f} px)")
        if not fits:
            refused.append(name)
            continue
        if args.check_only:
            continue
        frames, seconds = render(args.bpy, spec, raw / name)
        times_path = args.out / TIMES
        times = json.loads(times_path.read_text()) if times_path.exists() else {}
        if frames:
            old = times.get(name, {"frames": 0, "seconds": 0.0})
            times[name] = {"frames": old["frames"] + frames, "seconds": old["seconds"] + seconds}
            times_path.write_text(json.dumps(times, indent=1))
        posted = post_scene(spec, raw, args.out)
        print(
            f"{name}: {frames} frames rendered in {seconds:.0f} s; {posted} frames in {args.out / name}",
            flush=True,
        )
        write_status(args.out, args.specs)
    if refused:
        print(
            f"refused (camera pose leaves the board or markers out of view): {' '.join(refused)}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
