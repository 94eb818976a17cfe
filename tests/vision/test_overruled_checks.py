"""The colour and ranks checks overruled: a right reference they refuse calibrates on the user's
word (``calibrate(..., trust_layout=True)``, ``calibrate --cups-as-set-out``, the wizard's
"calibrate anyway"), and a real mistake insisted on is kept and said (``Calibration.overruled``).

Each check was wrong once on a fresh right reference, fixed at the cause since, and each can be
wrong again on a table nobody has measured. The two committed references are turned back into
those refusals here by taking the fixes away: ``tests/data/refs/bench-73`` (a white 4 dark
against a sheen on the empty board: plain, it has the black cups' colour; the check now asks the
levelled colours too) and ``tests/data/refs/bench-65`` (orange and blue cups on grey-washed wood,
the orange White 0.08 darker than the blue; the check now needs ``RANKS_SWAPPED_MARGIN``).
Overruled, a check changes nothing calibration learns: every model is learned from the cups
where the layout puts them, so the trusted calibration is the one the fixed check passes.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.errors import CompanionError, ReferenceLayoutError
from companion.vision import calibration
from companion.vision.calibration import (
    EDGE_ALONE,
    EDGE_CLEAR,
    Calibration,
    LayoutTrust,
    calibrate,
    reference_layout,
)
from companion.vision.cups import CupSet
from companion.vision.pixels import PixelModel
from companion.vision.reader import BoardReader
from companion.vision.sources import read_image
from companion.vision.synth import SceneRenderer
from tests.shared_calibrations import frame_truth, frames_calibration, same_models

REFS = Path(__file__).resolve().parents[1] / "data" / "refs"
SHEEN = REFS / "bench-73" / "frames"
ORANGE_BLUE = REFS / "bench-65" / "frames"
DARK_WHITE_4 = "the size-4 cup on d1 looks black, not white"
RANKS = "the cups on rank 1 look darker than those on the last rank"
REF = reference_layout(4, 4)


def frames(folder: Path) -> tuple[np.ndarray, np.ndarray]:
    return read_image(folder / "00-empty.jpg"), read_image(folder / "01-reference.jpg")


def refusal(empty: np.ndarray, reference: np.ndarray) -> ReferenceLayoutError:
    with pytest.raises(ReferenceLayoutError) as refused:
        calibrate(empty, reference)
    return refused.value


def reads_its_layout(trusted: Calibration, folder: Path) -> bool:
    """Whether the calibration reads every cup of ``folder``'s reference frame as its truth has
    it. (Only the cups: bench-73's own calibration, the fixed check's, reads a white 2 on its
    bare a2 too.)"""
    tops = BoardReader(trusted).read(frames(folder)[1]).tops()
    truth = frame_truth(folder, "01-reference")
    return {square: tops[square] for square in truth} == truth


def plain_colours_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The colour check as it was before bench-73: on the cups' plain colours alone."""
    check = calibration.check_reference  # (patched: the probe takes the fix away mid-calibration)

    def plain(seen: calibration.ReferenceSeen, *rest):  # type: ignore[no-untyped-def]
        return check(replace(seen, levelled=seen.colours), *rest)

    monkeypatch.setattr(calibration, "check_reference", plain)


def test_a_white_cup_dark_against_a_sheen_calibrates_on_trust_as_the_fixed_check_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fixed = frames_calibration(SHEEN)
    plain_colours_only(monkeypatch)
    refused = refusal(*frames(SHEEN))
    assert (refused.kind, refused.squares, refused.trustable) == ("other colour", ("d1",), True)
    assert refused.finding == DARK_WHITE_4
    trusted = calibrate(*frames(SHEEN), trust_layout=True)
    assert trusted.layout_trusted and trusted.overruled == (DARK_WHITE_4,)
    assert same_models(trusted, fixed)
    assert reads_its_layout(trusted, SHEEN)


def test_a_white_darker_than_black_calibrates_on_trust_as_the_fixed_check_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fixed = frames_calibration(ORANGE_BLUE)
    monkeypatch.setattr(calibration, "RANKS_SWAPPED_MARGIN", 0.0)  # the check before bench-65
    refused = refusal(*frames(ORANGE_BLUE))
    assert (refused.kind, refused.squares, refused.trustable, refused.finding) == (
        "ranks swapped",
        (),
        True,
        RANKS,
    )
    trusted = calibrate(*frames(ORANGE_BLUE), trust_layout=True)
    assert trusted.overruled == (RANKS,)
    # the probe's margin also measures the blue, 0.08 the lighter, the set the reader takes as pale
    assert (trusted.lighter, fixed.lighter) == (1, 0)
    assert same_models(replace(trusted, lighter=fixed.lighter), fixed)
    assert trusted.pixels.light.mean[0] < trusted.pixels.dark.mean[0]  # White kept the darker
    assert reads_its_layout(trusted, ORANGE_BLUE)


def swapped_ranks() -> tuple[SceneRenderer, dict[str, tuple[int, int]]]:
    """The synthetic set-up 3 with Black's cups set out on rank 1 and White's on rank 4."""
    scene = SceneRenderer(seed=3, size=4, max_piece=4)
    return scene, {square: (1 - colour, size) for square, (colour, size) in scene.reference_tops().items()}


