"""Where the board is: physical layout, camera pose and the board-plane view.

Everything downstream works in *board millimetres*: ``x`` along the files (a → d), ``y``
along the ranks (1 → 4), ``z`` up from the board surface, with the a1 grid corner at the
origin. A plane homography maps board millimetres to image pixels; the camera centre in the
same frame lets the reader predict where a cup's top appears (tall cups lean away from the
point under the camera), which a homography alone cannot.

The *rectified view* is the frame warped onto the board plane at ``scale`` pixels per mm,
covering the board and its margin, seen from White's side (rank n at the top).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.errors import CompanionError

MIN_TILT_DEG = 6.0
DEFAULT_FOCAL_RATIO = 0.8
"""Focal length / image width assumed when a view is too square-on to measure it (the Pi
cameras are 0.77-0.83); an error here only scales the predicted lean of cups slightly."""


@dataclass(frozen=True)
class BoardLayout:
    """The physical board: grid, margin and where the markers are glued (docs/board.md)."""

    size: int = 4
    square_mm: float = 60.0
    margin_mm: float = 35.0
    marker_mm: float = 24.0
    marker_offset_mm: float = 17.5
    marker_ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    marker_frame: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)
    """(x0, y0, kx, ky): where the markers really sit relative to the grid found in the image.
    A nominal marker point (x, y) is at ((x - x0) * kx, (y - y0) * ky) in board mm; the
    identity unless calibration saw the grid lines elsewhere than the nominal layout says
    (a marker glued off its spot, a board of other dimensions)."""

    @property
    def grid_mm(self) -> float:
        return self.size * self.square_mm

    def grid_corners(self) -> np.ndarray:
        """The a1, last-file-1, last-file-last-rank, a-last grid corners, board mm (4x2)."""
        g = self.grid_mm
        return np.array([(0.0, 0.0), (g, 0.0), (g, g), (0.0, g)])

    def marker_centres(self) -> np.ndarray:
        """Centres of markers ``marker_ids`` in order, each diagonally outside its corner."""
        o = self.marker_offset_mm
        return self._framed(self.grid_corners() + np.array([(-o, -o), (o, -o), (o, o), (-o, o)]))

    def marker_corners(self, index: int) -> np.ndarray:
        """A marker's corners in board mm, in ArUco order (its top-left, top-right,
        bottom-right, bottom-left), the marker upright as seen from White (top toward rank n)."""
        o = self.marker_offset_mm
        cx, cy = (self.grid_corners() + np.array([(-o, -o), (o, -o), (o, o), (-o, o)]))[index]
        h = self.marker_mm / 2
        return self._framed(
            np.array([(cx - h, cy + h), (cx + h, cy + h), (cx + h, cy - h), (cx - h, cy - h)])
        )

    def _framed(self, points: np.ndarray) -> np.ndarray:
        x0, y0, kx, ky = self.marker_frame
        return (points - np.array([x0, y0])) * np.array([kx, ky])

    def square_centre(self, row: int) -> tuple[float, float]:
        """Centre of the square in row ``row`` of ``board_squares`` order, board mm."""
        rank, file = divmod(row, self.size)
        return ((file + 0.5) * self.square_mm, (rank + 0.5) * self.square_mm)

    def to_json(self) -> dict[str, object]:
        return {
            "size": self.size,
            "square_mm": self.square_mm,
            "margin_mm": self.margin_mm,
            "marker_mm": self.marker_mm,
            "marker_offset_mm": self.marker_offset_mm,
            "marker_ids": list(self.marker_ids),
            "marker_frame": list(self.marker_frame),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BoardLayout:
        ids = tuple(int(i) for i in data["marker_ids"])
        frame = tuple(float(v) for v in data.get("marker_frame", (0.0, 0.0, 1.0, 1.0)))
        if len(ids) != 4 or len(frame) != 4 or not 0.5 < min(frame[2:]) <= max(frame[2:]) < 2:
            raise CompanionError("calibration file: the marker layout is malformed")
        return cls(
            size=int(data["size"]),
            square_mm=float(data["square_mm"]),
            margin_mm=float(data["margin_mm"]),
            marker_mm=float(data["marker_mm"]),
            marker_offset_mm=float(data["marker_offset_mm"]),
            marker_ids=ids,
            marker_frame=frame,
        )


@dataclass(frozen=True)
class Camera:
    """Board-to-image mapping plus the camera centre, all in board millimetres."""

    homography: np.ndarray  # 3x3, board mm (x, y, 1) -> image pixels
    centre: np.ndarray  # (3,), camera centre in board mm; centre[2] is its height
    focal: float  # pixels
    image_size: tuple[int, int]  # (width, height)

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """Board-plane points (N x 2, mm) to image pixels (N x 2)."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def to_board(self, points_px: np.ndarray) -> np.ndarray:
        """Image pixels (N x 2) to board-plane points (N x 2, mm)."""
        pts = np.asarray(points_px, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)

    def pixels_per_mm(self, at_mm: tuple[float, float]) -> float:
        """Image pixels per board millimetre near a board point (geometric mean of axes)."""
        x, y = at_mm
        p = self.to_image(np.array([(x, y), (x + 1.0, y), (x, y + 1.0)]))
        (ux, uy), (vx, vy) = p[1] - p[0], p[2] - p[0]
        return float(np.sqrt(abs(ux * vy - uy * vx)))

    def to_json(self) -> dict[str, object]:
        return {
            "homography": self.homography.tolist(),
            "centre_mm": self.centre.tolist(),
            "focal_px": self.focal,
            "image_size": list(self.image_size),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Camera:
        h = np.array(data["homography"], dtype=np.float64)
        c = np.array(data["centre_mm"], dtype=np.float64)
        if h.shape != (3, 3) or c.shape != (3,) or not np.all(np.isfinite(h)):
            raise CompanionError("calibration file: camera geometry is malformed")
        w, hgt = (int(v) for v in data["image_size"])
        return cls(h, c, float(data["focal_px"]), (w, hgt))


def focal_from_homography(homography: np.ndarray, image_size: tuple[int, int]) -> float | None:
    """Focal length implied by a plane homography, or None when the view is too square-on.

    With the principal point at the image centre and square pixels, the homography's first
    two columns are the plane's axes seen through K: orthogonal and of equal length. Both
    conditions are linear in 1/f²; their least-squares solution is trusted only when the
    board is tilted enough (``MIN_TILT_DEG``) for perspective to carry the information.
    """
    w, h = image_size
    shift = np.array([[1.0, 0.0, -w / 2], [0.0, 1.0, -h / 2], [0.0, 0.0, 1.0]])
    hn = shift @ homography
    a, b = hn[:, 0] / np.linalg.norm(hn[:, 0]), hn[:, 1] / np.linalg.norm(hn[:, 0])
    c = np.array([a[0] * b[0] + a[1] * b[1], a[0] ** 2 + a[1] ** 2 - b[0] ** 2 - b[1] ** 2])
    d = np.array([a[2] * b[2], a[2] ** 2 - b[2] ** 2])
    if float(c @ c) == 0.0:
        return None
    inv_f2 = -float(c @ d) / float(c @ c)
    if inv_f2 <= 0:
        return None
    f = 1.0 / np.sqrt(inv_f2)
    if not 0.3 * w < f < 4.0 * w:
        return None
    k_inv = np.linalg.inv(np.array([[f, 0, 0], [0, f, 0], [0, 0, 1.0]]))
    r1, r2 = k_inv @ hn[:, 0], k_inv @ hn[:, 1]
    normal = np.cross(r1, r2)
    tilt = np.degrees(np.arccos(min(1.0, abs(normal[2]) / np.linalg.norm(normal))))
    return float(f) if tilt >= MIN_TILT_DEG else None


def camera_from_points(
    board_mm: np.ndarray,
    image_px: np.ndarray,
    image_size: tuple[int, int],
    focal: float | None = None,
) -> Camera:
    """Fit the camera from board-plane points and where they appear in the image.

    The homography comes from all points (least squares); the camera centre from a planar
    pose fit with the focal length measured from the homography when the view is oblique
    enough, else the given or default one.
    """
    src = np.asarray(board_mm, dtype=np.float64).reshape(-1, 2)
    dst = np.asarray(image_px, dtype=np.float64).reshape(-1, 2)
    if len(src) < 4:
        raise CompanionError("need at least four points to locate the board")
    homography = fit_homography(src, dst)
    if homography is None:
        raise CompanionError("the board corners are degenerate (three in a line?); check them")
    _check_orientation(homography)
    w, _h = image_size
    f = focal or focal_from_homography(homography, image_size) or DEFAULT_FOCAL_RATIO * w
    return camera_with_focal(homography, src, dst, image_size, f)


HOMOGRAPHY_STEPS = 20
"""Gauss-Newton steps at most in ``fit_homography``; 16 marker corners converge in 3 or 4."""
HOMOGRAPHY_TOLERANCE = 1e-13
"""A step this small (relative to the largest entry) is the least-squares minimum reached."""


def fit_homography(board_mm: np.ndarray, image_px: np.ndarray) -> np.ndarray | None:
    """The plane homography (3x3, its last entry 1) that puts ``board_mm`` (n x 2) nearest
    ``image_px`` (n x 2) in the image, in least squares; None for points that fix none (fewer
    than four, or three in a line).

    ``cv2.findHomography(src, dst, 0)`` minimises the same error, but its Levenberg-Marquardt
    stops short of the minimum by each release's own rule: on bench-26's sixteen marker
    corners OpenCV 4.11 reached it (to 1e-12) and 5.0 stopped a millionth of the homography
    away (its squared error larger by 8e-11 px^2). That moves a warped pixel's place by about
    a thousandth of a pixel, enough to step some of the reader's 1/32-pixel sampling places
    over to the next: a Pi and the tests warped the same frame through other maps. This is
    numpy, the same maths on every OpenCV: the normalised linear estimate, then Gauss-Newton
    run to the minimum (the two releases' results now agree to 1e-16)."""
    src = np.asarray(board_mm, dtype=np.float64).reshape(-1, 2)
    dst = np.asarray(image_px, dtype=np.float64).reshape(-1, 2)
    if len(src) < 4 or len(dst) != len(src):
        return None
    start = _linear_homography(src, dst)
    if start is None:
        return None
    params = start.ravel()[:8]
    for _ in range(HOMOGRAPHY_STEPS):
        residual, jacobian = _reprojection(params, src, dst)
        step = np.linalg.lstsq(jacobian, -residual, rcond=None)[0]
        params = params + step
        if np.abs(step).max() <= HOMOGRAPHY_TOLERANCE * np.abs(params).max():
            break
    homography = np.append(params, 1.0).reshape(3, 3)
    return homography if np.all(np.isfinite(homography)) else None


def _normaliser(points: np.ndarray) -> np.ndarray:
    """3x3 similarity taking ``points`` to their centroid at 0 and mean distance sqrt(2)
    (Hartley's: the linear estimate is then well conditioned)."""
    centre = points.mean(axis=0)
    spread = float(np.sqrt(((points - centre) ** 2).sum(axis=1)).mean())
    k = np.sqrt(2.0) / spread if spread > 0 else 1.0
    return np.array([[k, 0.0, -k * centre[0]], [0.0, k, -k * centre[1]], [0.0, 0.0, 1.0]])


def _linear_homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray | None:
    """The direct linear estimate on normalised points (scaled to a last entry of 1), or None
    where the points leave it undetermined (a null space of more than one dimension)."""
    to_src, to_dst = _normaliser(src), _normaliser(dst)
    s = src @ to_src[:2, :2].T + to_src[:2, 2]
    d = dst @ to_dst[:2, :2].T + to_dst[:2, 2]
    rows = np.zeros((2 * len(s), 9))
    rows[0::2, 0:2], rows[0::2, 2], rows[0::2, 6:8], rows[0::2, 8] = s, 1.0, -d[:, :1] * s, -d[:, 0]
    rows[1::2, 3:5], rows[1::2, 5], rows[1::2, 6:8], rows[1::2, 8] = s, 1.0, -d[:, 1:] * s, -d[:, 1]
    _, singular, vt = np.linalg.svd(rows)
    if singular[-2] <= 1e-9 * singular[0]:
        return None
    homography = np.linalg.inv(to_dst) @ vt[-1].reshape(3, 3) @ to_src
    if abs(homography[2, 2]) < 1e-12:
        return None
    return homography / homography[2, 2]


def _reprojection(params: np.ndarray, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The residuals (x's, then y's) of the homography with these first eight entries, and
    their derivatives by those entries (2n x 8)."""
    h = np.append(params, 1.0).reshape(3, 3)
    w = src @ h[2, :2] + h[2, 2]
    x = (src @ h[0, :2] + h[0, 2]) / w
    y = (src @ h[1, :2] + h[1, 2]) / w
    n = len(src)
    jacobian = np.zeros((2 * n, 8))
    jacobian[:n, 0:2], jacobian[:n, 2] = src / w[:, None], 1.0 / w
    jacobian[n:, 3:5], jacobian[n:, 5] = src / w[:, None], 1.0 / w
    jacobian[:n, 6:8] = -x[:, None] * src / w[:, None]
    jacobian[n:, 6:8] = -y[:, None] * src / w[:, None]
    return np.r_[x - dst[:, 0], y - dst[:, 1]], jacobian


def camera_with_focal(
    homography: np.ndarray,
    board_mm: np.ndarray,
    image_px: np.ndarray,
    image_size: tuple[int, int],
    focal: float,
) -> Camera:
    """The camera for a known homography and an assumed focal length."""
    w, h = image_size
    k = np.array([[focal, 0.0, w / 2], [0.0, focal, h / 2], [0.0, 0.0, 1.0]])
    obj = np.c_[board_mm, np.zeros(len(board_mm))].astype(np.float64)
    ok, rvec, tvec = cv2.solvePnP(obj, image_px.astype(np.float64), k, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise CompanionError("could not work out the camera pose from the board corners")
    rot, _ = cv2.Rodrigues(rvec)
    centre = (-rot.T @ tvec).ravel()
    if centre[2] < 0:  # the board axes are mirrored relative to the camera's view
        raise CompanionError("the board appears mirrored: check the corner order (a1, d1, d4, a4)")
    return Camera(homography, centre, float(focal), (int(w), int(h)))


def _check_orientation(homography: np.ndarray) -> None:
    """Refuse a homography that folds the board (a self-crossing corner order)."""
    lin = homography[:2, :2] - np.outer(homography[:2, 2], homography[2, :2])
    if np.linalg.det(lin) == 0:
        raise CompanionError("the board corners are degenerate; check them")


@dataclass(frozen=True)
class RectifiedView:
    """The board-plane image: ``scale`` px per mm over the board including its margin."""

    layout: BoardLayout
    scale: float

    @property
    def origin_mm(self) -> tuple[float, float]:
        """Board point at rectified pixel (0, 0): the board's top-left corner seen from White."""
        m = self.layout.margin_mm
        return (-m, self.layout.grid_mm + m)

    @property
    def shape(self) -> tuple[int, int]:
        side = round((self.layout.grid_mm + 2 * self.layout.margin_mm) * self.scale)
        return (side, side)

    def board_to_pixel(self) -> np.ndarray:
        """3x3 affine: board mm -> rectified pixel."""
        x0, y1 = self.origin_mm
        s = self.scale
        return np.array([[s, 0.0, -x0 * s], [0.0, -s, y1 * s], [0.0, 0.0, 1.0]])

    def to_pixels(self, points_mm: np.ndarray) -> np.ndarray:
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        return pts @ self.board_to_pixel()[:2, :2].T + self.board_to_pixel()[:2, 2]

    def warp(self, image: np.ndarray, camera: Camera) -> np.ndarray:
        """The frame seen on the board plane (pixel (u, v) <- image at H·A·(u, v, 1)), sampled
        through ``warp_maps`` as the reader samples every frame (``apply_warp``)."""
        return apply_warp(image, self.warp_maps(camera))

    def warp_maps(self, camera: Camera) -> WarpMaps:
        """Fixed-point lookup maps (``cv2.convertMaps`` to ``CV_16SC2``) of the board-plane view
        in the frame: each pixel's place in the image, to 1/32 of a pixel.

        The same maps on every OpenCV, and ``remap`` with them is the same function on 4.11
        and 5.0, bit for bit. ``cv2.warpPerspective`` is not: 4.x rounds each place to 1/32
        of a pixel, 5.0 samples at the exact place, and the calibration's empty and reference
        boards (warped so before) differed by up to 2 grey levels on 7 % of their values
        between the two (bench-26). Nor was it the warp the reader's frames go through, which
        these maps are: the empty board and a frame are now sampled alike. (Fixed-point maps
        also make a warp about twice as fast as ``warpPerspective``.)"""
        matrix = camera.homography @ np.linalg.inv(self.board_to_pixel())
        h, w = self.shape
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        pts = np.stack([xs, ys, np.ones_like(xs)], axis=-1) @ matrix.T.astype(np.float32)
        fixed, fraction = cv2.convertMaps(pts[..., 0] / pts[..., 2], pts[..., 1] / pts[..., 2], cv2.CV_16SC2)
        return fixed, fraction


WarpMaps = tuple[np.ndarray, np.ndarray]
"""``RectifiedView.warp_maps``: the fixed-point places (x, y int16 pairs) and their fractions."""


def apply_warp(image: np.ndarray, maps: WarpMaps) -> np.ndarray:
    """``image`` sampled bilinearly through ``RectifiedView.warp_maps``, its edge pixels held
    beyond it."""
    return cv2.remap(image, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def rectified_scale(camera: Camera, layout: BoardLayout) -> float:
    """Rectified resolution close to the frame's own, between 1 and 2 px/mm.

    Finer than the frame adds no detail and costs time; coarser than 1 px/mm blurs the 4.5 mm
    radius step between cup sizes.
    """
    g = layout.grid_mm / 2
    native = camera.pixels_per_mm((g, g))
    return float(np.clip(np.round(native * 2) / 2, 1.0, 2.0))
