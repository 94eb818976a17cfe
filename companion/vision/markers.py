"""The four ArUco markers in the board margin: finding them, and printing them.

Markers give the board's geometry without any user input, and let the reader notice and
follow a board that was nudged. They come from OpenCV's DICT_4X4_50 (ids 0-3 by default),
which is small enough to decode at 24 mm seen from 0.65 m at 640x480.
"""

from __future__ import annotations

import itertools
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.vision.geometry import BoardLayout

DICTIONARY = cv2.aruco.DICT_4X4_50
MM_PER_INCH = 25.4
A4_MM = (210.0, 297.0)
QUIET_MM = 4.0


def _detector() -> cv2.aruco.ArucoDetector:
    """Sub-pixel corners: a marker corner off by half a pixel tilts the whole board plane.

    A marker's cells decode as on OpenCV 4.x (a Pi's 4.11) everywhere: a bit is white when
    more than half its cell is. OpenCV 4.14 and later count a cell within
    ``validBitIdThreshold`` (0.49) of half white wrong whichever bit it should be, and as
    DICT_4X4_50 corrects no bit, a small blurred marker with one cell exactly half white was
    found on 4.11 and missed on 5.0 (the stress set's seeds 1005, 1022, 1031 and 1044 among
    the first 61; 1030 on both). At 0.5 only such a cell, meant white, still counts wrong on
    4.x and not on 5.0."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    if hasattr(params, "validBitIdThreshold"):  # (OpenCV 4.14 and later)
        params.validBitIdThreshold = 0.5
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(DICTIONARY), params)


_DETECTOR = _detector()


def detect_markers(image: np.ndarray, thorough: bool = False) -> dict[int, np.ndarray]:
    """Marker id -> its four corners (4x2, image px, ArUco order) for each marker seen.

    A contrast-equalised second pass catches markers in dim or glary light that the plain
    pass misses; a marker seen twice keeps its first reading. ``thorough`` (calibration, where
    time matters less) adds, while markers are still missing, passes on the frame upscaled
    twice and sharpened: a small marker softened by focus blur or JPEG decodes there.
    """
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    found: dict[int, np.ndarray] = {}
    clahe = cv2.createCLAHE(2.0, (8, 8))
    for attempt in (gray, clahe.apply(gray)):
        _detect(attempt, 1.0, found)
        if len(found) >= 4:
            return found
    if thorough:
        big = cv2.resize(gray, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
        sharp = cv2.addWeighted(big, 2.0, cv2.GaussianBlur(big, (0, 0), 2.0), -1.0, 0)
        for attempt in (big, sharp, clahe.apply(sharp)):
            _detect(attempt, 2.0, found)
            if len(found) >= 4:
                break
    return found


def _detect(gray: np.ndarray, scale: float, found: dict[int, np.ndarray]) -> None:
    corners, ids, _ = _DETECTOR.detectMarkers(gray)
    if ids is None:
        return
    for marker_id, c in zip(ids.ravel().tolist(), corners, strict=True):
        # pixel centres: (x + 0.5) / scale - 0.5 maps an upscaled frame's corners back
        found.setdefault(int(marker_id), (c.reshape(4, 2).astype(np.float64) + 0.5) / scale - 0.5)


def marker_correspondences(
    found: dict[int, np.ndarray], layout: BoardLayout
) -> tuple[np.ndarray, np.ndarray]:
    """Board-mm and image-px points for every corner of the layout's markers.

    Raises a CompanionError naming the markers seen and missing unless all four are found:
    three would fix a homography, but a fourth guards against a misread id.
    """
    missing = [i for i in layout.marker_ids if i not in found]
    if missing:
        seen = sorted(found)
        raise CompanionError(
            f"board markers not found: missing id(s) {missing}, saw {seen or 'none'}; "
            "make sure all four corner markers are in view and lit, or give --corners"
        )
    board = np.vstack([layout.marker_corners(k) for k in range(4)])
    image = np.vstack([found[i] for i in layout.marker_ids])
    return board, image


# -- the printable sheet ------------------------------------------------------------------------


@dataclass(frozen=True)
class SheetItem:
    """One marker on the sheet: its id, where its black square's top-left is, what it's for."""

    marker_id: int
    x_mm: float
    y_mm: float
    label: str


INSTRUCTIONS = (
    "Print at 100% (no 'fit to page'); check the 100 mm bar measures 100 mm.",
    "Cut each marker on its dashed line (24 mm black square, 4 mm white border).",
    "Glue each in the board margin, centred 17.5 mm outside its grid corner",
    "on both axes, upright as seen from White (its top edge toward rank 4).",
    "Then run: gobblet-companion calibrate --empty EMPTY.jpg --out board.json",
)


def sheet_items(layout: BoardLayout) -> list[SheetItem]:
    corners = ("a1 (White's left)", "d1 (White's right)", "d4 (Black's left)", "a4 (Black's right)")
    items = []
    for k, marker_id in enumerate(layout.marker_ids):
        col, row = k % 2, k // 2
        x = 40.0 + col * 80.0
        y = 60.0 + row * 70.0
        items.append(SheetItem(marker_id, x, y, f"id {marker_id}: corner {corners[k]}"))
    return items


def marker_cells(marker_id: int) -> np.ndarray:
    """The marker's 6x6 cells including its black border (1 = white)."""
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    return (cv2.aruco.generateImageMarker(dictionary, marker_id, 6) > 127).astype(np.uint8)


