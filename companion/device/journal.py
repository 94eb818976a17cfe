"""Log lines the journal files under their priority.

journald reads a ``<N>`` at the start of each line a service writes to stdout/stderr as the
line's syslog priority (``SyslogLevelPrefix=`` is on by default). Without it every line is
"info", and ``journalctl -p warning -u gobblet-companion`` finds nothing, not even the error
that says the disk is full. A traceback spans lines, so every line carries the prefix.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

PRIORITIES = ((logging.CRITICAL, 2), (logging.ERROR, 3), (logging.WARNING, 4), (logging.INFO, 6))
DEBUG_PRIORITY = 7


def priority(level: int) -> int:
    """The syslog priority of a logging level: critical 2, error 3, warning 4, info 6, debug 7."""
    return next((number for threshold, number in PRIORITIES if level >= threshold), DEBUG_PRIORITY)


class JournalFormatter(logging.Formatter):
    """``<priority>`` before every line of a record (the journal adds the time and the name)."""

    def __init__(self, fmt: str = "%(message)s") -> None:
        super().__init__(fmt)

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{priority(record.levelno)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines() or [""])


def under_journal(environ: Mapping[str, str] | None = None) -> bool:
    """systemd connected our output to the journal (it sets ``JOURNAL_STREAM``)."""
    return bool((os.environ if environ is None else environ).get("JOURNAL_STREAM"))
