"""Journal priorities (issue 12, defect 11): under systemd every line the device logs starts
with its syslog priority, so ``journalctl -p warning`` finds the warnings and errors."""

from __future__ import annotations

import logging
import sys

from companion.cli.run import setup_logging
from companion.device.journal import JournalFormatter, priority, under_journal


def record(level: int, message: str, exc_info=None) -> logging.LogRecord:
    return logging.LogRecord("gobblet-companion", level, __file__, 1, message, None, exc_info)


def test_each_level_has_its_syslog_priority():
    assert [priority(level) for level in (50, 40, 30, 20, 10)] == [2, 3, 4, 6, 7]


def test_every_line_of_a_traceback_carries_the_priority():
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        text = JournalFormatter().format(record(logging.ERROR, "the referee failed", sys.exc_info()))
    lines = text.splitlines()
    assert len(lines) > 3 and all(line.startswith("<3>") for line in lines)
    assert lines[0] == "<3>the referee failed" and lines[-1] == "<3>RuntimeError: boom"


def test_under_journal_only_when_systemd_says_so():
    assert under_journal({"JOURNAL_STREAM": "8:12345"})
    assert not under_journal({})


def test_run_under_systemd_prefixes_its_lines(monkeypatch, capsys):
    """``run``'s logging with JOURNAL_STREAM set, as systemd starts it: a warning line is <4>."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    monkeypatch.setenv("JOURNAL_STREAM", "8:1")
    try:
        setup_logging(verbose=False, simulate=False)
        logging.getLogger("gobblet-companion").info("started")
        logging.getLogger("gobblet-companion").warning("camera lost")
    finally:
        root.handlers[:], root.level = saved
    assert capsys.readouterr().err.splitlines() == ["<6>started", "<4>camera lost"]
