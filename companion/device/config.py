"""The device's configuration: which GPIO pins drive what, how the panel talks, how hard the
hint thinks, where the camera, calibration and game log are.

Every setting has a default that matches the wiring in ``hardware/README.md``, so a panel
built as documented needs no file at all. A file (TOML, see ``hardware/config.toml`` for the
full, commented default) only names what differs. A mistake in the file is a
``CompanionError`` naming the file and the key, because a wrong pin number silently drives
the wrong LED.
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from companion.errors import CompanionError

APP_NAME = "gobblet-companion"

# BCM numbers. The 16 square LEDs in a1, b1, c1, d1, a2, ... d4 order. SPI0 (GPIO 7-11) is
# left free, for the LED strip or any SPI part; that takes GPIO 2/3 (I2C's pins: their fixed
# pull-ups suit the button, and the alert LED) and 14/15 (the serial port, off by default).
# gpiozero with lgpio makes the buzzer's tones in software, so any pin would do for it.
DEFAULT_SQUARE_PINS: tuple[int, ...] = (4, 5, 6, 12, 13, 16, 17, 19, 20, 21, 22, 23, 24, 25, 26, 27)
DEFAULT_TURN_WHITE_PIN = 14
DEFAULT_TURN_BLACK_PIN = 15
DEFAULT_ALERT_PIN = 2
DEFAULT_BUZZER_PIN = 18
DEFAULT_BUTTON_PIN = 3
USABLE_GPIOS = range(2, 28)
SPI0_PINS = {10: "MOSI", 11: "SCLK"}  # what an APA102/SK9822 strip is wired to
LED_KINDS = ("discrete", "strip")
STRIP_PIXEL_ORDERS = ("BGR", "BRG", "GBR", "GRB", "RBG", "RGB")
MIN_CAMERA_SIDE, MAX_CAMERA_SIDE = 160, 4608  # pixels: the calibration's minimum, Camera Module 3's width
MAINS_FREQUENCIES = (0, 50, 60)
BUZZER_KINDS = ("tonal", "active")
SPEECH_RATES = (80, 450)  # words a minute: espeak-ng's range
SPEECH_VOLUMES = (0, 200)  # espeak-ng's amplitude


@dataclass(frozen=True)
class PinConfig:
    squares: tuple[int, ...] = DEFAULT_SQUARE_PINS
    turn_white: int = DEFAULT_TURN_WHITE_PIN
    turn_black: int = DEFAULT_TURN_BLACK_PIN
    alert: int = DEFAULT_ALERT_PIN
    buzzer: int = DEFAULT_BUZZER_PIN
    button: int = DEFAULT_BUTTON_PIN

    def all_pins(self) -> dict[str, int]:
        """Every pin with the name of what it drives, for validation and the pin table."""
        named = {f"squares[{i}]": pin for i, pin in enumerate(self.squares)}
        named.update(
            turn_white=self.turn_white,
            turn_black=self.turn_black,
            alert=self.alert,
            buzzer=self.buzzer,
            button=self.button,
        )
        return named


@dataclass(frozen=True)
class PanelConfig:
    leds: str = "discrete"  # "discrete": 19 LEDs on GPIO pins; "strip": one APA102/SK9822 strip on SPI0
    active_high: bool = True  # True also behind a ULN2803; False for LEDs from 3.3 V into the pin
    buzzer: str = "tonal"  # "tonal": passive piezo (TonalBuzzer); "active": on/off buzzer
    blink_period: float = 0.5  # seconds, one on+off of a blinking LED
    count_pause: float = 1.0  # seconds dark between two rounds of counted blinks
    hold_time: float = 2.0  # button held this long: new game
    double_press: float = 0.4  # seconds within which a second press makes a double press
    sounds: bool = True  # False keeps the buzzer silent (the log still records all)


@dataclass(frozen=True)
class StripConfig:
    """An addressable LED strip (APA102 or SK9822, "DotStar") on SPI0 in place of the 19
    LEDs: which pixel shows which LED, counted from the strip's input end."""

    pixels: int = 19  # LEDs on the strip
    squares: tuple[int, ...] = tuple(range(16))  # the pixels of a1, b1, c1, d1, a2, ..., d4
    turn_white: int = 16
    turn_black: int = 17
    alert: int = 18
    brightness: float = 0.2  # 0..1: the strip's global brightness (full is blinding on a table)
    pixel_order: str = "BGR"  # the colour order the chips expect (APA102 and SK9822: BGR)

    def all_pixels(self) -> dict[str, int]:
        named = {f"squares[{i}]": pixel for i, pixel in enumerate(self.squares)}
        named.update(turn_white=self.turn_white, turn_black=self.turn_black, alert=self.alert)
        return named


