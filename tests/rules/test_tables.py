"""The rules' caches stay bounded without ever clearing themselves at once: a full clear of a
100,000-entry cache took about 30 ms inside one of the referee's readings."""

from __future__ import annotations

import pytest

from companion.rules import PRESETS, Position
from companion.rules import tables as tables_module
from companion.rules.tables import BoundedCache, tables_for


def test_a_full_cache_forgets_only_its_oldest_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables_module, "CACHE_LIMIT", 3)
    cache: BoundedCache[int, str] = BoundedCache()
    for key in range(3):
        assert cache.remember(key, str(key)) == str(key)
    assert cache.remember(3, "3") == "3"
    assert list(cache.items()) == [(1, "1"), (2, "2"), (3, "3")]
    cache.remember(4, "4")
    assert list(cache) == [2, 3, 4]


def test_move_generation_is_the_same_with_its_caches_at_their_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    variant = PRESETS["classic"]
    position = Position(variant)
    for _ in range(3):
        position.push_code(position.legal_codes()[-1])
    expected = position.legal_codes()
    tables = tables_for(variant)
    monkeypatch.setattr(tables_module, "CACHE_LIMIT", 2)
    monkeypatch.setattr(tables, "codes", BoundedCache())
    monkeypatch.setattr(tables, "squares", BoundedCache())
    assert position.legal_codes() == expected
    assert len(tables.codes) <= 2 and len(tables.squares) <= 2
    assert position.legal_codes() == expected
