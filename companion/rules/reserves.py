"""External stacks: their canonical form, the placements they allow, and the interned table
the fast interface looks them up in.

A player's external stacks (a ``Reserve``) are a tuple of stacks, each a tuple of sizes top
first. Equal positions must have equal reserves, so they are kept canonical: stacks sorted,
empty ones dropped, and in ``order=any`` variants pooled into one stack.

**Interning.** Every reserve met is given a small int id, once per process, and the tables
below are indexed by that id: its placements, its hash keys, and (filled in as they are
needed) the reserve each placement leaves. A ``Position`` keeps one id per player, so a
placement finds its new reserve and the hash change with a list index and a dict look-up
instead of building and hashing nested tuples. The tables only grow (a few thousand entries
for the stack sets of every variant); ids are the same for every position and thread of the
process. Read them freely; only ``reserve_id`` and ``take`` add to them.
"""

from __future__ import annotations

import threading
from functools import cache
from typing import TypeAlias

from companion.rules.codes import PLACEMENT_SHIFT, SIZE_MASK, STACK_SHIFT
from companion.rules.geometry import reserve_key
from companion.rules.square import BLACK, WHITE
from companion.rules.variant import Stack

Reserve: TypeAlias = tuple[Stack, ...]  # one player's external stacks in canonical order
ReserveId: TypeAlias = int
PlacementOption: TypeAlias = tuple[int, int, bool]  # (size, stack index, stack must be named)
Take: TypeAlias = tuple[ReserveId, int, int]  # (reserve left, white's hash change, black's)


def canonical_reserve(stacks: Reserve, any_order: bool) -> Reserve:
    """Equal positions must have equal reserves: sort stacks, drop empties; pool if any order."""
    if any_order:
        pool = tuple(sorted((s for stack in stacks for s in stack), reverse=True))
        return (pool,) if pool else ()
    return tuple(sorted((stack for stack in stacks if stack), reverse=True))


@cache
def placement_options(reserve: Reserve, any_order: bool) -> tuple[PlacementOption, ...]:
    """Distinct placements from these stacks: (size, stack index, stack must be named)."""
    if any_order:
        return tuple((s, 0, False) for s in sorted(set(reserve[0]), reverse=True)) if reserve else ()
    distinct = [(i, stack) for i, stack in enumerate(reserve) if i == 0 or reserve[i - 1] != stack]
    tops = [stack[0] for _, stack in distinct]
    return tuple((stack[0], i, tops.count(stack[0]) > 1) for i, stack in distinct)


@cache
def take_from_reserve(reserve: Reserve, stack_index: int, size: int, any_order: bool) -> Reserve:
    """The reserve left once ``size`` is taken from stack ``stack_index``."""
    if any_order:
        pool = list(reserve[0])
        pool.remove(size)
        return (tuple(pool),) if pool else ()
    stacks = list(reserve)
    stacks[stack_index] = stacks[stack_index][1:]
    return canonical_reserve(tuple(stacks), False)


# ----- the interned table ----------------------------------------------------------------

RESERVE_IDS: dict[tuple[Reserve, bool], ReserveId] = {}  # (reserve, any order) -> id
RESERVES: list[Reserve] = []  # id -> the reserve (the interned tuple)
RESERVE_ANY_ORDER: list[bool] = []  # id -> whether its variant takes pieces in any order
RESERVE_KEYS: list[tuple[int, int]] = []  # id -> (white's hash key, black's hash key)
PLACEMENT_OPTIONS: list[tuple[PlacementOption, ...]] = []  # id -> placement_options
TAKES: list[dict[int, Take]] = []  # id -> {placement_key(code): what the placement leaves}
_LOCK = threading.Lock()


def reserve_id(reserve: Reserve, any_order: bool) -> ReserveId:
    """The id of a canonical reserve, interning it the first time it is met."""
    rid = RESERVE_IDS.get((reserve, any_order))
    if rid is None:
        with _LOCK:  # positions may be made in several threads (search, device)
            rid = RESERVE_IDS.get((reserve, any_order))
            if rid is None:
                rid = len(RESERVES)
                RESERVES.append(reserve)
                RESERVE_ANY_ORDER.append(any_order)
                RESERVE_KEYS.append((reserve_key(WHITE, reserve), reserve_key(BLACK, reserve)))
                PLACEMENT_OPTIONS.append(placement_options(reserve, any_order))
                TAKES.append({})
                RESERVE_IDS[(reserve, any_order)] = rid  # last: the id is usable once published
    return rid


def take(rid: ReserveId, placement: int) -> Take:
    """What a placement (``placement`` = ``codes.placement_key(code)``: size and stack index)
    leaves of reserve ``rid``: the new reserve's id and both players' hash changes. Also
    stored in ``TAKES[rid]``, where the hot loops look first:
    ``TAKES[rid].get(key) or take(rid, key)``."""
    reserve, any_order = RESERVES[rid], RESERVE_ANY_ORDER[rid]
    stack_index, size = placement >> STACK_SHIFT - PLACEMENT_SHIFT, placement & SIZE_MASK
    new = reserve_id(take_from_reserve(reserve, stack_index, size, any_order), any_order)
    old_keys, new_keys = RESERVE_KEYS[rid], RESERVE_KEYS[new]
    entry = (new, old_keys[WHITE] ^ new_keys[WHITE], old_keys[BLACK] ^ new_keys[BLACK])
    TAKES[rid][placement] = entry
    return entry
