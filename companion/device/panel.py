"""The panel on the GPIO header: 16 square LEDs, two turn LEDs, an alert LED, a buzzer and
the hint button, all gpiozero devices built on one injectable pin factory.

The pin factory is injected rather than taken from gpiozero's global default so that the
tests (``MockFactory``), the embedded default (mock pins on a PC) and the Pi (lgpio) run the
very same code. The panel shows ``Scene`` values; an animator thread turns the current scene
into pin writes at a steady tick, so blinking never waits for the camera or the AI.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from companion.component import Component
from companion.device.button import ButtonGestures, Gesture
from companion.device.config import DeviceConfig
from companion.device.scene import BLACK_NAME, WHITE_NAME, PanelOutputs, Scene, Timing, idle, outputs_at
from companion.device.strip import StripLights
from companion.errors import CompanionError
from companion.rules.square import board_squares, square_name

log = logging.getLogger("gobblet-companion.panel")

PANEL_BOARD_SIZE = 4
RENDER_ERRORS_LOGGED_EVERY = 500  # a render failing every tick is said every 10 s, not 50 times a second
TICK = 0.02  # seconds between two renders of the animator
BUZZER_MID_TONE = "A4"
BUZZER_OCTAVES = 2  # A2..A6: every note the scenes use


def mock_pin_factory() -> Any:
    """gpiozero's mock pins, PWM-capable so a TonalBuzzer works: the embedded default and the tests."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    return MockFactory(pin_class=MockPWMPin)


