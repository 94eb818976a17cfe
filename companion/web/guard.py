"""Who may ask what: the guard every request meets first, and pairing a browser.

In the order a request meets it (``guard``): a path that is not plain ASCII without ``..`` or
is too long is refused; a browser without a valid token cookie sees only the pairing page and
the static files (other pages redirect there, the API answers 401); every POST must carry the
CSRF token of its session (a hidden field or the ``X-CSRF-Token`` header) and, when the browser
names one, an Origin matching the host. Pairing waits for the device's button and is
rate-limited. A request that fails answers 500 and is logged (``errors``); the game never sees it.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

from companion.web import pages
from companion.web.site import SESSION, TOKEN, site_of
from companion.web.tokens import TokenEntry

log = logging.getLogger("gobblet-companion.web")

MAX_PATH = 200
TOKEN_COOKIE = "gc_token"
PRE_COOKIE = "gc_pre"  # an unpaired browser's session, for the pairing form's CSRF token
COOKIE_YEARS = 10
PAIRING_LIMIT = 6  # pairing requests per PAIRING_WINDOW seconds, from everyone together
PAIRING_WINDOW = 60.0
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


def bad_path(path: str) -> bool:
    return len(path) > MAX_PATH or not path.isascii() or ".." in path or "\\" in path or "//" in path


def session_of(request: web.Request) -> tuple[TokenEntry | None, str]:
    site = site_of(request.app)
    entry = site.tokens.check(request.cookies.get(TOKEN_COOKIE))
    if entry is not None:
        return entry, entry.id
    return None, request.cookies.get(PRE_COOKIE, "")


@web.middleware
async def guard(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    if bad_path(request.raw_path.split("?", 1)[0]):
        raise web.HTTPBadRequest(text="bad path\n")
    entry, session = session_of(request)
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
        await check_csrf(request, session)
    response = await handler(request)
    response.headers.update(SECURITY_HEADERS)
    response.headers.setdefault("Cache-Control", "no-store")
    return response


async def check_csrf(request: web.Request, session: str) -> None:
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
async def errors(
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
