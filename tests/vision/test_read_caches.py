"""What a read keeps for later, and what must not go stale (issue 11: a read within budget).

Learning from a frame needs where its cups' bases fit (``learning.where_cups_stand``), which the reader
measured when it read that frame (``Reading.fits``): taken from the read while they still serve
(the same frame against the same empty board and edge templates), measured again once learning
has replaced the empty board. A reader that learned reads with what it learned, as a fresh
reader with that calibration does. Committed bench scene bench-08 (pale cups on maple)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from companion.rules.square import board_squares, square_name
from companion.vision import learning, matching
from companion.vision.calibration import Calibration
from companion.vision.edges import BaseFits, edge_maps
from companion.vision.learning import Learner, label
from companion.vision.reader import BoardReader
from tests.shared_calibrations import BENCH, bench_calibration, bench_frame, frame_truth

SCENE = "bench-08"
ORDER = [square_name(sq) for sq in board_squares(4)]


def truth(name: str) -> dict[int, tuple[int, int]]:
    return {ORDER.index(sq): top for sq, top in frame_truth(BENCH / SCENE / "frames", name).items()}


def text(calibration: Calibration) -> str:
    data = calibration.to_json()
    data.pop("created", None)
    return json.dumps(data, sort_keys=True)


def learn(reader: BoardReader, name: str, with_fits: bool) -> None:
    """One step learned from frame ``name`` just read, labelled with the truth; with the
    reading's base fits or without."""
    image = bench_frame(SCENE, name)
    reading = reader.read_details(image)
    fits = reading.fits if with_fits else None
    Learner(reader).learn(label(reader.rectified(image), truth(name), reading.observation, fits=fits))


