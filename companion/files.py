"""Writing a file so that a power cut never leaves half of it.

The device rewrites its calibration while a game is played (what the reader learned) and its
list of paired browsers; a Pi is unplugged, not shut down. A file written in place and cut
short would be refused at the next start (the calibration moved aside, "calibrate me"), so
every such file is written beside its place, flushed to the disk and renamed over the old one:
at every instant the path holds the old file or the new one, whole."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_text_atomically(path: Path, text: str, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``text`` (UTF-8) in one rename; ``mode`` sets its permissions
    before it takes the path's place. Raises ``OSError``: the caller says what it was writing."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
