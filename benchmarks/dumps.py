"""What the behaviour dumps (``event_dump.py``, ``search_dump.py``) share: writing their lines
to a file and the short digest of it that a commit message can quote."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path


def write_lines(path: Path, lines: Iterable[str]) -> str:
    """Write ``lines`` to ``path``, one a line; return the first 16 hex digits of its sha256."""
    digest = hashlib.sha256()
    with path.open("w", encoding="utf-8") as out:
        for line in lines:
            out.write(line + "\n")
            digest.update(line.encode() + b"\n")
    return digest.hexdigest()[:16]
