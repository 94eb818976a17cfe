"""A right reference refused is no dead end: the user may say the cups already stand as the
layout says (``calibrate(..., trust_layout=True)``, ``calibrate --cups-as-set-out``, the web
wizard's "calibrate anyway").

The size check can misjudge a right reference: on a freshly rendered scene (natural pale cups
on birch) the white 2 on b1 measured like a white 1 by both cues by hairs, and setting out
what the line said changed nothing. Taken on trust, the size check refuses nothing and a
doubtful cup is taken as there where its outline stands out (``EDGE_CLEAR``); a square whose
outline does not is still refused, so a cup really left off never calibrates into nonsense.
What the trust overruled is kept in the calibration and said wherever it is in use
(``Calibration.overruled``). The colour and ranks checks: ``test_overruled_checks.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.errors import CompanionError, ReferenceLayoutError
from companion.vision.calibration import Calibration, calibrate
from companion.vision.sources import read_image
from companion.vision.synth import SceneRenderer
from tests.shared_calibrations import same_models

BENCH_11_WRONG = Path(__file__).resolve().parents[1] / "data" / "bench" / "bench-11-wrong-cup" / "frames"
WRONG_FINDING = "the white cup on b1 measures like a white 1 (a1's size)"
WRONG_LINE = (
    "reference frame: the white cup on b1 measures like a white 1 (a1's size): set out the white 2 "
    "on b1 and the white 1 on a1, and calibrate again"
)


def wrong_cup() -> tuple[np.ndarray, np.ndarray]:
    """bench-11-wrong-cup's empty and reference frames: a white 1 on b1 for the 2."""
    return read_image(BENCH_11_WRONG / "00-empty.jpg"), read_image(BENCH_11_WRONG / "01-reference.jpg")


def cup_left_off() -> tuple[np.ndarray, np.ndarray]:
    """The synthetic stress set-up 1002 with its white 2 left off b1 (its fourth frame's noise):
    b1's outline does not stand out of the empty squares' edges."""
    scene = SceneRenderer(1002, stress=True)
    tops = {square: top for square, top in scene.reference_tops().items() if square != "b1"}
    return scene.empty(), scene.render(tops, frame=4)


def refusal(empty: np.ndarray, reference: np.ndarray, trust_layout: bool = False) -> ReferenceLayoutError:
    with pytest.raises(ReferenceLayoutError) as refused:
        calibrate(empty, reference, trust_layout=trust_layout)
    return refused.value


def test_a_wrong_size_refusal_names_its_kind_and_squares_and_may_be_overruled() -> None:
    refused = refusal(*wrong_cup())
    assert str(refused) == WRONG_LINE
    assert (refused.kind, refused.squares, refused.trustable) == ("wrong size", ("b1", "a1"), True)
    assert refused.finding == WRONG_FINDING


def test_a_layout_taken_on_trust_calibrates_and_the_file_says_what_it_overruled(tmp_path: Path) -> None:
    trusted = calibrate(*wrong_cup(), trust_layout=True)
    assert trusted.reference and trusted.layout_trusted
    assert trusted.overruled == (WRONG_FINDING,)
    path = tmp_path / "board.json"
    trusted.save(path)
    loaded = Calibration.load(path)
    assert loaded.layout_trusted and loaded.overruled == (WRONG_FINDING,)
    assert loaded.trust_words() == f"overruling: {WRONG_FINDING}"
    data = json.loads(path.read_text())
    del data["overruled"]  # a file from before the findings were kept
    assert Calibration.from_json(data).trust_words() == "what it overruled was not recorded"
    del data["layout_trusted"]  # a file from before the field
    assert not Calibration.from_json(data).layout_trusted
    assert Calibration.from_json(data).trust_words() is None


def test_a_file_whose_findings_are_not_lines_is_refused(tmp_path: Path) -> None:
    data = calibrate(*wrong_cup(), trust_layout=True).to_json()
    data["overruled"] = [3]
    with pytest.raises(CompanionError, match="overruled findings are not a list of lines"):
        Calibration.from_json(data)


