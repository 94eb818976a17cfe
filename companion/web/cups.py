"""Cups on the web page: its table drawn as SVG, and the page it is played on by tapping.

The camera does not count beans, so a Cups game is entered by the players: on the ``/cups``
page each legal move is a tappable part of the drawing (a cup that empties into the pot, or
"sow 1..4" beside the stock). The game itself is the device's ``CupsTable``
(``companion.device.cups_table``: the engine's answers and the game log), as the referee's game
is the loop's; ``/games`` replays a logged Cups game with this same drawing.

The table is drawn from White's side: Black's row on top runs the other way (Black's cup 1
over White's cup n), and each pot sits at its owner's right-hand end, Black's on the left.
"""

from __future__ import annotations

from html import escape
from typing import Any

from companion.device.cups_table import OPPONENTS, CupsView
from companion.rules.cups import MAX_SOW, CupsPosition
from companion.rules.square import COLOR_NAMES

CELL = 90
MARGIN = 12
TOP = 40  # room for Black's name and stock above its row
SOW_BAND = 70  # the sowing buttons below White's row
VARIANTS = ("cups", "cups:cups=6", "cups:stock=8")  # offered by the new-game form (any spec works)


def _column_x(column: int) -> float:
    """The centre of a column: column 0 is Black's pot, 1..n the cups, n + 1 White's pot."""
    return MARGIN + column * CELL + CELL / 2


def _pot(x: float, y: float, beans: int, colour: str) -> str:
    return (
        f'<g class="pot {colour}"><rect x="{x - CELL / 2 + 4:.0f}" y="{y - CELL / 2 + 4:.0f}" '
        f'width="{CELL - 8}" height="{CELL - 8}" rx="18"/>'
        f'<text class="beans" x="{x:.0f}" y="{y + 9:.0f}">{beans}</text>'
        f'<text class="label" x="{x:.0f}" y="{y + CELL / 2 - 10:.0f}">pot</text></g>'
    )


def _side_line(x: float, y: float, cls: str, words: str) -> str:
    return f'<text class="side {cls}" x="{x:.0f}" y="{y:.0f}">{escape(words)}</text>'


def _cup(x: float, y: float, number: int, beans: int, colour: str, playable: bool) -> str:
    move = f"c{number}"
    action = (
        f' data-move="{move}" tabindex="0" role="button" aria-label="empty cup {number}"' if playable else ""
    )
    cls = "pit playable" if playable else "pit"
    return (
        f'<g class="{cls} {colour}" data-cup="{colour} {number}"{action}>'
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{CELL * 0.4:.0f}"/>'
        f'<text class="beans" x="{x:.0f}" y="{y + 9:.0f}">{beans}</text>'
        f'<text class="label" x="{x + CELL * 0.36:.0f}" y="{y + CELL * 0.42:.0f}">c{number}</text></g>'
    )


def cups_svg(position: CupsPosition, last_move: str | None = None, playable: bool = False) -> str:
    """The table; with ``playable``, the side to move's legal moves are tappable
    (``data-move``): its cups that empty into the pot, and sowing buttons for its stock."""
    n = position.variant.cups
    width = 2 * MARGIN + (n + 2) * CELL
    top_y, bottom_y = TOP + CELL / 2, TOP + 1.5 * CELL
    height = TOP + 2 * CELL + 30 + (SOW_BAND if playable else 0)
    legal = {move.text() for move in position.legal_moves} if playable else set()
    parts = [
        f'<svg class="board cups" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height:.0f}" '
        f'role="img" aria-label="Cups: {escape(position.text())}">',
        f'<rect class="table" x="0" y="{TOP - 6}" width="{width}" height="{2 * CELL + 12}" rx="14"/>',
        _side_line(width / 2, TOP - 14, "black", f"Black · stock {position.stock(1)}"),
        _pot(_column_x(0), top_y, position.pot(1), "black"),
        _pot(_column_x(n + 1), bottom_y, position.pot(0), "white"),
    ]
    for column in range(1, n + 1):
        # Black's cup n + 1 - column over White's cup column: the rows face each other
        for colour, cup, y in ((1, n + 1 - column, top_y), (0, column, bottom_y)):
            tappable = position.turn == colour and f"c{cup}" in legal
            beans = position.cups(colour)[cup - 1]
            parts.append(_cup(_column_x(column), y, cup, beans, COLOR_NAMES[colour], tappable))
    parts.append(_side_line(width / 2, TOP + 2 * CELL + 26, "white", f"White · stock {position.stock(0)}"))
    if playable:
        parts.append(_sow_buttons(position, legal, width, TOP + 2 * CELL + 40))
    if last_move:
        parts.append(_side_line(MARGIN + CELL / 2, TOP - 14, "last-move", f"last {last_move}"))
    parts.append("</svg>")
    return "".join(parts)


