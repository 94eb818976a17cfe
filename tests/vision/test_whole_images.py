"""A frame that is not whole (cut short while copying, or by a full disk) is refused with one
line by the commands and counted a bad frame by the device's camera link, never read as half
a picture (libjpeg only warns and fills the missing part with grey)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.device.camera import CameraLink
from companion.vision.sources import FolderSource, ImageError, decode_image, incomplete_reason, read_image

rng = np.random.default_rng(7)
PICTURE = cv2.GaussianBlur(rng.integers(0, 255, (120, 160, 3), dtype=np.uint8), (5, 5), 0)


def encoded(suffix: str, *params: int) -> bytes:
    ok, data = cv2.imencode(suffix, PICTURE, list(params))
    assert ok
    return data.tobytes()


FORMATS = {
    "jpeg": encoded(".jpg", cv2.IMWRITE_JPEG_QUALITY, 90),
    "progressive jpeg": encoded(".jpg", cv2.IMWRITE_JPEG_PROGRESSIVE, 1),
    "jpeg with restart markers": encoded(".jpg", cv2.IMWRITE_JPEG_RST_INTERVAL, 4),
    "png": encoded(".png"),
    "bmp": encoded(".bmp"),
    "webp": encoded(".webp"),
}


@pytest.mark.parametrize("kind", FORMATS)
def test_a_whole_image_decodes(kind):
    data = FORMATS[kind]
    assert incomplete_reason(data) is None
    assert decode_image(data).shape == PICTURE.shape


@pytest.mark.parametrize("kind", FORMATS)
def test_every_cut_of_an_image_is_refused(kind):
    data = FORMATS[kind]
    cuts = sorted({*range(1, len(data), max(1, len(data) // 97)), len(data) - 1, len(data) - 2})
    for cut in cuts:
        with pytest.raises(ImageError):
            decode_image(data[:cut], "frame")


def test_data_after_a_jpeg_end_marker_is_allowed_but_a_thumbnail_end_is_not_the_end():
    jpeg = FORMATS["jpeg"]
    assert decode_image(jpeg + b"\x00" * 64 + b"appended by a phone").shape == PICTURE.shape
    # an APP1 segment holding a whole thumbnail (with its own end marker), then the cut
    thumbnail = encoded(".jpg")[:200] + b"\xff\xd9"
    app1 = b"\xff\xe1" + (len(thumbnail) + 2).to_bytes(2, "big") + thumbnail
    with_thumbnail = jpeg[:2] + app1 + jpeg[2:]
    assert decode_image(with_thumbnail).shape == PICTURE.shape
    cut = with_thumbnail[: 2 + len(app1) + 100]
    assert incomplete_reason(cut) is not None
    assert incomplete_reason(with_thumbnail[: 2 + len(app1)]) is not None


def test_read_image_names_the_file_and_says_it_is_not_whole(tmp_path):
    path = tmp_path / "reference.jpg"
    path.write_bytes(FORMATS["jpeg"][: len(FORMATS["jpeg"]) // 2])
    with pytest.raises(ImageError, match=r"reference\.jpg is not whole \(the JPEG data ends"):
        read_image(path)


@pytest.fixture(scope="module")
def board_images(tmp_path_factory, setup_for):
    setup = setup_for(2)
    folder = tmp_path_factory.mktemp("whole")
    paths = {}
    for name, image in {"empty": setup.renderer.empty(), "reference": setup.renderer.reference()}.items():
        paths[name] = folder / f"{name}.jpg"
        cv2.imwrite(str(paths[name]), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    cut = paths["reference"].read_bytes()
    paths["truncated"] = folder / "t.jpg"
    paths["truncated"].write_bytes(cut[:20000])
    paths["calibration"] = folder / "o.json"
    setup.calibration.save(paths["calibration"])
    return paths


def one_line_exit_2(capsys, argv: list[str]) -> str:
    capsys.readouterr()
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    return captured.err


def test_calibrate_refuses_a_truncated_reference(board_images, tmp_path, capsys):
    """The issue's reproduction: head -c 20000 reference.jpg > t.jpg; calibrate ... exits 0."""
    err = one_line_exit_2(
        capsys,
        [
            "calibrate",
            "--empty",
            str(board_images["empty"]),
            "--reference",
            str(board_images["truncated"]),
            "--out",
            str(tmp_path / "o.json"),
        ],
    )
    assert "t.jpg is not whole" in err
    assert not (tmp_path / "o.json").exists()


def test_read_refuses_a_truncated_frame(board_images, capsys):
    err = one_line_exit_2(
        capsys, ["read", "--calibration", str(board_images["calibration"]), str(board_images["truncated"])]
    )
    assert "not whole" in err


def test_replay_refuses_a_truncated_frame(board_images, capsys):
    err = one_line_exit_2(
        capsys,
        ["replay", "--calibration", str(board_images["calibration"]), str(board_images["truncated"])],
    )
    assert "not whole" in err


def test_the_loop_counts_a_truncated_frame_as_a_bad_frame(tmp_path):
    good = PICTURE
    for index in range(3):
        cv2.imwrite(str(tmp_path / f"frame{index}.jpg"), good)
    whole = (tmp_path / "frame1.jpg").read_bytes()
    (tmp_path / "frame1.jpg").write_bytes(whole[: len(whole) * 2 // 3])
    link = CameraLink(lambda: FolderSource(tmp_path), max_bad_frames=5)
    assert link.read() is not None
    assert link.read() is None and link._bad == 1  # the cut frame: a bad frame, not half a picture
    assert link.read() is not None and link.ok


def test_a_calibration_whose_background_is_cut_is_corrupt(board_images, tmp_path, capsys):
    import base64
    import json

    data = json.loads(board_images["calibration"].read_text())
    png = base64.b64decode(data["background_png"])
    data["background_png"] = base64.b64encode(png[: len(png) - 30]).decode()
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(data))
    err = one_line_exit_2(capsys, ["read", "--calibration", str(path), str(board_images["empty"])])
    assert "corrupt" in err and "not whole" in err
