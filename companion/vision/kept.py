"""What a reader made lately, kept by key: asked for again under the same key, the one kept
serves, with whatever it worked out since (its lookup tables, its cached maps).

A learning step gives the reader a new calibration (``BoardReader.adopt``), and the reader made
every model of it again, the parts learning left as they were too. Each reader keeps its own,
a few at most: a device runs for months, and nothing kept outlives the reader or passes to
another one."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
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
        return self.get_all([key], lambda _: [make()])[0]

    def get_all(self, keys: Sequence[K], make: Callable[[list[K]], list[V]]) -> list[V]:
        """``get`` for many keys at once: the values under ``keys``, in their order, those not
        kept made together (``make`` is given each such key once, in the order first asked,
        and returns their values in that order; it is not called when every one is kept).
        Each is answered even when more keys are asked for than ``size`` allows to keep: the
        silhouettes (``templates.Silhouettes``) are drawn many at a time, each cheaper so."""
        kept = self._kept
        new = list(dict.fromkeys(key for key in keys if key not in kept))
        if new:
            kept.update(zip(new, make(new), strict=True))
        values = []
        for key in keys:  # each asked for now the latest, in the order asked
            value = kept[key] = kept.pop(key)
            values.append(value)
        self._trim()
        return values

    def put(self, pairs: Iterable[tuple[K, V]]) -> None:
        """Keep each value under its key from now on: in the place of the one kept there (as
        lately asked for), else as the latest."""
        self._kept.update(pairs)
        self._trim()

    def _trim(self) -> None:
        """Beyond ``size``, the least lately asked for dropped."""
        while len(self._kept) > self._size:
            del self._kept[next(iter(self._kept))]

    def __len__(self) -> int:
        return len(self._kept)
