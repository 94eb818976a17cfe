"""Which game a spec, a position text or a record is of, and how to start one.

Each game the companion knows is one ``GameKind``: the spec names it owns, how to read a
variant spec and a position text, and how to start a position and a game. Everything that
receives a spec from a person (the commands, the engine protocol, the record reader, the game
log) asks here, so a third game is one module and one entry in ``GAMES``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.rules.cups import GAME_NAME as CUPS
from companion.rules.cups import MOVE_HELP as CUPS_MOVE_HELP
from companion.rules.cups import CupsGame, CupsMove, CupsPosition, CupsVariant
from companion.rules.cups import diagram as cups_diagram
from companion.rules.diagram import diagram
from companion.rules.game import BaseGame, Game
from companion.rules.move import Move
from companion.rules.position import Position
from companion.rules.state import GameState, GameVariant
from companion.rules.variant import PRESETS, Variant, VariantError

GOBBLET = "gobblet"
GOBBLET_MOVE_HELP = "4a1, a1-c3     play a move (placement: size and square; move: from-to)"


@dataclass(frozen=True)
class GameKind:
    """One game: its name (the records' ``Game`` tag), the spec names it owns, and how to
    build its variants, positions and games."""

    name: str
    spec_names: tuple[str, ...]
    variant_type: type
    variant_from_spec: Callable[[str], GameVariant]
    position_from_text: Callable[[str], GameState[Any]]
    start: Callable[[Any], GameState[Any]]
    new_game: Callable[[Any, Any, dict[str, str] | None], BaseGame]
    diagram: Callable[[Any], str]  # the position drawn as text for a terminal
    move_help: str  # one line of the play command's help: how moves are written


def _gobblet_start(variant: Variant) -> GameState[Move]:
    """Gobblet's start; typed as the seam's state, so mypy checks that ``Position`` is one."""
    return Position(variant)


def _cups_start(variant: CupsVariant) -> GameState[CupsMove]:
    """Cups' start; typed as the seam's state, so mypy checks that ``CupsPosition`` is one."""
    return CupsPosition(variant)


def _gobblet_game(variant: Variant, start: Position | None, headers: dict[str, str] | None) -> Game:
    return Game(variant, start=start, headers=headers)


def _cups_game(variant: CupsVariant, start: CupsPosition | None, headers: dict[str, str] | None) -> CupsGame:
    return CupsGame(variant, start=start, headers=headers)


GAMES: dict[str, GameKind] = {
    GOBBLET: GameKind(
        GOBBLET,
        tuple(PRESETS),
        Variant,
        Variant.from_spec,
        Position.from_text,
        _gobblet_start,
        _gobblet_game,
        diagram,
        GOBBLET_MOVE_HELP,
    ),
    CUPS: GameKind(
        CUPS,
        (CUPS,),
        CupsVariant,
        CupsVariant.from_spec,
        CupsPosition.from_text,
        _cups_start,
        _cups_game,
        cups_diagram,
        CUPS_MOVE_HELP,
    ),
}
GAME_NAMES: tuple[str, ...] = tuple(GAMES)
ALL_SPEC_NAMES: tuple[str, ...] = tuple(name for kind in GAMES.values() for name in kind.spec_names)


def kind_of_spec(spec: str) -> GameKind:
    """The game whose spec this is (by the name before any ``:``)."""
    name = spec.strip().partition(":")[0].strip().lower()
    for kind in GAMES.values():
        if name in kind.spec_names:
            return kind
    raise VariantError(f"unknown variant {spec.strip()!r}: choose one of {', '.join(ALL_SPEC_NAMES)}")


def is_gobblet_spec(spec: str) -> bool:
    """Whether a stored spec is a Gobblet variant's; an unknown one counts as Gobblet (the
    referee's own), so that a damaged row is still the referee's to close."""
    name = spec.strip().partition(":")[0].strip().lower()
    return not any(name in kind.spec_names for kind in GAMES.values() if kind.name != GOBBLET)


def kind_of(variant: GameVariant) -> GameKind:
    for kind in GAMES.values():
        if isinstance(variant, kind.variant_type):
            return kind
    raise VariantError(f"no game plays the variant {variant.spec!r}")


def kind_named(name: str) -> GameKind:
    """A game by its ``Game`` tag (``gobblet``, ``cups``)."""
    try:
        return GAMES[name.strip().lower()]
    except KeyError:
        raise VariantError(f"unknown game {name!r}: choose one of {', '.join(GAME_NAMES)}") from None


def variant_from_spec(spec: str) -> GameVariant:
    """Any game's variant from its spec: ``classic``, ``junior``, ``cups``, ``cups:cups=6``."""
    return kind_of_spec(spec).variant_from_spec(spec)


def position_from_text(text: str) -> GameState[Any]:
    """Any game's position from its one-line text, which starts with the variant spec."""
    words = text.split()
    if not words:
        return Position.from_text(text)  # Gobblet's reader says what an empty text lacks
    return kind_of_spec(words[0]).position_from_text(text)


def start_position(variant: GameVariant) -> GameState[Any]:
    return kind_of(variant).start(variant)


def new_game(
    variant: GameVariant, start: GameState[Any] | None = None, headers: dict[str, str] | None = None
) -> BaseGame:
    """A game of the variant's game, from ``start`` or the variant's start."""
    return kind_of(variant).new_game(variant, start, headers)