@dataclass(frozen=True)
class HintConfig:
    time: float = 3.0  # seconds the engine may think for one hint
    level: str = "strong"


@dataclass(frozen=True)
class CameraConfig:
    source: str = "auto"  # auto | pi | a camera index | a video file | simulate
    calibration: str = ""  # calibration JSON ("" = the data directory's calibration.json)
    reconnect_delay: float = 2.0  # seconds between attempts to reopen a lost camera
    max_bad_frames: int = 10  # consecutive unreadable frames before the camera counts as lost
    resolution: tuple[int, ...] = (640, 480)  # width, height in pixels
    fps: float = 5.0  # frames per second asked of the camera: the stability gate needs a few
    mains_hz: int = 50  # the mains frequency lights flicker at (60 in the Americas); 0: no anti-flicker
    frame_timeout: float = 1.0  # seconds without a frame that count as one bad frame


@dataclass(frozen=True)
class LogConfig:
    database: str = ""  # "" = the data directory's games.sqlite3
    snapshots: bool = False  # store a JPEG of the board after each move
    review: bool = True  # review finished games in the background when the board is idle
    review_nodes: int = 20_000  # search nodes per position for that review (junior is exact)


@dataclass(frozen=True)
class WebConfig:
    enabled: bool = True  # the service serves the web page; at a terminal only `run --web` does
    host: str = "0.0.0.0"  # every address of the device (the LAN); "127.0.0.1": this machine only
    port: int = 8080


@dataclass(frozen=True)
class SpeechConfig:
    """The referee's voice (``espeak-ng``): docs/device.md, "Speech"."""

    enabled: bool = True  # say the referee's events aloud (a device without sound says why, once)
    voice: str = "en"  # a language with phrases (en, de, fr), or an espeak-ng voice of one (en-us)
    rate: int = 160  # words a minute
    volume: int = 100  # espeak-ng's amplitude: 0 to 200, 100 its normal


