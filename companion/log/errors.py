"""What can go wrong with the game log, as one ``LogError`` subclass a cause.

The device degrades differently for each (a full disk keeps the game in memory, a damaged
file is moved aside, a newer schema stops the program), so each cause is its own class and
``log_error`` turns SQLite's and the OS's errors into the one that says what really happened.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from companion.errors import CompanionError


class LogError(CompanionError):
    """The game log cannot be used; the subclass says why, the message what to do."""


class LogDamagedError(LogError):
    """The file is not a readable SQLite database any more (or fails its integrity check)."""


class LogReadOnlyError(LogError):
    """The file or its folder cannot be written (a read-only mount, or permissions)."""


class LogFullError(LogError):
    """The disk holding the log is full."""


class LogNewerError(LogError):
    """The log was written by a newer version of the program."""


class UnreplayableGameError(LogError):
    """A stored game whose moves no longer replay (hand-edited, or from a buggy version)."""


def folder_read_only(path: Path) -> bool:
    """The folder holding ``path`` is on a read-only mount or cannot be written by us."""
    folder = path.parent if path.parent.exists() else Path(path.anchor or ".")
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return True
    except OSError:
        return False
    return not os.access(folder, os.W_OK)


def log_error(path: Path, error: BaseException, doing: str) -> LogError:
    """What really went wrong with the log at ``path``, as the ``LogError`` that says it: a full
    disk and a read-only folder are not a damaged log, and must not be reported as one."""
    name = str(getattr(error, "sqlite_errorname", "") or "")
    number = getattr(error, "errno", None)
    text = str(error)
    if name.startswith("SQLITE_FULL") or number == errno.ENOSPC or "disk is full" in text:
        return LogFullError(
            f"the disk holding the game log {path} is full ({doing}): free some space; the log is kept"
        )
    if (
        name.startswith("SQLITE_READONLY")
        or number in (errno.EROFS, errno.EACCES, errno.EPERM)
        or (name.startswith("SQLITE_CANTOPEN") and folder_read_only(path))
    ):
        return LogReadOnlyError(
            f"the game log {path} cannot be written ({doing}): its disk or folder is read-only "
            "(mounted read-only, or the wrong owner)"
        )
    if name in ("SQLITE_CORRUPT", "SQLITE_NOTADB") or "malformed" in text or "not a database" in text:
        return LogDamagedError(
            f"the game log {path} is damaged ({text}); move it aside and a new one is made"
        )
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return LogError(f"the game log {path} is locked by another program ({doing}): try again")
    if name.startswith("SQLITE_IOERR") or number == errno.EIO:
        return LogError(
            f"input/output error on the disk holding the game log {path} ({doing}): check the SD card"
        )
    return LogError(f"game log {path} ({doing}): {text}")
