"""The configuration file: documented defaults that match the code and the pin table, and
mistakes reported by name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.device.config import DeviceConfig, config_from_dict, data_dir, load_config
from companion.errors import CompanionError

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"


def test_the_documented_file_is_exactly_the_defaults():
    assert load_config(HARDWARE / "config.toml") == DeviceConfig()


def test_the_pin_table_matches_the_defaults():
    table = (HARDWARE / "README.md").read_text()
    rows = dict(
        re.findall(
            r"^\| (square [a-d][1-4]|turn LED, \w+|alert LED|buzzer|hint button) \| (\d+) \|", table, re.M
        )
    )
    pins = DeviceConfig().pins
    squares = [f"square {f}{r}" for r in "1234" for f in "abcd"]
    assert [int(rows[name]) for name in squares] == list(pins.squares)
    assert int(rows["turn LED, White"]) == pins.turn_white
    assert int(rows["turn LED, Black"]) == pins.turn_black
    assert int(rows["alert LED"]) == pins.alert
    assert int(rows["buzzer"]) == pins.buzzer
    assert int(rows["hint button"]) == pins.button


def test_a_file_names_only_what_differs(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[pins]\nbutton = 9\n[hint]\ntime = 1\n")
    config = load_config(path)
    assert config.pins.button == 9 and config.hint.time == 1.0
    assert config.pins.squares == DeviceConfig().pins.squares


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"pins": {"button": 4}}, "used twice"),
        ({"pins": {"alert": 40}}, "not a GPIO number"),
        ({"pins": {"squares": [4, 5]}}, "needs 16"),
        ({"pins": {"buton": 4}}, "unknown key pins.buton"),
        ({"lights": {}}, "unknown section"),
        ({"panel": {"buzzer": "loud"}}, "panel.buzzer"),
        ({"panel": {"blink_period": "fast"}}, "should be float"),
        ({"hint": {"time": 0}}, "must be a finite number above 0"),
        ({"panel": {"active_high": 1}}, "should be bool"),
        ({"speech": {"voice": "it"}}, r"speech.voice: there are no phrases in 'it': use one of en, de, fr"),
        ({"speech": {"voice": "en us"}}, "speech.voice: 'en us' is not a voice name"),
        ({"speech": {"rate": 20}}, "speech.rate must be 80 to 450 words a minute, not 20"),
        (
            {"speech": {"volume": 300}},
            r"speech.volume must be 0 to 200 \(100 is espeak-ng's normal\), not 300",
        ),
        ({"speech": {"rate": 1.5}}, "speech.rate = 1.5 should be int"),
        ({"speech": {"enabled": "yes"}}, "speech.enabled = 'yes' should be bool"),
        ({"speech": {"language": "de"}}, "unknown key speech.language"),
    ],
)
def test_mistakes_are_named(data, words):
    with pytest.raises(CompanionError, match=words):
        config_from_dict(data, "test.toml")


def test_a_regional_voice_of_a_shipped_language_is_taken():
    config = config_from_dict({"speech": {"voice": "en-us", "rate": 200, "volume": 0}})
    assert (config.speech.voice, config.speech.rate, config.speech.volume) == ("en-us", 200, 0)


def test_unreadable_files(tmp_path):
    with pytest.raises(CompanionError, match="does not exist"):
        load_config(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[pins\n")
    with pytest.raises(CompanionError, match="not valid TOML"):
        load_config(bad)


def test_data_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("GOBBLET_COMPANION_DATA", str(tmp_path / "d"))
    assert data_dir() == tmp_path / "d"
    monkeypatch.delenv("GOBBLET_COMPANION_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "x"))
    assert data_dir() == tmp_path / "x" / "gobblet-companion"


@pytest.mark.parametrize("page", ["README.md", "docs/device.md"])
def test_the_brief_wiring_tables_match_the_defaults(page):
    text = (HARDWARE.parent / page).read_text()
    pins = DeviceConfig().pins
    rows = [" / ".join(" ".join(str(p) for p in pins.squares[i : i + 4]) for i in range(0, 16, 4))]
    rows += [f"{pins.turn_white}, {pins.turn_black}", str(pins.alert), str(pins.buzzer), str(pins.button)]
    cells = re.findall(r"^\|[^|]+\| ([^|]+) \|$", text, re.M)
    for row in rows:
        assert row in cells, f"{page}: no wiring row with {row}"
