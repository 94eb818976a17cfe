"""Variants: every preset of docs/rules.md, each built from the same small set of switches.

A variant is written as a spec string, ``NAME`` or ``NAME:key=value,...``, for example
``classic``, ``storer:stacks=543.543.543`` or ``classic:size=5,touch=off``. The spec is what
position strings and game records carry, so it round-trips exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cached_property
from typing import TypedDict

from companion.errors import CompanionError
from companion.rules.square import MAX_BOARD_SIZE

Stack = tuple[int, ...]  # sizes of an external stack, top first: (4, 3, 2, 1)


class GobbleRule(StrEnum):
    """When a piece taken from an external stack may cover a piece on the board."""

    THREAT_LINE = "threat-line"  # only an opponent piece that is one of W-1 opponent tops in a line
    STORER = "storer"  # any non-empty square on a line with W-1 opponent tops
    ALWAYS = "always"
    NEVER = "never"


class VariantError(CompanionError, ValueError):
    """An unknown variant name or a switch that does not parse."""


@dataclass(frozen=True)
class Variant:
    name: str
    size: int = 4
    win_length: int = 4
    stacks: tuple[Stack, ...] = ((4, 3, 2, 1),) * 3
    any_order: bool = False
    gobble_rule: GobbleRule = GobbleRule.THREAT_LINE
    touch_rule: bool = True

    def __post_init__(self) -> None:
        if not 2 <= self.size <= MAX_BOARD_SIZE:
            raise VariantError(f"board size {self.size} is outside 2..{MAX_BOARD_SIZE}")
        if not 2 <= self.win_length <= self.size:
            raise VariantError(f"win length {self.win_length} must be 2..{self.size} (the board size)")
        if not self.stacks or not all(self.stacks):
            raise VariantError("every player needs at least one non-empty external stack")
        for stack in self.stacks:
            if (
                any(not 1 <= s <= 9 for s in stack)
                or list(stack) != sorted(stack, reverse=True)
                or len(set(stack)) != len(stack)
            ):
                raise VariantError(
                    f"external stack {stack_digits(stack)} must hold distinct sizes 1..9, largest on top"
                )

    @property
    def max_piece(self) -> int:
        """The largest cup size in play (S)."""
        return max(max(stack) for stack in self.stacks)

    @property
    def pieces_per_player(self) -> int:
        return sum(len(stack) for stack in self.stacks)

    @cached_property
    def spec(self) -> str:
        """The text that rebuilds this variant with ``Variant.from_spec``. Cached (the variant
        is frozen): every position text starts with it, and the referee writes one per event."""
        base = PRESETS.get(self.name)
        if base is None:
            base = PRESETS["classic"]
        changes = [
            f"{key}={value}" for key, value in self._switches().items() if base._switches()[key] != value
        ]
        name = self.name if self.name in PRESETS else "classic"
        return name + (":" + ",".join(changes) if changes else "")

    def _switches(self) -> dict[str, str]:
        return {
            "size": str(self.size),
            "win": str(self.win_length),
            "stacks": ".".join(stack_digits(s) for s in self.stacks),
            "order": "any" if self.any_order else "top",
            "gobble": str(self.gobble_rule),
            "touch": "on" if self.touch_rule else "off",
        }

    @classmethod
    def from_spec(cls, spec: str) -> Variant:
        """Parse ``NAME`` or ``NAME:key=value,...`` (keys: size win stacks order gobble touch)."""
        name, _, switches = spec.strip().partition(":")
        name = name.strip().lower()
        if name not in PRESETS:
            raise VariantError(f"unknown variant {spec!r}: choose one of {', '.join(PRESETS)}")
        variant = PRESETS[name]
        if not switches:
            return variant
        fields: Switches = {}
        seen: set[str] = set()
        for item in switches.split(","):
            key, eq, value = item.partition("=")
            if not eq:
                raise VariantError(f"variant switch {item!r} is not key=value")
            key = key.strip().lower()
            if key in seen:
                raise VariantError(f"variant switch {key!r} is given twice in {spec!r}")
            seen.add(key)
            fields.update(_parse_switch(key, value.strip().lower()))
        if "size" in fields and "win_length" not in fields:
            fields["win_length"] = min(variant.win_length, fields["size"])
        return replace(variant, **fields)


def stack_digits(stack: Stack) -> str:
    """A stack as its sizes, top first, as texts write it: ``4321``."""
    return "".join(str(s) for s in stack)


def _digits(text: str) -> bool:
    """Plain ASCII digits: ``int()`` also takes "٤", "+4" and "4_0", which a spec never holds."""
    return text.isascii() and text.isdigit()


def _number(value: str) -> int:
    if not _digits(value):
        raise ValueError(value)
    return int(value)


def _parse_stacks(value: str) -> tuple[Stack, ...]:
    if not value or not all(_digits(part) for part in value.split(".")):
        raise VariantError(f"stacks {value!r} must be digits top first, stacks separated by dots")
    return tuple(tuple(int(c) for c in part) for part in value.split("."))


def _either(key: str, value: str, yes: str, no: str) -> bool:
    """A two-way switch's value (``order=any|top``, ``touch=on|off``): whether it is ``yes``;
    anything but the two is an error that names both."""
    if value not in (yes, no):
        raise VariantError(f"{key} must be {yes} or {no}, not {value!r}")
    return value == yes


class Switches(TypedDict, total=False):
    """The fields of ``Variant`` a spec's switches change."""

    size: int
    win_length: int
    stacks: tuple[Stack, ...]
    any_order: bool
    gobble_rule: GobbleRule
    touch_rule: bool


def _parse_switch(key: str, value: str) -> Switches:
    try:
        if key == "size":
            return {"size": _number(value)}
        if key == "win":
            return {"win_length": _number(value)}
        if key == "stacks":
            return {"stacks": _parse_stacks(value)}
        if key == "order":
            return {"any_order": _either(key, value, "any", "top")}
        if key == "gobble":
            return {"gobble_rule": GobbleRule(value)}
        if key == "touch":
            return {"touch_rule": _either(key, value, "on", "off")}
    except ValueError as error:
        if isinstance(error, VariantError):
            raise
        raise VariantError(f"bad value {value!r} for variant switch {key!r}") from None
    raise VariantError(f"unknown variant switch {key!r}: use size, win, stacks, order, gobble, touch")


CLASSIC = Variant("classic")
PRESETS: dict[str, Variant] = {
    "classic": CLASSIC,
    # Gobblet Jr.: no stacks, 2 pieces of each of 3 sizes, any may be played (002's 3x3 rules).
    "junior": Variant(
        "junior",
        size=3,
        win_length=3,
        stacks=((3, 2, 1), (3, 2, 1)),
        any_order=True,
        gobble_rule=GobbleRule.ALWAYS,
        touch_rule=False,
    ),
    "moku": Variant(
        "moku",
        size=8,
        win_length=5,
        stacks=((5, 4, 3, 2, 1),) * 5,
        gobble_rule=GobbleRule.STORER,
        touch_rule=True,
    ),
    "storer": Variant("storer", gobble_rule=GobbleRule.STORER),
    "rogers": Variant("rogers", gobble_rule=GobbleRule.ALWAYS, touch_rule=False),
}
VARIANT_NAMES: tuple[str, ...] = tuple(PRESETS)
