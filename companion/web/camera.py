"""The camera page's work, done on the web's own worker thread, never in the camera loop: the
preview with what vision makes of it drawn over the frame, and the guided calibration.

The preview reads the loop's latest frame (a reference the loop hands over; nothing is
copied until a preview is asked for) with a board reader of its own, so looking at the page
changes nothing in the referee's reading. The wizard keeps the empty and reference frames it
took, calibrates from them, and on "use it" replaces the device's calibration file atomically
(the new file is written beside it and renamed over it), keeping the old one as ``.old``.
"""

from __future__ import annotations

import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError, ReferenceLayoutError
from companion.rules import COLOR_NAMES
from companion.vision.calibration import Calibration, calibrate, reference_layout
from companion.vision.geometry import BoardLayout
from companion.vision.markers import detect_markers
from companion.vision.observation import class_top
from companion.vision.reader import BoardReader

GREEN, RED, YELLOW, WHITE_BGR = (60, 200, 60), (40, 40, 230), (0, 210, 255), (255, 255, 255)
PREVIEW_WIDTH = 640


@dataclass(frozen=True)
class SquareReading:
    square: str
    top: str  # "empty", "white 3", ...
    confidence: float


@dataclass(frozen=True)
class Preview:
    jpeg: bytes
    markers: tuple[int, ...]
    readings: tuple[SquareReading, ...]
    hands: bool
    problem: str | None


class Overlay:
    """Draws what vision sees over a frame; its reader follows the calibration file."""

    def __init__(self, calibration_path: Path, size: int) -> None:
        self.path = calibration_path
        self.size = size
        self._loaded: tuple[float, BoardReader] | None = None
        self._lock = threading.Lock()

    def _reader(self) -> BoardReader | None:
        try:
            stamp = self.path.stat().st_mtime
        except OSError:
            return None
        if self._loaded is None or self._loaded[0] != stamp:
            self._loaded = (stamp, BoardReader(Calibration.load(self.path, self.size), self.size))
        return self._loaded[1]

    def preview(self, frame: np.ndarray) -> Preview:
        with self._lock:
            return self._preview(frame)

    def _preview(self, frame: np.ndarray) -> Preview:
        picture = frame.copy()
        markers = detect_markers(frame)
        for marker_id, corners in markers.items():
            points = np.round(corners).astype(np.int32)
            cv2.polylines(picture, [points], True, GREEN, 2)
            x, y = points[0]
            cv2.putText(
                picture, str(marker_id), (int(x), int(y) - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.5, GREEN, 1
            )
        readings: list[SquareReading] = []
        hands, problem = False, None
        try:
            reader = self._reader()
            if reader is None:
                problem = "no calibration yet: run the calibration below"
            else:
                readings, hands = _draw_reading(picture, reader, frame)
        except CompanionError as error:
            problem = str(error)
        if hands:
            cv2.putText(picture, "hand over the board", (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7, RED, 2)
        return Preview(_jpeg(picture), tuple(sorted(markers)), tuple(readings), hands, problem)


def _draw_reading(
    picture: np.ndarray, reader: BoardReader, frame: np.ndarray
) -> tuple[list[SquareReading], bool]:
    observation = reader.read(frame)
    layout = reader.calibration.layout
    project = reader.camera.to_image
    n, g = layout.size, layout.grid_mm
    for i in range(n + 1):
        t = i * g / n
        for ends in (((t, 0.0), (t, g)), ((0.0, t), (g, t))):
            a, b = np.round(project(np.array(ends))).astype(np.int32)
            cv2.line(picture, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), YELLOW, 1)
    readings = []
    max_piece = observation.max_piece
    for row in range(n * n):
        probabilities = observation.probabilities[row]
        best = int(np.argmax(probabilities))
        top = class_top(best, max_piece)
        words = "empty" if top is None else f"{COLOR_NAMES[top[0]]} {top[1]}"
        name = "abcdefghijklmnop"[row % n] + str(row // n + 1)
        readings.append(SquareReading(name, words, float(probabilities[best])))
        x, y = np.round(project(np.array([layout.square_centre(row)]))[0]).astype(int)
        short = "." if top is None else f"{'WB'[top[0]]}{top[1]}"
        colour = GREEN if probabilities[best] >= 0.9 else RED
        cv2.putText(
            picture,
            f"{short} {probabilities[best]:.2f}",
            (int(x) - 22, int(y) + 4),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.4,
            colour,
            1,
        )
    return readings, bool(observation.occluded)


def _jpeg(picture: np.ndarray) -> bytes:
    if picture.shape[1] > PREVIEW_WIDTH:
        scale = PREVIEW_WIDTH / picture.shape[1]
        picture = cv2.resize(picture, (PREVIEW_WIDTH, round(picture.shape[0] * scale)))
    ok, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 75])
    if not ok:
        raise CompanionError("could not encode the preview")
    return bytes(data)


