"""Cups on the web page, over HTTP (aiohttp's test client): a game played by its moves with the
engine answering, refusals that say why, takeback and hint, the game in the log, and its
replay drawn as cups and pots."""

from __future__ import annotations

import re

from companion.log import GameStore
from companion.rules.cups import CupsPosition
from companion.rules.record import read_record
from companion.web.cups import cups_svg
from tests.web.conftest import paired, serve


def moves_of(svg: str) -> list[str]:
    return re.findall(r'data-move="([sc]\d+)"', svg)


def test_the_drawing_shows_beans_and_only_legal_moves_are_tappable() -> None:
    position = CupsPosition()
    for text in ["s4", "s3"]:
        position.push(position.parse_move(text))
    svg = cups_svg(position, "s3", playable=True)
    assert sorted(moves_of(svg)) == ["c4", "s1", "s2", "s3", "s4"]  # White's cup 4 holds its 1
    assert 'data-cup="black 3"' in svg and 'data-cup="white 2"' in svg
    assert "White · stock 36" in svg and "Black · stock 37" in svg
    assert moves_of(cups_svg(position, "s3")) == [], "a replay is not playable"


def test_a_game_against_the_engine_is_played_and_logged(device) -> None:
    async def test(client):
        token = await paired(client)
        headers = {"X-CSRF-Token": token}
        page = await (await client.get("/cups")).text()
        assert 'id="cups"' in page and 'href="/cups" aria-current' in page
        refused = await client.post("/api/cups/move", json={"move": "s4"}, headers=headers)
        assert refused.status == 409 and "no Cups game yet" in (await refused.json())["message"]
        started = await client.post(
            "/api/cups/new",
            json={"variant": "cups", "white": "Ann", "black": "", "opponent": "greedy"},
            headers=headers,
        )
        view = await started.json()
        assert view["ok"] and view["status"] == "White to move" and moves_of(view["svg"])
        answer = await (await client.post("/api/cups/move", json={"move": "s4"}, headers=headers)).json()
        assert answer["ok"] and answer["moves"].startswith("s4 ") and answer["status"] == "White to move"
        bad = await client.post("/api/cups/move", json={"move": "s9"}, headers=headers)
        assert bad.status == 409 and "at most 4" in (await bad.json())["message"]
        hint = await (await client.post("/api/cups/hint", headers=headers)).json()
        assert hint["hint"].startswith("hint: ")
        back = await (await client.post("/api/cups/takeback", headers=headers)).json()
        assert back["moves"] == "" and back["status"] == "White to move"
        await client.post("/api/cups/move", json={"move": "s3"}, headers=headers)
        final = await (await client.post("/api/cups/move", json={"move": "s1"}, headers=headers)).json()
        game_id = final["game_id"]
        listing = await (await client.get("/games")).text()
        assert f'href="/games/{game_id}"' in listing and "cups" in listing
        replay = await (await client.get(f"/games/{game_id}/ply/1")).json()
        assert 'class="board cups"' in replay["svg"] and replay["move_text"] == "ply 1: s3"
        record = await (await client.get(f"/games/{game_id}/record")).text()
        return final["moves"], record

    moves, record = serve(device, test)
    game = read_record(record)
    assert " ".join(m.text() for m in game.moves) == moves
    assert game.headers["White"] == "Ann" and game.headers["Black"] == "Engine (greedy)"
    with GameStore(device.settings.database, create=False) as store:
        rows = [row for row in store.games() if row.variant == "cups"]
    assert len(rows) == 1 and rows[0].plies == len(moves.split())
    assert rows[0].termination == "abandoned" and "server stopped" in (rows[0].reason or "")


def test_a_new_game_with_a_bad_variant_or_opponent_says_why(device) -> None:
    async def test(client):
        headers = {"X-CSRF-Token": await paired(client)}
        bad = await client.post("/api/cups/new", json={"variant": "cups:cups=5"}, headers=headers)
        other = await client.post(
            "/api/cups/new", json={"variant": "cups", "opponent": "god"}, headers=headers
        )
        unpaired = await client.post("/api/cups/new", json={"variant": "cups"})
        return (
            bad.status,
            (await bad.json())["message"],
            other.status,
            (await other.json())["message"],
            unpaired.status,
        )

    status, message, other_status, other_message, unpaired = serve(device, test)
    assert status == 409 and "even number" in message
    assert other_status == 409 and "unknown opponent 'god'" in other_message
    assert unpaired == 403
