"""Board reader: one frame plus a calibration -> an Observation.

Per square, the best-fitting cup's score against "empty" becomes class probabilities (a
softmax with a temperature that reflects how many independent pixels a score sums over).
The frame is flagged occluded when something that is neither board nor a cup lies on the
board margin (an arm must cross it to reach the grid), covers a marker, or fills a large part
of the grid unexplained by the cups found. When the markers no longer sit where they were,
the reader finds them again, rebuilds its geometry and flags the observation ``moved``.

A caller that measures the size cues, or weighs them another way, asks for them:
``read_traced`` returns with the reading each square's cues as the reader combined them
(``trace.py``: a ``CueTrace`` per square). A plain read builds none of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import NamedTuple

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.rules.square import board_squares, square_name
from companion.vision.calibration import BOARD_DILATE_MM, Calibration, check_frame, grid_mask
from companion.vision.edges import (
    BaseFits,
    CupOutline,
    EdgeBank,
    build_edge_bank,
    edge_maps,
    real_cups,
    rim_scores,
    size_shares,
)
from companion.vision.geometry import BoardLayout, Camera, apply_warp, camera_with_focal, fit_homography
from companion.vision.kept import Kept
from companion.vision.markers import QUIET_MM, detect_markers, marker_correspondences
from companion.vision.marks import HIDDEN_MM2, LABEL_ALIKE, Box
from companion.vision.matching import (
    SIZE_SURENESS,
    Evidence,
    Reads,
    SquareMatch,
    coverage,
    evidence,
    match_all,
    match_apart,
    match_at,
    match_square,
    size_logits,
)
from companion.vision.observation import Observation
from companion.vision.occlusion import Occlusion, OcclusionTest, departing_share, shrink, unlike_share
from companion.vision.pixels import MODELS_KEPT, Background, PixelModel, grey, lit_unevenly
from companion.vision.rays import (
    TURN_BELOW,
    cups_placed,
    shadow_toward_camera,
    square_misfits,
    swapped,
    turned,
)
from companion.vision.scalars import at_least
from companion.vision.shadows import (
    SUBPIXEL,
    CastingCup,
    ShadowModel,
    casting_cups,
    found_cups,
    in_shadow,
    learn_shadows,
    light_changed,
    light_seen,
    lit_otherwise,
    same_light,
)
from companion.vision.stillness import StillClock
from companion.vision.surround import Surround
from companion.vision.templates import SquareTemplates, TemplateBank, build_bank
from companion.vision.trace import CueTrace, ReadTrace

COLOUR_SURENESS = 0.5
"""The same for the mean light-versus-dark log-odds inside the silhouette."""
ROUGH_SOFTENING = 2.0
"""Temperature factor for a frame whose own evidence leaves as much unexplained as a hand would
(deep shadows, a dim noisy room) but that the occlusion test, which allows for the noise of dark
pixels, takes for hand-free. Those frames used to be flagged occluded, hiding their readings; read
now, their sizes are less sure than the ring's contrast alone says."""
STILL_SECONDS = 1.5
"""A frame flagged for moderate "not board" evidence only (no arm across the margin, no fist
over the grid, every marker in view) counts as hand-free once the whole picture has held still
this long. A hand over the board moves; a shadow, or light that changed since calibration
(a lamp moved, dimmed or re-tinted: the wood's colour a little off all over), does not. Without
this, every board after such a change read as covered, never reached the referee, and it
stayed lost for the rest of the game (the vision bench's bench-01 and bench-03)."""
MODERATE_MM2 = 1000.0
MODERATE_FIST = 0.7
"""Flagged evidence beyond these (mm² over the margin or the grid, the fist test's log-odds)
is a hand however still: an arm across the 17 mm margin strip covers over 800 mm², a lone fist
on the stress set averages 0.9 or more, the shadows and light changes that were flagged at
most 740 mm², 624 mm² and 0.5."""
SHADOW_SHARE = 0.5
"""A cup found with at least this share of its silhouette in other cups' predicted shadows is
matched again with those shadows taken for board."""
SHADOW_REMATCH_RINGS = 3.0
"""... and a score under this many rings between adjacent sizes (``SIZE_SURENESS``'s unit):
a shadow read as a cup scores a ring or so (the bench's bench-26: 0.1-2.1) ..."""
SHADOW_GRAIN = 0.15
"""... or, scoring more, the empty board's grain showing through it: the median texture
correlation with the empty board over its silhouette at least this. A shadow darkens the wood
and keeps its grain and lines; a cup hides them. Under a low lamp a pale cup's long shadow on
pale wood reads as a white cup of 3.2-5.1 rings (the bench's bench-32, natural cups on maple: its
grain 0.20-0.32 over the silhouette; every shadow read as a cup in another's shadow on the
rendered and committed bench 0.14-0.38), while real cups read there showed 0.19 at most (bench-32's
white 2 on b3 beside a long shadow, bench-08's white 3 on d4 0.17, the rest 0.00-0.12). Not a
test on its own: the stress set's stress-21 (faint grain) has real cups at 0.20-0.37. The lift
(``_rematch_in_shadow``) decides: a real cup keeps its own colour where the shadow is undone.
Only for a cup read as the lighter set's colour (``Calibration.lighter``, White's
unless calibration measured Black's clearly the lighter): a clear shadow read as a cup is wood a
little darker, so on pale wood it reads a pale cup (bench-32's d1); a clear dark cup in a shadow
is a cup. On the stress set's second half (seeds 1060-1119) the grain gate alone explained away
five clear dark cups, three of them real (a black 1 each on stress-16 02, stress-29 08 and 09),
and no light one."""
SHADOW_DOUBT = float(np.log(12.0))
"""A square whose cup the shadows explain away reads empty at no more than 0.75 (every size's
logit at least -log 12 against empty's 0): a faint real cup in a shadow can lose its cup that
way (a white 1 on the stress set), and the referee must not take that reading as sure. The
doubt goes to the sizes as the square matched without the shadow ranks them, none surer than
the shadowed match had it (``shadow_doubt``)."""
UNLIKE_SHARE = 0.9
"""A cup found with more than this share of its silhouette unlike its colour
(``occlusion.unlike_share``) explains nothing to the occlusion test. Set on the stress set: a
fist the matcher explained as a cup is unlike it over 0.94 to 1.0 of its silhouette; real cups
under a light changed since calibration (no learning), read a size large or small, reach 0.83
(0.75 newly flagged two of its hand-free frames), and on the rendered bench 0.52. A cup read as
the other colour can pass it (0.93 on the stress set, a frame flagged without it too)."""
WOOD_DEPARTURE = 0.55
"""On a board whose cups have the wood's colour (``PixelModel.wood_like``), a cup of that colour
found where less than this share of its silhouette departs from the wood's own look
(``occlusion.departing_share``) may be the wood's noise read as a cup: the square is matched
again with the wood's look taken for the unchanged wood (``PixelModel.as_wood``). On the vision
bench's bench-37 (the matches before this rematch, every board and the reference) the 19 empty squares read as
white cups departed over 0.14-0.46 of their silhouettes, every real cup over 0.67 or more (its
white 1 0.73, white 2 0.74, white 3s 0.70, white 4s 0.75, black cups 0.67-0.99). Lowered where
the set's own reference cups depart less (``REFERENCE_DEPARTURE``)."""
REFERENCE_DEPARTURE = 0.75
"""... to this share of the least the reference cups of the colour departed by
(``CupOutline.departures``): a set whose real cups stand out less from this board is tested
against its own. On the bench's bench-88 (glossy natural cups on birch) the reference's white
cups departed over 0.56-0.61 and the game's over 0.48-0.68, so the fixed share rematched a real
white 4 as the wood on seven boards; bench-37's wood noise departed at most 0.63 of its
reference's least (0.46 of 0.73), its real cups at least 0.96 of it."""
UNLIKE_RINGS = SHADOW_REMATCH_RINGS
"""... and only a clear cup does (a score of at least this many rings between adjacent sizes): a
faint one is a shadow's edge or a stain read as a cup, whose weak evidence is no hand's (the
stress set's stress-57: a cup's shadow across an empty square read as a white 1, wholly unlike
white, flagged two hand-free frames). The fists' cups scored 8 to 18 rings."""
PLACED_MM = 8.0
"""A cup whose silhouette the region cue placed this far or farther from where its base stands
is sized where it stands as well (``BoardReader._placed``). Cups stand within a few mm of where
their bases fit. Over the bench's development scenes and the committed ones (2,434 cups read
when this was set) the two places lie within 3 mm for 63 % of the cups and 8 mm or more apart for
6 %; there the region cue's best size is right for 89 of 148 cups (94 % over all cups), the
size scored where the base stands for 120."""
LAMP_REGION_TRUST = 0.5
"""The most the region cue's size logits weigh against the edges' (``edges.size_shares``) on a
frame whose light changed unevenly since the board in use (a lamp moved, dimmed or changed:
``pixels.lit_unevenly``). The region cue sizes a cup by where the colour model stops calling
pixels cup, against apparent radii learned under the calibration's lamp; a new lamp moves that
edge (a glossy wall lit unlike the wood, a shadow or the shade at a dark cup's foot tinted
unlike the calibration's shadows) by about half the step between sizes, while the base circle,
placed by the camera pose, does not move. Measured, when this was set, over the bench's three scenes
whose lamp changes (bench-03, bench-10, bench-24; every cup of every board, the calibration's
models): under the calibration's lamp the region cue picks the right size for 93 of 93 cups,
the base for 86; under the new lamp the region cue for 121 of 164, the base for 144 (bench-10's
white cups 8 and 19 of 22, fitted 2.5-6 mm larger than their calibration radii; bench-24's
black cups 22 and 34 of 41, fitted 1.6-2.5 mm larger). 0.5 reads those scenes' boards under the
new lamp right on 15 more squares and none wrong that were right; 0.3 read bench-26's black 3 on
c1 a 2 on board 18b (its margin's light changed too). The stress set's frames under a changed
light (a lamp turned, a shade) read 5 and 2 more squares right in its halves with 0.5, and 1 and
2 fewer right at 0.9 or more. See docs/vision.md, "A lamp moved since calibration"."""
MARKER_MIN_CORRELATION = 0.6
"""Correlation with its calibration view below which a marker counts as moved or covered."""
MOVE_TOLERANCE_PX = 1.5
SQUARE_5 = np.ones((5, 5), np.uint8)


