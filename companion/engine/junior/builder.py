"""Building the junior book: ``python -m companion.engine.junior --build-book [--jobs N]``.

Every position of the book is solved without a time limit, one layer of positions with the
same number of pieces at a time, the most pieces first: a placement adds a piece, so the book
already answers every placement of a position by the time it is solved, and its proofs stop
there. The positions of a layer are shared among N forked processes.
"""

from __future__ import annotations

import argparse
import sys
import time as _time
from collections.abc import Callable, Iterator
from pathlib import Path

from companion.engine.junior.bits import canonical, pack, piece_count, unpack
from companion.engine.junior.book import BOOK_PATH, BOOK_PIECES, Book, book_positions, write_book
from companion.engine.junior.solver import JuniorAnswer, JuniorSolver
from companion.rules import PRESETS, Position

BUILD_CHUNK = 25  # positions handed to a build process at a time


def build_book(
    book: Book, max_pieces: int, jobs: int = 1, progress: Callable[[int, int], None] | None = None
) -> Book:
    """Solve every position (up to symmetry) with at most ``max_pieces`` pieces on the
    board into ``book`` (and return it), one layer at a time (see the module docstring)."""
    todo = book_positions(max_pieces)
    layers: dict[int, list[int]] = {}
    for ck in todo:
        layers.setdefault(piece_count(ck), []).append(ck)
    done = 0
    for pieces in sorted(layers, reverse=True):
        chunks = [layers[pieces][i : i + BUILD_CHUNK] for i in range(0, len(layers[pieces]), BUILD_CHUNK)]
        for entries in _map_chunks(book, chunks, jobs):
            for ck, value, distance, child in entries:
                book[ck] = (value, distance, child)
            done += len(entries)
            if progress is not None:
                progress(done, len(todo))
    return book


_worker: JuniorSolver | None = None  # a build process's solver, kept for all its chunks of a layer


def _start_worker(book: Book) -> None:
    global _worker
    _worker = JuniorSolver()
    _worker.book = book


def _solve_chunk(chunk: list[int]) -> list[tuple[int, str, int, int]]:
    """Book entries for canonical keys: (key, value, distance or horizon, child's key)."""
    assert _worker is not None
    out = []
    for ck in chunk:
        position = unpack(ck)
        answer = _worker.solve(position)
        if answer.value is None or answer.code is None:  # without a time limit every value is proven
            raise RuntimeError(f"the book's position {position.text()} was not settled")
        position.push_code(answer.code)
        out.append((ck, answer.value, answer.distance or answer.horizon, canonical(pack(position))))
    return out


def _map_chunks(book: Book, chunks: list[list[int]], jobs: int) -> Iterator[list[tuple[int, str, int, int]]]:
    """The entries of each chunk as it is done, in this process or in ``jobs`` others."""
    if jobs <= 1:
        _start_worker(book)
        yield from map(_solve_chunk, chunks)
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs, _start_worker, (book,)) as pool:
        yield from pool.imap_unordered(_solve_chunk, chunks)


def _progress(done: int, total: int) -> None:
    width = 40
    filled = width * done // total
    sys.stderr.write(f"\rjunior book [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def main(argv: list[str]) -> int:
    """``python -m companion.engine.junior``: the solved opening (every first move's value,
    solved without the book), or ``--build-book`` to rebuild the shipped book."""
    parser = argparse.ArgumentParser(
        prog="python -m companion.engine.junior",
        description="The solved junior opening, or --build-book to rebuild the shipped book.",
    )
    parser.add_argument(
        "--build-book",
        action="store_true",
        help=f"solve every position with at most {BOOK_PIECES} pieces on the board and write the book",
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes that share the build (default 1)")
    parser.add_argument(
        "--out", type=Path, default=BOOK_PATH, help="where the book goes (default: the shipped one)"
    )
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be 1 or more")
    if args.build_book:
        t0 = _time.perf_counter()
        count = write_book(build_book({}, BOOK_PIECES, args.jobs, _progress), args.out)
        print(f"{count} positions in {_time.perf_counter() - t0:.0f} s -> {args.out}")
        return 0
    _show_opening()
    return 0


def _show_opening() -> None:
    solver = JuniorSolver()
    start = Position(PRESETS["junior"])
    t0 = _time.perf_counter()
    answer = solver.solve(start)
    seconds = _time.perf_counter() - t0
    move = _move_text(start, answer)
    print(f"start: {answer.value} in {answer.distance} plies, play {move} ({seconds:.1f} s)")
    for code in start.legal_codes():
        t0 = _time.perf_counter()
        start.push_code(code)
        reply = solver.solve(start)
        move = _move_text(start, reply)
        start.pop_code()
        print(
            f"{start.move_from_code(code)}: second player {reply.value} in {reply.distance} "
            f"(reply {move}, {_time.perf_counter() - t0:.2f} s)"
        )


def _move_text(position: Position, answer: JuniorAnswer) -> str:
    return "none" if answer.code is None else position.move_from_code(answer.code).text()
