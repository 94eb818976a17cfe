"""The junior book: every position with at most ``BOOK_PIECES`` pieces on the board, solved
(value, distance, the canonical key of a child that keeps the value), shipped as gzipped JSON.

Why a book: with few pieces on the board the wins are longest and the draws most common, so
those are the positions a 1-second proof search cannot settle; with more pieces, wins are
short and the proof searches answer in well under a second. ``builder.py`` makes it.
"""

from __future__ import annotations

import gzip
import json
from functools import lru_cache
from pathlib import Path
from typing import TypeAlias

from companion.engine.junior.bits import HAS_LINE, PIECES_PER_SIZE, POP, canonical

BOOK_PATH = Path(__file__).resolve().parent.parent / "data" / "junior_book.json.gz"
BOOK_PIECES = 4  # the book holds every position with at most this many pieces on the board
BOOK_VERSION = 3
BookEntry: TypeAlias = tuple[str, int, int]  # (value, distance or horizon, child's canonical key)
Book: TypeAlias = dict[int, BookEntry]  # canonical key -> entry


def load_book(path: Path = BOOK_PATH) -> Book:
    """The book in ``path``; empty when there is no such file (a solver without a book is
    slower on the first moves, not wrong)."""
    if not path.exists():
        return {}
    data = json.loads(gzip.decompress(path.read_bytes()))
    return {int(key): (value, distance, int(child)) for key, value, distance, child in data["entries"]}


def shipped_book(path: Path = BOOK_PATH) -> Book:
    """``load_book(path)``, read once per process and the same dict for every solver after
    that (decoding it takes about a tenth of a second here, a second on a Pi, and a device
    makes a solver for every junior game). Solvers only read their book: it must not be
    changed. A rewritten file (``builder.py``) is read again."""
    try:
        stamp = path.stat()
    except OSError:
        return {}
    return _book_as_of(path, stamp.st_mtime_ns, stamp.st_size)


@lru_cache(maxsize=2)
def _book_as_of(path: Path, mtime_ns: int, size: int) -> Book:
    return load_book(path)


def write_book(book: Book, path: Path = BOOK_PATH) -> int:
    """Write ``book`` to ``path`` byte for byte reproducibly (sorted, no time stamp); returns
    how many entries it holds."""
    path.parent.mkdir(exist_ok=True)
    entries = sorted([key, *entry] for key, entry in book.items())
    text = json.dumps(
        {"version": BOOK_VERSION, "pieces": BOOK_PIECES, "entries": entries}, separators=(",", ":")
    )
    path.write_bytes(gzip.compress(text.encode(), 9, mtime=0))
    return len(entries)


def book_positions(max_pieces: int) -> list[int]:
    """Every game position with at most ``max_pieces`` pieces on the board, canonical, the
    most pieces first: no line shows (the game would be over), and a side with no piece on
    the board is the first player before its first move (the opponent has one piece at most)."""
    per_size: dict[int, list[tuple[int, int]]] = {}
    few = [m for m in range(512) if POP[m] <= PIECES_PER_SIZE]
    for a in few:
        for b in few:
            if not a & b:
                per_size.setdefault(POP[a] + POP[b], []).append((a, b))
    keys = set()
    for n1, n2, n3 in _splits(max_pieces):
        for a1, b1 in per_size[n1]:
            for a2, b2 in per_size[n2]:
                for a3, b3 in per_size[n3]:
                    o3 = a3 | b3
                    o23 = o3 | a2 | b2
                    if HAS_LINE[a3 | a2 & ~o3 | a1 & ~o23] or HAS_LINE[b3 | b2 & ~o3 | b1 & ~o23]:
                        continue
                    mine, theirs = a1 | a2 << 9 | a3 << 18, b1 | b2 << 9 | b3 << 18
                    if (mine or theirs.bit_count() > 1) and not (mine and theirs):
                        continue
                    keys.add(canonical(mine | theirs << 27))
    return sorted(keys, key=lambda k: (-k.bit_count(), k))


def _splits(total: int) -> list[tuple[int, int, int]]:
    """Piece counts per size (small, medium, large), each 0..4, adding up to at most ``total``."""
    top = 2 * PIECES_PER_SIZE
    return [
        (a, b, c)
        for a in range(top + 1)
        for b in range(top + 1)
        for c in range(top + 1)
        if a + b + c <= total
    ]
