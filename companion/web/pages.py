"""The pages' HTML, rendered on the server: plain strings, every value escaped.

No template engine: the pages are few and small, and keeping them as functions of plain data
lets the tests read them without a server. Scripts are files under ``static/`` (the Content
Security Policy allows no inline script); what a script needs from the page is in ``data-``
attributes.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from companion.coach import GameReview, evaluation_graph
from companion.log import local_time
from companion.rules import VARIANT_NAMES

NAV = (("/", "Game"), ("/cups", "Cups"), ("/games", "Games"), ("/camera", "Camera"), ("/status", "Status"))


def page(title: str, body: str, *, csrf: str = "", here: str = "", script: bool = True) -> str:
    nav = "".join(
        f'<a href="{href}"{" aria-current=page" if href == here else ""}>{name}</a>' for href, name in NAV
    )
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f'<meta name="csrf-token" content="{escape(csrf, quote=True)}">'
        f"<title>{escape(title)} · gobblet-companion</title>"
        '<link rel=stylesheet href="/static/style.css">'
        + ('<script defer src="/static/app.js"></script>' if script else "")
        + "</head><body>"
        + (f"<nav>{nav}</nav>" if here else "")
        + f"<main>{body}</main></body></html>"
    )


when = local_time


def event_words(event: dict[str, Any]) -> str:
    """One line a player understands for a referee event (from ``Event.to_json``)."""
    kind = str(event.get("type", "?"))
    parts = [kind]
    if event.get("move"):
        parts.append(str(event["move"]))
    if event.get("moves"):
        parts.append(" ".join(event["moves"]))
    if event.get("reason"):
        parts.append(str(event["reason"]))
    if event.get("line"):
        parts.append("line " + " ".join(event["line"]))
    if event.get("squares") and kind in ("illegal", "needs-attention", "lifted"):
        parts.append("squares " + " ".join(event["squares"]))
    if kind == "illegal" and event.get("position"):
        parts.append("restore the board")
    detail = event.get("detail") or {}
    camera, game = detail.get("camera"), detail.get("game")
    if isinstance(camera, dict) and isinstance(game, dict):  # the referee's help request
        for square in sorted(camera):
            parts.append(f"{square}: the camera sees {camera[square]}, the game has {game.get(square, '?')}")
    still = detail.get("unsure")
    if kind in ("win", "loss", "draw") and isinstance(still, list) and still:  # a result with plies in doubt
        parts.append("still in doubt: " + ", ".join(f"move {ply}" for ply in still))
    for square in event.get("compare", ()):
        parts.append(f"{square['square']}: the camera sees {square['camera']}, the game has {square['game']}")
    return ": ".join(parts[:2]) + (" — " + "; ".join(parts[2:]) if len(parts) > 2 else "")


def _events_list(events: Iterable[tuple[int, dict[str, Any]]]) -> str:
    items = "".join(
        f'<li data-n="{n}" class="ev {escape(str(e.get("type", "")))}">'
        f"<time>{when(e.get('timestamp'), '%H:%M:%S')}</time> {escape(event_words(e))}</li>"
        for n, e in reversed(list(events))
    )
    return f'<ol id="events" class="events">{items}</ol>'


# ----- pairing -----------------------------------------------------------------------------------


def pair_page(csrf: str) -> str:
    body = (
        "<h1>Pair this browser</h1>"
        "<p>This page shows the companion's camera and games, so only browsers paired with it "
        "may see them. Press <b>Pair</b>, then press the button on the device within 30 seconds "
        "(its corner lights blink while it waits).</p>"
        '<form id="pair" method="post" action="/pair">'
        f'<input type="hidden" name="csrf" value="{escape(csrf, quote=True)}">'
        '<button type="submit">Pair</button></form>'
        '<p id="pair-status" role="status"></p>'
    )
    return page("Pair", body, csrf=csrf)


# ----- the live game -----------------------------------------------------------------------------


def live_page(csrf: str, state: dict[str, Any], events: Sequence[tuple[int, dict[str, Any]]]) -> str:
    options = "".join(f"<option>{name}</option>" for name in VARIANT_NAMES)
    last = events[-1][0] if events else 0
    body = (
        f'<section id="live" data-after="{last}">'
        f'<h1 id="title">{escape(state.get("title", "no game yet"))}</h1>'
        f'<p class="status"><span id="turn">{escape(state.get("turn_text", ""))}</span> · '
        f'<span id="clock" data-started="{state.get("started") or ""}" '
        f'data-ended="{state.get("ended") or ""}">0:00</span> · '
        f'last move <span id="last">{escape(state.get("last_move") or "-")}</span></p>'
        f'<p id="panel" class="panel">{escape(state.get("panel", ""))}</p>'
        f'<p id="alert" class="alert"{"" if state.get("alert") else " hidden"}>'
        f"{escape(state.get('alert') or '')}</p>"
        f'<div id="board">{state.get("svg", "")}</div>'
        '<p id="stack" class="stack" role="status">Tap a square to see its whole stack.</p>'
        '<div class="buttons">'
        '<button id="hint" data-action="/api/hint">Hint</button>'
        '<button id="takeback" data-action="/api/takeback">Take back</button>'
        '<button id="accept" data-action="/api/accept" hidden>Accept what the camera sees</button>'
        "</div>"
        '<p id="answer" role="status"></p>'
        '<details><summary>New game</summary><form id="new-game" data-action="/api/new-game">'
        f'<label>Variant <select name="variant">{options}</select></label>'
        '<label>White <input name="white" maxlength="40" autocomplete="off"></label>'
        '<label>Black <input name="black" maxlength="40" autocomplete="off"></label>'
        '<button type="submit">Start a new game</button></form></details>'
        "<h2>Events</h2>"
        f"{_events_list(events)}"
        "</section>"
    )
    return page("Game", body, csrf=csrf, here="/")


# ----- games -------------------------------------------------------------------------------------


def games_page(csrf: str, rows: Sequence[Any]) -> str:
    lines = "".join(
        f'<tr><td><a href="/games/{r.id}">{r.id}</a></td><td>{when(r.started)}</td>'
        f"<td>{escape(r.white)} – {escape(r.black)}</td><td>{escape(r.variant)}</td>"
        f"<td>{r.plies}</td><td>{escape(r.result if r.finished else 'in progress')}</td></tr>"
        for r in rows
    )
    body = "<h1>Games</h1>" + (
        "<table class=games><thead><tr><th>#</th><th>date</th><th>players</th><th>variant</th>"
        f"<th>plies</th><th>result</th></tr></thead><tbody>{lines}</tbody></table>"
        if rows
        else "<p>No games yet.</p>"
    )
    return page("Games", body, csrf=csrf, here="/games")


def replay_page(
    csrf: str, row: Any, plies: int, first: dict[str, Any], review: GameReview | None = None
) -> str:
    body = (
        f'<section id="replay" data-game="{row.id}" data-plies="{plies}">'
        f"<h1>Game {row.id}: {escape(row.white)} – {escape(row.black)}</h1>"
        f"<p>{escape(row.variant)} · {when(row.started)} · "
        f"{escape(row.result if row.finished else 'in progress')}"
        f"{' · ' + escape(row.reason) if row.reason else ''}</p>"
        f'<p><a class="button" id="download" href="/games/{row.id}/record" download>'
        "Download the record</a></p>"
        f'<label class="slider">ply <output id="ply">{plies}</output> of {plies}'
        f'<input id="slider" type="range" min="0" max="{plies}" value="{plies}"></label>'
        f'<p id="move">{escape(first.get("move_text", ""))}</p>'
        f'<div id="board">{first.get("svg", "")}</div>'
        '<p id="stack" class="stack" role="status">Tap a square to see its whole stack.</p>'
        f'<ul id="ply-events" class="events">{first.get("events_html", "")}</ul>'
        f'<img id="snapshot" alt="the board as the camera saw it" hidden>'
        "</section>" + review_html(row, review)
    )
    return page(f"Game {row.id}", body, csrf=csrf, here="/games")


def review_html(row: Any, review: GameReview | None) -> str:
    """The coach's review under the replay: the evaluation graph (its dots jump the replay to
    the move), a button per marked move, and each player's figures."""
    if review is None:
        waiting = (
            "The device reviews a finished game in the background when the board is idle"
            if row.finished
            else "A game is reviewed once it is finished"
        )
        return f'<section id="review"><h2>Review</h2><p>{waiting}.</p></section>'
    jumps = "".join(
        f'<button type="button" class="jump secondary" data-ply="{p.ply}">'
        f"{p.ply}. {escape(p.move + p.symbol)} {escape(p.verdict.value if p.verdict else '')}</button>"
        for p in review.marked()
    )
    names = (row.white, row.black)
    figures = "".join(
        f"<tr><td>{escape(names[s.color])}</td><td>{s.blunders}</td><td>{s.mistakes}</td>"
        f"<td>{s.inaccuracies}</td><td>{s.missed_wins}</td><td>{s.average_loss:.0f}</td></tr>"
        for s in (review.summary(color) for color in (0, 1))
    )
    return (
        '<section id="review"><h2>Review</h2>'
        f'<p class="method">values: {escape(review.method)}</p>'
        f'<div class="graph">{evaluation_graph(review)}</div>'
        + (f'<div class="buttons jumps">{jumps}</div>' if jumps else "<p>No blunder, no missed win.</p>")
        + '<table class="summary"><thead><tr><th>player</th><th>blunders</th><th>mistakes</th>'
        "<th>inaccuracies</th><th>missed wins</th><th>average loss</th></tr></thead>"
        f"<tbody>{figures}</tbody></table></section>"
    )


