"""What one read weighed, square by square: the size cues a caller gets when it asks.

The reader sizes a cup from several cues (docs/vision.md, "Cues" and "Confidences"): the region
cue's score per size (``matching.py``), placed again where the cup's base stands when the two
lie far apart (``BoardReader._placed``), the edge cue's base and rim scores (``edges.py``), each
weighed (the region cue by the colour's region trust, the rim by its clearness) into how the
square's cup probability splits between the sizes (``edges.size_shares``); the colour cue then
splits each size between the colours. A probe that measures those cues, or weighs them another
way, takes them from ``BoardReader.read_traced`` as a ``ReadTrace``: one ``CueTrace`` per
square, the values the reader combined, not a copy of its steps. A probe that reached into the
reader's private steps instead broke silently whenever the reader was refactored.

A plain read (``read``, ``read_details``) builds none of this: the trace is made from what the
read computed anyway, only when asked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.vision.edges import BASE_WEIGHT, RIM_WEIGHT, rim_weights, size_shares
from companion.vision.matching import Evidence, SquareMatch, match_at
from companion.vision.rays import swapped
from companion.vision.templates import TemplateBank


@dataclass(frozen=True, eq=False)
class CueTrace:
    """One square's size cues on one read, as the reader weighed them (per size, 1..S)."""

    square: str
    """The square's name (``a1``, ...); traces come in the reading's row order."""
    match: SquareMatch
    """The region cue's match: the colour whose silhouettes were scored, each size's score
    (``sizes``) and the placement used (``dy``, ``dx``: the best silhouette's shift)."""
    region: np.ndarray
    """The region cue's size logits against empty as matched (``matching.size_logits``,
    widened by ``softening``): whether the square holds a cup at all is theirs."""
    placed: np.ndarray
    """The size logits the size shares start from: ``region``, or for a cup the region cue
    placed far from where its base stands, the mean of its scores there and as matched
    (``reader.PLACED_MM``)."""
    base: np.ndarray | None
    """The edge cue's base scores (``edges.base_fits`` as the reader counts them); None
    without an outline in the calibration (no edge cue)."""
    rim: np.ndarray | None
    """The edge cue's rim scores around where the region cue placed the cup; None likewise."""
    feet: np.ndarray | None
    """Where each size's base circle fits best (S x 2: dy, dx on the same pixels as
    ``match``); None likewise."""
    trust: float
    """The region cue's weight against the edges' (the colour's region trust, capped under a
    moved lamp: ``reader.LAMP_REGION_TRUST``)."""
    clear: bool
    """Whether the calibration found this colour's rims clear (``CupOutline.clear_rims``)."""
    softening: float
    """The frame's temperature factor (``reader.ROUGH_SOFTENING`` on a frame read rough)."""
    shares: np.ndarray
    """How the square's cup probability split between the sizes: the edges' shares (a light cup
    the rays turned with its two largest sizes' shares swapped: ``turned``), before the
    square's learned size lean; without an edge cue, worked out from ``probabilities`` (after
    it)."""
    white: float
    """The colour cue's share of each size's probability given to White."""
    probabilities: np.ndarray
    """The reading's row for the square: [empty, white 1..S, black 1..S], after the square's
    learned size lean (``reader.leaned``, ``Adaptation.size_leans``), which ``shares``,
    ``white`` and ``reweighed`` leave out: where something was leant they do not give these
    back. A fresh calibration has no lean."""
    turned: bool = False
    """Whether the reader turned the square's light cup between the two largest sizes
    (``BoardReader._turned``, ``rays.py``): its rays and both edges said the other size."""

    @property
    def weights(self) -> dict[str, float]:
        """Each size cue's weight in the sum ``edges.size_shares`` makes (a logit per unit of
        ``region``, per the whole spread of the base's and the rim's scores): a cue weighed at
        0 has no say there. Empty without an edge cue."""
        if self.base is None or self.rim is None:
            return {}
        rim = rim_weights(self.rim)[0] if self.clear else RIM_WEIGHT
        return {"region": self.trust, "base": BASE_WEIGHT / self.softening, "rim": rim / self.softening}

    def reweighed(self, placed: np.ndarray | None = None, trust: float | None = None) -> np.ndarray:
        """The size shares ``edges.size_shares`` makes of these cues with ``placed`` (the size
        logits to start from) or ``trust`` (the region cue's weight) given instead: with
        neither, the reader's own ``shares``. A square the rays ``turned`` has its two largest
        sizes' shares swapped however it is weighed: the rays and the edges said the other size,
        which no weight of the region cue changes. Only where there is an edge cue to weigh."""
        if self.base is None or self.rim is None:
            raise ValueError(f"{self.square}: no edge cue to weigh (the calibration has no outline)")
        start = self.placed if placed is None else placed
        weight = np.array([self.trust if trust is None else trust])
        clear = np.array([self.clear])
        shares = size_shares(start[None], self.base[None], self.rim[None], self.softening, weight, clear)
        return swapped(shares, np.array([self.turned]))[0]


@dataclass(frozen=True, eq=False)
class ReadTrace:
    """One read's cues (``BoardReader.read_traced``), and what they were scored on, to score
    others on the same read."""

    squares: tuple[CueTrace, ...]
    """A trace per square, in the reading's row order."""
    evidence: Evidence
    """The frame's evidence maps the region cue was scored on."""
    bank: TemplateBank
    """The silhouettes the region cue scored."""
    ring_px: float
    """The region cue's unit (``CupSet.ring_px``): ``matching.size_logits`` of scores made here
    gives them on ``CueTrace.region``'s scale."""
    scale: float
    """Pixels per mm of the board-plane view the shifts are measured on."""

    def scored_at(self, row: int, colour: int, dy: int, dx: int) -> SquareMatch:
        """Every size of ``colour`` on square ``row`` scored with its silhouette at shift
        (dy, dx) alone, on this read's evidence (``matching.match_at``): the region cue where
        something else says the cup stands, a cue the reader may not use."""
        return match_at(self.evidence, self.bank.squares[row], colour, dy, dx)