def test_a_right_reference_on_trust_overrules_nothing_and_calibrates_as_checked() -> None:
    """bench-11's own reference: trust changes only what the file says of it."""
    folder = BENCH_11_WRONG.parents[1] / "bench-11" / "frames"
    frames = read_image(folder / "00-empty.jpg"), read_image(folder / "01-reference.jpg")
    checked, trusted = calibrate(*frames), calibrate(*frames, trust_layout=True)
    assert (checked.overruled, checked.trust_words()) == (None, None)
    assert (trusted.overruled, trusted.trust_words()) == ((), "no check refused it")
    assert same_models(checked, trusted)


def test_on_trust_a_doubtful_cup_whose_outline_stands_is_taken_as_there() -> None:
    """bench-34-wrong-cup-b (a white 1 on b1 for the 2): the right white 1 on a1 sums to no clear
    cup, but its outline stands out (``EDGE_ALONE``), so the slip beside it is named, a refusal
    the user may overrule; on trust a1's cup is taken as there and the frame calibrates (here,
    the user insisting on a real slip: what they vouch for is theirs to vouch for)."""
    folder = Path(__file__).resolve().parents[1] / "data" / "wrongcup" / "bench-34-wrong-cup-b"
    frames = read_image(folder / "00-empty.jpg"), read_image(folder / "01-reference.jpg")
    refused = refusal(*frames)
    assert (refused.kind, refused.squares, refused.trustable) == ("wrong size", ("b1", "a1"), True)
    trusted = calibrate(*frames, trust_layout=True)
    assert trusted.layout_trusted
    assert trusted.overruled == (WRONG_FINDING,)  # found by both checks, said once


def test_a_square_without_a_cup_is_refused_even_on_trust() -> None:
    for trust_layout in (False, True):
        refused = refusal(*cup_left_off(), trust_layout=trust_layout)
        assert str(refused).startswith("reference frame: no clear white size-2 cup on b1; ")
        assert (refused.kind, refused.squares, refused.trustable) == ("missing cup", ("b1",), False)


def test_trust_without_a_reference_frame_trusts_nothing() -> None:
    assert not calibrate(wrong_cup()[0], trust_layout=True).layout_trusted


def test_the_cli_says_once_how_to_insist_and_read_says_it_was_insisted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "board.json"
    frames = [
        "--empty",
        str(BENCH_11_WRONG / "00-empty.jpg"),
        "--reference",
        str(BENCH_11_WRONG / "01-reference.jpg"),
    ]
    assert main(["calibrate", *frames, "--out", str(out)]) == 2
    said = capsys.readouterr().err.splitlines()
    assert said == [f"gobblet-companion: {WRONG_LINE}; if the cups already stand so, add --cups-as-set-out"]
    assert not out.exists()
    assert main(["calibrate", *frames, "--out", str(out), "--cups-as-set-out"]) == 0
    said = capsys.readouterr().out.splitlines()
    assert f"--cups-as-set-out: the reference layout was taken on trust, overruling: {WRONG_FINDING}" in said
    assert main(["read", "--calibration", str(out), str(BENCH_11_WRONG / "01-reference.jpg")]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == (
        f"{out}: the reference layout was taken on trust (calibrate --cups-as-set-out), overruling: "
        f"{WRONG_FINDING}"
    )


def test_the_cli_offers_no_insisting_where_it_would_not_help(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty, reference = cup_left_off()
    names = [str(tmp_path / "empty.png"), str(tmp_path / "reference.png")]
    assert cv2.imwrite(names[0], empty) and cv2.imwrite(names[1], reference)
    args = ["calibrate", "--empty", names[0], "--reference", names[1], "--out", str(tmp_path / "b.json")]
    for insist in ([], ["--cups-as-set-out"]):
        assert main([*args, *insist]) == 2
        said = capsys.readouterr().err.splitlines()
        assert len(said) == 1 and "no clear white size-2 cup on b1" in said[0]
        assert "--cups-as-set-out" not in said[0]