def write_marker_sheet(path: Path, layout: BoardLayout, dpi: int = 300) -> Path:
    """Write an A4 sheet of the layout's markers at true scale: PDF (vector) or PNG (``dpi``)."""
    suffix = path.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise CompanionError(f"{path}: the marker sheet must be a .pdf or .png file")
    if not 150 <= dpi <= 1200:
        raise CompanionError(f"--dpi {dpi} is out of range: use 150 to 1200")
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _sheet_pdf(layout) if suffix == ".pdf" else _sheet_png(layout, dpi)
    try:
        path.write_bytes(data)
    except OSError as error:
        raise CompanionError(f"cannot write {path}: {error.strerror}") from error
    return path


def _sheet_rects(layout: BoardLayout) -> list[tuple[float, float, float, float]]:
    """Black rectangles (x, y, w, h in mm from the sheet's top-left) of every marker."""
    rects = []
    cell = layout.marker_mm / 6
    for item in sheet_items(layout):
        cells = marker_cells(item.marker_id)
        for r in range(6):
            for c in range(6):
                if not cells[r, c]:
                    rects.append((item.x_mm + c * cell, item.y_mm + r * cell, cell, cell))
    rects.append((20.0, 250.0, 100.0, 2.0))  # the 100 mm scale bar
    return rects


def _sheet_texts(layout: BoardLayout) -> list[tuple[float, float, float, str]]:
    """Text lines (x, baseline y in mm, height in mm, text)."""
    texts = [
        (20.0, 25.0, 6.0, "gobblet-companion board markers"),
        (20.0, 33.0, 3.5, f"ArUco DICT_4X4_50, black square {layout.marker_mm:g} mm"),
    ]
    for item in sheet_items(layout):
        texts.append((item.x_mm - QUIET_MM, item.y_mm + layout.marker_mm + QUIET_MM + 7, 3.5, item.label))
        texts.append((item.x_mm, item.y_mm - QUIET_MM - 2, 3.0, "top (toward rank 4)"))
    texts.append((20.0, 247.0, 3.5, "100 mm"))
    texts.extend((20.0, 262.0 + 6 * i, 3.5, line) for i, line in enumerate(INSTRUCTIONS))
    return texts


def _cut_lines(layout: BoardLayout) -> list[tuple[float, float, float, float]]:
    """Dashed cut outlines (x, y, w, h mm) around each marker's quiet zone."""
    q = QUIET_MM
    return [
        (i.x_mm - q, i.y_mm - q, layout.marker_mm + 2 * q, layout.marker_mm + 2 * q)
        for i in sheet_items(layout)
    ]


def _sheet_png(layout: BoardLayout, dpi: int) -> bytes:
    px = dpi / MM_PER_INCH
    w, h = (round(v * px) for v in A4_MM)
    sheet = np.full((h, w), 255, np.uint8)

    def edge(v: float) -> int:
        return round(v * px)

    for x, y, rw, rh in _sheet_rects(layout):
        sheet[edge(y) : edge(y + rh), edge(x) : edge(x + rw)] = 0
    for x, y, rw, rh in _cut_lines(layout):
        box = [(x, y), (x + rw, y), (x + rw, y + rh), (x, y + rh), (x, y)]
        for (x0, y0), (x1, y1) in itertools.pairwise(box):
            for t in np.arange(0.0, 1.0, 0.1):
                a = (edge(x0 + (x1 - x0) * t), edge(y0 + (y1 - y0) * t))
                b = (edge(x0 + (x1 - x0) * (t + 0.05)), edge(y0 + (y1 - y0) * (t + 0.05)))
                cv2.line(sheet, a, b, 128, max(1, dpi // 150))
    for x, y, size, text in _sheet_texts(layout):
        scale = size * px / 22.0
        cv2.putText(
            sheet,
            text,
            (edge(x), edge(y)),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            0,
            max(1, round(scale * 1.5)),
            cv2.LINE_AA,
        )
    ok, png = cv2.imencode(".png", sheet)
    if not ok:
        raise CompanionError("could not encode the marker sheet as PNG")
    return _with_dpi(png.tobytes(), dpi)


def _with_dpi(png: bytes, dpi: int) -> bytes:
    """Insert a pHYs chunk so printers and viewers know the sheet's true scale."""
    per_metre = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return png[:ihdr_end] + chunk + png[ihdr_end:]


def _sheet_pdf(layout: BoardLayout) -> bytes:
    """A one-page vector PDF: exact millimetres whatever the printer's resolution."""
    pt = 72 / MM_PER_INCH
    page_h = A4_MM[1]
    ops = ["0 g"]
    for x, y, w, h in _sheet_rects(layout):
        ops.append(f"{x * pt:.3f} {(page_h - y - h) * pt:.3f} {w * pt:.3f} {h * pt:.3f} re f")
    ops.append("0.5 G 0.5 w [3 3] 0 d")
    for x, y, w, h in _cut_lines(layout):
        ops.append(f"{x * pt:.3f} {(page_h - y - h) * pt:.3f} {w * pt:.3f} {h * pt:.3f} re S")
    for x, y, size, text in _sheet_texts(layout):
        safe = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        ops.append(f"BT /F1 {size * pt:.2f} Tf {x * pt:.3f} {(page_h - y) * pt:.3f} Td ({safe}) Tj ET")
    content = "\n".join(ops).encode("latin-1", "replace")
    w_pt, h_pt = (v * pt for v in A4_MM)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w_pt:.2f} {h_pt:.2f}] "
            "/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"
        ).encode(),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