class Weighed(NamedTuple):
    """What ``BoardReader._probabilities`` made of a read's cues: the probabilities, and for a
    trace (``read_traced``) the values they came from (rows: squares)."""

    probabilities: np.ndarray
    region: np.ndarray  # the region cue's size logits as matched
    placed: np.ndarray  # the size logits the shares start from (``_placed``)
    shares: np.ndarray | None  # the edges' size shares (``edges.size_shares``); None: no edge cue
    white: np.ndarray  # the colour cue's share of each size given to White
    turned: np.ndarray | None = None  # squares the rays turned (``_turned``); None: none weighed

    def shares_of(self, row: int) -> np.ndarray:
        """How square ``row``'s cup probability split between the sizes: the edges' shares, or
        without an edge cue the region cue's alone (each size's probability over the cup's)."""
        if self.shares is not None:
            return self.shares[row]
        s = (self.probabilities.shape[1] - 1) // 2
        sizes = self.probabilities[row, 1 : s + 1] + self.probabilities[row, s + 1 :]
        return sizes / max(float(sizes.sum()), 1e-300)


@dataclass(frozen=True)
class FrameLamp:
    """The lamp last fitted to a frame (``BoardReader.lamp_seen``; where that frame's shadows
    were not clear, the one before, or None), with the board and the light it was fitted
    under: the cups found (row, colour, size) and the margin's light field
    (``Evidence.judged``)."""

    board: frozenset[tuple[int, int, int]]
    field: np.ndarray
    lamp: ShadowModel | None


@dataclass
class Reading:
    """Internals of one read, for diagnostics and the accuracy script."""

    observation: Observation
    matches: list[SquareMatch]
    band_area_mm2: float
    grid_area_mm2: float
    fist_log_odds: float
    markers_changed: int
    still_seconds: float = 0.0
    """How long the picture has held still up to this frame (on the frames' timestamps)."""
    hidden_area_mm2: float = 0.0
    """The board's own marks hidden where no cup explains it (``marks.py``)."""
    standing: list[SquareMatch] | None = None
    """The cups found where their bases stand (``BoardReader._standing``); None: as matched."""
    labels_alike: float = 1.0
    """How alike the least alike marker label still looks (``HiddenMarks.labels_alike``)."""
    fits: BaseFits | None = None
    """The frame's base fits (None without an outline), for learning from this frame
    (``learning.LabelledFrame.fits``)."""
    beside_mm2: float = 0.0
    """The arm found reaching in beside the board, in the picture around it (``surround.py``)."""

    @property
    def cover(self) -> Occlusion:
        """The occlusion cues this frame gave (its roughness not kept)."""
        return Occlusion(
            self.band_area_mm2,
            self.grid_area_mm2,
            self.fist_log_odds,
            False,
            self.hidden_area_mm2,
            self.labels_alike,
        )


def lamp_lit(cups: list[CastingCup], field: np.ndarray | None) -> list[CastingCup]:
    """The cups whose shadows, cast by the lamp in use, the occlusion test's first judgement
    takes for board (``OcclusionTest.judge``): all of them while the margin's light ``field``
    (against the board the calibration's lamp was learned with, ``BoardReader._board_of_lamp``;
    None for a lamp learned during the game) shows that board's light, none once it says the
    light changed (``light_changed``).

    That lamp's shadows are where it threw them; under another light they fall elsewhere or
    not at all, and what is dark where they were predicted is no shadow of theirs. On the
    vision bench's bench-31 (the light changes at frame 07) a black 4 held over the margin on
    11a-hand lay where the calibration's lamp would throw d2's white 4's shadow: lifted as that
    shadow it read as board (0 mm² of the margin against 296 judged without it, 150 a hand),
    and the hand was missed. Whether the calibration learned a lamp at all had turned on the
    last grey levels of its warp (the shadows' fit landing on darkened board 0.612 of the time
    against 0.580, the limit 0.6). A changed light is judged again with the lamp the frame
    itself shows (``BoardReader._under_frame_lamp``), the calibration's when it shows none."""
    return [] if field is not None and light_changed(field) else cups


def shadow_doubt(first: np.ndarray, again: np.ndarray, unit: float) -> np.ndarray:
    """Each size's least score (``SquareMatch.sizes``; ``unit`` of it a logit) on a square whose
    cup was explained away: ``first`` its match, ``again`` its match with the explanation taken
    for board, where no cup is left (``SHADOW_DOUBT``).

    The doubt is a faint real cup the explanation took away, as much of it as every size at
    -``SHADOW_DOUBT`` held (empty at 0.75 at most), shared between the sizes as ``again`` ranks
    them (alike where it reads them alike, as every size once was), and no size surer than
    ``first`` had it (a size the match with the explanation ruled out is no faint cup). Each
    size at the same doubt held a cup the shadow-free square reads as board by 10 rings at a
    twelfth of empty, a tenth of it on a frame read rough: bench-38's b4, vacated under a long
    shadow, read a white 4 at 0.05-0.12 beside empty's 0.46-0.50, and the referee could not tell
    the 4 moved away from a fresh one put down beside it (docs/vision-findings.md). The doubt stays whole:
    the real cups the stress set's shadows took away were faint 1s, and their squares' shadow-free
    smallest size read as board by as much as empty squares' did (0.6-2.9 rings against 1.2-4.5)."""
    logits = again / unit
    shares = logits - logits.max() - np.log(np.exp(logits - logits.max()).sum())
    doubt = (np.log(len(again)) - SHADOW_DOUBT + shares) * unit
    return np.minimum(doubt, first)


def moderate(cover: Occlusion) -> bool:
    """Flagged by evidence a still shadow or a changed light can give, short of a hand's.

    Hidden marks are never moderate: a shadow or a changed light leaves the board's marks in
    view, a hand held still does not."""
    return (
        cover.hidden_mm2 <= HIDDEN_MM2
        and cover.band_mm2 <= MODERATE_MM2
        and cover.grid_mm2 <= MODERATE_MM2
        and cover.fist_log_odds <= MODERATE_FIST
    )


BoardKey = tuple[int, BoardLayout, float, bool]
"""A board compared with (``BoardReader._compared``): its picture (the array's ``id``, alive as
long as the board made of it is kept: ``Background.image`` is that array), layout, scale and
whether it has markers."""
BOARDS_KEPT = 2
"""The boards compared with that a reader keeps: the calibration's own and the one learned."""


def wood_departures(outline: CupOutline | None) -> tuple[float, float]:
    """Per colour, the share of a found cup's silhouette that must depart from the wood's look
    for it to be no wood's noise (``BoardReader._departs``): ``WOOD_DEPARTURE``, or less where
    this set's reference cups departed less (``REFERENCE_DEPARTURE``)."""
    least = outline.departures if outline is not None else (1.0, 1.0)
    white, black = (min(WOOD_DEPARTURE, REFERENCE_DEPARTURE * share) for share in least)
    return white, black


