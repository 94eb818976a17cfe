"""The web server: aiohttp on its own thread and event loop, reading the device through a
``Remote`` and never touching the game itself.

Safety, in the order a request meets it (``_guard``): a path that is not plain ASCII without
``..`` or is too long is refused; a browser without a valid token cookie sees only the pairing
page and the static files (other pages redirect there, the API answers 401); every POST must
carry the CSRF token of its session (a hidden field or the ``X-CSRF-Token`` header) and, when
the browser names one, an Origin matching the host; bodies over ``MAX_BODY`` bytes are refused
by aiohttp itself (413). Pairing is rate-limited. Slow work (reading the log, drawing the
preview, calibrating) runs on one worker thread, so the event loop stays free and the web
uses at most one core besides its loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import shutil
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from inspect import signature
from pathlib import Path
from typing import Any

from aiohttp import web

from companion import __version__
from companion.coach import GameReview, annotate, stored_review
from companion.component import Component
from companion.device.config import DeviceConfig
from companion.device.cups_table import CupsTable
from companion.device.remote import GameSnapshot, Remote
from companion.errors import CompanionError
from companion.log import GameStore, UnreplayableGameError
from companion.rules.cups import CupsPosition
from companion.rules.game import BaseGame
from companion.rules.position import Position
from companion.rules.record import write_record
from companion.web import pages
from companion.web.board import BoardView, board_svg, view_of
from companion.web.camera import Overlay, Preview, Wizard
from companion.web.cups import cups_page_body, cups_svg, view_json
from companion.web.tokens import TOKENS_FILE, TokenEntry, TokenStore

log = logging.getLogger("gobblet-companion.web")

MAX_BODY = 16 * 1024  # bytes: the largest form the pages send is a few hundred
MAX_PATH = 200
TOKEN_COOKIE = "gc_token"
PRE_COOKIE = "gc_pre"  # an unpaired browser's session, for the pairing form's CSRF token
COOKIE_YEARS = 10
PAIRING_LIMIT = 6  # pairing requests per PAIRING_WINDOW seconds, from everyone together
PAIRING_WINDOW = 60.0
PREVIEW_PERIOD = 0.3  # seconds: the preview is drawn at most about 3 times a second
HEARTBEAT = 15.0  # seconds between two keep-alive comments on an idle event stream
STATIC = {"style.css": "text/css", "app.js": "text/javascript"}
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
OPEN_PATHS = ("/pair", "/static/")


@dataclass
class WebSettings:
    """What the server needs of the device besides its ``Remote``."""

    database: Path
    calibration: Path
    data: Path  # the data directory: web-tokens.json lives there
    size: int = 4
    max_piece: int = 4
    config: DeviceConfig = field(default_factory=DeviceConfig)
    host: str = "127.0.0.1"
    port: int = 8080


class Site:
    """The application's state: one per server."""

    def __init__(self, remote: Remote, settings: WebSettings, tokens: TokenStore | None = None) -> None:
        self.remote = remote
        self.settings = settings
        self.tokens = tokens or TokenStore(settings.data / TOKENS_FILE)
        self.secret = secrets.token_bytes(32)  # CSRF tokens are HMACs of the session under it
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="web-work")
        self.overlay = Overlay(settings.calibration, settings.size)
        self.wizard = Wizard(settings.calibration, settings.size, settings.max_piece)
        self.pairings: deque[float] = deque()
        self._preview: tuple[float, int, Preview] | None = None
        self._svg: tuple[int, dict[str, Any]] | None = None
        self.cups = CupsTable(settings.database)  # the Cups game played on the page
        self.closing = asyncio.Event()

    def csrf(self, session: str) -> str:
        return hmac.new(self.secret, session.encode(), hashlib.sha256).hexdigest()[:40]

    async def work(self, function: Callable[..., Any], *arguments: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.worker, function, *arguments)

    def state(self) -> dict[str, Any]:
        """The live page's data for the latest snapshot (the SVG drawn once per snapshot)."""
        snapshot = self.remote.snapshot
        if snapshot is None:
            return {"version": 0, "title": "the device is starting", "svg": ""}
        if self._svg is None or self._svg[0] != snapshot.version:
            self._svg = (snapshot.version, state_of(snapshot))
        return self._svg[1]


