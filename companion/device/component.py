"""The small contract every part of the device keeps, gpiozero's own: ``close()`` and use as a
context manager, so the run loop can hold panel, camera, hint worker and log in one
``ExitStack`` and release the pins and the camera whatever happens."""

from __future__ import annotations


class Component:
    def close(self) -> None:  # pragma: no cover - overridden
        pass

    def __enter__(self) -> Component:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