def test_ranks_really_swapped_and_insisted_on_are_said_by_calibrate_and_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scene, tops = swapped_ranks()
    names = [str(tmp_path / "empty.png"), str(tmp_path / "reference.png")]
    assert cv2.imwrite(names[0], scene.empty()) and cv2.imwrite(names[1], scene.render(tops))
    out = tmp_path / "board.json"
    args = ["calibrate", "--empty", names[0], "--reference", names[1], "--out", str(out)]
    assert main(args) == 2
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 1 and said[0].endswith(
        f"{RANKS}; White's cups go on rank 1, and White's is the lighter set unless you say it is the "
        "darker; if White's cups are the darker set, add --white-darker"
    )
    assert main([*args, "--cups-as-set-out"]) == 0
    assert f"--cups-as-set-out: the reference layout was taken on trust, overruling: {RANKS}" in (
        capsys.readouterr().out.splitlines()
    )
    assert main(["read", "--calibration", str(out), "--json", names[1]]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"{out}: the reference layout was taken on trust (calibrate --cups-as-set-out), overruling: {RANKS}"
    ]


def seen_of(colours: dict[int, np.ndarray], unclear: list[int] | None = None) -> calibration.ReferenceSeen:
    """What a reference showed: every cup clear unless ``unclear``, each outline standing out."""
    cups = CupSet.default(60.0)
    area = {row: np.pi * cups.radii[colour][size - 1] ** 2 for row, (colour, size) in REF.items()}
    scores = {row: area[row] * (0.2 if row in (unclear or []) else 2.0) for row in REF}
    standing = dict.fromkeys(REF, EDGE_CLEAR * 2)
    return calibration.ReferenceSeen(scores, colours, colours, unclear or [], standing, [], lambda row: None)


def brightness(white: list[float], black: list[float]) -> dict[int, np.ndarray]:
    return {row: np.array([m, 0.0, 0.0]) for row, m in zip(sorted(REF), white + black, strict=True)}


def test_trust_keeps_every_finding_it_overrules() -> None:
    """Two cups of the other colour (a black cup on a1, a white one on d4): each refused alone,
    both kept on trust."""
    colours = brightness([-1.5, 0.0, -0.1, 0.1], [-1.6, -1.5, -1.4, 0.05])
    check = (CupSet.default(60.0), REF, PixelModel.default(), 4)
    with pytest.raises(ReferenceLayoutError, match="the size-1 cup on a1 looks black, not white"):
        calibration.check_reference(seen_of(colours), *check)
    trust = LayoutTrust(trusted=True)
    calibration.check_reference(seen_of(colours), *check, trust)
    assert trust.overruled == [
        "the size-1 cup on a1 looks black, not white",
        "the size-4 cup on d4 looks white, not black",
    ]


def test_trust_keeps_every_missing_cup_it_overrules() -> None:
    """Two cups whose evidence leans away and whose outlines stand out short of ``EDGE_ALONE``
    (the white 2 on b1, the black 3 on c4): refused as the first, both kept on trust."""
    colours = brightness([0.3] * 4, [-0.9] * 4)
    check = (CupSet.default(60.0), REF, PixelModel.default(), 4)
    unclear, between = [1, 14], (EDGE_CLEAR + EDGE_ALONE) / 2  # standing, not shown against the sum
    seen = seen_of(colours, unclear)
    seen = replace(
        seen,
        scores={**seen.scores, 1: -1.0, 14: -1.0},
        contrast={**seen.contrast, 1: between, 14: between},
    )
    with pytest.raises(ReferenceLayoutError, match="no clear white size-2 cup on b1"):
        calibration.check_reference(seen, *check)
    trust = LayoutTrust(trusted=True)
    calibration.check_reference(seen, *check, trust)
    assert trust.overruled == [
        "no clear white size-2 cup on b1",
        "no clear black size-3 cup on c4",
    ]


def test_an_unseen_colour_is_refused_even_on_trust() -> None:
    """Every white cup unclear while their outlines stand out: the check already takes the cups
    as standing, so the user's word adds nothing to it."""
    colours = brightness([0.3] * 4, [-0.9] * 4)
    white = [row for row, (colour, _) in REF.items() if colour == 0]
    trust = LayoutTrust(trusted=True)
    with pytest.raises(
        ReferenceLayoutError, match="the white cups stand where they should but look like"
    ) as refused:
        calibration.check_reference(
            seen_of(colours, white), CupSet.default(60.0), REF, PixelModel.default(), 4, trust
        )
    assert (refused.value.kind, refused.value.trustable) == ("unseen colour", False)
    assert trust.overruled == []


def test_sizes_out_of_order_are_refused_even_on_trust() -> None:
    """A file whose sizes do not grow is refused when loaded: no word makes one."""
    cups = CupSet.default(60.0)
    cups = cups.with_radius(0, 3, cups.radii[0][3] + 1.0)
    colours = brightness([0.3] * 4, [-0.9] * 4)
    with pytest.raises(CompanionError, match="the white cups do not grow") as refused:
        calibration.check_reference(seen_of(colours), cups, REF, PixelModel.default(), 4, LayoutTrust(True))
    assert not isinstance(refused.value, ReferenceLayoutError)