class Panel(Component):
    """The LEDs, buzzer and button. On boards other than 4x4 the square LEDs stay dark (they
    cannot point at squares that do not exist); the turn and alert LEDs, the buzzer and the
    button work on every board."""

    def __init__(
        self,
        config: DeviceConfig,
        *,
        pin_factory: Any = None,
        board_size: int = PANEL_BOARD_SIZE,
        echo: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.board_size = board_size
        self._echo = echo
        self._clock = clock
        self._timing = Timing(config.panel.blink_period, config.panel.count_pause)
        self._lock = threading.RLock()
        self._scene: Scene = idle(None, "starting")
        self._shown_at = clock()
        self._tone: str | None = None
        self.tone_history: list[str | None] = []  # every change of the buzzer's note, for tests and logs
        self._gestures = ButtonGestures(config.panel.hold_time, config.panel.double_press)
        self._button_queue: queue.SimpleQueue[Gesture] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._animator: threading.Thread | None = None
        self._devices: list[Any] = []
        self.render_errors = 0
        self.strip: StripLights | None = None  # panel.leds = "strip": the LEDs are one strip's pixels
        self._open_devices(pin_factory)

    # ----- devices ------------------------------------------------------------------------

    def _open_devices(self, pin_factory: Any) -> None:
        from gpiozero import Buzzer, DigitalInputDevice, GPIOZeroError, TonalBuzzer

        pins, panel = self.config.pins, self.config.panel
        try:
            if panel.leds == "strip":
                self.strip = self._own(StripLights(self.config.strip))
            else:
                self._open_leds(pin_factory)
            if panel.buzzer == "tonal":
                self.buzzer = self._own(
                    TonalBuzzer(
                        pins.buzzer, mid_tone=BUZZER_MID_TONE, octaves=BUZZER_OCTAVES, pin_factory=pin_factory
                    )
                )
            else:
                self.buzzer = self._own(Buzzer(pins.buzzer, pin_factory=pin_factory))
            # A plain input, not gpiozero's Button: the gestures (hold included) are timed by
            # ButtonGestures, and Button's hold thread would wake ten times a second for
            # nothing (and hold up every close by up to 0.1 s).
            self.button = self._own(
                DigitalInputDevice(pins.button, pull_up=True, bounce_time=0.02, pin_factory=pin_factory)
            )
        except (GPIOZeroError, OSError, RuntimeError, ValueError) as error:
            self.close()
            raise CompanionError(f"cannot open the GPIO panel: {error}") from None
        except CompanionError:
            self.close()
            raise
        self.button.when_activated = lambda: self._button_event(self._gestures.down)
        self.button.when_deactivated = lambda: self._button_event(self._gestures.up)

    def _open_leds(self, pin_factory: Any) -> None:
        """The 19 discrete LEDs, one GPIO pin each."""
        from gpiozero import LED, LEDBoard

        pins, panel = self.config.pins, self.config.panel
        self.squares = self._own(
            LEDBoard(*pins.squares, active_high=panel.active_high, pin_factory=pin_factory)
        )
        self.turn_leds = {
            WHITE_NAME: self._own(
                LED(pins.turn_white, active_high=panel.active_high, pin_factory=pin_factory)
            ),
            BLACK_NAME: self._own(
                LED(pins.turn_black, active_high=panel.active_high, pin_factory=pin_factory)
            ),
        }
        self.alert = self._own(LED(pins.alert, active_high=panel.active_high, pin_factory=pin_factory))

    def _own(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    def _button_event(self, handler: Callable[[float], list[Gesture]]) -> None:
        with self._lock:
            for gesture in handler(self._clock()):
                self._button_queue.put(gesture)

    def gestures(self) -> list[Gesture]:
        """Button gestures completed since the last call (called from the main loop)."""
        with self._lock:
            for gesture in self._gestures.poll(self._clock()):
                self._button_queue.put(gesture)
        out = []
        while not self._button_queue.empty():
            out.append(self._button_queue.get_nowait())
        return out

    # ----- showing --------------------------------------------------------------------------

    @property
    def scene(self) -> Scene:
        return self._scene

    def show(self, scene: Scene) -> None:
        """Replace what the panel shows, from now; says so on the console/journal when asked."""
        with self._lock:
            self._scene = scene
            self._shown_at = self._clock()
            self._render_locked()
        if self._echo is not None:
            self._echo(scene.describe())

    def render(self) -> PanelOutputs:
        """Write the current scene's outputs for this instant to the pins; returns them."""
        with self._lock:
            return self._render_locked()

    def _render_locked(self) -> PanelOutputs:
        outputs = outputs_at(self._scene, self._clock() - self._shown_at, self._timing)
        squares: tuple[bool, ...] = ()
        if self.board_size == PANEL_BOARD_SIZE:
            squares = tuple(square_name(sq) in outputs.squares for sq in board_squares(PANEL_BOARD_SIZE))
        if self.strip is not None:
            self.strip.write(squares, outputs.turn, outputs.alert)
        else:
            self._write_leds(squares, outputs)
        self._sound(outputs.tone if self.config.panel.sounds else None)
        return outputs

    def _write_leds(self, squares: tuple[bool, ...], outputs: PanelOutputs) -> None:
        if squares:
            self.squares.value = squares
        for side, led in self.turn_leds.items():
            led.value = side in outputs.turn
        self.alert.value = outputs.alert

    def _sound(self, tone: str | None) -> None:
        if tone == self._tone:
            return
        self._tone = tone
        self.tone_history.append(tone)
        if self.config.panel.buzzer == "tonal":
            self.buzzer.play(tone) if tone is not None else self.buzzer.stop()
        else:
            self.buzzer.value = tone is not None

    @property
    def value(self) -> PanelOutputs:
        """What the outputs show right now (the contract's ``value``)."""
        return self.render()

    # ----- the animator -----------------------------------------------------------------------

    def start(self) -> Panel:
        """Keep rendering in the background so blinks and tunes run on time."""
        if self._animator is None:
            self._animator = threading.Thread(target=self._animate, name="panel", daemon=True)
            self._animator.start()
        return self

    def _animate(self) -> None:
        """Render every tick. A failing render is said in the journal (once per kind of
        error, then every ``RENDER_ERRORS_LOGGED_EVERY``th) and the next tick tries again: a
        panel that silently stopped would look like a device that stopped."""
        last: str | None = None
        while not self._stop.wait(TICK):
            try:
                self.render()
            except Exception as error:
                if self._stop.is_set():  # a device closed during shutdown
                    return
                self.render_errors += 1
                kind = f"{type(error).__name__}: {error}"
                if kind != last or self.render_errors % RENDER_ERRORS_LOGGED_EVERY == 0:
                    log.error("panel: rendering failed (%d so far): %s", self.render_errors, kind)
                last = kind

    def close(self) -> None:
        self._stop.set()
        if self._animator is not None and self._animator is not threading.current_thread():
            self._animator.join(timeout=1.0)
        for device in reversed(self._devices):
            with contextlib.suppress(Exception):
                device.close()
        self._devices.clear()
