"""gobblet-companion: a Raspberry Pi referee, coach and scribe for the Gobblet board game.

The package is layered so data flows one way: ``rules`` (pure game logic) is used by
``engine`` (hints), ``vision`` (camera frames to observations), ``reconciler``
(observations to moves and referee events), ``device`` (GPIO panel and the run loop)
and ``log`` (the game store). ``cli`` wires them to the command line.
"""

__version__ = "0.1.0"