# ----- the guided calibration -----------------------------------------------------------------


class Wizard:
    """empty → reference → result → saved, with a retry from any step."""

    STEPS = ("empty", "reference", "result", "saved")

    def __init__(self, calibration_path: Path, size: int, max_piece: int) -> None:
        self.path = calibration_path
        self.size = size
        self.max_piece = max_piece
        self._lock = threading.Lock()
        self.step = "empty"
        self._empty: np.ndarray | None = None
        self.result: Calibration | None = None
        self.problem: str | None = None
        self._refused: np.ndarray | None = None
        """The reference frame last refused by a check the user may overrule
        (``ReferenceLayoutError.trustable``), kept for "calibrate anyway"."""

    def reference_layout(self) -> dict[str, tuple[str, int]]:
        """Square -> the cup the reference layout puts there, for the page's drawing."""
        layout = reference_layout(self.size, self.max_piece)
        return {
            "abcdefghijklmnop"[row % self.size] + str(row // self.size + 1): (COLOR_NAMES[c], s)
            for row, (c, s) in layout.items()
        }

    def restart(self) -> None:
        with self._lock:
            self.step, self._empty, self.result, self.problem = "empty", None, None, None
            self._refused = None

    @property
    def can_insist(self) -> bool:
        """Whether the last reference frame was refused by a check the user may overrule: the
        page then offers to calibrate the same frames with the layout taken on trust."""
        return self._refused is not None

    def take_empty(self, frame: np.ndarray) -> None:
        """The cleared board; its markers must be found now, not after the reference."""
        with self._lock:
            self.problem = None
            try:
                calibrate(frame, layout=BoardLayout(size=self.size), max_piece=self.max_piece)
            except CompanionError as error:
                self.problem = f"the empty board was not understood: {error}"
                return
            self._empty = frame.copy()
            self.step = "reference"

    def take_reference(self, frame: np.ndarray) -> None:
        with self._lock:
            self._calibrate_reference(frame.copy(), trust_layout=False)

    def insist(self) -> None:
        """Calibrate the refused reference frame again, the user saying its cups already stand
        as the layout says: a right reference refused is no dead end."""
        with self._lock:
            if self._refused is None:
                raise CompanionError("nothing refused to calibrate anyway: take the reference frame first")
            self._calibrate_reference(self._refused, trust_layout=True)

    def _calibrate_reference(self, frame: np.ndarray, trust_layout: bool) -> None:
        """The calibration from the empty frame and ``frame``, or the problem in words; a
        refusal the user may overrule keeps ``frame`` for ``insist``."""
        if self._empty is None:
            raise CompanionError("take the empty board first")
        self.problem, self._refused = None, None
        try:
            self.result = calibrate(
                self._empty,
                frame,
                layout=BoardLayout(size=self.size),
                max_piece=self.max_piece,
                trust_layout=trust_layout,
            )
        except CompanionError as error:
            self.problem = f"the reference layout was not understood: {error}"
            if isinstance(error, ReferenceLayoutError) and error.trustable:
                self._refused = frame
            return
        self.step = "result"

    def learned(self) -> list[str]:
        """What the calibration found, in words."""
        result = self.result
        if result is None:
            return []
        lines = [
            f"board {result.size}x{result.size} found by markers "
            + ", ".join(str(i) for i in sorted(result.markers)),
            f"camera about {result.camera.centre[2] / 10:.0f} cm above the board",
        ]
        for colour in (0, 1):
            diameters = " ".join(f"{2 * r:.0f}" for r in result.cups.radii[colour])
            lines.append(f"{COLOR_NAMES[colour]} cups, apparent diameters (mm): {diameters}")
        words = result.trust_words()
        if words is not None:
            lines.append(f"the reference layout was taken on your word, {words}")
        return lines

    def save(self) -> Path | None:
        """Replace the calibration file atomically; returns where the old one was kept."""
        with self._lock:
            if self.result is None:
                raise CompanionError("nothing to save: take the empty board and the reference first")
            kept = install_calibration(self.result, self.path)
            self.step = "saved"
            return kept


def install_calibration(calibration: Calibration, path: Path) -> Path | None:
    """Write ``calibration`` to ``path`` so that at every instant ``path`` holds a whole file,
    the old one or the new one; the old one is kept as ``path.old``."""
    kept = path.with_name(path.name + ".old") if path.exists() else None
    if kept is not None:
        try:
            shutil.copy2(path, kept)
        except OSError as error:
            raise CompanionError(
                f"cannot keep the old calibration as {kept}: {error.strerror or error}"
            ) from None
    calibration.save(path)  # written beside the path and renamed over it
    return kept
