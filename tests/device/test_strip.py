"""The one-strip panel (issue 12, defect 12): an APA102/SK9822 strip behind the same panel as
the 19 LEDs, driven through a stand-in for Adafruit's ``adafruit_dotstar`` and Blinka's
``board`` (the real ones need a Pi's SPI)."""

from __future__ import annotations

import sys
import types
from dataclasses import replace
from typing import ClassVar

import pytest

from companion.device.config import DeviceConfig, PanelConfig, StripConfig, config_from_dict
from companion.device.panel import Panel, mock_pin_factory
from companion.device.presenter import Presenter
from companion.device.strip import ALERT_COLOUR, DARK, SQUARE_COLOUR, TURN_COLOURS, StripLights
from companion.errors import CompanionError
from companion.rules.move import Move
from tests.device.conftest import FakeClock


class FakeDotStar:
    """What the panel may use of ``adafruit_dotstar.DotStar``: item assignment, show, deinit."""

    made: ClassVar[list[FakeDotStar]] = []

    def __init__(self, clock, data, n, *, brightness, auto_write, pixel_order, baudrate=4_000_000):
        self.pins = (clock, data)
        self.n, self.brightness, self.auto_write, self.pixel_order = n, brightness, auto_write, pixel_order
        self.buffer = [DARK] * n
        self.shown: list[tuple] = []
        self.deinited = False
        FakeDotStar.made.append(self)

    def __setitem__(self, index, colour):
        if not 0 <= index < self.n:
            raise IndexError(index)
        self.buffer[index] = colour

    def show(self):
        self.shown.append(tuple(self.buffer))

    def deinit(self):
        self.deinited = True


@pytest.fixture
def dotstar(monkeypatch):
    FakeDotStar.made = []
    module = types.ModuleType("adafruit_dotstar")
    module.DotStar = FakeDotStar  # type: ignore[attr-defined]
    module.BGR = "PBGR"  # type: ignore[attr-defined]
    module.RGB = "PRGB"  # type: ignore[attr-defined]
    board = types.ModuleType("board")
    board.SCK, board.MOSI = "SCLK(GPIO11)", "MOSI(GPIO10)"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "adafruit_dotstar", module)
    monkeypatch.setitem(sys.modules, "board", board)
    return FakeDotStar.made


def strip_config(**strip) -> DeviceConfig:
    return replace(DeviceConfig(), panel=PanelConfig(leds="strip"), strip=StripConfig(**strip)).validate()


def test_the_strip_is_opened_on_spi0_with_the_configured_order_and_brightness(dotstar):
    config = strip_config(brightness=0.5, pixel_order="RGB", pixels=30)
    with Panel(config, pin_factory=mock_pin_factory()):
        (strip,) = dotstar
        assert strip.pins == ("SCLK(GPIO11)", "MOSI(GPIO10)") and strip.n == 30
        assert (strip.brightness, strip.pixel_order, strip.auto_write) == (0.5, "PRGB", False)
        assert strip.shown[0] == (DARK,) * 30  # dark at start
    assert strip.deinited and strip.shown[-1] == (DARK,) * 30  # dark when closed


def test_scenes_show_on_the_strip_as_on_the_leds(dotstar):
    zigzag = [0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12]
    clock = FakeClock()
    with Panel(strip_config(squares=zigzag), pin_factory=mock_pin_factory(), clock=clock) as panel:
        (strip,) = dotstar
        Presenter(panel).hint(Move.from_text("a1-b2"), "black")  # a1 blinking, b2 steady
        frame = strip.shown[-1]
        assert frame[0] == SQUARE_COLOUR and frame[6] == SQUARE_COLOUR  # a1, and b2 (pixel 6 on the zig-zag)
        assert frame[17] == TURN_COLOURS["black"] and frame[16] == DARK and frame[18] == DARK
        assert sum(1 for colour in frame if colour != DARK) == 3
        clock.now += 0.3  # a blink's dark half
        panel.render()
        assert strip.shown[-1][0] == DARK and strip.shown[-1][6] == SQUARE_COLOUR
        shows = len(strip.shown)
        panel.render()
        assert len(strip.shown) == shows  # nothing changed: nothing sent
        Presenter(panel).fault("camera lost")
        assert strip.shown[-1][18] == ALERT_COLOUR


def test_without_the_driver_the_strip_is_one_clear_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "adafruit_dotstar", None)  # import fails: not installed
    with pytest.raises(CompanionError, match=r"gobblet-companion\[strip\]"):
        Panel(strip_config(), pin_factory=mock_pin_factory())


def test_a_board_blinka_does_not_know_is_one_clear_line(monkeypatch, dotstar):
    class NotAPi(types.ModuleType):
        def __getattr__(self, name):
            raise NotImplementedError("Board not supported")

    monkeypatch.setitem(sys.modules, "board", NotAPi("board"))
    with pytest.raises(CompanionError, match="cannot open the LED strip"):
        StripLights(StripConfig())


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"panel": {"leds": "neon"}}, "panel.leds"),
        ({"strip": {"squares": [0, 1]}}, "needs 16"),
        ({"strip": {"alert": 19}}, "not a pixel 0..18"),
        ({"strip": {"alert": 3}}, "pixel 3 is used twice"),
        ({"strip": {"brightness": 0}}, "strip.brightness"),
        ({"strip": {"brightness": float("nan")}}, "strip.brightness"),
        ({"strip": {"pixel_order": "XYZ"}}, "strip.pixel_order"),
        ({"panel": {"leds": "strip"}, "pins": {"button": 11}}, "SPI0 SCLK"),
    ],
)
def test_strip_mistakes_are_named(data, words):
    with pytest.raises(CompanionError, match=words):
        config_from_dict(data, "c.toml")


def test_the_default_pins_leave_spi0_free():
    used = set(DeviceConfig().pins.all_pins().values())
    assert not used & {7, 8, 9, 10, 11}