# aiohttp 3.9 and later name their keys (AppKey, RequestKey); Debian 12 and Raspberry Pi OS
# Bookworm package 3.8, where plain strings are the keys.
SITE: Any = web.AppKey("site", Site) if hasattr(web, "AppKey") else "site"
FILES: Any = web.AppKey("files", dict) if hasattr(web, "AppKey") else "files"
TOKEN: Any = web.RequestKey("token", object) if hasattr(web, "RequestKey") else "token"
SESSION: Any = web.RequestKey("session", str) if hasattr(web, "RequestKey") else "session"


def site_of(app: web.Application) -> Site:
    site: Site = app[SITE]
    return site


def state_of(snapshot: GameSnapshot) -> dict[str, Any]:
    view = BoardView(
        size=snapshot.size,
        max_piece=snapshot.max_piece,
        stacks=snapshot.stacks,
        reserves=snapshot.reserves,
        unknown=snapshot.unknown,
        last_move=snapshot.last_move,
        hint=snapshot.hint,
        turn=snapshot.turn,
        help_squares=snapshot.help_squares,
    )
    ended = snapshot.moves[-1][2] if snapshot.over and snapshot.moves else None
    return {
        "version": snapshot.version,
        "game": snapshot.game_id,
        "title": f"{snapshot.white} – {snapshot.black} · {snapshot.variant} · game {snapshot.game_id}",
        "turn_text": (snapshot.reason or f"game over: {snapshot.result}")
        if snapshot.over
        else f"{snapshot.turn} to play, ply {snapshot.ply}",
        "turn": snapshot.turn,
        "ply": snapshot.ply,
        "last_move": snapshot.last_move,
        "hint": snapshot.hint,
        "panel": snapshot.panel,
        "alert": snapshot.alert,
        "fault": snapshot.fault,
        "takeback_offered": snapshot.takeback_offered,
        "can_accept": snapshot.can_accept,
        "help_squares": list(snapshot.help_squares),
        "pairing": snapshot.pairing,
        "over": snapshot.over,
        "started": snapshot.started,
        "ended": ended,
        "svg": board_svg(view),
    }


# ----- the guard ---------------------------------------------------------------------------------


def _bad_path(path: str) -> bool:
    return len(path) > MAX_PATH or not path.isascii() or ".." in path or "\\" in path or "//" in path


def _session(request: web.Request) -> tuple[TokenEntry | None, str]:
    site = site_of(request.app)
    entry = site.tokens.check(request.cookies.get(TOKEN_COOKIE))
    if entry is not None:
        return entry, entry.id
    return None, request.cookies.get(PRE_COOKIE, "")