def _sow_buttons(position: CupsPosition, legal: set[str], width: float, y: float) -> str:
    """Sow 1..4 from the side to move's stock, each a button where it is legal."""
    size = (width - 2 * MARGIN) / MAX_SOW
    buttons = []
    for k in range(1, MAX_SOW + 1):
        x = MARGIN + (k - 1) * size
        move = f"s{k}"
        enabled = move in legal
        action = f' data-move="{move}" tabindex="0" role="button" aria-label="sow {k}"' if enabled else ""
        buttons.append(
            f'<g class="sow{" playable" if enabled else ""}"{action}>'
            f'<rect x="{x + 4:.0f}" y="{y:.0f}" width="{size - 8:.0f}" height="{SOW_BAND - 20}" rx="10"/>'
            f'<text x="{x + size / 2:.0f}" y="{y + 32:.0f}">sow {k}</text></g>'
        )
    return f'<g class="sowing {COLOR_NAMES[position.turn]}">' + "".join(buttons) + "</g>"


# ----- the page ----------------------------------------------------------------------------------


def view_json(view: CupsView | None) -> dict[str, Any]:
    """What the page shows of ``CupsTable``'s view: the drawing, the status, the moves."""
    if view is None:
        return {"svg": "", "status": "No game yet: start one below.", "moves": "", "over": True, "hint": ""}
    return {
        "svg": cups_svg(view.position, view.last_move, playable=view.playable),
        "status": view.status,
        "moves": " ".join(view.moves),
        "over": view.over,
        "hint": view.hint,
        "game_id": view.game_id,
    }


def cups_page_body(view: dict[str, Any]) -> str:
    """The ``/cups`` page's content (the page frame is ``pages.page``)."""
    variants = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in VARIANTS)
    opponents = "".join(
        f'<option value="{o}"{" selected" if o == "medium" else ""}>'
        f"{'two people' if o == 'none' else 'engine, ' + o}</option>"
        for o in OPPONENTS
    )
    return (
        '<section id="cups">'
        "<h1>Cups</h1>"
        f'<p id="cups-status" class="status" role="status">{escape(view["status"])}</p>'
        f'<div id="board">{view["svg"]}</div>'
        f'<p id="cups-hint" class="panel">{escape(view["hint"])}</p>'
        f'<p class="panel">moves: <span id="cups-moves">{escape(view["moves"])}</span></p>'
        '<div class="buttons">'
        '<button id="cups-hint-button" type="button" data-action="/api/cups/hint">Hint</button>'
        '<button id="cups-takeback" type="button" class="secondary" data-action="/api/cups/takeback">'
        "Take back</button>"
        "</div>"
        '<p id="answer" class="panel" role="status"></p>'
        "<details open><summary>New game</summary>"
        '<form id="cups-new" data-action="/api/cups/new">'
        f'<label>variant <select name="variant">{variants}</select></label>'
        f'<label>opponent <select name="opponent">{opponents}</select></label>'
        '<label>White <input name="white" value="White" maxlength="40"></label>'
        '<label>Black <input name="black" value="Black" maxlength="40"></label>'
        "<button>Start</button></form></details>"
        "<p class=panel>Tap a cup that holds exactly the beans that reach the pot to empty it, "
        "or a sow button to sow from the stock. Games go into the log (Games).</p>"
        "</section>"
    )
