"""The web application's state (one ``Site`` per server) and the live page's data.

Every handler reaches the device through the ``Site``'s ``Remote`` and does slow work on its
one worker thread, so the event loop stays free.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from companion.device.config import DeviceConfig
from companion.device.cups_table import CupsTable
from companion.device.remote import GameSnapshot, Remote
from companion.web.board import BoardView, board_svg
from companion.web.camera import Overlay, Preview, Wizard
from companion.web.tokens import TOKENS_FILE, TokenStore

log = logging.getLogger("gobblet-companion.web")


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
        self.preview: tuple[float, int, Preview] | None = None  # when drawn, of which frame
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
