"""Turn raw renders into frames in frames-dev's layout: JPEGs with sensor noise, one truth JSON each.

    python post.py SPECS_DIR RAW_DIR OUT_DIR [SCENE ...]      (needs numpy and opencv)

For each ``NAME.scene.json`` in SPECS_DIR (or the scenes named) with its ``NAME.truth.json``,
the frames rendered in ``RAW_DIR/NAME/`` become ``OUT_DIR/NAME/frames/FRAME.jpg`` and
``FRAME.json`` (kind, board, top, hand, grid corners, and move, moves, winner, moving, light
where they apply), and ``OUT_DIR/NAME/scene.json`` says the variant, the moves, how many frames
are there, the resolution and the bench's notes on the scene (look class, wood, camera, demos).
The noise level and JPEG quality come from the spec's ``post`` (else drawn from its seed, as
the company's renderer did); the noise is seeded by the spec, so the frames come out the same.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

PASSED_ON = ("move", "moves", "winner", "moving", "light")


def frame_record(truth: dict, corners: dict) -> dict:
    tops = {sq: {"color": st[-1][0], "size": st[-1][1]} for sq, st in truth["board"].items() if st}
    record = {k: truth[k] for k in ("kind", "board", "hand") if k in truth}
    record.update(top=tops, grid_corners_px=corners["grid_corners_px"])
    record.update({k: truth[k] for k in PASSED_ON if k in truth})
    return record


def post_scene(spec_path: Path, raw: Path, out: Path) -> int:
    name = spec_path.name[: -len(".scene.json")]
    spec = json.loads(spec_path.read_text())
    truth = json.loads(spec_path.with_name(name + ".truth.json").read_text())
    rng = np.random.default_rng(spec["seed"])
    settings = spec.get("post", {})
    folder = out / name / "frames"
    folder.mkdir(parents=True, exist_ok=True)
    done = 0
    for index, frame in enumerate(truth["frames"]):
        sigma = settings.get("noise_sigma") or rng.uniform(1.5, 4.0)
        quality = int(settings.get("jpeg_quality", 88))
        noise_rng = np.random.default_rng([spec["seed"], index])  # this frame's own noise
        src = raw / name / (frame["name"] + ".png")
        if not src.exists():
            continue
        img = cv2.imread(str(src)).astype(np.float32)
        img = np.clip(img + noise_rng.normal(0, sigma, img.shape), 0, 255).astype(np.uint8)
        cv2.imwrite(str(folder / (frame["name"] + ".jpg")), img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        corners = json.loads((raw / name / (frame["name"] + ".truth.json")).read_text())
        (folder / (frame["name"] + ".json")).write_text(json.dumps(frame_record(frame, corners), indent=1))
        done += 1
    summary = {
        "variant": truth["variant"],
        "moves": truth["moves"],
        "frames": done,
        "of_frames": len(truth["frames"]),
        "resolution": spec["look"].get("res", [640, 480]),
    }
    if "bench" in truth:
        summary["bench"] = truth["bench"]
    (out / name / "scene.json").write_text(json.dumps(summary, indent=1))
    return done


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    specs, raw, out = (Path(a) for a in sys.argv[1:4])
    names = sys.argv[4:]
    paths = [specs / f"{n}.scene.json" for n in names] if names else sorted(specs.glob("*.scene.json"))
    for path in paths:
        print(path.name[: -len(".scene.json")], post_scene(path, raw, out), "frames", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
