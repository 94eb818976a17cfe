"""A learning step draws each silhouette once: the step's scene keeps those it drew
(``BoardScene.drawn``), and the reader's bank, built again when a size moved, takes the
silhouettes of the cups that did not from the bank before (``build_bank``'s ``before``). Either
way the same numbers as drawn afresh, kept in one store (``templates.Silhouettes``), no more
than its bound."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from companion.vision import templates
from companion.vision.calibration import Adaptation, BoardScene
from companion.vision.reader import BoardReader
from companion.vision.templates import DrawnCup, Silhouettes, TemplateBank, build_bank
from tests.shared_calibrations import bench_calibration

FIELDS = ("full", "flat", "support", "masks", "areas", "weight", "top", "left", "support_centre")


def same_banks(a: TemplateBank, b: TemplateBank) -> bool:
    return (a.offset, a.pad) == (b.offset, b.pad) and all(
        np.array_equal(getattr(x, name), getattr(y, name))
        for x, y in zip(a.squares, b.squares, strict=True)
        for name in FIELDS
    )


def counting(monkeypatch: pytest.MonkeyPatch, module: object, name: str, at: int) -> list[int]:
    """How many cups each call of ``module.name`` (a drawing function, given them as its
    argument ``at``) was given, call by call."""
    calls: list[int] = []
    original = getattr(module, name)

    def counted(*args: list) -> object:
        calls.append(len(args[at]))
        return original(*args)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_bank_takes_the_cups_that_did_not_move_from_the_bank_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    c = bench_calibration("bench-08")
    before = build_bank(c.layout, c.view, c.camera.centre, c.cups)
    cups = c.cups.with_radius(0, 2, c.cups.radii[0][1] * 1.01)  # the white 2, a little larger
    fresh = build_bank(c.layout, c.view, c.camera.centre, cups)
    drawn = counting(monkeypatch, templates, "draw_many", 1)
    again = build_bank(c.layout, c.view, c.camera.centre, cups, before=before)
    assert same_banks(again, fresh)
    assert drawn == [16]  # the white 2 on each square
    assert again.drawn is before.drawn and again.drawn is not None
    assert len(again.drawn) == 16 * 8  # this bank's cups, for the next one
    sq = again.squares[0]
    frame = (sq.top, sq.left, *sq.full.shape[2:])
    white_1: DrawnCup = (0, cups.radii[0][0], cups.heights[0][0], cups.shape, frame)
    assert np.shares_memory(again.drawn.drawn([white_1])[0][2], sq.full)  # kept once: the bank's own
    assert drawn == [16]


def test_a_bank_before_on_another_camera_gives_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    c = bench_calibration("bench-08")
    before = build_bank(c.layout, c.view, c.camera.centre + np.array([1.0, 0.0, 0.0]), c.cups)
    drawn = counting(monkeypatch, templates, "draw_many", 1)
    again = build_bank(c.layout, c.view, c.camera.centre, c.cups, before=before)
    assert drawn == [16 * 8]
    assert same_banks(again, build_bank(c.layout, c.view, c.camera.centre, c.cups))


def test_the_readers_bank_after_a_size_moved_is_a_fresh_readers() -> None:
    c = bench_calibration("bench-08")
    reader = BoardReader(c)
    cups = c.cups.with_radius(1, 3, c.cups.radii[1][2] * 0.98)
    moved = replace(c, learned=Adaptation(cups=cups, pixels=c.pixels, background=c.background, frames=1))
    reader.adopt(moved)
    assert same_banks(reader.bank, BoardReader(moved).bank)


def test_a_scene_draws_each_silhouette_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same cups asked for again, alone or among others, are those drawn first (read-only,
    shared), and the same numbers as another scene draws in another company."""
    c = bench_calibration("bench-08")
    reader = BoardReader(c)
    scene = BoardScene(c.layout, c.view, reader.camera, reader.background)
    drawn = counting(monkeypatch, templates, "draw_many", 1)
    wanted = [(0, 0, 10.0), (5, 1, 12.5), (0, 0, 10.0)]
    first = scene.silhouettes(wanted, c.cups)
    assert drawn == [2]
    assert first[0] is first[2]
    again = scene.silhouettes([(5, 1, 12.5), (9, 0, 11.0)], c.cups)
    assert drawn == [2, 1]
    assert again[0] is first[1]
    assert not first[0][2].flags.writeable
    alone = BoardScene(c.layout, c.view, reader.camera, reader.background).silhouettes([wanted[1]], c.cups)[0]
    assert alone[:2] == first[1][:2] and np.array_equal(alone[2], first[1][2])


def test_a_store_keeps_no_more_than_its_bound_the_least_lately_asked_for_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    c = bench_calibration("bench-08")
    store = Silhouettes(c.layout, c.view, c.camera.centre, 2)
    a, b, d = ((row, 10.0, 12.0, c.cups.shape, None) for row in (0, 5, 9))
    drawn = counting(monkeypatch, templates, "draw_many", 1)
    first = store.drawn([a, b, a])
    store.drawn([a])  # asked for lately: b is the least lately
    third = store.drawn([d, b])  # more than it keeps: both answered, a dropped
    assert drawn == [2, 1] and third[1] is first[1] and len(store) == 2
    assert all(x is y for x, y in zip(store.drawn([b, d]), third[::-1], strict=True)) and drawn == [2, 1]
    again = store.drawn([a])[0]
    assert drawn == [2, 1, 1] and again is not first[0]
    assert again[:2] == first[0][:2] and np.array_equal(again[2], first[0][2])
