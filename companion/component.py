"""The small contract every long-lived part of the companion keeps, gpiozero's own: ``close()``
and use as a context manager, so the run loop can hold panel, camera, hint worker and game log
in one ``ExitStack`` and release the pins, the camera and the database whatever happens.

It lives at the top of the package because both the device and the game log keep it, and the
log must not depend on the device (data flows from the device into the log, never back).
"""

from __future__ import annotations

from typing import Self


class Component:
    def close(self) -> None:  # pragma: no cover - overridden
        pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
