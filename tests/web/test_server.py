"""The page's HTTP side with aiohttp's test client against a running loop on mock pins: every
route, refusal without a token, the CSRF check, pairing by a (mock) button press, bad bodies
and bad paths, and that the page's commands reach the referee."""

from __future__ import annotations

import asyncio
import json

import pytest

from companion.coach import review_game
from companion.device.config import DeviceConfig
from companion.log import GameStore
from companion.rules.record import read_record
from companion.web.guard import PAIRING_LIMIT, TOKEN_COOKIE
from companion.web.server import MAX_BODY
from companion.web.site import site_of
from tests.reconciler.test_help import read_as
from tests.web.conftest import csrf_of, paired, seen, serve

PAGES = ["/", "/games", "/status", "/camera", "/api/state"]


def test_an_unpaired_browser_sees_only_the_pairing_page(device) -> None:
    async def test(client):
        for path in [*PAGES, "/games/1", "/games/1/record", "/camera/preview.jpg", "/events"]:
            response = await client.get(path, allow_redirects=False)
            assert response.status in (303, 401), path
            if response.status == 303:
                assert response.headers["Location"] == "/pair"
        for path in ["/api/hint", "/api/new-game", "/api/calibration/empty", "/api/tokens/x/revoke"]:
            assert (await client.post(path)).status == 401, path
        page = await client.get("/pair")
        assert page.status == 200 and "Pair this browser" in await page.text()
        assert "HttpOnly" in page.headers["Set-Cookie"] and "SameSite=Strict" in page.headers["Set-Cookie"]
        assert (await client.get("/static/app.js")).status == 200

    serve(device, test)


def test_a_forged_or_revoked_token_is_refused(device) -> None:
    async def test(client):
        client.session.cookie_jar.update_cookies({TOKEN_COOKIE: "not-a-token"})
        assert (await client.get("/", allow_redirects=False)).status == 303
        await paired(client)
        site = site_of(client.app)
        (entry,) = site.tokens.entries()
        site.tokens.revoke(entry.id)
        assert (await client.get("/", allow_redirects=False)).status == 303

    serve(device, test)


def test_pairing_by_a_button_press_gives_a_lasting_httponly_cookie(device, tmp_path) -> None:
    async def test(client):
        page = await client.get("/pair")
        csrf = csrf_of(await page.text())
        asking = asyncio.ensure_future(client.post("/pair", headers={"X-CSRF-Token": csrf}))
        await asyncio.to_thread(device.wait_for, lambda s: s.pairing)  # the LEDs show it
        assert device.companion.presenter.panel.scene.name == "pairing"
        await asyncio.to_thread(device.press_button)
        response = await asking
        assert (await response.json())["paired"] is True
        cookie = response.cookies[TOKEN_COOKIE]
        assert cookie["httponly"] and cookie["samesite"] == "Strict" and int(cookie["max-age"]) > 86400 * 365
        assert (await client.get("/", allow_redirects=False)).status == 200
        return cookie.value

    token = serve(device, test)
    stored = json.loads((tmp_path / "web-tokens.json").read_text())
    assert token not in json.dumps(stored)  # only its hash is kept
    assert len(stored["tokens"]) == 1
    # the press paired the browser and asked no hint
    assert device.companion.hints.pending is None
    assert not any(e["type"] == "hint" for _, e in device.remote.events)


def test_pairing_times_out_without_a_press_and_is_rate_limited(device, monkeypatch) -> None:
    monkeypatch.setattr("companion.device.remote.PAIRING_SECONDS", 0.01)

    async def test(client):
        csrf = csrf_of(await (await client.get("/pair")).text())
        answers = []
        for _ in range(PAIRING_LIMIT):
            response = await client.post("/pair", headers={"X-CSRF-Token": csrf})
            answers.append((await response.json())["paired"])
        assert answers == [False] * PAIRING_LIMIT
        assert (await client.post("/pair", headers={"X-CSRF-Token": csrf})).status == 429
        assert TOKEN_COOKIE not in {c.key for c in client.session.cookie_jar}

    serve(device, test)


