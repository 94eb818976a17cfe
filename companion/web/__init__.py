"""The companion's web page: watch the game, ask for a hint, browse and download games, set the
camera up; paired with the device by its button (docs/web.md).

``WebServer`` runs aiohttp on its own thread; it sees the device only through a
``companion.device.remote.Remote``: snapshots the loop publishes and commands it drains.
"""

from companion.web.server import WebServer, WebSettings, build_app
from companion.web.tokens import TokenStore

__all__ = ["TokenStore", "WebServer", "WebSettings", "build_app"]
