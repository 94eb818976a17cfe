"""The logged games' pages: the list, a game replayed ply by ply with the coach's verdicts,
the pictures kept after plies, and the game's record to download."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from companion.coach import GameReview, annotate, stored_review
from companion.errors import CompanionError
from companion.log import GameStore, UnreplayableGameError
from companion.rules.cups import CupsPosition
from companion.rules.game import BaseGame
from companion.rules.position import Position
from companion.rules.record import write_record
from companion.web import pages
from companion.web.board import board_svg, view_of
from companion.web.cups import cups_svg
from companion.web.site import SESSION, Site, site_of

log = logging.getLogger("gobblet-companion.web")


def store_of(site: Site) -> GameStore:
    try:
        return GameStore(site.settings.database, create=False)
    except CompanionError as error:
        raise web.HTTPNotFound(text=f"{error}\n") from None


def game_id_of(request: web.Request) -> int:
    text = request.match_info["game"]
    if not text.isdigit() or len(text) > 18:
        raise web.HTTPNotFound(text="no such game\n")
    return int(text)


async def games(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)

    def read() -> list[Any]:
        if not site.settings.database.exists():
            return []
        with store_of(site) as store:
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


def replayed_of(site: Site, game_id: int) -> Replayed:
    with store_of(site) as store:
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
    replayed = await site.work(replayed_of, site, game_id_of(request))
    plies = len(replayed.game.played)
    first = ply_view(replayed, plies)
    html = pages.replay_page(site.csrf(request[SESSION]), replayed.row, plies, first, replayed.review)
    return web.Response(text=html, content_type="text/html")


async def replay_ply(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)
    text = request.match_info["ply"]
    if not text.isdigit() or len(text) > 6:
        raise web.HTTPBadRequest(text="ply must be a whole number\n")
    replayed = await site.work(replayed_of, site, game_id_of(request))
    return web.json_response(ply_view(replayed, int(text)))


async def snapshot(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)
    game_id, text = game_id_of(request), request.match_info["ply"]
    if not text.isdigit() or len(text) > 6:
        raise web.HTTPNotFound(text="no such picture\n")

    def read() -> bytes | None:
        with store_of(site) as store:
            return store.snapshot(game_id, int(text))

    jpeg = await site.work(read)
    if jpeg is None:
        raise web.HTTPNotFound(text="no picture kept after that ply\n")
    return web.Response(body=jpeg, content_type="image/jpeg")


async def record(request: web.Request) -> web.StreamResponse:
    site = site_of(request.app)
    replayed = await site.work(replayed_of, site, game_id_of(request))
    game_id = game_id_of(request)
    game = replayed.game if replayed.review is None else annotate(replayed.game, replayed.review)
    return web.Response(
        text=write_record(game),
        content_type="text/plain",
        headers={"Content-Disposition": f'attachment; filename="gobblet-game-{game_id}.txt"'},
    )
