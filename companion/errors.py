"""The one exception family every part of the product raises for bad input.

The CLI turns any ``CompanionError`` into a single line on stderr and exit status 2, so a
malformed move, an unreadable image or a corrupt file never shows a traceback to a user.
"""

import re
from typing import Literal

RefusalKind = Literal["wrong size", "missing cup", "other colour", "ranks swapped", "unseen colour"]


class CompanionError(Exception):
    """Bad input or a situation the user can fix; the message says what and how."""


class ReferenceLayoutError(CompanionError):
    """Calibration's refusal of a reference frame whose cups do not look as the reference
    layout puts them: a cup of the wrong size (``kind`` "wrong size"), no clear cup on a square
    ("missing cup"), a cup of the other colour ("other colour"), rank 1's cups the darker, or
    the lighter where the user said White's are the darker set ("ranks swapped"), or a colour
    none of whose cups stands out of the board ("unseen colour"); ``squares`` names the squares
    the line names.

    Each check can misjudge a right reference on a table nobody has measured (a cup read a
    neighbouring size by a hair, a white cup dark against a sheen, a colour pair whose White is
    the darker against the wood), and then setting out what the line says changes nothing:
    ``trustable`` says that calibrating with the layout taken on trust (``calibrate(...,
    trust_layout=True)``) would pass this check, so the CLI and the web wizard can offer it.
    Not trustable: a square whose cup's outline does not stand out at all (no cup stands there
    to learn from), and an unseen colour (the check already takes the cups as standing; what
    it refuses is the light, which no word of the user's changes)."""

    def __init__(self, message: str, kind: RefusalKind, squares: tuple[str, ...], trustable: bool) -> None:
        super().__init__(message)
        self.kind = kind
        self.squares = squares
        self.trustable = trustable

    @property
    def finding(self) -> str:
        """What the check found, without what the line asks the user to do: its first clause
        (every refusal's line is "reference frame: " + finding + ": " or "; " + advice). A
        calibration taken on trust records the findings it overruled."""
        body = str(self).removeprefix("reference frame: ")
        return re.split(r"[:;] ", body, maxsplit=1)[0]
