"""The panel's 19 LEDs as pixels of one addressable strip: an APA102 or SK9822 ("DotStar")
strip on SPI0, for a build with one cable instead of 19 resistors and 20 wires.

APA102/SK9822 rather than WS2812 ("NeoPixel"): they take a clock line, so plain SPI drives
them on a Pi 4 and a Pi 5 alike, with no timing-critical PWM or PIO. The driver is Adafruit's
``adafruit_dotstar`` (through Blinka's ``board`` for the SPI pins), the library a Pi user
would reach for; it is an optional extra (``pip install 'gobblet-companion[strip]'``),
imported only when ``panel.leds = "strip"``. The panel's scenes do not change: the strip
shows the same on/off outputs the discrete LEDs would, each LED as one coloured pixel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from companion.device.config import StripConfig
from companion.device.scene import BLACK_NAME, WHITE_NAME
from companion.errors import CompanionError

Colour = tuple[int, int, int]
DARK: Colour = (0, 0, 0)
SQUARE_COLOUR: Colour = (255, 170, 70)  # warm white, like the board's light
TURN_COLOURS: dict[str, Colour] = {WHITE_NAME: (255, 255, 255), BLACK_NAME: (0, 90, 255)}
ALERT_COLOUR: Colour = (255, 0, 0)
INSTALL_HINT = (
    'panel.leds = "strip" needs Adafruit\'s DotStar driver: '
    "pip install 'gobblet-companion[strip]', and SPI on (sudo raspi-config nonint do_spi 0)"
)


def open_dotstar(strip: StripConfig) -> Any:
    """The strip on SPI0 (SCLK GPIO 11, MOSI GPIO 10), written only on ``show()``."""
    try:
        import adafruit_dotstar  # type: ignore[import-not-found]
        import board  # type: ignore[import-not-found]
    except ImportError:
        raise CompanionError(INSTALL_HINT) from None
    except (NotImplementedError, RuntimeError, OSError) as error:  # Blinka on a board it does not know
        raise CompanionError(f"cannot open the LED strip: {error}") from None
    try:
        return adafruit_dotstar.DotStar(
            board.SCK,
            board.MOSI,
            strip.pixels,
            brightness=strip.brightness,
            auto_write=False,
            pixel_order=getattr(adafruit_dotstar, strip.pixel_order),
        )
    except (OSError, RuntimeError, ValueError) as error:  # no /dev/spidev0.0: SPI is off
        raise CompanionError(f"cannot open the LED strip on SPI0: {error}; turn SPI on") from None


class StripLights:
    """Writes the panel's outputs (lit squares, turn LEDs, alert) to the strip's pixels; a
    frame equal to the last one is not sent again (the panel renders 50 times a second)."""

    def __init__(self, strip: StripConfig, open_strip: Callable[[StripConfig], Any] = open_dotstar) -> None:
        self.config = strip
        self.pixels = open_strip(strip)
        self._last: tuple[Colour, ...] | None = None
        self.write((), frozenset(), False)

    def frame(self, squares: Iterable[bool], turn: Iterable[str], alert: bool) -> tuple[Colour, ...]:
        """Every pixel's colour for these outputs; ``squares`` in a1..d4 order (empty: dark)."""
        colours = [DARK] * self.config.pixels
        for pixel, lit in zip(self.config.squares, squares, strict=False):
            if lit:
                colours[pixel] = SQUARE_COLOUR
        lit_turns = set(turn)
        for side, pixel in ((WHITE_NAME, self.config.turn_white), (BLACK_NAME, self.config.turn_black)):
            if side in lit_turns:
                colours[pixel] = TURN_COLOURS[side]
        if alert:
            colours[self.config.alert] = ALERT_COLOUR
        return tuple(colours)

    def write(self, squares: Iterable[bool], turn: Iterable[str], alert: bool) -> None:
        frame = self.frame(squares, turn, alert)
        if frame == self._last:
            return
        for pixel, colour in enumerate(frame):
            self.pixels[pixel] = colour
        self.pixels.show()
        self._last = frame

    def close(self) -> None:
        """Dark, then the SPI bus released."""
        try:
            self.write((), frozenset(), False)
        finally:
            self.pixels.deinit()
