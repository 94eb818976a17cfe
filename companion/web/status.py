"""The status page: what the device is doing, its health and faults, its pins, the paired
browsers (and revoking one)."""

from __future__ import annotations

import functools
import json
import logging
import shutil
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from companion import __version__
from companion.device.config import DeviceConfig
from companion.device.remote import Remote
from companion.errors import CompanionError
from companion.vision.calibration import findings_of, overruled_words
from companion.web import pages
from companion.web.site import SESSION, TOKEN, Site, site_of
from companion.web.tokens import TokenEntry

log = logging.getLogger("gobblet-companion.web")


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
        stat = calibration.stat()
        made = stat.st_mtime
        words = trust_words(str(calibration), stat.st_mtime_ns, stat.st_size)
        trusted = "" if words is None else f"; its reference layout was taken on trust, {words}"
        facts.append(("calibration", f"{calibration}, made {pages.age(time.time() - made)} ago{trusted}"))
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


@functools.lru_cache(maxsize=4)
def trust_words(path: str, mtime_ns: int, size: int) -> str | None:
    """What the calibration file at ``path`` says its reference layout taken on the user's word
    (``calibrate --cups-as-set-out``, the wizard's "calibrate anyway") overruled
    (``calibration.overruled_words``), which the status says for as long as the file is in use;
    None where the layout was checked. The JSON is read as it is, without loading the
    calibration (that is the loop's, and a broken file its to report): findings that are not a
    list of lines count as not recorded. Kept by the file's modification time and size
    (``mtime_ns``, ``size``): a calibration is a few hundred kilobytes, read again only when it
    is written again, not at every look at the status page."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    try:
        lines = findings_of(data.get("overruled"))
    except ValueError:
        lines = None
    return overruled_words(bool(data.get("layout_trusted", False)), lines)


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
