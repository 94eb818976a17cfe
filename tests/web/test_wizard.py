"""The calibration wizard's "calibrate anyway": a reference refused by a check the user may
overrule (``ReferenceLayoutError.trustable``) is kept, and calibrated again with the layout
taken on trust when the user says the cups already stand so. The browser drives the same in
``test_browser.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.errors import CompanionError
from companion.vision.synth import SceneRenderer
from companion.web.camera import Wizard


def slipped() -> tuple[SceneRenderer, dict[str, tuple[int, int]]]:
    """The synthetic set-up 3's reference with a black 1 on b4 for the 2: refused as a wrong size."""
    scene = SceneRenderer(seed=3, size=4, max_piece=4)
    tops = scene.reference_tops()
    tops["b4"] = (1, 1)
    return scene, tops


def test_a_refused_reference_can_be_calibrated_anyway(tmp_path: Path) -> None:
    wizard = Wizard(tmp_path / "calibration.json", 4, 4)
    scene, tops = slipped()
    with pytest.raises(CompanionError, match="nothing refused"):
        wizard.insist()
    wizard.take_empty(scene.empty())
    wizard.take_reference(scene.render(tops))
    assert wizard.step == "reference" and wizard.can_insist
    assert (wizard.problem or "").startswith(
        "the reference layout was not understood: reference frame: the black cup on b4"
    )
    wizard.insist()
    assert wizard.step == "result" and wizard.problem is None and not wizard.can_insist
    assert wizard.result is not None and wizard.result.layout_trusted
    assert (
        wizard.learned()[-1]
        == "the reference layout was taken on your word, overruling: the black cup on b4 "
        "measures like a black 1 (a4's size)"
    )


def test_a_reference_taken_again_or_a_restart_forgets_the_refused_one(tmp_path: Path) -> None:
    wizard = Wizard(tmp_path / "calibration.json", 4, 4)
    scene, tops = slipped()
    wizard.take_empty(scene.empty())
    wizard.take_reference(scene.render(tops))
    wizard.take_reference(scene.reference())
    assert wizard.step == "result" and not wizard.can_insist
    assert wizard.result is not None and not wizard.result.layout_trusted
    assert not any("your word" in line for line in wizard.learned())
    wizard.restart()
    wizard.take_empty(scene.empty())
    wizard.take_reference(scene.render(tops))
    wizard.restart()
    assert not wizard.can_insist
