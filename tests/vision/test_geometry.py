import numpy as np
import pytest

from companion.errors import CompanionError
from companion.vision.geometry import BoardLayout, RectifiedView, camera_from_points, focal_from_homography


def test_marker_corners_sit_outside_the_grid_corners():
    layout = BoardLayout()
    centres = layout.marker_centres()
    assert centres[0] == pytest.approx((-17.5, -17.5))
    assert centres[2] == pytest.approx((257.5, 257.5))
    corners = layout.marker_corners(0)
    assert corners[0] == pytest.approx((-29.5, -5.5))  # top-left, toward rank 4


def test_camera_centre_and_corners_from_markers(setup_for):
    s = setup_for(2)
    camera = s.calibration.camera
    truth = s.renderer.centre
    assert np.linalg.norm(camera.centre - truth) < 0.1 * truth[2]
    grid = camera.to_image(BoardLayout().grid_corners())
    assert np.abs(grid - s.renderer.grid_corners_px()).max() < 1.5


def test_focal_length_is_measured_from_an_oblique_view():
    w, h, f = 640, 480, 520.0
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    angle = np.radians(25)
    rot = np.array([[1, 0, 0], [0, -np.cos(angle), -np.sin(angle)], [0, np.sin(angle), -np.cos(angle)]])
    t = -rot @ np.array([120.0, -150.0, 450.0])
    homography = k @ np.c_[rot[:, 0], rot[:, 1], t]
    assert focal_from_homography(homography, (w, h)) == pytest.approx(f, rel=0.01)


def test_degenerate_and_mirrored_corners_are_refused():
    layout = BoardLayout()
    with pytest.raises(CompanionError):
        camera_from_points(layout.grid_corners(), np.array([[0, 0], [1, 1], [2, 2], [3, 3.0]]), (640, 480))
    mirrored = np.array([[400, 400], [150, 400], [150, 150], [400, 150.0]])
    with pytest.raises(CompanionError, match="mirrored"):
        camera_from_points(layout.grid_corners(), mirrored, (640, 480))


def test_rectified_view_puts_rank_n_at_the_top():
    view = RectifiedView(BoardLayout(), 1.0)
    a1, a4 = view.to_pixels(np.array([[0.0, 0.0], [0.0, 240.0]]))
    assert a1 == pytest.approx((35, 275)) and a4 == pytest.approx((35, 35))
    assert view.shape == (310, 310)


@pytest.mark.slow
def test_grid_lines_correct_a_board_of_other_dimensions(setup_for, rng):
    from companion.vision.synth import random_tops

    s = setup_for(9, square_mm=55.0)  # markers as specified, squares 55 mm instead of 60
    frame = s.calibration.layout.marker_frame
    assert frame != (0.0, 0.0, 1.0, 1.0)
    assert frame[2] == pytest.approx(1.0, abs=0.05)
    # the grid found in the image lands where the board's own corners are
    grid = s.calibration.camera.to_image(s.calibration.layout.grid_corners())
    assert np.abs(grid - s.renderer.grid_corners_px()).max() < 1.5
    tops = random_tops(rng, fill=0.6)
    assert s.reader().read(s.renderer.render(tops)).tops() == s.renderer.truth(tops)


def test_grid_lines_leave_a_well_made_board_alone(setup_for):
    x0, y0, kx, ky = setup_for(2).calibration.layout.marker_frame
    assert abs(x0) < 1.0 and abs(y0) < 1.0  # at most the renderer's line-drawing rounding
    assert kx == pytest.approx(1.0, abs=0.01) and ky == pytest.approx(1.0, abs=0.01)


def test_the_homography_is_the_least_squares_minimum_on_every_opencv():
    """``camera_from_points`` fits the homography to the end: no small change of any entry
    lowers the squared image error, as the error's central differences show (relative slopes
    under 1e-11). ``cv2.findHomography(src, dst, 0)``, used before, stops where its
    Levenberg-Marquardt's own rule says, and not at the same place on every release: here
    at slopes of 1.4e-8 on OpenCV 5.0 and 6.3e-9 on 4.11, and on bench-26's markers 5.0
    stopped a millionth of the homography away from 4.11, enough to part the calibrations
    a Pi and the tests make (docs/device.md#versions)."""
    layout = BoardLayout()
    board = np.concatenate([layout.marker_corners(k) for k in range(4)])
    seen_from = np.array([[-0.2186, -1.04, 491.8], [-1.032, 0.2276, 347.5], [2.67e-5, -5.67e-6, 1.0]])
    projected = np.c_[board, np.ones(len(board))] @ seen_from.T
    image = projected[:, :2] / projected[:, 2:] + np.random.default_rng(7).normal(0, 0.6, (len(board), 2))

    def squared_error(h: np.ndarray) -> float:
        q = np.c_[board, np.ones(len(board))] @ h.T
        return float(((q[:, :2] / q[:, 2:] - image) ** 2).sum())

    h = camera_from_points(board, image, (640, 480)).homography
    for entry in range(8):
        step = np.zeros(9)
        step[entry] = 1e-6 * abs(h.flat[entry])
        step = step.reshape(3, 3)
        slope = (squared_error(h + step) - squared_error(h - step)) / 2 / squared_error(h)
        assert abs(slope) < 1e-11, entry
