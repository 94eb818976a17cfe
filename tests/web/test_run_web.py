"""``run --web``, ``web tokens`` and the ``[web]`` configuration: the command-line side of the page."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

from companion.cli import main
from companion.cli.run import parse_address
from companion.device.config import config_from_dict
from companion.errors import CompanionError
from companion.web.tokens import TokenStore

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("127.0.0.1:8080", ("127.0.0.1", 8080)),
        ("0.0.0.0:9000", ("0.0.0.0", 9000)),
        (":8081", ("127.0.0.1", 8081)),
        ("8082", ("127.0.0.1", 8082)),
        ("[::1]:8083", ("::1", 8083)),
    ],
)
def test_web_addresses(text: str, address: tuple[str, int]) -> None:
    assert parse_address(text) == address


@pytest.mark.parametrize("text", ["localhost:http", "127.0.0.1:70000", "127.0.0.1:", "a:b:c"])
def test_a_bad_web_address_is_one_clear_error(text: str) -> None:
    with pytest.raises(CompanionError, match="HOST:PORT"):
        parse_address(text)


def test_the_web_section_of_the_configuration() -> None:
    config = config_from_dict({"web": {"enabled": False, "host": "127.0.0.1", "port": 8181}})
    assert (config.web.enabled, config.web.host, config.web.port) == (False, "127.0.0.1", 8181)
    with pytest.raises(CompanionError, match=r"web\.port"):
        config_from_dict({"web": {"port": 0}})
    with pytest.raises(CompanionError, match=r"web\.port"):
        config_from_dict({"web": {"port": "8080"}})


def test_web_tokens_lists_and_revokes(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("GOBBLET_COMPANION_DATA", str(tmp_path))
    assert main(["web", "tokens"]) == 0
    assert "no paired browsers" in capsys.readouterr().out
    store = TokenStore(tmp_path / "web-tokens.json")
    entry, token = store.issue("Ann's phone")
    assert main(["web", "tokens", "--json"]) == 0
    (listed,) = json.loads(capsys.readouterr().out)
    assert listed["id"] == entry.id and listed["label"] == "Ann's phone" and "digest" not in listed
    assert main(["web", "tokens", "--revoke", entry.id]) == 0
    assert store.check(token) is None  # the running server's store sees the file change
    assert main(["web", "tokens", "--revoke", entry.id]) == 2
    assert "no paired browser" in capsys.readouterr().err


def test_a_damaged_tokens_file_is_one_clear_error(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("GOBBLET_COMPANION_DATA", str(tmp_path))
    (tmp_path / "web-tokens.json").write_text("{not json")
    assert main(["web", "tokens"]) == 2
    assert "move the file aside" in capsys.readouterr().err


@pytest.mark.slow
def test_run_web_serves_the_simulated_game_until_interrupted(tmp_path) -> None:
    """The embedded default with --web: prints the address, the simulated player pairs the
    browser with the mock button, the game is played at a camera's pace and stays on the page
    until Ctrl-C, which ends the run with its report."""
    env = {**os.environ, "GOBBLET_COMPANION_DATA": str(tmp_path)}
    env.pop("NOTIFY_SOCKET", None)
    command = [
        sys.executable,
        "-m",
        "companion",
        "run",
        "--web",
        "127.0.0.1:0",
        "--renderer",
        "truth",
        "--quiet",
        "--fps",
        "40",
        "--db",
        str(tmp_path / "games.sqlite3"),
    ]
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        url = _address(process)
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        page = opener.open(url + "pair").read().decode()
        csrf = re.search(r'name="csrf-token" content="([0-9a-f]+)"', page).group(1)
        request = urllib.request.Request(url + "pair", method="POST", headers={"X-CSRF-Token": csrf})
        assert json.loads(opener.open(request, timeout=40).read())["paired"] is True
        deadline = time.monotonic() + 120
        state: dict = {}
        while time.monotonic() < deadline and not state.get("over"):
            state = json.loads(opener.open(url + "api/state").read())
            time.sleep(0.2)
        assert state.get("over"), state
        time.sleep(0.5)
        assert process.poll() is None  # still serving after the game
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert re.search(r"game 1 played: \d+ plies, (1-0|0-1|1/2-1/2)", out), out


def _address(process: subprocess.Popen) -> str:
    assert process.stdout is not None
    for _ in range(10):
        line = process.stdout.readline()
        found = re.search(r"the web page is at (http://\S+/)", line)
        if found:
            return found.group(1)
    raise AssertionError("run --web did not print the page's address")


def test_a_busy_port_stops_run_web_but_not_the_service(tmp_path, monkeypatch) -> None:
    import socket

    from companion.cli.run import start_web_server
    from companion.device.app import RunOptions
    from companion.device.config import DeviceConfig
    from companion.device.remote import Remote
    from companion.rules import Variant

    monkeypatch.setenv("GOBBLET_COMPANION_DATA", str(tmp_path))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = ("127.0.0.1", taken.getsockname()[1])
        options = RunOptions(
            config=DeviceConfig(),
            variant=Variant.from_spec("classic"),
            database=tmp_path / "games.sqlite3",
            calibration=tmp_path / "calibration.json",
            simulate=True,
            remote=Remote(),
        )
        with pytest.raises(CompanionError, match="cannot listen"):
            start_web_server(options, address, required=True)
        assert start_web_server(options, address, required=False) is None
        assert options.remote is None  # the loop runs without a page