@dataclass(frozen=True)
class DeviceConfig:
    pins: PinConfig = field(default_factory=PinConfig)
    panel: PanelConfig = field(default_factory=PanelConfig)
    strip: StripConfig = field(default_factory=StripConfig)
    hint: HintConfig = field(default_factory=HintConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    log: LogConfig = field(default_factory=LogConfig)
    web: WebConfig = field(default_factory=WebConfig)
    speech: SpeechConfig = field(default_factory=SpeechConfig)

    def validate(self, origin: str = "configuration") -> DeviceConfig:
        _check_pins(self.pins, origin)
        _check_strip(self, origin)
        if self.panel.buzzer not in BUZZER_KINDS:
            raise CompanionError(f"{origin}: panel.buzzer must be one of {', '.join(BUZZER_KINDS)}")
        positive = {
            "panel.blink_period": self.panel.blink_period,
            "panel.count_pause": self.panel.count_pause,
            "panel.hold_time": self.panel.hold_time,
            "panel.double_press": self.panel.double_press,
            "hint.time": self.hint.time,
            "camera.reconnect_delay": self.camera.reconnect_delay,
            "camera.max_bad_frames": self.camera.max_bad_frames,
            "camera.fps": self.camera.fps,
            "camera.frame_timeout": self.camera.frame_timeout,
            "log.review_nodes": self.log.review_nodes,
        }
        for key, value in positive.items():
            if not math.isfinite(value) or value <= 0:
                raise CompanionError(f"{origin}: {key} must be a finite number above 0, not {value}")
        from companion.engine.levels import LEVELS  # here: the engine package is heavy to import

        if self.hint.level.strip().lower() not in LEVELS:
            raise CompanionError(
                f"{origin}: hint.level = {self.hint.level!r} is not a level: use {', '.join(LEVELS)}"
            )
        width_height = self.camera.resolution
        if len(width_height) != 2 or not all(
            MIN_CAMERA_SIDE <= side <= MAX_CAMERA_SIDE for side in width_height
        ):
            raise CompanionError(
                f"{origin}: camera.resolution must be [width, height], each {MIN_CAMERA_SIDE} to "
                f"{MAX_CAMERA_SIDE} pixels, not {list(width_height)}"
            )
        if self.camera.mains_hz not in MAINS_FREQUENCIES:
            raise CompanionError(f"{origin}: camera.mains_hz must be 50, 60 or 0 (no anti-flicker)")
        if not 1 <= self.web.port <= 65535:
            raise CompanionError(f"{origin}: web.port must be 1 to 65535, not {self.web.port}")
        if self.panel.double_press >= self.panel.hold_time:
            raise CompanionError(f"{origin}: panel.double_press must be shorter than panel.hold_time")
        _check_speech(self.speech, origin)
        return self


def _check_pins(pins: PinConfig, origin: str) -> None:
    if len(pins.squares) != 16:
        raise CompanionError(
            f"{origin}: pins.squares needs 16 GPIO numbers (a1..d4), got {len(pins.squares)}"
        )
    seen: dict[int, str] = {}
    for name, pin in pins.all_pins().items():
        if pin not in USABLE_GPIOS:
            raise CompanionError(f"{origin}: pins.{name} = {pin} is not a GPIO number 2..27")
        if pin in seen:
            raise CompanionError(f"{origin}: GPIO {pin} is used twice (pins.{seen[pin]} and pins.{name})")
        seen[pin] = name


def _check_strip(config: DeviceConfig, origin: str) -> None:
    if config.panel.leds not in LED_KINDS:
        raise CompanionError(f"{origin}: panel.leds must be one of {', '.join(LED_KINDS)}")
    strip = config.strip
    if not 19 <= strip.pixels <= 1000:
        raise CompanionError(f"{origin}: strip.pixels must be 19 to 1000, not {strip.pixels}")
    if len(strip.squares) != 16:
        raise CompanionError(
            f"{origin}: strip.squares needs 16 pixel numbers (a1..d4), got {len(strip.squares)}"
        )
    seen: dict[int, str] = {}
    for name, pixel in strip.all_pixels().items():
        if not 0 <= pixel < strip.pixels:
            raise CompanionError(f"{origin}: strip.{name} = {pixel} is not a pixel 0..{strip.pixels - 1}")
        if pixel in seen:
            raise CompanionError(
                f"{origin}: pixel {pixel} is used twice (strip.{seen[pixel]} and strip.{name})"
            )
        seen[pixel] = name
    if not (math.isfinite(strip.brightness) and 0 < strip.brightness <= 1):
        raise CompanionError(
            f"{origin}: strip.brightness must be above 0 and at most 1, not {strip.brightness}"
        )
    if strip.pixel_order not in STRIP_PIXEL_ORDERS:
        raise CompanionError(f"{origin}: strip.pixel_order must be one of {', '.join(STRIP_PIXEL_ORDERS)}")
    if config.panel.leds == "strip":
        for name in ("buzzer", "button"):
            pin = getattr(config.pins, name)
            if pin in SPI0_PINS:
                raise CompanionError(
                    f"{origin}: pins.{name} = {pin} is SPI0 {SPI0_PINS[pin]}, which the LED strip uses"
                )


def _check_speech(speech: SpeechConfig, origin: str) -> None:
    from companion.device.phrases import check_voice

    problem = check_voice(speech.voice)
    if problem is not None:
        raise CompanionError(f"{origin}: speech.voice: {problem}")
    if not SPEECH_RATES[0] <= speech.rate <= SPEECH_RATES[1]:
        raise CompanionError(
            f"{origin}: speech.rate must be {SPEECH_RATES[0]} to {SPEECH_RATES[1]} words a minute, "
            f"not {speech.rate}"
        )
    if not SPEECH_VOLUMES[0] <= speech.volume <= SPEECH_VOLUMES[1]:
        raise CompanionError(
            f"{origin}: speech.volume must be {SPEECH_VOLUMES[0]} to {SPEECH_VOLUMES[1]} "
            f"(100 is espeak-ng's normal), not {speech.volume}"
        )


# ----- reading a file ----------------------------------------------------------------------


SECTIONS: dict[str, type] = {
    "pins": PinConfig,
    "panel": PanelConfig,
    "strip": StripConfig,
    "hint": HintConfig,
    "camera": CameraConfig,
    "log": LogConfig,
    "web": WebConfig,
    "speech": SpeechConfig,
}


def load_config(path: str | os.PathLike[str] | None) -> DeviceConfig:
    """The defaults, overridden by the file at ``path`` (when given and present)."""
    if path is None:
        return DeviceConfig()
    origin = str(path)
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise CompanionError(f"configuration file {origin} does not exist") from None
    except OSError as error:
        raise CompanionError(f"cannot read configuration file {origin}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise CompanionError(f"configuration file {origin} is not valid TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise CompanionError(
            f"configuration file {origin} is not UTF-8 text (byte {error.start}): save it as UTF-8"
        ) from None
    return config_from_dict(data, origin)


def config_from_dict(data: dict[str, Any], origin: str = "configuration") -> DeviceConfig:
    config = DeviceConfig()
    for section, values in data.items():
        kind = SECTIONS.get(section)
        if kind is None:
            raise CompanionError(f"{origin}: unknown section [{section}]: use {', '.join(SECTIONS)}")
        if not isinstance(values, dict):
            raise CompanionError(f"{origin}: [{section}] must be a table of key = value")
        current = getattr(config, section)
        config = replace(config, **{section: _section(current, section, values, origin)})
    return config.validate(origin)


def _section(current: Any, section: str, values: dict[str, Any], origin: str) -> Any:
    known = {f.name: f for f in fields(current)}
    changes: dict[str, Any] = {}
    for key, value in values.items():
        if key not in known:
            raise CompanionError(f"{origin}: unknown key {section}.{key}: use {', '.join(known)}")
        changes[key] = _coerce(getattr(current, key), value, f"{origin}: {section}.{key}")
    return replace(current, **changes)


def _coerce(default: Any, value: Any, where: str) -> Any:
    """Check a file value against the type of its default (TOML has no tuples, ints may be floats)."""
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif isinstance(default, tuple):
        ok = isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        value = tuple(value) if ok else value
    else:
        ok = isinstance(value, str)
    if not ok:
        raise CompanionError(f"{where} = {value!r} should be {type(default).__name__}")
    return value


# ----- where things live -------------------------------------------------------------------


def data_dir() -> Path:
    """``$GOBBLET_COMPANION_DATA``, else ``$XDG_DATA_HOME/gobblet-companion``, else
    ``~/.local/share/gobblet-companion`` (systemd's StateDirectory sets the first)."""
    explicit = os.environ.get("GOBBLET_COMPANION_DATA")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / APP_NAME


def default_config_path() -> Path | None:
    """The first configuration file that exists: ``$GOBBLET_COMPANION_CONFIG``,
    ``$XDG_CONFIG_HOME/gobblet-companion/config.toml``, ``/etc/gobblet-companion/config.toml``."""
    explicit = os.environ.get("GOBBLET_COMPANION_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    for candidate in (Path(base) / APP_NAME / "config.toml", Path("/etc") / APP_NAME / "config.toml"):
        if candidate.is_file():
            return candidate
    return None


def database_path(config: DeviceConfig) -> Path:
    return Path(config.log.database) if config.log.database else data_dir() / "games.sqlite3"


def calibration_path(config: DeviceConfig) -> Path:
    return Path(config.camera.calibration) if config.camera.calibration else data_dir() / "calibration.json"
