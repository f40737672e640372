"""The lower bone's tail and y axis carried up a chain as whole columns: the arithmetic of :mod:`verification`.

Points and directions are (3, N or 1) columns moved by pose-bone bases, rest offsets and affine matrices with a
few products per frame instead of 4x4 matrix products down the chain (numpy's stacked products of small
matrices, and reductions over short rows, cost several times more than whole-column arithmetic). Every function
is elementwise along the frames except the products by one matrix (:func:`linear` with a single matrix, a BLAS
product whose last bits depend on the column count only between one and several columns): results do not
depend on how many frames, or how many chains' frames, are put in one column.
"""

from __future__ import annotations

import numpy as np

from ..solver.rotations import rotation_property
from ..solver.spaces import invert_matrices, rotation_matrices

# Rest offsets by the rest matrices' values (see rest_offset); cleared when it grows past a few thousand.
_REST_OFFSETS: dict[tuple[bytes, bytes], np.ndarray] = {}


def rest_offset(parent: np.ndarray, child: np.ndarray) -> np.ndarray:
    """A bone's rest matrix in its parent's rest space, ``parent^-1 @ child`` (4x4), read-only.

    Cached by the rest matrices' values (a changed rest pose is another key): the characters of a crowd share
    their rest poses, and the general inverse costs more than the rest of a short chain's verification. The
    product is computed from the arrays as given (their memory layout picks numpy's multiplication loop, hence
    the last bits).
    """
    key = (parent.tobytes(), child.tobytes())
    offset = _REST_OFFSETS.get(key)
    if offset is None:
        if len(_REST_OFFSETS) >= 4096:
            _REST_OFFSETS.clear()
        offset = _REST_OFFSETS[key] = invert_matrices(parent[None])[0] @ child
        offset.flags.writeable = False
    return offset


def norm(v: np.ndarray) -> np.ndarray:
    """The length of each (3, N) column, elementwise (no reduction, so the same bits at any N)."""
    return np.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])


def linear(m: np.ndarray, *vectors: np.ndarray) -> list[np.ndarray]:
    """``m @ v`` per frame for (N or 1, 3, 3) matrices and each (3, N or 1) column vector ``v``."""
    if len(m) == 1:
        return [m[0] @ v for v in vectors]
    mt = np.ascontiguousarray(m.transpose(1, 2, 0))  # (3, 3, N): rows of whole columns, made once
    return [mt[:, 0] * v[0] + mt[:, 1] * v[1] + mt[:, 2] * v[2] for v in vectors]


