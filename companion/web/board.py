"""The board drawn as SVG, on the server: the live page, the replay and the screenshots all
show the very same picture, and the browser needs no drawing code of its own.

White sits at the bottom (rank 1), as the square LEDs mirror it; Black's external stacks are
above the board, White's below. A cup is a disc sized by its size; a square whose stack hides
cups carries a badge with their number, a ``?`` where the referee does not know them (a game
started mid-way). Each square is a ``<g data-square data-stack>``: the page shows the whole
stack when it is tapped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape

from companion.errors import CompanionError
from companion.rules import COLOR_NAMES, Move, Position, square_file, square_name, square_rank
from companion.rules.square import parse_square

CELL = 100
MARGIN = 22  # room for the file letters and rank numbers
RESERVE_BAND = 74
Cup = tuple[str, int]


@dataclass(frozen=True)
class BoardView:
    """What one drawing shows."""

    size: int
    max_piece: int
    stacks: Mapping[str, Sequence[Cup]]  # square -> cups, bottom first
    reserves: Mapping[str, Sequence[Sequence[int]]] = field(default_factory=dict)  # colour -> stacks
    unknown: Mapping[str, Sequence[str]] = field(default_factory=dict)  # square -> hidden options
    last_move: str | None = None
    hint: str | None = None
    turn: str = "white"
    help_squares: Sequence[str] = ()


def view_of(position: Position, last_move: str | None = None) -> BoardView:
    """A position from the log (every hidden cup known from the history)."""
    return BoardView(
        size=position.size,
        max_piece=position.variant.max_piece,
        stacks={
            square_name(sq): [(COLOR_NAMES[c], s) for c, s in position.stack(sq)]
            for sq in position.squares
            if position.stack(sq)
        },
        reserves={COLOR_NAMES[c]: position.reserve(c) for c in (0, 1)},
        last_move=last_move,
        turn=COLOR_NAMES[position.turn],
    )


def _centre(name: str, size: int) -> tuple[float, float]:
    sq = parse_square(name)
    x = MARGIN + square_file(sq) * CELL + CELL / 2
    y = RESERVE_BAND + (size - 1 - square_rank(sq)) * CELL + CELL / 2
    return x, y


def _white_row(size: int) -> float:
    """White's external stacks sit below the file letters."""
    return RESERVE_BAND + size * CELL + MARGIN + RESERVE_BAND / 2


def _radius(cup_size: int, max_piece: int, cell: float = CELL) -> float:
    return cell * (0.16 + 0.3 * cup_size / max(max_piece, 1))


def _cup(x: float, y: float, colour: str, cup_size: int, max_piece: int, scale: float = 1.0) -> str:
    r = _radius(cup_size, max_piece) * scale
    return (
        f'<circle class="cup {colour}" cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}"/>'
        f'<text class="size {colour}" x="{x:.1f}" y="{y + 7 * scale:.1f}" '
        f'font-size="{20 * scale:.0f}">{cup_size}</text>'
    )


def stack_words(cups: Sequence[Cup], unknown: Sequence[str] = ()) -> str:
    """A stack top first, as the page shows it when a square is tapped."""
    words = [f"{colour} {size}" for colour, size in reversed(cups)]
    if unknown:
        words.append("unknown below: " + " or ".join(option or "nothing" for option in unknown))
    return ", ".join(words) if words else "empty"


def board_svg(view: BoardView) -> str:
    n = view.size
    width = 2 * MARGIN + n * CELL
    height = 2 * RESERVE_BAND + n * CELL + MARGIN
    parts = [
        f'<svg class="board" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="the board">',
        '<defs><marker id="arrowhead" markerWidth="6" markerHeight="6" refX="3" refY="3" orient="auto">'
        '<path d="M0,0 L6,3 L0,6 z" class="arrowhead"/></marker></defs>',
    ]
    marked = _move_squares(view.last_move)
    for rank in range(n):
        for file in range(n):
            parts.append(_square(view, file, rank, marked))
    parts.extend(_labels(n))
    parts.append(_reserve_row(view, "black", RESERVE_BAND / 2))
    parts.append(_reserve_row(view, "white", _white_row(n)))
    if view.hint:
        parts.append(_arrow(view))
    parts.append("</svg>")
    return "".join(parts)