def test_learning_from_a_frame_just_read_takes_its_base_fits_from_the_reading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same step learned, with no edge maps measured again (main: measured again, and
    ``label`` took no fits)."""
    measured = BoardReader(bench_calibration(SCENE))
    learn(measured, "06b-move", with_fits=False)
    reused = BoardReader(bench_calibration(SCENE))

    def refused(*_: object) -> None:
        raise AssertionError("the reading's base fits serve: no edge maps to measure again")

    monkeypatch.setattr(learning, "edge_maps", refused)
    learn(reused, "06b-move", with_fits=True)
    assert text(reused.calibration) == text(measured.calibration)


def test_base_fits_read_before_the_board_was_relearned_are_measured_again() -> None:
    """Frame 06b read, then a step learned from 08b (the empty board in use relearned), then
    06b learned from with its old reading's fits: they were measured against the old board and
    no longer serve, so the step is the one learned without them."""
    image = bench_frame(SCENE, "06b-move")
    readers = [BoardReader(bench_calibration(SCENE)) for _ in range(2)]
    old = readers[0].read_details(image)
    for reader in readers:
        learn(reader, "08b-move", with_fits=False)
    assert old.fits is not None
    assert not old.fits.serves(readers[0].rectified(image), readers[0].background, readers[0].edges)
    seen = readers[0].read(image)
    frames = [label(r.rectified(image), truth("06b-move"), seen, fits=old.fits) for r in readers]
    frames[1].fits = None
    for reader, frame in zip(readers, frames, strict=True):
        Learner(reader).learn(frame)
    assert text(readers[0].calibration) == text(readers[1].calibration)


def test_base_fits_serve_only_their_own_frame() -> None:
    """A frame differing by one pixel is another frame."""
    reader = BoardReader(bench_calibration(SCENE))
    image = bench_frame(SCENE, "06b-move")
    fits = reader.read_details(image).fits
    assert fits is not None
    rect = reader.rectified(image)
    assert fits.serves(rect, reader.background, reader.edges)
    rect[100, 100, 0] ^= 1
    assert not fits.serves(rect, reader.background, reader.edges)


def test_a_reader_that_learned_reads_as_a_fresh_reader_with_what_it_learned() -> None:
    """Whatever a reader keeps between frames (warp maps, templates, lookup tables, edge
    banks), a step of learning that changed its models leaves none of it stale."""
    reader = BoardReader(bench_calibration(SCENE))
    image = bench_frame(SCENE, "10b-move")
    before = reader.read(image).probabilities
    learn(reader, "08b-move", with_fits=True)
    after = reader.read(image).probabilities
    fresh = BoardReader(reader.calibration).read(image).probabilities
    assert text(reader.calibration) != text(bench_calibration(SCENE))  # something was learned
    np.testing.assert_array_equal(after, fresh)
    assert not np.array_equal(before, after)  # ... and it changed the reading


def test_the_silhouettes_are_drawn_again_only_when_a_size_moved() -> None:
    """Adopting models whose cups are the same keeps the silhouettes drawn (a step of learning
    that moved no size: over the committed bench's replays, 18 of 47); a size moved draws them
    again, as a fresh reader draws them."""
    calibration = bench_calibration(SCENE)
    reader = BoardReader(calibration)
    bank = reader.bank
    reader.adopt(calibration)
    assert reader.bank is bank
    radii = calibration.cups.radii
    moved = ((radii[0][0], radii[0][1], radii[0][2] * 1.05, radii[0][3]), radii[1])
    changed = dataclasses.replace(calibration, cups=dataclasses.replace(calibration.cups, radii=moved))
    reader.adopt(changed)
    assert reader.bank is not bank
    fresh = BoardReader(changed).bank
    for got, want in zip(reader.bank.squares, fresh.squares, strict=True):
        np.testing.assert_array_equal(got.full, want.full)
    image = bench_frame(SCENE, "10b-move")
    np.testing.assert_array_equal(
        reader.read(image).probabilities, BoardReader(changed).read(image).probabilities
    )


def test_a_square_whose_evidence_changed_nowhere_its_templates_weigh_keeps_its_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Matched apart from its neighbours, a square whose neighbours' silhouettes changed the
    evidence only where none of its windows read has template weight keeps its first match
    without climbing again; the matches are those of climbing every one again (main: every
    one climbed again, and ``match_all`` took no ``reads``)."""
    reader = BoardReader(bench_calibration(SCENE))
    image = bench_frame(SCENE, "16b-move")
    ev = matching.evidence(reader.rectified(image), reader.background, reader.models.pixels, reader.bank.pad)
    assert reader.edges is not None
    fits = BaseFits(edge_maps(ev.features, reader.edges.pad), reader.edges)
    climbed = matching.match_apart(
        ev, reader.bank, matching.match_all(ev, reader.bank, fits.seeds), fits.seeds
    )
    calls = {"n": 0}
    square = matching.match_square

    def counted(*args: object, **kwargs: object) -> matching.SquareMatch:
        calls["n"] += 1
        return square(*args, **kwargs)  # type: ignore[arg-type]

    reads: list[matching.Reads] = []
    first = matching.match_all(ev, reader.bank, fits.seeds, reads)
    monkeypatch.setattr(matching, "match_square", counted)
    kept = matching.match_apart(ev, reader.bank, first, fits.seeds, reads)
    found = sum(m.sizes[m.size - 1] > 0 for m in first)
    assert calls["n"] < found  # some kept without climbing: 5 of 16b's 7 cups climbed again
    for a, b in zip(climbed, kept, strict=True):
        np.testing.assert_array_equal(a.sizes, b.sizes)
        assert (a.colour, a.size, a.dy, a.dx, a.colour_log_odds) == (
            b.colour,
            b.size,
            b.dy,
            b.dx,
            b.colour_log_odds,
        )


def test_a_squares_template_union_is_made_with_its_silhouettes() -> None:
    """Where a square's templates have weight (``SquareTemplates.weight``, which
    ``match_apart`` asks whether a change concerns the square) is made with its silhouettes
    and kept with them, once per bank: a reader whose white 4s grew reads with the union of
    the grown silhouettes, never with the one before."""
    calibration = bench_calibration(SCENE)
    before = BoardReader(calibration).bank.squares
    grown = calibration.cups.with_radius(0, 4, calibration.cups.radii[0][3] * 1.15)
    after = BoardReader(dataclasses.replace(calibration, cups=grown)).bank.squares
    for old, new in zip(before, after, strict=True):
        assert np.array_equal(new.weight, new.full.any(axis=(0, 1)))
        assert new.weight.sum() > old.weight.sum()