@web.middleware
async def _guard(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    if _bad_path(request.raw_path.split("?", 1)[0]):
        raise web.HTTPBadRequest(text="bad path\n")
    entry, session = _session(request)
    request[TOKEN] = entry
    request[SESSION] = session
    open_path = request.path == "/pair" or request.path.startswith("/static/")
    if entry is None and not open_path:
        if request.method == "GET" and not request.path.startswith(
            ("/api/", "/events", "/camera/", "/games/")
        ):
            raise web.HTTPSeeOther("/pair")
        raise web.HTTPUnauthorized(text="pair this browser first: open /pair\n")
    if request.method not in ("GET", "HEAD"):
        await _check_csrf(request, session)
    response = await handler(request)
    response.headers.update(SECURITY_HEADERS)
    response.headers.setdefault("Cache-Control", "no-store")
    return response


async def _check_csrf(request: web.Request, session: str) -> None:
    site = site_of(request.app)
    origin = request.headers.get("Origin")
    if origin and origin.split("://", 1)[-1] != request.host:
        raise web.HTTPForbidden(text="this request came from another site\n")
    sent = request.headers.get("X-CSRF-Token")
    if sent is None and request.content_type == "application/x-www-form-urlencoded":
        sent = str((await request.post()).get("csrf", ""))
    if not session or not sent or not hmac.compare_digest(sent, site.csrf(session)):
        raise web.HTTPForbidden(text="missing or stale form token: reload the page\n")


@web.middleware
async def _errors(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """A request that fails answers 500 and is logged; the game never sees it."""
    try:
        return await handler(request)
    except web.HTTPException as error:
        error.headers.update(SECURITY_HEADERS)
        raise
    except (asyncio.CancelledError, ConnectionError):
        raise
    except Exception:
        log.exception("web request %s %s failed", request.method, request.path)
        return web.Response(status=500, text="the page failed; the game goes on\n", headers=SECURITY_HEADERS)


# ----- pairing -----------------------------------------------------------------------------------


async def pair_page(request: web.Request) -> web.StreamResponse:
    if request[TOKEN] is not None:
        raise web.HTTPSeeOther("/")
    site = site_of(request.app)
    session = request[SESSION] or secrets.token_urlsafe(24)
    response = web.Response(text=pages.pair_page(site.csrf(session)), content_type="text/html")
    if not request[SESSION]:
        response.set_cookie(PRE_COOKIE, session, httponly=True, samesite="Strict", max_age=3600)
    return response


async def pair(request: web.Request) -> web.StreamResponse:
    """Wait (up to 30 s) for the button; answer with the token cookie, or why not."""
    site = site_of(request.app)
    if request[TOKEN] is not None:
        raise web.HTTPConflict(text="this browser is paired already\n")
    now = time.monotonic()
    while site.pairings and now - site.pairings[0] > PAIRING_WINDOW:
        site.pairings.popleft()
    if len(site.pairings) >= PAIRING_LIMIT:
        raise web.HTTPTooManyRequests(text="too many pairing requests: wait a minute\n")
    site.pairings.append(now)
    granted = asyncio.wrap_future(site.remote.request_pairing())
    try:
        paired = await asyncio.wait_for(granted, timeout=35.0)
    except TimeoutError:
        paired = False
    if not paired:
        return web.json_response({"paired": False, "message": "the button was not pressed: try again"})
    entry, token = await site.work(site.tokens.issue, request.headers.get("User-Agent", "a browser"))
    log.info("web: browser %s paired (%s)", entry.id, entry.label)
    response = web.json_response({"paired": True, "id": entry.id})
    response.set_cookie(
        TOKEN_COOKIE, token, httponly=True, samesite="Strict", max_age=COOKIE_YEARS * 365 * 86400
    )
    response.del_cookie(PRE_COOKIE)
    return response


# ----- the live game -------------------------------------------------------------------------------


async def live(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)
    html = pages.live_page(site.csrf(request[SESSION]), site.state(), site.remote.events_after(0))
    return web.Response(text=html, content_type="text/html")


async def cups_page(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)
    view = view_json(await site.work(site.cups.view))
    html = pages.page("Cups", cups_page_body(view), csrf=site.csrf(request[SESSION]), here="/cups")
    return web.Response(text=html, content_type="text/html")


async def cups_action(request: web.Request) -> web.StreamResponse:
    """A Cups move, a new game, a takeback or a hint: the game's new view, or why not (409)."""
    site = site_of(request.app)
    action, form = request.match_info["action"], await _form(request)
    table = site.cups
    try:
        if action == "move":
            view = await site.work(table.play, form.get("move", "")[:8])
        elif action == "new":
            fields = [form.get(key, "")[:40] for key in ("variant", "white", "black")]
            view = await site.work(table.new, *fields, form.get("opponent", "none")[:10])
        elif action == "takeback":
            view = await site.work(table.takeback)
        else:
            view = await site.work(table.suggest)
    except CompanionError as error:
        return web.json_response({"ok": False, "message": str(error)}, status=409)
    return web.json_response({"ok": True, **view_json(view)})


async def api_state(request: web.Request) -> web.StreamResponse:
    return web.json_response(site_of(request.app).state())


async def event_stream(request: web.Request) -> web.StreamResponse:
    """Server-Sent Events: ``state`` on every new snapshot, ``referee`` for each event."""
    site = site_of(request.app)
    try:
        after = int(request.query.get("after", "0"))
    except ValueError:
        raise web.HTTPBadRequest(text="after must be a whole number\n") from None
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"})
    response.headers.update(SECURITY_HEADERS)
    await response.prepare(request)
    wake = asyncio.Event()
    loop = asyncio.get_running_loop()
    stop = site.remote.listen(lambda: loop.call_soon_threadsafe(wake.set))
    closing = asyncio.ensure_future(site.closing.wait())
    version = -1
    try:
        while not site.closing.is_set():
            wake.clear()
            state = site.state()
            if state["version"] != version:
                version = state["version"]
                await response.write(_sse("state", state))
            for number, event in site.remote.events_after(after):
                after = number
                await response.write(
                    _sse("referee", {"n": number, "text": pages.event_words(event), **event})
                )
            waiting = asyncio.ensure_future(wake.wait())
            done, _ = await asyncio.wait(
                {waiting, closing}, timeout=HEARTBEAT, return_when=asyncio.FIRST_COMPLETED
            )
            waiting.cancel()
            if not done:
                await response.write(b": still here\n\n")
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        stop()
        closing.cancel()
    return response


def _sse(kind: str, data: dict[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


async def command(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)
    name = request.match_info["name"]
    arguments: dict[str, str] = {}
    if name == "new-game":
        form = await _form(request)
        arguments = {key: form.get(key, "")[:60] for key in ("variant", "white", "black")}
    try:
        answer = await asyncio.wait_for(asyncio.wrap_future(site.remote.command(name, **arguments)), 10.0)
    except CompanionError as error:
        return web.json_response({"ok": False, "message": str(error)}, status=409)
    except TimeoutError:
        return web.json_response(
            {"ok": False, "message": "the device did not answer: is it running?"}, status=503
        )
    return web.json_response({"ok": True, "message": answer})


async def _form(request: web.Request) -> dict[str, str]:
    if request.content_type == "application/json":
        try:
            data = await request.json()
        except ValueError:
            raise web.HTTPBadRequest(text="the body is not JSON\n") from None
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise web.HTTPBadRequest(text="send an object of strings\n")
        return data
    form = await request.post()
    return {key: str(value) for key, value in form.items() if isinstance(value, str)}


# ----- games ---------------------------------------------------------------------------------------


def _store(site: Site) -> GameStore:
    try:
        return GameStore(site.settings.database, create=False)
    except CompanionError as error:
        raise web.HTTPNotFound(text=f"{error}\n") from None


def _game_id(request: web.Request) -> int:
    text = request.match_info["game"]
    if not text.isdigit() or len(text) > 18:
        raise web.HTTPNotFound(text="no such game\n")
    return int(text)


async def games(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)

    def read() -> list[Any]:
        if not site.settings.database.exists():
            return []
        with _store(site) as store:
            return store.games(200)

    rows = await site.work(read)
    return web.Response(text=pages.games_page(site.csrf(request[SESSION]), rows), content_type="text/html")


@dataclass(frozen=True)
class Replayed:
    """A logged game as the replay pages show it."""

    row: Any
    game: BaseGame
    events: list[dict[str, Any]]
    snapshots: set[int]
    review: GameReview | None  # the coach's, when the log holds one for these moves


def _replayed(site: Site, game_id: int) -> Replayed:
    with _store(site) as store:
        try:
            row = store.game(game_id)
            game = store.load_game(game_id)
        except UnreplayableGameError as error:
            raise web.HTTPNotFound(text=f"{error}\n") from None
        except CompanionError:
            raise web.HTTPNotFound(text="no such game\n") from None
        events = [e.to_json() for e in store.events(game_id)]
        snapshots = {m.ply for m in store.moves(game_id) if store.snapshot(game_id, m.ply) is not None}
        review = stored_review(store.review(game_id, len(game.played)))
    return Replayed(row, game, events, snapshots, review)


def ply_view(replayed: Replayed, ply: int) -> dict[str, Any]:
    """The board after ``ply`` plies of the game (0: its start), its move (with the review's
    verdict) and events."""
    game, review = replayed.game, replayed.review
    position = game.start.copy()
    played = game.played[: max(0, min(ply, len(game.played)))]
    for item in played:
        position.push_code(position.code_from_move(item.move))
    last = played[-1].move.text() if played else None
    number = game.start.ply + len(played)
    judged = review.plies[len(played) - 1] if review is not None and played else None
    if judged is not None and last is not None:
        last += judged.symbol + (f" — {judged.describe()}" if judged.verdict is not None else "")
    events, snapshots = replayed.events, replayed.snapshots
    return {
        "ply": len(played),
        "svg": drawing(position, played[-1].move.text() if played else None),
        "move_text": f"ply {number}: {last}" if last else "the start",
        "events_html": pages.ply_events_html(e for e in events if e.get("ply") == number),
        "snapshot": number in snapshots,
        "snapshot_ply": number,
    }


def drawing(position: Any, last: str | None) -> str:
    """A logged position drawn as its game draws it."""
    if isinstance(position, CupsPosition):
        return cups_svg(position, last)
    if isinstance(position, Position):
        return board_svg(view_of(position, last))
    raise CompanionError(f"the page cannot draw a {type(position).__name__}")


async def replay(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)
    replayed = await site.work(_replayed, site, _game_id(request))
    plies = len(replayed.game.played)
    first = ply_view(replayed, plies)
    html = pages.replay_page(site.csrf(request[SESSION]), replayed.row, plies, first, replayed.review)
    return web.Response(text=html, content_type="text/html")


async def replay_ply(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)
    text = request.match_info["ply"]
    if not text.isdigit() or len(text) > 6:
        raise web.HTTPBadRequest(text="ply must be a whole number\n")
    replayed = await site.work(_replayed, site, _game_id(request))
    return web.json_response(ply_view(replayed, int(text)))


async def snapshot(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)
    game_id, text = _game_id(request), request.match_info["ply"]
    if not text.isdigit() or len(text) > 6:
        raise web.HTTPNotFound(text="no such picture\n")

    def read() -> bytes | None:
        with _store(site) as store:
            return store.snapshot(game_id, int(text))

    jpeg = await site.work(read)
    if jpeg is None:
        raise web.HTTPNotFound(text="no picture kept after that ply\n")
    return web.Response(body=jpeg, content_type="image/jpeg")


async def record(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)
    replayed = await site.work(_replayed, site, _game_id(request))
    game_id = _game_id(request)
    game = replayed.game if replayed.review is None else annotate(replayed.game, replayed.review)
    return web.Response(
        text=write_record(game),
        content_type="text/plain",
        headers={"Content-Disposition": f'attachment; filename="gobblet-game-{game_id}.txt"'},
    )


# ----- status ----------------------------------------------------------------------------------------


def status_facts(site: Site) -> list[tuple[str, str]]:
    snapshot = site.remote.snapshot
    facts = [("version", __version__)]
    if snapshot is not None:
        facts.append(
            (
                "camera",
                f"trouble: {snapshot.fault}" if snapshot.fault else f"working, {snapshot.frames} frames read",
            )
        )
        facts.append(("alert LED", snapshot.alert or "dark: nothing needs attention"))
        facts.append(("panel", snapshot.panel))
        facts.append(("game", f"{snapshot.game_id}: {snapshot.variant}, ply {snapshot.ply}"))
    calibration = site.settings.calibration
    try:
        made = calibration.stat().st_mtime
        facts.append(("calibration", f"{calibration}, made {pages.age(time.time() - made)} ago"))
    except OSError:
        facts.append(("calibration", f"none yet at {calibration}: see the Camera page"))
    try:
        disk = shutil.disk_usage(
            site.settings.database.parent if site.settings.database.parent.exists() else "/"
        )
        facts.append(("disk", f"{disk.free / 2**30:.1f} GiB free of {disk.total / 2**30:.1f} GiB"))
    except OSError as error:
        facts.append(("disk", f"unknown ({error.strerror})"))
    facts.append(("game log", str(site.settings.database)))
    health = health_of(site.remote)
    if health is not None:
        open_faults = "; ".join(f"{f.get('part')}: {f.get('text')}" for f in health.get("faults", []))
        facts.append(("health", f"needs service: {open_faults}" if open_faults else "no open fault"))
        facts.append(("faults ridden out since start", str(health.get("survived", 0))))
    return facts


def health_of(remote: Remote) -> dict[str, Any] | None:
    """The device's health record as data, where the device keeps one."""
    snapshot = getattr(remote.health, "snapshot", None)
    if not callable(snapshot):
        return None
    data = snapshot()
    return data if isinstance(data, dict) else None


def past_faults(remote: Remote) -> list[tuple[float, str]]:
    """The camera's faults and the repairs the device made by itself, oldest first."""
    faults = list(remote.faults)
    health = health_of(remote) or {}
    faults += [
        (float(r.get("at", 0.0)), f"repaired {r.get('part')}: {r.get('text')}")
        for r in health.get("repairs", [])
    ]
    return sorted(faults)


def pin_table(config: DeviceConfig) -> list[tuple[str, str]]:
    """The GPIO of each part, the 16 square LEDs in one row."""
    pins = config.pins
    return [
        ("square LEDs a1 b1 … d4", " ".join(str(p) for p in pins.squares)),
        ("turn LEDs white, black", f"{pins.turn_white}, {pins.turn_black}"),
        ("alert LED", str(pins.alert)),
        ("buzzer", str(pins.buzzer)),
        ("button", str(pins.button)),
    ]


async def status(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)
    facts = await site.work(status_facts, site)
    pins = pin_table(site.settings.config)
    token: TokenEntry = request[TOKEN]
    html = pages.status_page(
        site.csrf(request[SESSION]), facts, pins, past_faults(site.remote), site.tokens.entries(), token.id
    )
    return web.Response(text=html, content_type="text/html")


async def revoke(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)
    try:
        await site.work(site.tokens.revoke, request.match_info["token"])
    except CompanionError as error:
        raise web.HTTPNotFound(text=f"{error}\n") from None
    raise web.HTTPSeeOther("/status")


# ----- camera ----------------------------------------------------------------------------------------


async def camera(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)
    wizard = site.wizard
    reference = BoardView(
        site.settings.size,
        site.settings.max_piece,
        {sq: [cup] for sq, cup in wizard.reference_layout().items()},
    )
    html = pages.camera_page(
        site.csrf(request[SESSION]), wizard.step, wizard.problem, wizard.learned(), board_svg(reference)
    )
    return web.Response(text=html, content_type="text/html")


def _latest_frame(site: Site) -> Any:
    frame = site.remote.frame
    if frame is None:
        raise web.HTTPServiceUnavailable(text="no camera frame yet\n")
    return frame


async def preview(request: web.Request) -> web.StreamResponse:
    """The latest frame with the overlay, redrawn at most every ``PREVIEW_PERIOD`` seconds."""
    site = site_of(request.app)
    frame = _latest_frame(site)
    cached = site._preview
    if cached is None or (cached[1] != frame.number and time.monotonic() - cached[0] >= PREVIEW_PERIOD):
        drawn = await site.work(site.overlay.preview, frame.image)
        site._preview = cached = (time.monotonic(), frame.number, drawn)
    drawn = cached[2]
    facts = {
        "markers": list(drawn.markers),
        "hands": drawn.hands,
        "problem": drawn.problem,
        "readings": [[r.square, r.top, round(r.confidence, 3)] for r in drawn.readings],
    }
    if request.query.get("facts"):
        return web.json_response(facts)
    return web.Response(body=drawn.jpeg, content_type="image/jpeg")


async def calibration_step(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)
    wizard = site.wizard
    step = request.match_info["step"]
    if step == "restart":
        wizard.restart()
    elif step == "empty":
        await site.work(wizard.take_empty, _latest_frame(site).image)
    elif step == "reference":
        try:
            await site.work(wizard.take_reference, _latest_frame(site).image)
        except CompanionError as error:
            return web.json_response({"ok": False, "message": str(error)}, status=409)
    elif step == "save":
        try:
            kept = await site.work(wizard.save)
        except CompanionError as error:
            return web.json_response({"ok": False, "message": str(error)}, status=409)
        message = "calibration saved" + (f"; the old one is kept as {kept.name}" if kept else "")
        with contextlib.suppress(CompanionError, TimeoutError):
            message += "; " + await asyncio.wait_for(
                asyncio.wrap_future(site.remote.command("calibration")), 10.0
            )
        return web.json_response({"ok": True, "message": message, "step": wizard.step})
    else:
        raise web.HTTPNotFound(text="no such calibration step\n")
    return web.json_response(
        {"ok": wizard.problem is None, "message": wizard.problem or "done", "step": wizard.step}
    )


# ----- static files ------------------------------------------------------------------------------------


def _static_files() -> dict[str, bytes]:
    folder = resources.files("companion.web") / "static"
    return {name: (folder / name).read_bytes() for name in STATIC}


async def static(request: web.Request) -> web.StreamResponse:
    name = request.match_info["name"]
    files: dict[str, bytes] = request.app[FILES]
    if name not in files:
        raise web.HTTPNotFound(text="no such file\n")
    return web.Response(body=files[name], content_type=STATIC[name], headers={"Cache-Control": "max-age=300"})


# ----- the application and its thread ------------------------------------------------------------------


def build_app(remote: Remote, settings: WebSettings, tokens: TokenStore | None = None) -> web.Application:
    app = web.Application(middlewares=[_errors, _guard], client_max_size=MAX_BODY)
    site = Site(remote, settings, tokens)
    app[SITE] = site
    app[FILES] = _static_files()
    app.router.add_get("/pair", pair_page)
    app.router.add_post("/pair", pair)
    app.router.add_get("/static/{name}", static)
    app.router.add_get("/", live)
    app.router.add_get("/api/state", api_state)
    app.router.add_get("/events", event_stream)
    app.router.add_post("/api/{name:hint|takeback|new-game|accept}", command)
    app.router.add_get("/cups", cups_page)
    app.router.add_post("/api/cups/{action:move|new|takeback|hint}", cups_action)
    app.router.add_get("/games", games)
    app.router.add_get("/games/{game}", replay)
    app.router.add_get("/games/{game}/ply/{ply}", replay_ply)
    app.router.add_get("/games/{game}/snapshot/{ply}.jpg", snapshot)
    app.router.add_get("/games/{game}/record", record)
    app.router.add_get("/status", status)
    app.router.add_post("/api/tokens/{token}/revoke", revoke)
    app.router.add_get("/camera", camera)
    app.router.add_get("/camera/preview.jpg", preview)
    app.router.add_post("/api/calibration/{step}", calibration_step)

    async def closing(app: web.Application) -> None:
        site.closing.set()

    async def cleanup(app: web.Application) -> None:
        site.worker.shutdown(wait=False, cancel_futures=True)
        site.cups.close()

    app.on_shutdown.append(closing)
    app.on_cleanup.append(cleanup)
    return app


class WebServer(Component):
    """The page's server on a thread of its own; ``start`` returns once it listens."""

    def __init__(self, remote: Remote, settings: WebSettings, tokens: TokenStore | None = None) -> None:
        self.remote = remote
        self.settings = settings
        self.tokens = tokens
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stopped: asyncio.Event | None = None
        self._error: BaseException | None = None
        self.port = settings.port

    @property
    def url(self) -> str:
        host = self.settings.host
        shown = "127.0.0.1" if host in ("", "0.0.0.0") else (f"[{host}]" if ":" in host else host)
        return f"http://{shown}:{self.port}/"

    def start(self) -> WebServer:
        self._thread = threading.Thread(target=self._serve, name="web", daemon=True)
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise CompanionError(
                f"the web page cannot listen on {self.settings.host}:{self.settings.port} ({self._error}): "
                "choose another address with --web HOST:PORT or web.port"
            )
        return self

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        except BaseException as error:  # told to the starting thread
            self._error = error
            self._ready.set()
        finally:
            loop.close()

    async def _main(self) -> None:
        app = build_app(self.remote, self.settings, self.tokens)
        # aiohttp 3.9 moved shutdown_timeout from the site to the runner; 3.8 (Debian 12) has
        # no such argument there (the event streams end at shutdown all the same).
        quick: dict[str, Any] = (
            {"shutdown_timeout": 1.0} if "shutdown_timeout" in signature(web.AppRunner).parameters else {}
        )
        runner = web.AppRunner(app, access_log=None, **quick)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.settings.host or "0.0.0.0", self.settings.port)
            await site.start()
            self.port = runner.addresses[0][1]  # the port the system gave, for port 0
            self._stopped = asyncio.Event()
            self._ready.set()
            await self._stopped.wait()
        finally:
            await runner.cleanup()

    def close(self) -> None:
        if self._loop is not None and self._stopped is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._stopped.set)
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
