"""The board drawn as text: tops only, like the real opaque cups, with the number of hidden
pieces under each top; ``stack_text`` reveals a square's whole stack on request."""

from __future__ import annotations

from companion.rules.position import Position
from companion.rules.square import BLACK, FILE_NAMES, WHITE, Square, color_name, square, square_name

CELL = 6


def piece_text(color: int, size: int) -> str:
    return f"{'WB'[color]}{size}"


def diagram(position: Position) -> str:
    size = position.size
    header = ("    " + "".join(f"{FILE_NAMES[f]:<{CELL}}" for f in range(size))).rstrip()
    rows = [header]
    for rank in reversed(range(size)):
        cells = []
        for file in range(size):
            stack = position.stack(square(file, rank))
            if not stack:
                cells.append(f"{'.':<{CELL}}")
                continue
            hidden = f"+{len(stack) - 1}" if len(stack) > 1 else ""
            cells.append(f"{piece_text(*stack[-1]) + hidden:<{CELL}}")
        rows.append(f"{rank + 1:>2}  " + "".join(cells).rstrip())
    for color in (WHITE, BLACK):
        reserve = position.reserve(color)
        shown = (
            " ".join(str(stack[0]) for stack in reserve)
            if not position.variant.any_order
            else (" ".join(str(s) for s in reserve[0]) if reserve else "")
        )
        rows.append(f"    {color_name(color)} off the board: {shown or 'none'}")
    rows.append(f"    {color_name(position.turn)} to move")
    return "\n".join(rows)


def stack_text(position: Position, sq: Square) -> str:
    stack = position.stack(sq)
    if not stack:
        return f"{square_name(sq)} is empty"
    return f"{square_name(sq)} bottom to top: " + " ".join(piece_text(c, s) for c, s in stack)