def test_a_state_changing_request_needs_the_csrf_token(device) -> None:
    async def test(client):
        csrf = await paired(client)
        assert (await client.post("/api/hint")).status == 403
        assert (await client.post("/api/hint", headers={"X-CSRF-Token": "0" * 40})).status == 403
        other_site = {"X-CSRF-Token": csrf, "Origin": "http://evil.example"}
        assert (await client.post("/api/hint", headers=other_site)).status == 403
        assert (await client.post("/pair", headers={"X-CSRF-Token": csrf})).status == 409  # paired already
        ok = await client.post("/api/hint", headers={"X-CSRF-Token": csrf})
        assert ok.status == 200, await ok.text()

    serve(device, test)


def test_bad_bodies_and_bad_paths_are_refused(device) -> None:
    async def test(client):
        csrf = await paired(client)
        headers = {"X-CSRF-Token": csrf, "Content-Type": "application/json"}
        big = await client.post("/api/new-game", data=b"{" + b" " * (MAX_BODY + 10) + b"}", headers=headers)
        assert big.status == 413
        assert (await client.post("/api/new-game", data=b"{not json", headers=headers)).status == 400
        assert (await client.post("/api/new-game", data=b'{"white": 3}', headers=headers)).status == 400
        bad_variant = await client.post("/api/new-game", data=b'{"variant": "chess"}', headers=headers)
        assert bad_variant.status == 409
        for path in [
            "/static/..%2f..%2fetc%2fpasswd",
            "/static/%2e%2e/server.py",
            "/games/1/../../x",
            "/" + "a" * 300,
            "/games/%C3%A9",
        ]:
            response = await client.get(path)
            assert response.status in (400, 404), path
        assert (await client.get("/static/server.py")).status == 404
        assert (await client.get("/games/99")).status == 404
        assert (await client.get("/games/1/ply/x")).status == 400
        assert (await client.get("/events?after=x")).status == 400

    serve(device, test)


def test_moves_reach_the_page_and_the_event_stream(device) -> None:
    async def test(client):
        await paired(client)
        stream = await client.get("/events")
        assert stream.headers["Content-Type"] == "text/event-stream"
        kind, first = await _next_event(stream)
        assert kind == "state" and first["ply"] == 0
        await asyncio.to_thread(device.play, "4a1")
        seen_now: dict[str, dict] = {}
        while len(seen_now) < 2:
            kind, data = await _next_event(stream)
            if kind == "referee" or data.get("last_move") == "4a1":
                seen_now[kind] = data
        assert seen_now["referee"]["type"] == "move" and seen_now["referee"]["move"] == "4a1"
        state = seen_now["state"]
        assert state["version"] > first["version"]
        assert 'data-square="a1"' in state["svg"] and "white 4" in state["svg"]
        stream.close()
        live = await (await client.get("/")).text()
        assert "4a1" in live and 'class="square dark last"' in live
        api = await (await client.get("/api/state")).json()
        assert api["ply"] == 1 and api["turn"] == "black"

    serve(device, test)


async def _next_event(stream) -> tuple[str, dict]:
    name = ""
    while True:
        line = (await asyncio.wait_for(stream.content.readline(), 5)).decode().rstrip("\n")
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            return name, json.loads(line[6:])


def test_the_hint_button_asks_the_referee_and_the_arrow_comes(device) -> None:
    async def test(client):
        csrf = await paired(client)
        response = await client.post("/api/hint", headers={"X-CSRF-Token": csrf})
        assert (await response.json())["message"] == "hint asked"
        snapshot = await asyncio.to_thread(device.wait_for, lambda s: s.hint is not None)
        state = await (await client.get("/api/state")).json()
        assert state["hint"] == snapshot.hint and f'data-hint="{snapshot.hint}"' in state["svg"]

    serve(device, test)


def test_takeback_needs_the_board_to_offer_it_then_confirms(device) -> None:
    async def test(client):
        csrf = await paired(client)
        await asyncio.to_thread(device.play, "4a1", "4d4")
        refused = await client.post("/api/takeback", headers={"X-CSRF-Token": csrf})
        assert refused.status == 409 and "put the last move back" in (await refused.json())["message"]
        device.game.pop()  # the players put d4's cup back in its stack
        device.table.readings.put(seen(device.game.position))
        await asyncio.to_thread(device.wait_for, lambda s: s.takeback_offered == "4d4")
        done = await client.post("/api/takeback", headers={"X-CSRF-Token": csrf})
        assert (await done.json())["message"] == "took back 4d4"
        snapshot = await asyncio.to_thread(device.wait_for, lambda s: s.ply == 1)
        assert snapshot.last_move == "4a1"

    serve(device, test)