def ply_events_html(events: Iterable[dict[str, Any]]) -> str:
    return "".join(
        f"<li><time>{when(e.get('timestamp'), '%H:%M:%S')}</time> {escape(event_words(e))}</li>"
        for e in events
    )


# ----- status ------------------------------------------------------------------------------------


def status_page(
    csrf: str,
    facts: Sequence[tuple[str, str]],
    pins: Sequence[tuple[str, str]],
    faults: Sequence[tuple[float, str]],
    tokens: Sequence[Any],
    current: str | None,
) -> str:
    fact_rows = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in facts)
    pin_rows = "".join(f"<tr><th>{escape(k)}</th><td>GPIO {escape(v)}</td></tr>" for k, v in pins)
    fault_items = (
        "".join(
            f"<li><time>{when(t, '%Y-%m-%d %H:%M:%S')}</time> {escape(text)}</li>"
            for t, text in reversed(faults)
        )
        or "<li>none since the device started</li>"
    )
    token_rows = "".join(
        f"<tr><td>{escape(t.id)}{' (this browser)' if t.id == current else ''}</td><td>{escape(t.label)}</td>"
        f"<td>{when(t.created)}</td><td>{when(t.last_used)}</td>"
        f'<td><form method="post" action="/api/tokens/{escape(t.id)}/revoke" class="revoke">'
        f'<input type="hidden" name="csrf" value="{escape(csrf, quote=True)}">'
        '<button type="submit">Revoke</button></form></td></tr>'
        for t in tokens
    )
    body = (
        "<h1>Status</h1>"
        f"<table class=facts>{fact_rows}</table>"
        "<h2>Last faults</h2>"
        f"<ul class=faults>{fault_items}</ul>"
        "<h2>Paired browsers</h2>"
        "<table class=tokens><thead><tr><th>id</th><th>browser</th><th>paired</th><th>last used</th><th></th>"
        f"</tr></thead><tbody>{token_rows}</tbody></table>"
        "<h2>Pins</h2>"
        f"<table class=pins>{pin_rows}</table>"
    )
    return page("Status", body, csrf=csrf, here="/status")


