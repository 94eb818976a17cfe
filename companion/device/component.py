"""``Component`` moved to ``companion.component`` (the game log keeps it too, and must not
import the device). This name stays until ``loop.py`` and ``camera.py``, being rewritten at
the time, import it from there; issue 14's second part removes it."""

from __future__ import annotations

from companion.component import Component

__all__ = ["Component"]
