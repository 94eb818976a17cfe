import struct
import zlib

import cv2
import numpy as np
import pytest

from companion.errors import CompanionError
from companion.vision.geometry import BoardLayout
from companion.vision.markers import detect_markers, marker_correspondences, write_marker_sheet


def test_markers_found_in_a_synthetic_frame(setup_for):
    renderer = setup_for(1).renderer
    found = detect_markers(renderer.empty())
    assert sorted(found) == [0, 1, 2, 3]
    board, image = marker_correspondences(found, BoardLayout())
    assert board.shape == image.shape == (16, 2)


def test_missing_markers_are_named(setup_for):
    renderer = setup_for(1).renderer
    frame = renderer.empty()
    for corner in ((-17.5, -17.5), (257.5, 257.5)):  # cover markers 0 and 2
        centre = renderer.project(np.array([[*corner, 0.0]]))[0].astype(int)
        cv2.circle(frame, tuple(int(v) for v in centre), 30, (90, 120, 150), -1)
    with pytest.raises(CompanionError, match=r"missing id\(s\) \[0, 2\], saw \[1, 3\]"):
        marker_correspondences(detect_markers(frame), BoardLayout())
    with pytest.raises(CompanionError, match="saw none"):
        marker_correspondences(detect_markers(np.full((480, 640, 3), 128, np.uint8)), BoardLayout())


def png_dpi(data: bytes) -> float:
    at = data.index(b"pHYs")
    per_metre, _, unit = struct.unpack(">IIB", data[at + 4 : at + 13])
    assert unit == 1
    assert zlib.crc32(data[at : at + 13]) & 0xFFFFFFFF == struct.unpack(">I", data[at + 13 : at + 17])[0]
    return per_metre * 0.0254


def test_png_sheet_is_true_scale_and_decodable(tmp_path):
    path = write_marker_sheet(tmp_path / "sheet.png", BoardLayout(), dpi=300)
    data = path.read_bytes()
    assert png_dpi(data) == pytest.approx(300, abs=0.01)
    sheet = cv2.imread(str(path))
    assert sheet.shape[:2] == (3508, 2480)  # A4 at 300 DPI
    found = detect_markers(sheet)
    assert sorted(found) == [0, 1, 2, 3]
    side = np.linalg.norm(found[0][1] - found[0][0])
    assert side == pytest.approx(24 / 25.4 * 300, rel=0.01)  # the black square is 24 mm


def test_pdf_sheet_is_a_one_page_pdf(tmp_path):
    data = write_marker_sheet(tmp_path / "sheet.pdf", BoardLayout()).read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert b"/MediaBox [0 0 595.28 841.89]" in data
    assert b"/Count 1" in data


def test_sheet_bad_requests(tmp_path):
    with pytest.raises(CompanionError):
        write_marker_sheet(tmp_path / "sheet.gif", BoardLayout())
    with pytest.raises(CompanionError):
        write_marker_sheet(tmp_path / "sheet.png", BoardLayout(), dpi=20)