def _move_squares(move_text: str | None) -> set[str]:
    if not move_text:
        return set()
    try:
        move = Move.from_text(move_text)
    except CompanionError:
        return set()
    names = {square_name(move.to_square)}
    if move.from_square is not None:
        names.add(square_name(move.from_square))
    return names


def _square(view: BoardView, file: int, rank: int, marked: set[str]) -> str:
    name = "abcdefghijklmnop"[file] + str(rank + 1)
    x, y = MARGIN + file * CELL, RESERVE_BAND + (view.size - 1 - rank) * CELL
    cups = list(view.stacks.get(name, ()))
    unknown = list(view.unknown.get(name, ()))
    classes = ["square", "dark" if (file + rank) % 2 == 0 else "light"]
    if name in marked:
        classes.append("last")
    if name in view.help_squares:
        classes.append("help")
    body = [f'<rect class="{" ".join(classes)}" x="{x}" y="{y}" width="{CELL}" height="{CELL}"/>']
    if cups:
        colour, size = cups[-1]
        body.append(_cup(x + CELL / 2, y + CELL / 2, colour, size, view.max_piece))
    hidden = len(cups) - 1
    if unknown:
        body.append(f'<text class="badge unknown" x="{x + CELL - 8}" y="{y + 20}">?</text>')
    elif hidden > 0:
        body.append(f'<text class="badge" x="{x + CELL - 8}" y="{y + 20}">+{hidden}</text>')
    words = escape(stack_words(cups, unknown), quote=True)
    return (
        f'<g class="cell" data-square="{name}" data-stack="{words}" tabindex="0">'
        f"<title>{name}: {words}</title>{''.join(body)}</g>"
    )


def _labels(n: int) -> list[str]:
    out = []
    for i in range(n):
        x = MARGIN + i * CELL + CELL / 2
        out.append(
            f'<text class="label" x="{x}" y="{RESERVE_BAND + n * CELL + 16}">{"abcdefghijklmnop"[i]}</text>'
        )
        y = RESERVE_BAND + (n - 1 - i) * CELL + CELL / 2 + 5
        out.append(f'<text class="label" x="{MARGIN / 2}" y="{y}">{i + 1}</text>')
    return out


def _reserve_row(view: BoardView, colour: str, y: float) -> str:
    if colour not in view.reserves:
        return ""  # a drawing without external stacks (the reference layout)
    stacks = list(view.reserves[colour])
    parts = [f'<g class="reserve {colour}" data-colour="{colour}">']
    if not stacks:
        parts.append(f'<text class="under" x="{MARGIN + 10}" y="{y + 5}">{colour}: none left</text>')
    for i, stack in enumerate(stacks):
        x = MARGIN + CELL / 2 + i * CELL * 0.9
        if stack:
            parts.append(_cup(x, y, colour, stack[0], view.max_piece, scale=0.62))
            below = " ".join(str(s) for s in stack[1:])
            if below:
                parts.append(f'<text class="under" x="{x + 34}" y="{y + 5}">{below}</text>')
    parts.append("</g>")
    return "".join(parts)


def _arrow(view: BoardView) -> str:
    try:
        move = Move.from_text(view.hint or "")
    except CompanionError:
        return ""
    tx, ty = _centre(square_name(move.to_square), view.size)
    if move.from_square is not None:
        fx, fy = _centre(square_name(move.from_square), view.size)
    else:  # a placement comes from the mover's own external stacks
        fx = MARGIN + CELL / 2
        fy = RESERVE_BAND / 2 if view.turn == "black" else _white_row(view.size)
    label = f'<text class="hint-label" x="{tx}" y="{ty - 30}">{escape(move.text())}</text>'
    return (
        f'<g class="hint" data-hint="{escape(move.text(), quote=True)}">'
        f'<line class="arrow" x1="{fx:.1f}" y1="{fy:.1f}" x2="{tx:.1f}" y2="{ty:.1f}" '
        f'marker-end="url(#arrowhead)"/>{label}</g>'
    )
