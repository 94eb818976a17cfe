"""The one exception family every part of the product raises for bad input.

The CLI turns any ``CompanionError`` into a single line on stderr and exit status 2, so a
malformed move, an unreadable image or a corrupt file never shows a traceback to a user.
"""


class CompanionError(Exception):
    """Bad input or a situation the user can fix; the message says what and how."""
