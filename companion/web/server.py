"""The web server: aiohttp on its own thread and event loop, reading the device through a
``Remote`` and never touching the game itself.

Here: the live game, the Cups table, the camera and calibration pages, the routes and the
server's thread. Every request first meets the guard (``guard.py``: pairing, tokens, CSRF);
bodies over ``MAX_BODY`` bytes are refused by aiohttp itself (413). The logged games' pages are
in ``records.py``, the status page in ``status.py``. Slow work (reading the log, drawing the
preview, calibrating) runs on the site's one worker thread, so the event loop stays free and
the web uses at most one core besides its loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from importlib import resources
from inspect import signature
from typing import Any

from aiohttp import web

from companion.component import Component
from companion.device.remote import Remote
from companion.errors import CompanionError
from companion.web import guard, pages, records, status
from companion.web.board import BoardView, board_svg
from companion.web.cups import cups_page_body, view_json
from companion.web.guard import SECURITY_HEADERS
from companion.web.site import FILES, SESSION, SITE, Site, WebSettings, site_of
from companion.web.tokens import TokenStore

log = logging.getLogger("gobblet-companion.web")

MAX_BODY = 16 * 1024  # bytes: the largest form the pages send is a few hundred
PREVIEW_PERIOD = 0.3  # seconds: the preview is drawn at most about 3 times a second
HEARTBEAT = 15.0  # seconds between two keep-alive comments on an idle event stream
STATIC = {"style.css": "text/css", "app.js": "text/javascript"}


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
    action, form = request.match_info["action"], await form_of(request)
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
        form = await form_of(request)
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


async def form_of(request: web.Request) -> dict[str, str]:
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
        site.csrf(request[SESSION]),
        wizard.step,
        wizard.problem,
        wizard.learned(),
        board_svg(reference),
        insist=wizard.can_insist,
    )
    return web.Response(text=html, content_type="text/html")


def latest_frame(site: Site) -> Any:
    frame = site.remote.frame
    if frame is None:
        raise web.HTTPServiceUnavailable(text="no camera frame yet\n")
    return frame


async def preview(request: web.Request) -> web.StreamResponse:
    """The latest frame with the overlay, redrawn at most every ``PREVIEW_PERIOD`` seconds."""
    site = site_of(request.app)
    frame = latest_frame(site)
    cached = site.preview
    if cached is None or (cached[1] != frame.number and time.monotonic() - cached[0] >= PREVIEW_PERIOD):
        drawn = await site.work(site.overlay.preview, frame.image)
        site.preview = cached = (time.monotonic(), frame.number, drawn)
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
        await site.work(wizard.take_empty, latest_frame(site).image)
    elif step in ("reference", "insist"):
        try:
            if step == "insist":
                await site.work(wizard.insist)
            else:
                await site.work(wizard.take_reference, latest_frame(site).image)
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


def static_files() -> dict[str, bytes]:
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
    app = web.Application(middlewares=[guard.errors, guard.guard], client_max_size=MAX_BODY)
    site = Site(remote, settings, tokens)
    app[SITE] = site
    app[FILES] = static_files()
    app.router.add_get("/pair", guard.pair_page)
    app.router.add_post("/pair", guard.pair)
    app.router.add_get("/static/{name}", static)
    app.router.add_get("/", live)
    app.router.add_get("/api/state", api_state)
    app.router.add_get("/events", event_stream)
    app.router.add_post("/api/{name:hint|takeback|new-game|accept}", command)
    app.router.add_get("/cups", cups_page)
    app.router.add_post("/api/cups/{action:move|new|takeback|hint}", cups_action)
    app.router.add_get("/games", records.games)
    app.router.add_get("/games/{game}", records.replay)
    app.router.add_get("/games/{game}/ply/{ply}", records.replay_ply)
    app.router.add_get("/games/{game}/snapshot/{ply}.jpg", records.snapshot)
    app.router.add_get("/games/{game}/record", records.record)
    app.router.add_get("/status", status.status)
    app.router.add_post("/api/tokens/{token}/revoke", status.revoke)
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