# ----- camera ------------------------------------------------------------------------------------


def camera_page(
    csrf: str,
    step: str,
    problem: str | None,
    learned: Sequence[str],
    reference_svg: str,
    insist: bool = False,
) -> str:
    """The camera preview and the calibration wizard at ``step``; ``insist``: the reference
    frame was refused by a check the user may overrule, so a button calibrates it anyway."""
    anyway = (
        '<button data-action="/api/calibration/insist" class="secondary">'
        "They are already so: calibrate anyway</button>"
        if insist
        else ""
    )
    steps = {
        "empty": (
            "1. Clear the board",
            "Take every cup off the board, keep hands out of view, then take the empty frame.",
            '<button data-action="/api/calibration/empty">Take the empty frame</button>',
        ),
        "reference": (
            "2. Set out the reference layout",
            "Put the cups as drawn: White's sizes in order on rank 1, Black's on the last rank.",
            f'<div class="reference">{reference_svg}</div>'
            '<button data-action="/api/calibration/reference">Take the reference frame</button>' + anyway,
        ),
        "result": (
            "3. What was learned",
            "If this looks right, use it; the old calibration is kept beside it.",
            "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in learned) + "</ul>"
            '<button data-action="/api/calibration/save">Use this calibration</button>',
        ),
        "saved": ("Calibration saved", "The referee reads the board with it from now on.", ""),
    }
    title, words, action = steps.get(step, steps["empty"])
    body = (
        "<h1>Camera</h1>"
        '<figure class="preview"><img id="preview" src="/camera/preview.jpg" alt="the camera\'s view">'
        '<figcaption id="preview-facts" role="status"></figcaption></figure>'
        f'<section id="wizard" data-step="{escape(step)}"><h2>{escape(title)}</h2><p>{escape(words)}</p>'
        + (f'<p class="alert" id="wizard-problem">{escape(problem)}</p>' if problem else "")
        + f"{action}"
        '<button data-action="/api/calibration/restart" class="secondary">Start again</button>'
        '<p id="answer" role="status"></p></section>'
    )
    return page("Camera", body, csrf=csrf, here="/camera")


def age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


def now() -> float:
    return time.time()
