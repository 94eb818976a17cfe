"""A panel on gpiozero's MockFactory with a clock the test moves, so pin histories are exact."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from companion.device.config import DeviceConfig
from companion.device.panel import Panel, mock_pin_factory
from companion.device.presenter import Presenter
from companion.rules.square import board_squares, parse_square


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Rig:
    config: DeviceConfig
    factory: object
    clock: FakeClock
    panel: Panel
    presenter: Presenter

    def pin(self, gpio: int):
        return self.factory.pin(gpio)  # type: ignore[attr-defined]

    def square_pin(self, name: str):
        index = board_squares(4).index(parse_square(name))
        return self.pin(self.config.pins.squares[index])

    def states(self, pin) -> list[bool]:
        return [bool(state.state) for state in pin.states]

    def run_for(self, seconds: float, step: float = 0.05) -> None:
        """Advance the clock, rendering every ``step`` as the animator thread would."""
        end = self.clock.now + seconds
        while self.clock.now < end - 1e-9:
            self.clock.now = round(self.clock.now + step, 6)
            self.panel.render()

    def clear(self) -> None:
        for pin in self.factory.pins.values():  # type: ignore[attr-defined]
            pin.clear_states()
        self.panel.tone_history.clear()


@pytest.fixture
def rig() -> Iterator[Rig]:
    config = DeviceConfig()
    factory = mock_pin_factory()
    clock = FakeClock()
    panel = Panel(config, pin_factory=factory, clock=clock)
    rig = Rig(config, factory, clock, panel, Presenter(panel))
    rig.clear()  # histories start with the panel open (GPIO 2 and 3 idle high: their pull-ups)
    try:
        yield rig
    finally:
        panel.close()
