"""The shared development frames: every square right on every hand-free frame, hands flagged.

Skipped when ../shared (next to the repository) is absent.
"""

import json

import pytest

from companion.rules.square import COLOR_NAMES
from companion.vision.calibration import calibrate
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image

from .conftest import shared_frames


def scenes():
    try:
        root = shared_frames()
    except pytest.skip.Exception:
        return []
    return sorted(p for p in root.iterdir() if (p / "frames").is_dir())


@pytest.mark.slow
@pytest.mark.parametrize("scene", scenes() or [None], ids=lambda p: getattr(p, "name", "absent"))
def test_scene_is_read_right(scene):
    if scene is None:
        shared_frames()  # skips
    files = sorted((scene / "frames").glob("*.jpg"))
    reader = BoardReader(calibrate(read_image(files[0]), read_image(files[1])))
    wrong, squares = [], 0
    for path in files:
        record = json.loads(path.with_suffix(".json").read_text())
        observation = reader.read(read_image(path))
        if record["kind"] == "hand":
            assert observation.occluded, f"{path.name}: hand not flagged"
            continue
        assert not observation.occluded, f"{path.name}: flagged occluded"
        truth = {sq: (COLOR_NAMES.index(t["color"]), t["size"]) for sq, t in record["top"].items()}
        for name, top in observation.tops().items():
            squares += 1
            if top != truth.get(name):
                wrong.append(f"{path.name} {name}: {truth.get(name)} read {top}")
    assert len(wrong) <= 0.001 * squares, wrong
    assert not wrong, wrong  # the target: every square
