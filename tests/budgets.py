"""How many examples a property test draws: a few in the quick loop, the full count in the
full suite.

A property test's cost is its number of examples. The quick loop (``-m "not slow"``) is for
catching a break within seconds, which a couple of dozen random examples do for the properties
here; the full suite (CI, and every merge) runs each property again with its full count, so
no check is lost, only moved to the run that has the time for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

QUICK_EXAMPLES = 25
"""Examples a property draws in the quick loop."""


def budgets(quick: int, full: int) -> list[Any]:
    """``quick`` examples as the ``[quick]`` case, ``full`` as the ``[long]`` case marked slow:
    the values of a ``parametrize`` over how many examples to draw."""
    return [pytest.param(quick, id="quick"), pytest.param(full, id="long", marks=pytest.mark.slow)]


def property_test(
    full: int, *strategies: st.SearchStrategy[Any]
) -> Callable[[Callable[..., None]], Callable[[int], None]]:
    """``@given(*strategies)`` with ``full`` examples, as two tests: ``[quick]`` draws
    ``QUICK_EXAMPLES`` of them in the quick loop, ``[long]`` all ``full`` under the slow
    marker. An ``@example`` below this decorator is tried in both."""

    def wrap(check: Callable[..., None]) -> Callable[[int], None]:
        @pytest.mark.parametrize("examples", budgets(min(QUICK_EXAMPLES, full), full))
        def test(examples: int) -> None:
            settings(max_examples=examples, deadline=None)(given(*strategies)(check))()

        # not functools.wraps: pytest would read the check's arguments as fixtures
        test.__name__ = test.__qualname__ = check.__name__
        test.__module__, test.__doc__ = check.__module__, check.__doc__
        return test

    return wrap
