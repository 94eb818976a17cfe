"""What a reader made lately, kept by key: asked for again under the same key, the one kept
serves, with whatever it worked out since (its lookup tables, its cached maps).

A learning step gives the reader a new calibration (``BoardReader.adopt``), and the reader made
every model of it again, the parts learning left as they were too. Each reader keeps its own,
a few at most: a device runs for months, and nothing kept outlives the reader or passes to
another one."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """The values last asked for, at most ``size``, by key."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._kept: dict[K, V] = {}  # the latest asked for last

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value kept under ``key``, else ``make()``'s, kept from now on; beyond ``size``
        the least lately asked for is dropped."""
        value = self._kept.pop(key) if key in self._kept else make()
        self._kept[key] = value
        while len(self._kept) > self._size:
            del self._kept[next(iter(self._kept))]
        return value

    def __len__(self) -> int:
        return len(self._kept)
