"""Files the device rewrites while it runs (the calibration it learns into, the camera's
settings, the paired browsers) are replaced whole or not at all."""

from __future__ import annotations

import os
import stat

import pytest

from companion.files import write_text_atomically


def test_a_write_replaces_the_file_and_sets_its_mode(tmp_path):
    path = tmp_path / "deep" / "settings.json"
    write_text_atomically(path, "first\n")
    write_text_atomically(path, "second\n", mode=0o600)
    assert path.read_text(encoding="utf-8") == "second\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_a_write_cut_short_leaves_the_old_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "calibration.json"
    path.write_text("old, whole\n", encoding="utf-8")

    def power_cut(*args: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", power_cut)
    with pytest.raises(OSError):
        write_text_atomically(path, "new\n")
    assert path.read_text(encoding="utf-8") == "old, whole\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calibration.json"]
