"""A device for the web page's tests: the real loop (``Companion``) on mock pins, stepping on a
thread of its own like the device, fed with scripted board readings; and the page's server
around its ``Remote``, either in aiohttp's test client or on a real port for a browser."""

from __future__ import annotations

import asyncio
import queue
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest

from companion.device.camera import CameraLink
from companion.device.config import DeviceConfig
from companion.device.hint import HintWorker
from companion.device.loop import Companion
from companion.device.panel import Panel, mock_pin_factory
from companion.device.presenter import Presenter
from companion.device.remote import Remote
from companion.log import GameStore
from companion.rules.game import Game
from companion.rules.position import Position
from companion.rules.square import square_name
from companion.rules.variant import CLASSIC
from companion.vision.observation import Observation
from companion.web.guard import TOKEN_COOKIE
from companion.web.server import build_app
from companion.web.site import WebSettings, site_of

FRAME = (np.arange(48 * 48 * 3) % 241).astype(np.uint8).reshape(48, 48, 3)
CSRF = re.compile(r'<meta name="csrf-token" content="([0-9a-f]*)">')


def seen(position: Position) -> Observation:
    tops = {square_name(sq): position.top(sq) for sq in position.squares if position.top(sq)}
    return Observation.from_tops(tops, position.size, position.variant.max_piece)


class Table:
    """A camera that always has a frame; each queued reading is handed out once."""

    def __init__(self) -> None:
        self.readings: queue.SimpleQueue[Observation] = queue.SimpleQueue()
        self.image = FRAME

    def read(self) -> np.ndarray:
        time.sleep(0.01)  # a camera paces the loop
        return self.image

    def observe(self, frame: np.ndarray, timestamp: float = 0.0) -> Observation | None:
        try:
            return self.readings.get_nowait()
        except queue.Empty:
            return None

    def close(self) -> None:
        pass


class FirstMove:
    def search(self, position, seconds, cancel):
        return next(iter(position.legal_moves))


@dataclass
class Device:
    companion: Companion
    remote: Remote
    table: Table
    factory: object
    config: DeviceConfig
    settings: WebSettings
    game: Game  # the moves the players have made on the "board"

    def play(self, *moves: str, timeout: float = 5.0) -> None:
        """Make moves on the board, one reading each, and wait until the referee has them."""
        for text in moves:
            self.game.push_text(text)
            self.table.readings.put(seen(self.game.position))
        self.wait_for(lambda s: s.ply == self.game.ply, timeout)

    def wait_for(self, condition, timeout: float = 5.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            snapshot = self.remote.snapshot
            if snapshot is not None and condition(snapshot):
                return snapshot
            time.sleep(0.01)
        raise AssertionError(f"the device did not get there in {timeout} s: {self.remote.snapshot}")

    def press_button(self) -> None:
        pin = self.factory.pin(self.config.pins.button)  # type: ignore[attr-defined]
        pin.drive_low()
        time.sleep(0.05)
        pin.drive_high()


@pytest.fixture
def device(tmp_path: Path) -> Iterator[Device]:
    # a press is told from a double press once this window closes: short, so that pairing by
    # the button answers in a tenth of a second rather than the default 0.4 s
    config = replace(DeviceConfig(), panel=replace(DeviceConfig().panel, double_press=0.1))
    factory = mock_pin_factory()
    panel = Panel(config, pin_factory=factory).start()
    table = Table()
    remote = Remote()
    store = GameStore(tmp_path / "games.sqlite3")
    hints = HintWorker(FirstMove(), budget=0.2)
    companion = Companion(
        variant=CLASSIC,
        camera=CameraLink(lambda: table),
        observe=table.observe,
        presenter=Presenter(panel),
        store=store,
        hints=hints,
        remote=remote,
    )
    companion.start(resume=False)
    stop = threading.Event()
    loop = threading.Thread(target=companion.run, args=(stop,), kwargs={"idle_sleep": 0.0}, daemon=True)
    loop.start()
    settings = WebSettings(
        database=tmp_path / "games.sqlite3",
        calibration=tmp_path / "calibration.json",
        data=tmp_path,
        config=config,
    )
    device = Device(companion, remote, table, factory, config, settings, Game(CLASSIC))
    try:
        device.wait_for(lambda s: True)
        yield device
    finally:
        stop.set()
        loop.join(timeout=5)
        hints.close()
        store.close()
        panel.close()


def csrf_of(html: str) -> str:
    found = CSRF.search(html)
    assert found, "the page has no CSRF token"
    return found.group(1)


def serve(device: Device, test):
    """Run ``test(client)`` against the page's app in aiohttp's test client."""
    from aiohttp.test_utils import TestClient, TestServer

    async def main():
        app = build_app(device.remote, device.settings)
        async with TestClient(TestServer(app)) as client:
            return await test(client)

    return asyncio.run(main())


async def paired(client) -> str:
    """Give the client a valid token (as the button would) and return its CSRF token."""
    site = site_of(client.app)
    _, token = site.tokens.issue("test browser")
    client.session.cookie_jar.update_cookies({TOKEN_COOKIE: token})
    page = await client.get("/")
    assert page.status == 200
    return csrf_of(await page.text())