def affine(m: np.ndarray, point: np.ndarray, axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A point and a direction ((3, N or 1)) moved by (N or 1, 4, 4) affine matrices."""
    point, axis = linear(m[:, :3, :3], point, axis)
    return point + m[:, :3, 3].T, axis


def pose_basis(mode: str, ch: dict[str, np.ndarray], connected: bool, point: np.ndarray,
               axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A point and a direction ((3, N or 1)) moved by a pose bone's ``matrix_basis``.

    ``T(location) R(rotation) S(scale)`` (:func:`solver.spaces.compose_matrices`) from its channels ((N or 1,
    k) each); a connected bone's location is ignored.
    """
    rotation = ch[rotation_property(mode)[0]]
    if not _ones(ch["scale"]):
        scl = ch["scale"].T
        point, axis = point * scl, axis * scl
    if mode == "QUATERNION":
        point, axis = rotate_by_quaternions(rotation, point, axis)
    else:
        point, axis = linear(rotation_matrices(rotation, mode), point, axis)
    return _moved(point, ch["location"], connected), axis


def _ones(scale: np.ndarray) -> bool:
    """Whether a scale channel is one row of ones: ``v * 1.0`` is ``v`` to the bit, so the product is skipped."""
    return len(scale) == 1 and bool((scale == 1.0).all())


def _moved(point: np.ndarray, location: np.ndarray, connected: bool) -> np.ndarray:
    """``point`` plus a bone's location, unless it is connected (the location is ignored) or its location is one
    row of zeros: ``v + 0.0`` is ``v`` but for a zero's sign, and only norms of these points are kept."""
    if connected or (len(location) == 1 and bool((location == 0.0).all())):
        return point
    return point + location.T


def lower_basis(mode: str, ch: dict[str, np.ndarray], connected: bool, length: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pose_basis` of the lower bone's tail ``(0, length, 0)`` and y axis ``(0, 1, 0)``.

    Both lie along y, so only the rotation's y column is needed: ``r_y * (length * s_y)`` and ``r_y * s_y`` are
    the very products the full rotation adds two exact zeros to (the x and z terms, ``r * 0``), so every
    non-zero coordinate has the same bits (a zero's sign may differ; only norms of these points are kept).
    Scales that are not finite take the full path (``0 * inf`` is NaN there).

    Returns:
        The point and the direction, (3, N or 1) each.
    """
    scl = ch["scale"]
    if not np.isfinite(scl).all():
        return pose_basis(mode, ch, connected, np.array([[0.0], [length], [0.0]]), np.array([[0.0], [1.0], [0.0]]))
    sy = scl[:, 1].astype(np.float64)  # float64 products, as the full path's float64 point and axis give
    rotation = ch[rotation_property(mode)[0]]
    column = quaternion_y_column(rotation) if mode == "QUATERNION" else matrix_y_column(rotation, mode)
    axis = column if _ones(scl[:, 1:2]) else column * sy
    point = column * (length * sy)
    return _moved(point, ch["location"], connected), axis


def matrix_y_column(rotation: np.ndarray, mode: str) -> np.ndarray:
    """(3, N or 1) the y column of the rotation matrices of Euler or axis-angle values ((N or 1, k))."""
    return np.array(rotation_matrices(rotation, mode)[:, :, 1].T, dtype=np.float64, order="C")


def quaternion_y_column(q: np.ndarray) -> np.ndarray:
    """(3, N or 1) the y column of :func:`rotate_by_quaternions`'s matrix of the (N or 1, 4) quaternions."""
    w, x, y, z, norm = _normalizing(q)
    s = 2.0 / (norm * norm)
    xs, ys, zs = x * s, y * s, z * s
    return np.stack([x * ys - w * zs, 1.0 - (x * xs + z * zs), y * zs + w * xs])


def rotate_by_quaternions(q: np.ndarray, *vectors: np.ndarray) -> list[np.ndarray]:
    """``vectors`` ((3, N or 1)) rotated by the (N or 1, 4) quaternions ``(w, x, y, z)``.

    Normalized first as Blender does (an all-zero one is a half turn about X,
    :func:`solver.rotations.matrices_from_quaternions`).
    """
    w, x, y, z, norm = _normalizing(q)
    s = 2.0 / (norm * norm)  # the rotation matrix of q / |q|, without dividing each component
    xs, ys, zs = x * s, y * s, z * s
    wx, wy, wz, xx, xy, xz, yy, yz, zz = w * xs, w * ys, w * zs, x * xs, x * ys, x * zs, y * ys, y * zs, z * zs
    m = ((1.0 - (yy + zz), xy - wz, xz + wy), (xy + wz, 1.0 - (xx + zz), yz - wx), (xz - wy, yz + wx, 1.0 - (xx + yy)))
    return [np.stack([r[0] * v[0] + r[1] * v[1] + r[2] * v[2] for r in m]) for v in vectors]


def _normalizing(q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows ``w, x, y, z`` of (N or 1, 4) quaternions and their norms, an all-zero one made ``(0, 1, 0, 0)``.

    Whole contiguous rows: one copy, none when ``q`` is the transpose of (4, N) float64 rows already (those are
    never written to).
    """
    rows = np.asarray(q.T, dtype=np.float64, order="C")
    w, x, y, z = rows
    norm = np.sqrt(w * w + x * x + y * y + z * z)
    zero = norm == 0.0
    if zero.any():
        w, x, y, z = (np.array(r) for r in rows)
        w[zero], x[zero], y[zero], z[zero], norm[zero] = 0.0, 1.0, 0.0, 0.0, 1.0
    return w, x, y, z, norm