def test_new_game_from_the_page_with_names(device) -> None:
    async def test(client):
        csrf = await paired(client)
        await asyncio.to_thread(device.play, "4a1")
        old = device.companion.game_id
        body = {"variant": "classic", "white": "Ann", "black": "Bob"}
        response = await client.post("/api/new-game", json=body, headers={"X-CSRF-Token": csrf})
        assert response.status == 200, await response.text()
        snapshot = await asyncio.to_thread(device.wait_for, lambda s: s.game_id != old)
        assert (snapshot.white, snapshot.black, snapshot.ply) == ("Ann", "Bob", 0)
        junior = await client.post(
            "/api/new-game", json={"variant": "junior"}, headers={"X-CSRF-Token": csrf}
        )
        assert junior.status == 409 and "another board" in (await junior.json())["message"]

    serve(device, test)


def test_accept_what_the_camera_sees_when_the_referee_asks_for_help(device) -> None:
    async def test(client):
        csrf = await paired(client)
        refused = await client.post("/api/accept", headers={"X-CSRF-Token": csrf})
        assert refused.status == 409  # nothing is asked
        await asyncio.to_thread(device.play, "4a1", "4d4")
        for _ in range(2):  # a1 read as a Black 4, unsure: twice, and the referee asks
            device.table.readings.put(read_as(device.game, "a1", (1, 4), 0.6))
        await asyncio.to_thread(device.wait_for, lambda s: s.can_accept)
        state = await (await client.get("/api/state")).json()
        assert state["help_squares"] == ["a1"] and 'class="square dark help"' in state["svg"]
        page = await (await client.get("/")).text()
        assert "a1: the camera sees black 4, the game has white 4" in page
        accepted = await client.post("/api/accept", headers={"X-CSRF-Token": csrf})
        assert accepted.status == 200, await accepted.text()
        snapshot = await asyncio.to_thread(device.wait_for, lambda s: not s.can_accept)
        assert snapshot.stacks["a1"][-1] == ("black", 4)

    serve(device, test)


def test_games_list_replay_and_a_record_that_replays(device) -> None:
    async def test(client):
        await paired(client)
        await asyncio.to_thread(device.play, "4a1", "4d4", "3a2")
        game_id = device.companion.game_id
        listing = await (await client.get("/games")).text()
        assert f'href="/games/{game_id}"' in listing
        page = await (await client.get(f"/games/{game_id}")).text()
        assert 'id="slider"' in page and 'max="3"' in page
        first = await (await client.get(f"/games/{game_id}/ply/1")).json()
        assert first["move_text"] == "ply 1: 4a1" and "move: 4a1" in first["events_html"]
        start = await (await client.get(f"/games/{game_id}/ply/0")).json()
        assert start["move_text"] == "the start" and "white 4" not in start["svg"]
        download = await client.get(f"/games/{game_id}/record")
        assert "attachment" in download.headers["Content-Disposition"]
        return await download.text()

    text = serve(device, test)
    game = read_record(text)
    assert [m.text() for m in game.moves] == ["4a1", "4d4", "3a2"]


def test_a_reviewed_game_shows_its_graph_jumps_and_verdicts(device) -> None:
    """The coach's review under the replay: the graph's dots and a button per marked move
    carry the ply to jump to, a ply's words carry its verdict, the record its symbols."""
    moves = ("4a1", "4d4", "4b1", "4c4", "4c1", "4b4", "3a4")

    async def test(client):
        await paired(client)
        await asyncio.to_thread(device.play, *moves)
        game_id = device.companion.game_id
        before = await (await client.get(f"/games/{game_id}")).text()
        assert (
            "A game is reviewed once it is finished" in before
            and "<svg" not in before.split('id="review"')[1]
        )
        review = review_game(device.game, nodes=800)
        with GameStore(device.settings.database) as store:
            store.save_review(game_id, len(moves), review.method, review.to_json())
        page = await (await client.get(f"/games/{game_id}")).text()
        section = page.split('id="review"')[1]
        assert 'class="evaluation"' in section and section.count('class="mark"') == 2
        assert 'data-ply="6"' in section and 'data-ply="7"' in section
        assert ">7. 3a4? missed win</button>" in section and "<td>1</td>" in section
        seventh = await (await client.get(f"/games/{game_id}/ply/7")).json()
        assert seventh["move_text"].startswith("ply 7: 3a4? — Missed win (a win in 1 ply)")
        return await (await client.get(f"/games/{game_id}/record")).text()

    record = read_record(serve(device, test))
    assert [p.symbol for p in record.played][-2:] == ["??", "?"]