class BoardReader:
    """Reads frames against one calibration; keeps up with a board that gets nudged."""

    bank: TemplateBank
    """Every square's silhouettes of the cups in use (``_set_camera``)."""

    def __init__(self, calibration: Calibration, size: int | None = None) -> None:
        if size is not None and calibration.size != size:
            raise CompanionError(
                f"the calibration is for a {calibration.size}x{calibration.size} board, not "
                f"{size}x{size}: calibrate this board"
            )
        self.calibration = calibration
        """The calibration as given (with what was learned during games, if anything)."""
        self.models = calibration.in_use()
        """The same with the learned models in place: what every frame is read with."""
        self._outline_key: object = None  # the camera centre and outline the edge banks are for
        self._bank_key: object = None  # what the silhouettes (``bank``) were drawn for
        self._kept_models: Kept[bytes, PixelModel] = Kept(MODELS_KEPT)  # the occlusion test's lately
        self._kept_boards: Kept[BoardKey, Background] = Kept(BOARDS_KEPT)  # (``_compared``)
        self._regions_for: tuple[BoardLayout, float, dict[int, np.ndarray]] | None = None
        """The layout, scale and markers (the very dict) ``_marker_masks`` are for."""
        self._set_models(calibration.camera, calibration.markers)

    def _set_models(self, camera: Camera, markers: dict[int, np.ndarray]) -> None:
        c = self.models
        self._background = self._compared(c)
        self._band = self._background.band
        self._grid = grid_mask(c.layout, c.view, 2.0).astype(np.uint8) * 255
        kept = self._regions_for  # learning moves none of them
        if kept is None or kept[2] is not c.markers or kept[:2] != (c.layout, c.scale):
            self._marker_masks = self._marker_regions()
            self._regions_for = (c.layout, c.scale, c.markers)
        self._wood_like = c.pixels.wood_like()
        self._departure = wood_departures(c.outline)
        self._occlusion = OcclusionTest(
            c.background,
            c.scale,
            c.pixels,
            self._band.astype(np.uint8) * 255,
            self._grid,
            None if c.shadows is None else (c.shadows, c.view),
            tuple(self._box(region) for region in self._marker_masks),
            self._wood_like,
            self.calibration.pixels,
            self._kept_models,
            self._background.log,
        )
        self._ring_px = c.cups.ring_px(c.scale)
        learned = self.calibration.learned
        self._size_leans = None if learned is None else learned.size_leans
        gray = cv2.cvtColor(self.calibration.background, cv2.COLOR_BGR2GRAY).astype(np.float32)
        self._marker_refs = [gray.ravel()[m] - gray.ravel()[m].mean() for m in self._marker_masks]
        self._still = StillClock()  # on the 2 mm map of the board plane
        self._lamp: FrameLamp | None = None  # the lamp last fitted to a frame (``_under_frame_lamp``)
        self._lamp_board = self._board_of_lamp()
        self._set_camera(camera, markers)

    def _board_of_lamp(self) -> Background | None:
        """The empty board the calibration's lamp was learned with, while that lamp is in use:
        the board in use while its margin shows the calibration's light, the calibration's own
        once learning relit the board in use under another light (``learning._learned_board``)
        and learned no lamp. None for a lamp learned during the game (``learning.relit``):
        learned under the light a frame showed, the board in use left as it was, it has no
        board of its own, and its shadows are cast as before.

        Under the calibration's light learning does not relight the board but refreshes the
        wood's look, part of the way to the frames': that board is the lamp's as much as the
        calibration's was, and closer to the frames. Judged against the calibration's board
        instead, the vision bench's bench-26 (a lamp 0.42 m up at one side, the light never
        changed) read its last board as under another light: a third of the margin lay in the
        cups' shadows, and where the reserve cups' shadows lay at calibration it was brighter,
        so the margin's light field bent to a range of 0.50 in log (one gain against the board
        in use); the lamp's shadows went unforgiven (4,248 mm² of the margin) while the board
        in use said the light had not changed and no lamp was fitted to the frame, and that
        board was never seen stable (docs/vision-findings.md, "The board of the calibration's lamp")."""
        learned = self.calibration.learned
        if learned is not None and learned.shadows is not None:
            return None
        if learned is None or self.models.shadows is None:
            return self._background
        calibrated = self._compared(self.calibration)
        return calibrated if lit_otherwise(calibrated, learned.background) else self._background

    def _compared(self, calibration: Calibration) -> Background:
        """``calibration.comparison()``, the one made before for the same board (the very
        picture, the layout, scale and markers): the calibration's own serves every
        ``adopt`` (``_board_of_lamp`` compares with it at each learning step once a lamp was
        learned at calibration), and so does the board learned, for the models learned less
        that ``learning.ObserverLearning`` tries and goes back from. Each was made again (the
        board levelled, its texture's statistics): 6.6 ms of CPU on bench-08's board, the EPYC
        (3.6 since the level is remapped by column and row, ``sampling.remap_linear_grid``)."""
        key = (id(calibration.background), calibration.layout, calibration.scale, bool(calibration.markers))
        return self._kept_boards.get(key, calibration.comparison)

    def _light_since_lamp(self, ev: Evidence, rect: np.ndarray) -> np.ndarray | None:
        """The margin's light field (``Background.light_field``) of the frame ``rect`` against
        the board the lamp in use was learned with (``_board_of_lamp``): ``ev.judged`` when that
        is the board in use; None for a lamp learned during the game."""
        if self._lamp_board is None:
            return None
        if self._lamp_board is self._background:
            return ev.judged
        return light_seen(self._lamp_board, rect)

    def adopt(self, calibration: Calibration) -> None:
        """Read with ``calibration``'s models from now on (what was learned, or forgotten),
        keeping the board's geometry as found since (a nudged board stays found)."""
        self.calibration = calibration
        self.models = calibration.in_use()
        still = self._still  # the picture has not moved: how long it has held still stands
        self._set_models(self.camera, self.markers)
        self._still = still

    def rectified(self, image: np.ndarray) -> np.ndarray:
        """A frame on the board plane, as the reader compares it (for learning from it)."""
        return self._rectify(check_frame(image, "the frame"))

    @property
    def background(self) -> Background:
        """What frames are compared with now."""
        return self._background

    @property
    def occlusion(self) -> OcclusionTest:
        """The occlusion test frames are judged with now: its pixel model (``pixels``) is the
        models' in use, less the cup colours that have the wood's look."""
        return self._occlusion

    @property
    def frame_lamp(self) -> FrameLamp | None:
        """The lamp last fitted to a frame, to judge it under the light it shows
        (``_under_frame_lamp``); None while none was."""
        return self._lamp

    # -- geometry --------------------------------------------------------------------------------

    def _set_camera(self, camera: Camera, markers: dict[int, np.ndarray]) -> None:
        c = self.models
        self.camera = camera
        self.markers = markers
        bank_key = (c.layout, c.scale, tuple(camera.centre.tolist()), c.cups)
        if self._bank_key != bank_key:  # a step of learning that moved no size keeps them
            before = None if self._bank_key is None else self.bank  # (a size or two moved: the rest kept)
            self.bank = build_bank(c.layout, c.view, camera.centre, c.cups, before=before)
            self._bank_key = bank_key
        self._region_trust = (1.0, 1.0) if c.outline is None else c.outline.region_trust
        self._clear_rims = (False, False) if c.outline is None else c.outline.clear_rims
        outline_key = (tuple(camera.centre.tolist()), c.outline)
        if self._outline_key != outline_key:  # learning changes neither: kept across adopt()
            self.edges: EdgeBank | None = None
            self._real_bank: TemplateBank | None = None
            if c.outline is not None:
                centres = [np.array(c.layout.square_centre(row)) for row in range(c.size * c.size)]
                self.edges = build_edge_bank(c.view, centres, camera.centre, c.outline, c.max_piece)
                real = real_cups(c.layout.square_mm, c.max_piece, c.outline)
                self._real_bank = build_bank(c.layout, c.view, camera.centre, real)
            self._outline_key = outline_key
        self._maps_key: object = None
        self._surround_key: object = None
        self._still.reset()

    def _marker_regions(self) -> list[np.ndarray]:
        """Flat rectified-view indices of each marker's black square, to notice it moving."""
        c = self.models
        if not c.markers:
            return []
        regions = []
        for k in range(4):
            mask = np.zeros(c.view.shape, np.uint8)
            corners = c.layout.marker_corners(k)
            quiet = (corners - corners.mean(axis=0)) * (1 + 2 * QUIET_MM / c.layout.marker_mm)
            outline = c.view.to_pixels(quiet + corners.mean(axis=0))
            cv2.fillConvexPoly(mask, np.round(outline).astype(np.int32), 1)
            regions.append(np.flatnonzero(mask))
        return regions

    def _box(self, region: np.ndarray) -> Box:
        """The bounding box of flat view indices: a marker's label (axis-aligned on the view)."""
        ys, xs = np.unravel_index(region, self.models.view.shape)
        return int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1

    def _camera_for(self, image: np.ndarray) -> Camera:
        """The calibrated camera, rescaled when frames come at another resolution (same aspect)."""
        w, h = self.camera.image_size
        if (image.shape[1], image.shape[0]) == (w, h):
            return self.camera
        k = image.shape[1] / w
        if abs(image.shape[0] / h - k) > 0.01:
            raise CompanionError(
                f"frame is {image.shape[1]}x{image.shape[0]} but the calibration was made at "
                f"{w}x{h}, another aspect ratio: calibrate at this resolution"
            )
        scale = np.array([[k, 0, (k - 1) / 2], [0, k, (k - 1) / 2], [0, 0, 1.0]])
        return Camera(
            scale @ self.camera.homography,
            self.camera.centre,
            self.camera.focal * k,
            (image.shape[1], image.shape[0]),
        )

    def _rectify(self, image: np.ndarray) -> np.ndarray:
        """Warp a frame onto the board plane with lookup maps (``RectifiedView.warp_maps``)
        cached per geometry and size: making them costs more than the warp."""
        key = (id(self.camera), image.shape[:2])
        if self._maps_key != key:
            self._maps = self.models.view.warp_maps(self._camera_for(image))
            self._maps_key = key
        return apply_warp(image, self._maps)

    def relocate(self, image: np.ndarray) -> bool:
        """Find the markers again; adopt the new geometry if the board moved. True if it did."""
        c = self.models
        found = detect_markers(image)
        if any(i not in found for i in c.layout.marker_ids):
            return False
        k = image.shape[1] / self.camera.image_size[0]
        found = {i: (found[i] + 0.5) / k - 0.5 for i in c.layout.marker_ids}
        shift = max(float(np.max(np.abs(found[i] - self.markers[i]))) for i in found)
        if shift <= MOVE_TOLERANCE_PX:
            return False
        board_pts, image_pts = marker_correspondences(found, c.layout)
        homography = fit_homography(board_pts, image_pts)
        if homography is None:
            return False
        camera = camera_with_focal(
            homography, board_pts, image_pts, self.camera.image_size, self.camera.focal
        )
        self._set_camera(camera, found)
        return True

    # -- reading ---------------------------------------------------------------------------------

    def read(self, image: np.ndarray, timestamp: float = 0.0) -> Observation:
        return self.read_details(image, timestamp).observation

    def read_details(self, image: np.ndarray, timestamp: float = 0.0) -> Reading:
        return self._read(image, timestamp, traced=False)[0]

    def read_traced(self, image: np.ndarray, timestamp: float = 0.0) -> tuple[Reading, ReadTrace]:
        """``read_details`` with the size cues it weighed, square by square (``trace.py``): for
        probes that measure the cues or weigh them another way. Reads as ``read_details`` does
        (the same reading, the reader left in the same state)."""
        reading, trace = self._read(image, timestamp, traced=True)
        assert trace is not None  # (asked for)
        return reading, trace

    def _read(self, image: np.ndarray, timestamp: float, traced: bool) -> tuple[Reading, ReadTrace | None]:
        image = check_frame(image, "the frame")
        reading, trace = self._read_once(image, timestamp, traced)
        if reading.markers_changed and self.markers and self.relocate(image):
            again, trace = self._read_once(image, timestamp, traced)
            obs = again.observation
            again.observation = Observation(
                obs.size, obs.max_piece, obs.probabilities, obs.occluded, True, timestamp
            )
            return again, trace
        return reading, trace

    def _read_once(
        self, image: np.ndarray, timestamp: float, traced: bool
    ) -> tuple[Reading, ReadTrace | None]:
        c = self.models
        view = c.view
        rect = self._rectify(image)
        gray = grey(rect)
        ev = evidence(rect, self._background, c.pixels, self.bank.pad, self.bank.reach(), gray)
        fits = None
        if self.edges is not None:
            maps = edge_maps(ev.features, self.edges.pad, self.edges.reads)
            fits = BaseFits(maps, self.edges, rect, self._background)
        seeds = None if fits is None else fits.seeds
        reads: list[Reads] = []
        matches = match_apart(ev, self.bank, match_all(ev, self.bank, seeds, reads), seeds, reads)
        found = self._outside_shadows(ev, matches, fits)
        relit = self._outside_lit_shade(ev, rect, found)
        matches = self._departing(ev, relit)
        edges, feet = self._edge_scores(ev, fits, matches)
        placed = self._placed(ev, matches, edges, feet)
        trust = self._trust(matches, lit_unevenly(ev.judged))
        sized = self._sized(self._explaining(ev.features, placed), edges, trust)
        standing = self._standing(sized, edges, feet)
        explained = self._explained(sized, standing, ev.pad)
        if relit is not found:  # (the lit board's look took a cup found for it)
            explained = cv2.max(explained, self._lit_shade(found, relit, ev.pad))
        free = cv2.bitwise_not(cv2.dilate(explained, SQUARE_5))
        fg = ev.fg[ev.pad : ev.pad + view.shape[0], ev.pad : ev.pad + view.shape[1]]
        cups = casting_cups(found_cups(standing), c.layout, c.scale, c.cups)
        lit = lamp_lit(cups, self._light_since_lamp(ev, rect))
        cover = self._occlusion.judge(ev.features, ev.texture, rect, free, fg, lit, gray)
        changed = self._markers_changed(gray)
        if not changed:  # (a marker out of view flags the frame whatever the lamp)
            cover = self._under_frame_lamp(cover, ev, rect, free, (matches, standing), cups)
        softening = ROUGH_SOFTENING if cover.rough else 1.0
        weighed = self._probabilities(matches, trust, softening, edges, placed, (ev, feet))
        still = self._held_still(gray, timestamp)
        beside, arm = self._beside(image, timestamp)
        occluded = changed > 0 or arm or (cover.occluded and not (still >= STILL_SECONDS and moderate(cover)))
        obs = Observation(c.size, c.max_piece, weighed.probabilities, bool(occluded), False, timestamp)
        trace = self._traced(ev, matches, (edges, feet), trust, softening, weighed) if traced else None
        reading = Reading(
            obs,
            matches,
            cover.band_mm2,
            cover.grid_mm2,
            cover.fist_log_odds,
            changed,
            still,
            cover.hidden_mm2,
            standing,
            cover.labels_alike,
            fits,
            beside,
        )
        return reading, trace

    def _traced(
        self,
        ev: Evidence,
        matches: list[SquareMatch],
        edge_cue: tuple[tuple[np.ndarray, np.ndarray] | None, np.ndarray | None],
        trust: np.ndarray,
        softening: float,
        weighed: Weighed,
    ) -> ReadTrace:
        """The size cues one read weighed (``read_traced``), from the values it computed:
        ``edge_cue`` the edge cue's (base, rim) scores and each size's best base shift
        (``_edge_scores``), ``weighed`` what ``_probabilities`` made of them."""
        edges, feet = edge_cue
        base, rim = (None, None) if edges is None else edges
        clear = self._clear(matches)
        names = [square_name(sq) for sq in board_squares(self.models.size)]
        squares = tuple(
            CueTrace(
                name,
                m,
                weighed.region[row],
                weighed.placed[row],
                None if base is None else base[row],
                None if rim is None else rim[row],
                None if feet is None else feet[row],
                float(trust[row]),
                bool(clear[row]),
                softening,
                weighed.shares_of(row),
                float(weighed.white[row]),
                weighed.probabilities[row],
                weighed.turned is not None and bool(weighed.turned[row]),
            )
            for row, (name, m) in enumerate(zip(names, matches, strict=True))
        )
        return ReadTrace(squares, ev, self.bank, self._ring_px, self.models.scale)

    def _beside(self, image: np.ndarray, timestamp: float) -> tuple[float, bool]:
        """An arm reaching in beside the board, out of the rectified view (``surround.py``): its
        mm² and whether it flags the frame."""
        key = (id(self.camera), image.shape[:2])
        if self._surround_key != key:
            bright = any(self._wood_like)  # (``surround.BRIGHTER_LOG``)
            self._surround = Surround(self._camera_for(image), self.models.layout, image.shape[:2], bright)
            self._surround_key = key
        return self._surround.reaching(image, timestamp)

    def _under_frame_lamp(
        self,
        cover: Occlusion,
        ev: Evidence,
        rect: np.ndarray,
        free: np.ndarray,
        found: tuple[list[SquareMatch], list[SquareMatch]],
        cups: list[CastingCup],
    ) -> Occlusion:
        """``cover`` judged again under the light this frame shows (``OcclusionTest.under``),
        when it flagged the frame and the margin says the light changed since the board in use
        (``shadows.light_changed`` of ``Evidence.judged``): the cups' shadows cast by the lamp
        fitted to this frame (``lamp_seen``), and the board's own pattern in view taken for
        board. Kept only where that clears the frame (else ``cover`` as it was).

        A lamp changed for a low one throws long shadows the calibration's model does not
        predict (none at all when the calibration's light was soft) across the margin and the
        grid, and every board under it read as covered at first sight, until the picture had
        held still 1.5 s (the vision bench's bench-24: the 10 boards under its new lamp).
        Where a shadow falls is geometry: the lamp's direction and reach, fitted to how the
        board darkened beside the cups this very frame shows, as calibration fits them. The
        shadows so predicted forgive only a darker board of the shadows' own hue
        (``ShadowModel.lift``), the pattern only where the board's grain and lines show
        through as they did: a hand keeps its colour and hides the pattern, and the marks it
        hides and the labels it covers are judged as before (a frame they flag is not judged
        again).

        The lamp last fitted is tried first (``_lamp``): the light a moment ago is most likely
        the light now, and a fit costs about 14 ms of CPU (every direction and slope tried is
        drawn for every cup; 34 ms before they were drawn together; docs/vision-findings.md). A
        frame it does not clear is judged with its own, fitted once for the same cups under
        the same light (``FrameLamp``): a board under the new lamp that
        the lamp does not clear is read some twenty times while it stands (the vision bench's
        bench-03, each board read once with a fit of its own: 63 ms median, main 28). When no
        lamp's shadows are clear, the calibration's lamp is judged with.

        Not shared with ``learning.relit``, which fits the frame the picture settles on (still
        ``STILL_SECONDS``): this fits the board's first frame the last lamp does not clear."""
        if not cover.occluded or not self._light_may_clear(cover):
            return cover
        field = ev.judged
        if not light_changed(field):
            return cover
        last = self._lamp
        before = None if last is None else last.lamp
        if before is not None:
            lit = self._occlusion.under(
                (before, self.models.view), cover, ev.features, ev.texture, rect, free, cups
            )
            if not lit.occluded:
                return lit
        board = frozenset((row, colour, size) for row, (colour, size, _, _) in found_cups(found[1]).items())
        if last is not None and last.board == board and same_light(last.field, field):
            return cover  # this board's own lamp, under this light, was judged with already
        fitted = self.lamp_seen(ev.features, *found)
        self._lamp = FrameLamp(board, field, before if fitted is None else fitted)
        if fitted is None and before is not None:
            return cover  # no clear shadows of its own: judged with the last lamp already
        light = None if fitted is None else (fitted, self.models.view)
        lit = self._occlusion.under(light, cover, ev.features, ev.texture, rect, free, cups)
        return cover if lit.occluded else lit

    @staticmethod
    def _light_may_clear(cover: Occlusion) -> bool:
        """Whether the light could be all that flags ``cover``: no hand's worth of the board's
        marks hidden and every marker label alike (neither depends on the light)."""
        return cover.hidden_mm2 <= HIDDEN_MM2 and cover.labels_alike >= LABEL_ALIKE

    def lamp_seen(
        self, features: np.ndarray, matches: list[SquareMatch], standing: list[SquareMatch] | None
    ) -> ShadowModel | None:
        """The lamp a frame shows (``shadows.learn_shadows``), from where the cups found stand
        (``standing``; None: as ``matches`` placed them) and how the board around them darkened
        in ``features`` (the frame's against the board in use), never from the cups' own pixels
        (their silhouettes, as matched and as standing, grown by ``BOARD_DILATE_MM``). None
        when no cup was found or their shadows are not clear."""
        c = self.models
        standing = matches if standing is None else standing
        cups = casting_cups(found_cups(standing), c.layout, c.scale, c.cups)
        if not cups:
            return None
        seen = coverage(matches, self.bank, c.view.shape, self.bank.pad)
        if standing is not matches:
            seen = cv2.max(seen, coverage(standing, self.bank, c.view.shape, self.bank.pad))
        grow = np.ones((int(2 * BOARD_DILATE_MM * c.view.scale) + 1,) * 2, np.uint8)
        return learn_shadows(features, c.view, cups, cv2.dilate(seen, grow) > 0)

    def _explaining(self, features: np.ndarray, matches: list[SquareMatch]) -> list[SquareMatch]:
        """The matches as the occlusion test takes them: a clear cup found whose silhouette is
        nearly all unlike its colour (``UNLIKE_SHARE``, ``UNLIKE_RINGS``) is no cup there, and
        leaves its pixels to the occlusion test. The matcher takes anything that is not board
        for a cup, and a fist over the cups was read as cups (the stress set: a pink fist as a
        white 4 and as black 4s), which hid it from every occlusion cue."""
        colours = (self.models.pixels.light, self.models.pixels.dark)
        out = []
        for m, sq in zip(matches, self.bank.squares, strict=True):
            clear = m.sizes.max() >= UNLIKE_RINGS * self._ring_px
            if clear and unlike_share(features, m, sq, colours[m.colour]) > UNLIKE_SHARE:
                m = dataclasses.replace(m, sizes=np.minimum(m.sizes, 0.0))
            out.append(m)
        return out

    def _departing(self, ev: Evidence, matches: list[SquareMatch]) -> list[SquareMatch]:
        """The matches on a board whose cups of a colour have the wood's look
        (``PixelModel.wood_like``): each square but those where a cup departing from that
        look was found (``_departs``) matched again with the wood's look taken for the
        unchanged wood (``PixelModel.as_wood``); a square whose cup is found again reads
        empty, never sure of it (``SHADOW_DOUBT``).

        Where a cup's colour is the wood's, "a cup" explains the wood's noise nearly as well as
        "the board" does: a template found support in it on empty squares (the vision bench's
        bench-37: 19 white cups read on empty squares), and the empty squares read empty, but
        not sure of it, which kept the referee from telling a cup moved away from one put down.
        A real cup departs from the empty square over most of its silhouette (its shading, its
        shaded side) and keeps its match: taken for wood there too, the ring between a white 4
        and a 3 read as board, and three white 4s read 3 (main: one)."""
        if not any(self._wood_like):
            return matches
        pixels = self.models.pixels
        view = self.models.view.shape
        fg = ev.fg[ev.pad : ev.pad + view[0], ev.pad : ev.pad + view[1]]
        wood = cv2.copyMakeBorder(
            pixels.as_wood(fg, ev.features, ev.texture), *(ev.pad,) * 4, cv2.BORDER_CONSTANT, value=0.0
        )
        as_wood = replace(ev, fg=wood, positive=at_least(wood, 0.0))
        out = list(matches)
        for row, (m, sq) in enumerate(zip(matches, self.bank.squares, strict=True)):
            if self._departs(ev.features, m, sq):
                continue
            again = match_square(as_wood, sq, self.bank.offset)
            if again.sizes.max() > 0:
                floor = -SHADOW_DOUBT * SIZE_SURENESS * self._ring_px  # empty, but never sure of it
                again = (
                    m if m.sizes.max() <= 0 else dataclasses.replace(m, sizes=np.clip(m.sizes, floor, 0.0))
                )
            out[row] = again
        return out

    def _departs(self, features: np.ndarray, match: SquareMatch, sq: SquareTemplates) -> bool:
        """Whether ``match`` found a cup that is no wood's noise: of a colour unlike the wood,
        or departing from the wood's look over ``WOOD_DEPARTURE`` of its silhouette."""
        if match.sizes.max() <= 0:
            return False
        if not self._wood_like[match.colour]:
            return True
        return departing_share(features, match, sq, self.models.pixels) >= self._departure[match.colour]

    def _outside_shadows(
        self, ev: Evidence, matches: list[SquareMatch], fits: BaseFits | None
    ) -> list[SquareMatch]:
        """The matches again, each cup found lying mostly in the other cups' predicted
        shadows (its foot inside one, ``SHADOW_SHARE`` of its silhouette in them, faint, on no
        foot the edges find (``fits``) or the board's grain showing through it:
        ``maybe_shadow``) matched once more on evidence where
        those shadows are taken for board (``ShadowModel.lift``). When no cup is left, it was a
        long shadow across an empty square (the bench's bench-14, bench-32); a real cup in a
        shadow stays (its own colour, the board's grain hidden) and keeps its first match:
        undoing the shadow over its shaded side would read it a size small. The shadows here
        are the capsules fitted, not their reach: a faint real cup where a shadow may or may not
        fall keeps its cup (on the stress set the reach explained two real white 1s away for
        one empty square)."""
        c = self.models
        if c.shadows is None:
            return matches
        placed = found_cups(matches)
        if len(placed) < 2:
            return matches
        casting = casting_cups(placed, c.layout, c.scale, c.cups)
        hulls = c.shadows.hulls(c.view, casting, reaching=False)  # where shadows surely fall
        out = list(matches)
        for k, row in enumerate(placed):
            match = matches[row]
            others = hulls[:k] + hulls[k + 1 :]
            foot = c.view.to_pixels(np.array([(casting[k].x, casting[k].y)]))[0]
            if not in_shadow(others, foot) or not self.maybe_shadow(ev, row, match, fits):
                continue
            rematched = self._rematch_in_shadow(ev, row, match, others)
            if rematched is not None:
                out[row] = rematched
        return out

    def maybe_shadow(self, ev: Evidence, row: int, match: SquareMatch, fits: BaseFits | None) -> bool:
        """Whether a cup found may be a shadow read as one: faint (``SHADOW_REMATCH_RINGS``),
        standing on no foot the edges find (``BaseFits.footless`` of the frame's ``fits``), or
        read as the lighter set (``Calibration.lighter``) with the empty board's grain showing through its
        silhouette (``SHADOW_GRAIN``).

        A shadow has no foot. On the bench's bench-44 (natural cups on birch, a low lamp at one
        side) the shade beside lit cups read as white cups of 3.1-3.8 rings with the grain at
        -0.06 to 0.14 (birch shows little), and no size's base was found on any of those squares,
        where 81 of the 82 real cups read in another cup's shadow on the seen bench games' boards
        had one (the other, bench-32's white 4 on b2 on 13b, 11 rings, kept its cup when matched
        again). Lifting the shadow decides, as for the other two: a real cup keeps its colour.
        Public: the gate is tested on a frame's own matches, apart from the rematch it opens."""
        if match.sizes.max() <= SHADOW_REMATCH_RINGS * self._ring_px:
            return True
        if fits is not None and fits.footless(row):
            return True
        if match.colour != self.models.lighter:
            return False
        sq = self.bank.squares[row]
        h, w = sq.support.shape
        y, x = sq.top + match.dy, sq.left + match.dx
        seen = sq.masks[match.colour, match.size - 1] > 0
        grain = ev.texture[max(y, 0) : y + h, max(x, 0) : x + w]
        return grain.shape == seen.shape and float(np.median(grain[seen])) >= SHADOW_GRAIN

    def _rematch_in_shadow(
        self, ev: Evidence, row: int, match: SquareMatch, hulls: list[np.ndarray]
    ) -> SquareMatch | None:
        """The square matched on evidence with the shadows ``hulls`` taken for board, if its
        cup lies mostly in them and none is left; else None."""
        c = self.models
        assert c.shadows is not None
        shadows = c.shadows
        shadow = np.zeros(c.view.shape, np.uint8)
        for hull in hulls:
            cv2.fillConvexPoly(shadow, hull, 255, cv2.LINE_8, SUBPIXEL)
        return self._rematch_as_board(
            ev, row, match, shadow > 0, lambda f, inside: shadows.lift(f, inside * 255)
        )

    def _outside_lit_shade(
        self, ev: Evidence, rect: np.ndarray, matches: list[SquareMatch]
    ) -> list[SquareMatch]:
        """The matches again, each cup found lying mostly (``SHADOW_SHARE``) where the empty
        board lay in shade at calibration and this frame shows the lit board's look there
        (``OcclusionTest.lit_again``) matched once more with those pixels taken for the board
        (the features of the empty board: the wood's own look, lit); a square left with no cup
        reads empty, never sure of it (``shadow_doubt``).

        A shade at calibration gone (a reserve stack beside the board, moved) leaves the wood
        brighter than the empty board, which the colour model calls a pale cup: on the bench's
        bench-38 d2, empty, read a white 1 or 2 at 0.41-0.46 from 03b on (0.86-1.0 of its
        silhouette lit again, its grain showing, 0.25-0.58), and every help request lit it
        while the board had it empty. A real pale cup there keeps its match: the lit board's
        look covered 0-0.42 of each real cup's silhouette on the same boards, and where the
        colour is taken away its texture (a cup hides the grain) still says cup."""
        view = self.models.view.shape
        lit = self._occlusion.lit_again(ev.features, ev.texture, rect)
        if not lit.any():
            return matches
        lit = cv2.resize(lit.astype(np.uint8), (view[1], view[0]), interpolation=cv2.INTER_NEAREST) > 0
        out = list(matches)
        for row, match in enumerate(matches):
            if match.sizes.max() > 0:
                again = self._rematch_as_board(ev, row, match, lit, lambda f, inside: f * ~inside[..., None])
                out[row] = match if again is None else again
        return matches if all(a is b for a, b in zip(out, matches, strict=True)) else out

    def _lit_shade(self, found: list[SquareMatch], lit: list[SquareMatch], pad: int) -> np.ndarray:
        """What the lit board's look where the shade lay explains (uint8 mask, 255): the
        silhouettes of the cups ``found`` that ``_outside_lit_shade`` took for it (``lit``, its
        matches: another match there). The occlusion test takes that look for board by its
        colour, but not by its texture (against a board shaded at calibration the lit grain
        correlates poorly), nor the grid line lit again, whose ink has no lit wood's look: on
        bench-38 the d-file's edge beside d2 read 180-196 mm² of the grid and a fist of +0.38
        to +0.42 on 05b-07b once no cup explained it (0-20 mm² and -0.98 to -0.45 while a
        phantom white 1 read there did)."""
        taken = [
            f if f is not m else dataclasses.replace(f, sizes=np.minimum(f.sizes, 0.0))
            for f, m in zip(found, lit, strict=True)
        ]
        return coverage(taken, self.bank, self.models.view.shape, pad)

    def _rematch_as_board(
        self,
        ev: Evidence,
        row: int,
        match: SquareMatch,
        mask: np.ndarray,
        as_board: Callable[[np.ndarray, np.ndarray], np.ndarray],
    ) -> SquareMatch | None:
        """The square matched on evidence whose features ``as_board(features, inside)`` takes
        for board where ``mask`` (bool, the view) is set, if its cup lies mostly
        (``SHADOW_SHARE``) there and none is left, empty but never sure of it
        (``shadow_doubt``); else None."""
        sq = self.bank.squares[row]
        h, w = sq.support.shape
        y, x = sq.top + match.dy, sq.left + match.dx
        seen = sq.masks[match.colour, match.size - 1] > 0
        inside = mask[max(y, 0) : y + h, max(x, 0) : x + w]
        if inside.shape != seen.shape or inside[seen].mean() < SHADOW_SHARE:
            return None
        reach = self.bank.offset + 1
        y0, x0 = max(sq.top - reach, 0), max(sq.left - reach, 0)
        y1, x1 = min(sq.top + h + reach, mask.shape[0]), min(sq.left + w + reach, mask.shape[1])
        taken = as_board(ev.features[y0:y1, x0:x1], mask[y0:y1, x0:x1])
        level = self._background.level_at((slice(y0, y1), slice(x0, x1)))
        c = self.models
        fg, colour = c.pixels.log_odds(taken, ev.texture[y0:y1, x0:x1], level, None, lit_unevenly(ev.judged))
        again = replace(ev, fg=ev.fg.copy(), colour=ev.colour.copy(), positive=ev.positive.copy())
        window = (slice(y0 + ev.pad, y1 + ev.pad), slice(x0 + ev.pad, x1 + ev.pad))
        again.fg[window], again.colour[window], again.positive[window] = fg, colour, np.maximum(fg, 0)
        rematched = match_square(again, sq, self.bank.offset)
        if rematched.sizes.max() > 0:
            return None
        doubt = shadow_doubt(match.sizes, rematched.sizes, SIZE_SURENESS * self._ring_px)
        return dataclasses.replace(rematched, sizes=np.maximum(rematched.sizes, doubt))

    def _held_still(self, gray: np.ndarray, timestamp: float) -> float:
        """Seconds the picture has held still up to ``timestamp`` (``stillness.StillClock``), on
        the 2 mm map of ``gray``: the frame on the board plane in grey."""
        return self._still.seconds(shrink(gray, self._occlusion.shape).astype(np.float32), timestamp)

    def _markers_changed(self, gray: np.ndarray) -> int:
        """How many markers no longer look as at calibration (covered, or the board moved),
        in ``gray``, the frame on the board plane in grey.

        Normalised cross-correlation with the calibration's view of each marker ignores
        brightness changes but drops as soon as the black cells shift or something covers them.
        """
        if not self._marker_masks:
            return 0
        gray = gray.ravel()
        changed = 0
        for pixels, ref in zip(self._marker_masks, self._marker_refs, strict=True):
            now = gray.take(pixels).astype(np.float32)
            now = now - now.mean()
            denom = float(np.sqrt(np.dot(now, now) * np.dot(ref, ref)))
            changed += denom == 0 or float(np.dot(now, ref)) / denom < MARKER_MIN_CORRELATION
        return changed

    def _edge_scores(
        self, ev: Evidence, fits: BaseFits | None, matches: list[SquareMatch]
    ) -> tuple[tuple[np.ndarray, np.ndarray] | None, np.ndarray | None]:
        """The edge cue's (base, rim) scores per square and size (``edges.py``; the bases as
        ``_cup_bases`` counts them), 0 where no cup is likely, and where each size's base fits
        best (N x S x 2 shifts): both None without an outline in the calibration (``fits``
        None)."""
        if fits is None:
            return None, None
        base = np.zeros((len(matches), self.models.max_piece))
        rim = np.zeros_like(base)
        feet = np.zeros((*base.shape, 2), np.int64)
        maps, bank = fits.maps, fits.bank
        for row, m in enumerate(matches):
            if m.sizes.max() > 0:
                fitted, feet[row] = fits.fits(row)
                base[row] = self._cup_bases(ev, bank, row, m.colour, fitted, feet[row])
                rim[row] = rim_scores(maps.strength, maps.pad, bank.rims[row], m.dy, m.dx, bank.rim_reach)
        return (base, rim), feet

    def _cup_bases(
        self, ev: Evidence, edges: EdgeBank, row: int, colour: int, base: np.ndarray, feet: np.ndarray
    ) -> np.ndarray:
        """Square ``row``'s base scores (``edges.base_fits``) as the edge cue counts them: each
        size's only where it may be a cup's foot, its best shift inside its search
        (``EdgeBank.found``, as ``_stands`` takes it) and its circle not inside a larger size's
        base that fits where the region cue, every size scored there, reads that larger size
        (``_reads_at``); elsewhere as the worst a base can read, the whole spread of the
        square's scores under the best base that fits.

        A base's score is a circle's edge against the board, and other circles than a cup's
        foot have one. On the bench's bench-06 (pale cups on birch) b2's white 4 has a knob the
        size of a white 1's base: the 1's circle fitted it 4 mm from the square's centre, inside
        the 4's base (0.068-0.071 against the 4's 0.061-0.070, found 2-3 mm from the centre),
        where the region cue reads a 4 (0.4-2.4 rings); with the region cue's trust in white
        cups at 0.25 the knob moved the cup to a 1 (0.38-0.53) on 7 boards, each flagged covered
        by the 4's outline left unexplained. A circle inside a larger one is not enough: on
        bench-26 (a lamp low at one side) a black 3's base lies inside a 4's fitted to its long
        shadow, where the region cue reads a 3 still. Nor is the region cue at a base a judge of
        it on its own: on bench-27 (pale cups on birch) a white 4 whose base alone is found
        scores no cup there (0.5 rings under empty). A base stopped at its search's edge fitted
        nothing: on bench-24 (a low lamp) a1's white 2, its 1's base stopped in its search's
        corner (0.071-0.078 against its 2's 0.092, found), read a 1 at 0.59 on 16b. The spread
        stays the one fitted, a measure of how sharp the square's edges are
        (``edges.shortfall``), which a circle fitting something else shows as well: taken over
        the fits left, it read bench-26's white 4 on c4 under a long low shadow a 3 (0.43), its
        2's base stopped at its search's edge (0.108) above its 3's and 4's (0.099, 0.077).
        """
        shifts = feet.tolist()  # (Python ints: numpy's per-element cost was most of the loop's)
        fitting = np.array([edges.found(foot) for foot in shifts])
        for larger in range(len(shifts) - 1, 0, -1):
            if not fitting[larger]:
                continue  # (no circle inside it to take out)
            inside = [
                s for s in range(larger) if fitting[s] and edges.inside(s, shifts[s], larger, shifts[larger])
            ]
            if inside and self._reads_at(ev, row, colour, larger, feet[larger]):
                fitting[inside] = False
        if not fitting.any():
            return np.full_like(base, base.min())
        return np.where(fitting, base, base[fitting].max() - (base.max() - base.min()))

    def _reads_at(self, ev: Evidence, row: int, colour: int, size: int, foot: np.ndarray) -> bool:
        """Whether the region cue, every size of ``colour`` scored with its silhouette at shift
        ``foot`` on square ``row``, reads a cup of size ``size`` (0-based) there."""
        there = match_at(ev, self.bank.squares[row], colour, int(foot[0]), int(foot[1]))
        return there.size == size + 1 and bool(there.sizes[size] > 0)

    def _explained(self, matches: list[SquareMatch], standing: list[SquareMatch], pad: int) -> np.ndarray:
        """What the cups found explain (uint8 mask, 255 = covered): each one's apparent
        silhouette where the region cue placed it and, with an outline, its real one where its
        base stands (``_standing``). A pale cup's apparent radius is its colour's reach on the
        reference cups, which on pale wood stops at the shaded crescent of its wall (the bench's
        bench-27: a white 4 of 23.3 mm for a real 27.5): the rest of its body hid the board's
        marks and read as a hand. Under a low lamp the region cue also places a pale cup toward
        its lit side, up to its whole search off (bench-24: a white 4 12 mm from its base),
        and its real silhouette taken there left its shaded side hiding the grid lines."""
        covered = coverage(matches, self.bank, self.models.view.shape, pad)
        if self._real_bank is None:
            return covered
        real = coverage(matches, self._real_bank, self.models.view.shape, self._real_bank.pad)
        real = cv2.max(real, coverage(standing, self._real_bank, self.models.view.shape, self._real_bank.pad))
        return cv2.max(covered, real)

    def _placed(
        self,
        ev: Evidence,
        matches: list[SquareMatch],
        edges: tuple[np.ndarray, np.ndarray] | None,
        feet: np.ndarray | None,
    ) -> list[SquareMatch]:
        """The matches, each cup whose silhouette the region cue placed ``PLACED_MM`` or more
        from where its base stands (``_stands``) sized on its scores there as much as on its
        scores where it was matched (the mean of the two, each size's), where it stays.

        The region cue's best shift follows where the colour model calls pixels cup. Under a
        low raking lamp a pale cup's shaded wall, lit by the light the wood throws back, has
        the wood's colour a little darker, which the board model takes for shadowed wood: its
        evidence is a cup with a board-like band along one side, and a smaller silhouette
        slides away from the band, up to its whole search, and reads best (the bench's
        bench-24: the white 4s on b1 and b2, matched as 3s 9-12 mm from where their bases
        stand, read as 3s; scored where they stand, as 4s by 2.5-4 logits). Where the two
        places lie that far apart the region cue's size is measured on evidence that is not
        where the cup is, and where the cup is its evidence is spoiled the same way: neither
        alone is to be trusted, and a disagreement between them leaves the size unsure."""
        if edges is None or feet is None:
            return matches
        out, moved = list(matches), False
        far = PLACED_MM * self.models.scale
        for row, (m, foot, base) in enumerate(zip(matches, feet, edges[0], strict=True)):
            stands = self._stands(m, foot, base)
            if stands is None or np.hypot(m.dy - stands[1], m.dx - stands[2]) < far:
                continue
            there = match_at(ev, self.bank.squares[row], m.colour, stands[1], stands[2])
            if there.sizes.max() <= 0:
                continue  # no cup where the base fits: the base fitted something else
            sizes = (m.sizes + there.sizes) / 2
            out[row] = dataclasses.replace(m, sizes=sizes, size=int(np.argmax(sizes)) + 1)
            moved = True
        return out if moved else matches

    def _stands(self, m: SquareMatch, foot: np.ndarray, base: np.ndarray) -> tuple[int, int, int] | None:
        """(size, dy, dx): where a cup found stands, or None where no cup was found or its
        base's best shift is stopped at its search's edge (``_standing``)."""
        assert self.edges is not None
        if m.sizes[m.size - 1] <= 0:
            return None
        size = int(np.argmax(base)) + 1
        size = size if size > m.size and m.sizes[size - 1] > 0 else m.size
        if not self.edges.found(foot[size - 1]):
            return None
        return size, int(foot[size - 1][0]), int(foot[size - 1][1])

    def _standing(
        self,
        matches: list[SquareMatch],
        edges: tuple[np.ndarray, np.ndarray] | None,
        feet: np.ndarray | None,
    ) -> list[SquareMatch]:
        """Each cup found moved to where its base circle fits best (``edges.base_fits``):
        where the cup stands, from its outline on the board and the camera pose, which no lamp
        moves. The region cue's place follows where the colour model calls pixels cup, which a
        low lamp moves (a pale cup's lit wall reads as board, its shaded side as cup). Its size
        is the larger of the size matched and the one its base fits best, where the region cue
        scores that one a cup at all (as ``_sized`` takes sizes): bench-24's white 4, matched a
        3 toward its lit side, fits the 4's base best. A base whose best shift is stopped at
        its search's edge fitted nothing (``EdgeBank.found``): that cup stays where it was
        matched. Without an outline, the matches as they are."""
        if edges is None or feet is None or self.edges is None:
            return matches
        standing = []
        for m, foot, base in zip(matches, feet, edges[0], strict=True):
            stands = self._stands(m, foot, base)  # None: bench-26's white 4's base pinned in a corner
            if stands is None:
                standing.append(m)
                continue
            size, dy, dx = stands
            standing.append(dataclasses.replace(m, size=size, dy=dy, dx=dx))
        return standing

    def _sized(
        self,
        matches: list[SquareMatch],
        edges: tuple[np.ndarray, np.ndarray] | None,
        trust: np.ndarray,
    ) -> list[SquareMatch]:
        """The matches with the size the edges settle (``edges.size_shares``) where they move
        it up, for what the cups found explain: a pale cup whose region cue sees only its shaded
        crescent is matched a size or two small, and the rest of its outline, left unexplained,
        looked like a hand to the occlusion test (the bench's bench-27). Only a larger size is
        taken: what the region cue's own silhouette covered it explains still. A size whose
        own silhouette scores no cup at all is left as matched."""
        if edges is None:
            return matches
        sizes = size_logits(matches, self._ring_px)
        settled = size_shares(sizes, *edges, 1.0, trust).argmax(axis=1) + 1
        return [
            m if size <= m.size or m.sizes[size - 1] <= 0 else dataclasses.replace(m, size=int(size))
            for m, size in zip(matches, settled, strict=True)
        ]

    def _trust(self, matches: list[SquareMatch], lamp_moved: bool) -> np.ndarray:
        """The calibration's region trust (``CupOutline.region_trust``) of each match's colour,
        at most ``LAMP_REGION_TRUST`` where ``lamp_moved``: the frame's light changed unevenly
        since the board in use (``pixels.lit_unevenly``), and the apparent radii the region cue
        sizes cups with were learned under another lamp."""
        cap = LAMP_REGION_TRUST if lamp_moved else 1.0
        return np.array([min(self._region_trust[m.colour], cap) for m in matches])

    def _clear(self, matches: list[SquareMatch]) -> np.ndarray:
        """Whether the calibration found each match's colour's rims clear
        (``CupOutline.clear_rims``: ``edges.size_shares`` then weighs a clear rim more)."""
        return np.array([self._clear_rims[m.colour] for m in matches], dtype=bool)

    def _turned(
        self,
        shares: np.ndarray,
        matches: list[SquareMatch],
        edges: tuple[np.ndarray, np.ndarray],
        ev: Evidence,
        feet: np.ndarray,
    ) -> np.ndarray:
        """Which squares' light cup (the lighter set's, ``Calibration.lighter``), read under
        ``rays.TURN_BELOW`` as one of the two largest sizes (``shares``), is turned to the
        other (``rays.swapped``): where its base and rim,
        and its outline along rays from each size's own foot on the log-odds and on the texture
        (``rays.square_misfits``), all say the other. Each of those cues misreads on its own, each its
        own cups; all four against the read are rare, and on the seen bench were right where
        the reader was wrong far more often than the reverse. Never to the larger size where
        the lamp throws the cup's shadow toward the camera (``rays.shadow_toward_camera``): the
        shadow's outline is a larger foot to all four (docs/vision.md, "Along rays from each
        foot"). A cup's rays are worked out only where both edges say the other size."""
        large = self.models.max_piece - 1
        small = large - 1
        base, rim = edges
        turn = np.zeros(len(matches), dtype=bool)
        others: np.ndarray | None = None
        for row, m in enumerate(matches):
            read = int(np.argmax(shares[row]))
            if m.colour != self.models.lighter or m.sizes.max() <= 0 or read not in (small, large):
                continue
            other = small + large - read
            if (
                shares[row, read] >= TURN_BELOW
                or (other == large and shadow_toward_camera(self.models, row))
                or base[row, other] <= base[row, read]
                or rim[row, other] <= rim[row, read]
            ):
                continue
            if others is None:
                others = cups_placed(self.bank, matches, self.models.view.shape)
            turn[row] = turned(
                square_misfits(ev, self.bank, self.models, row, feet[row], others), read == large
            )
        return turn

    def _probabilities(
        self,
        matches: list[SquareMatch],
        trust: np.ndarray,
        softening: float = 1.0,
        edges: tuple[np.ndarray, np.ndarray] | None = None,
        placed: list[SquareMatch] | None = None,
        footing: tuple[Evidence, np.ndarray | None] | None = None,
    ) -> Weighed:
        """Class probabilities [empty, white 1..S, black 1..S] per square from its match, with
        the size logits and shares they were made of (``Weighed``).

        Sizes compete with "empty" (score 0) through a softmax, each score counted in units of
        ``SIZE_SURENESS`` times the typical ring between adjacent sizes; the colour's mean
        log-odds, tempered the same way, splits each size's probability between the colours.
        ``edges``, the edge cue's (base, rim) scores, may then reshare a square's cup
        probability between the sizes (``edges.size_shares``: what is a cup at all, and how
        sure the size can be, stay the region cue's). ``placed`` (``_placed``), the same matches
        with the sizes of those the region cue placed far from where they stand scored there as
        well, gives the sizes those shares start from; whether a square holds a cup, and its
        colour, stay the matches'. ``softening`` widens every temperature for a frame whose
        evidence reads rough. ``trust`` (per square) weighs the region cue's size logits against
        the edges' (``_trust``). ``footing``, the read's evidence and where each size's base
        fits (``_edge_scores``), lets the rays from those feet turn a light cup between the two
        largest sizes (``_turned``).
        """
        region = size_logits(matches, self._ring_px, softening)
        logits = np.concatenate([np.zeros((len(matches), 1)), region], axis=1)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        sizes, shares, turn = region, None, None
        if edges is not None:
            if placed is not None and placed is not matches:  # (no cup sized anew: the same)
                sizes = size_logits(placed, self._ring_px, softening)
            shares = size_shares(sizes, *edges, softening, trust, self._clear(matches))
            if footing is not None and footing[1] is not None:
                turn = self._turned(shares, matches, edges, footing[0], footing[1])
                shares = swapped(shares, turn)
            p[:, 1:] = (1.0 - p[:, :1]) * shares
        areas = np.array(
            [sq.areas[m.colour, m.size - 1] for m, sq in zip(matches, self.bank.squares, strict=True)]
        )
        colour = np.array([m.colour_log_odds for m in matches]) / (
            softening * COLOUR_SURENESS * np.maximum(areas, 1.0)
        )
        p_white = (1.0 / (1.0 + np.exp(-np.clip(colour, -50, 50))))[:, None]
        out = np.concatenate([p[:, :1], p[:, 1:] * p_white, p[:, 1:] * (1 - p_white)], axis=1)
        out /= out.sum(axis=1, keepdims=True)
        if self._size_leans is not None:
            out = leaned(out, self._size_leans)
        return Weighed(out, region, sizes, shares, p_white[:, 0], turn)


def leaned(probabilities: np.ndarray, leans: np.ndarray) -> np.ndarray:
    """Class probabilities [empty, white 1..S, black 1..S] per square with each colour's sizes
    on each square leant by ``leans`` (squares x colours, log-odds per size step:
    ``Adaptation.size_leans``, learned where sure frames showed a square read a size toward its
    neighbour, ``learning.learned_leans``). Only how a colour's probability splits between its
    sizes moves: whether the square holds a cup, and of which colour, stay as read, so a lean
    never makes a cup or an empty square, and a size whose evidence is clear keeps it."""
    sizes = (probabilities.shape[1] - 1) // 2
    out = probabilities.copy()
    steps = np.arange(sizes, dtype=np.float64)
    for colour in (0, 1):
        part = out[:, 1 + colour * sizes : 1 + (colour + 1) * sizes]
        total = part.sum(axis=1, keepdims=True)
        tilted = part * np.exp(leans[:, colour : colour + 1] * steps)
        part[:] = tilted * (total / np.maximum(tilted.sum(axis=1, keepdims=True), 1e-300))
    return out
