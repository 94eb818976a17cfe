"""The one exception family every part of the product raises for bad input.

The CLI turns any ``CompanionError`` into a single line on stderr and exit status 2, so a
malformed move, an unreadable image or a corrupt file never shows a traceback to a user.
"""

from typing import Literal

RefusalKind = Literal["wrong size", "missing cup"]


class CompanionError(Exception):
    """Bad input or a situation the user can fix; the message says what and how."""


class ReferenceLayoutError(CompanionError):
    """Calibration's refusal of a reference frame whose cups do not measure as the reference
    layout puts them: a cup of the wrong size (``kind`` "wrong size") or no clear cup on a
    square (``kind`` "missing cup"); ``squares`` names the squares the line names.

    The size check can be wrong on a right reference (a cup read a neighbouring size by a
    hair), and then setting out what the line says changes nothing: ``trustable`` says that
    calibrating with the layout taken on trust (``calibrate(..., trust_layout=True)``) would
    pass this check, so the CLI and the web wizard can offer it. A square whose cup's outline
    does not stand out at all is never trustable: no cup stands there to learn from."""

    def __init__(self, message: str, kind: RefusalKind, squares: tuple[str, ...], trustable: bool) -> None:
        super().__init__(message)
        self.kind = kind
        self.squares = squares
        self.trustable = trustable