class Health:
    """The device's health record as the hardening work keeps it (``Health.snapshot``)."""

    def snapshot(self) -> dict:
        return {
            "ok": False,
            "needs_service": True,
            "faults": [
                {"part": "log", "text": "the disk is full: free some space", "since": 1.0, "count": 3}
            ],
            "repairs": [{"part": "calibration", "text": "a damaged file was moved aside", "at": 2.0}],
            "survived": 4,
        }


def test_status_says_what_needs_service(device) -> None:
    device.remote.health = Health()

    async def test(client):
        await paired(client)
        return await (await client.get("/status")).text()

    page = serve(device, test)
    assert "needs service: log: the disk is full: free some space" in page
    assert "repaired calibration: a damaged file was moved aside" in page
    assert "faults ridden out since start</th><td>4" in page


def test_status_says_a_calibration_took_its_layout_on_trust(device) -> None:
    async def test(client):
        await paired(client)
        calibration = device.settings.calibration
        for text, said in (
            ("{}", None),
            ('{"layout_trusted": true}', "what it overruled was not recorded"),
            ('{"layout_trusted": true, "overruled": []}', "no check refused it"),
            (
                '{"layout_trusted": true, "overruled": ["the size-1 cup on a1 looks black, not white"]}',
                "overruling: the size-1 cup on a1 looks black, not white",
            ),
            ('{"layout_trusted": true, "overruled": 7}', "what it overruled was not recorded"),
            ("not json", None),
        ):
            calibration.write_text(text)
            page = await (await client.get("/status")).text()
            trusted = "its reference layout was taken on trust"
            assert (trusted in page) is (said is not None), text
            assert said is None or f"{trusted}, {said}" in page, text

    serve(device, test)


def test_status_lists_tokens_and_revokes_one(device) -> None:
    async def test(client):
        csrf = await paired(client)
        other, _ = site_of(client.app).tokens.issue("the kitchen tablet")
        page = await (await client.get("/status")).text()
        button = f"GPIO {DeviceConfig().pins.button}"
        for words in ("version", "camera", "alert LED", "calibration", "disk", "kitchen tablet", button):
            assert words in page, words
        form = {"csrf": csrf}
        response = await client.post(f"/api/tokens/{other.id}/revoke", data=form, allow_redirects=False)
        assert response.status == 303
        assert other.id not in {e.id for e in site_of(client.app).tokens.entries()}
        missing = await client.post("/api/tokens/nope/revoke", data=form, allow_redirects=False)
        assert missing.status == 404

    serve(device, test)


def test_camera_page_preview_and_a_wizard_that_refuses_a_blank_frame(device) -> None:
    async def test(client):
        csrf = await paired(client)
        page = await (await client.get("/camera")).text()
        assert 'data-step="empty"' in page
        preview = await client.get("/camera/preview.jpg")
        assert preview.status == 200 and (await preview.read())[:2] == b"\xff\xd8"
        facts = await (await client.get("/camera/preview.jpg?facts=1")).json()
        assert facts["markers"] == [] and "no calibration" in facts["problem"]
        empty = await client.post("/api/calibration/empty", headers={"X-CSRF-Token": csrf})
        answer = await empty.json()
        assert answer["ok"] is False and "not understood" in answer["message"]
        assert 'data-step="empty"' in await (await client.get("/camera")).text()
        assert (await client.post("/api/calibration/save", headers={"X-CSRF-Token": csrf})).status == 409
        insist = await client.post("/api/calibration/insist", headers={"X-CSRF-Token": csrf})
        assert insist.status == 409 and "nothing refused" in (await insist.json())["message"]
        assert "calibration/insist" not in await (await client.get("/camera")).text()
        assert (await client.post("/api/calibration/nope", headers={"X-CSRF-Token": csrf})).status == 404

    serve(device, test)


@pytest.mark.parametrize("path", ["/games", "/games/1"])
def test_a_missing_game_log_is_a_page_not_a_crash(device, tmp_path, path) -> None:
    device.settings.database = tmp_path / "elsewhere" / "none.sqlite3"

    async def test(client):
        await paired(client)
        response = await client.get(path)
        assert response.status in (200, 404)
        return await response.text()

    text = serve(device, test)
    assert "No games yet" in text or "no game log" in text
