"""Spaces: from Blender's armature space to the 2D shoulder space of a chain, and back.

All functions are vectorized over frames (leading axis ``N``); matrices are 4x4 affine, acting on column
vectors (Blender's convention: ``p_world = M @ p_local``).

Shoulder space (see ``docs/design.md``) is built from the **base matrix** ``M_base`` of a chain: the upper
bone's rest frame under its parent's current pose, in armature space
(``parent_pose @ parent_rest^-1 @ upper_rest``, or ``upper_rest`` for a root bone).

Exactness with scaled parents: 2D coordinates are taken in the base's *local* coordinates (``M_base^-1 @ p``),
where bone lengths are the rest lengths (``bone.length``) and a pose rotation about the bone's local axis is a
rigid 2D rotation, whatever uniform, non-uniform or negative scale the parent's pose carries. The 2D frame
there is ``x`` = the local bone direction (+Y) and ``y = a x x`` with ``a`` the plane normal in local axes.
:func:`from_shoulder_2d` maps back through ``M_base``, so a 2D chain that reaches a 2D target reaches the
armature-space target exactly. Without scale on the base, 2D units equal armature units.
"""

from __future__ import annotations

import functools
from typing import Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .rotations import (
    EULER_ORDERS,
    matrices_from_axis_angles,
    matrices_from_eulers,
    matrices_from_quaternions,
)

FloatArray = NDArray[np.float64]

# (u, v, n): screen right, screen up, plane normal n = u x v; armature-space unit axes.
PLANES: Final[dict[str, tuple[tuple[float, float, float], ...]]] = {
    "XZ": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.0, -1.0, 0.0)),
    "XY": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    "YZ": ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (1.0, 0.0, 0.0)),
}

ROTATION_MODES: Final = ("QUATERNION", "AXIS_ANGLE", *EULER_ORDERS)

_BONE_AXIS: Final = np.array([0.0, 1.0, 0.0])


def plane_normal(plane: str) -> FloatArray:
    """The normal ``n`` (armature space) of ``plane`` (a key of :data:`PLANES`)."""
    return np.array(PLANES[plane][2])


def _matrices(m: ArrayLike) -> FloatArray:
    arr = np.asarray(m, dtype=np.float64)
    if arr.shape[-2:] != (4, 4):
        raise ValueError(f"expected 4x4 matrices, got shape {arr.shape}")
    return arr.reshape(-1, 4, 4)


def _points(p: ArrayLike) -> FloatArray:
    return np.asarray(p, dtype=np.float64).reshape(-1, 3)


def _unit(v: ArrayLike) -> FloatArray:
    a = np.asarray(v, dtype=np.float64).reshape(3)
    norm = float(np.linalg.norm(a))
    if not np.isfinite(norm) or norm == 0.0:
        raise ValueError(f"expected a finite non-zero 3-vector, got {a!r}")
    return a / norm


def _normalize_rows(v: FloatArray) -> FloatArray:
    norm = np.linalg.norm(v, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = v / norm
    return out


def transform_points(matrices: ArrayLike, points: ArrayLike) -> FloatArray:
    """Apply 4x4 affine ``matrices`` (``(N, 4, 4)`` or one ``(4, 4)``) to ``points`` ``(N, 3)``.

    Returns ``(N, 3)``.
    """
    m = _matrices(matrices)
    p = _points(points)
    out: FloatArray = np.einsum("nij,nj->ni", m[:, :3, :3], p) + m[:, :3, 3]
    return out


def transform_vectors(matrices: ArrayLike, vectors: ArrayLike) -> FloatArray:
    """Apply only the linear part of ``matrices`` to direction ``vectors`` ``(N, 3)`` (no translation)."""
    m = _matrices(matrices)
    out: FloatArray = np.einsum("nij,nj->ni", m[:, :3, :3], _points(vectors))
    return out


def cross(a: FloatArray, b: FloatArray) -> FloatArray:
    """Row-wise cross product of ``(..., 3)`` arrays.

    Unlike ``np.cross`` it costs a few ufunc calls, which matters for the one-frame solves of the live preview;
    two single vectors (a chain's rest axes, once per chain of a bake) take the same float64 operations on Python
    floats, which cost less than the ufunc calls.
    """
    if a.shape == b.shape == (3,) and a.dtype == b.dtype == np.float64:
        a0, a1, a2 = a.tolist()
        b0, b1, b2 = b.tolist()
        return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
    ax, ay, az = a[..., 0], a[..., 1], a[..., 2]
    bx, by, bz = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx], axis=-1)


def invert_matrices(matrices: ArrayLike) -> FloatArray:
    """General affine inverse of ``(N, 4, 4)`` matrices (any invertible linear part, negative scale included).

    Closed form (adjugate from cross products): elementwise numpy only, no LAPACK call per matrix, which keeps it
    fast and free of BLAS threading. Singular or non-finite matrices give NaN/inf entries instead of raising, so
    callers can report them.
    """
    m = _matrices(matrices)
    c0, c1, c2 = m[:, :3, 0], m[:, :3, 1], m[:, :3, 2]
    r0, r1, r2 = cross(c1, c2), cross(c2, c0), cross(c0, c1)
    det = np.einsum("ni,ni->n", c0, r0)
    ok = np.isfinite(det) & (det != 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv_det = np.where(ok, 1.0 / np.where(ok, det, 1.0), np.nan)
    out = np.zeros_like(m)
    inv_lin = np.stack([r0, r1, r2], axis=1) * inv_det[:, None, None]
    out[:, :3, :3] = inv_lin
    out[:, :3, 3] = -np.einsum("nij,nj->ni", inv_lin, m[:, :3, 3])
    out[:, 3, 3] = 1.0
    return out


def rotation_matrices(rotation: ArrayLike, rotation_mode: str) -> FloatArray:
    """``(N, 3, 3)`` rotation matrices from Blender rotation channels.

    ``rotation_mode``: ``'QUATERNION'`` (``rotation`` ``(N, 4)`` as ``w, x, y, z``, normalized first like
    Blender), ``'AXIS_ANGLE'`` (``(N, 4)`` as ``angle, x, y, z``, radians, axis normalized), or an Euler order
    ``'XYZ'``... (``(N, 3)`` radians, ``x, y, z``).
    """
    r = np.atleast_2d(np.asarray(rotation, dtype=np.float64))
    if rotation_mode == "QUATERNION":
        return matrices_from_quaternions(r)
    if rotation_mode == "AXIS_ANGLE":
        return matrices_from_axis_angles(r)
    if rotation_mode in EULER_ORDERS:
        return matrices_from_eulers(r, rotation_mode)
    raise ValueError(f"rotation_mode must be one of {ROTATION_MODES}, got {rotation_mode!r}")


def compose_matrices(location: ArrayLike, rotation: ArrayLike, scale: ArrayLike, rotation_mode: str) -> FloatArray:
    """Local matrices ``T(location) @ R(rotation) @ S(scale)`` ``(N, 4, 4)``.

    As Blender builds an object's or a pose bone's ``matrix_basis`` from its channels.

    ``location`` ``(N, 3)``, ``scale`` ``(N, 3)`` (negative allowed), ``rotation`` and ``rotation_mode`` as in
    :func:`rotation_matrices`. Rows broadcast: any argument may be a single row.
    """
    rot = rotation_matrices(rotation, rotation_mode)
    loc = _points(location)
    scl = _points(scale)
    n = max(rot.shape[0], loc.shape[0], scl.shape[0])
    out = np.zeros((n, 4, 4))
    out[:, :3, :3] = rot * scl[:, None, :]
    out[:, :3, 3] = loc
    out[:, 3, 3] = 1.0
    return out


def local_axis(rest_matrix: ArrayLike, n: ArrayLike) -> FloatArray:
    """The plane normal ``n`` (armature space) expressed in a bone's rest-local axes, unit length ``(3,)``.

    ``rest_matrix``: the bone's rest matrix in armature space (``bone.matrix_local``). This is the axis about
    which the bone's pose rotation keeps the chain in the plane: the local preimage of the plane has normal
    ``L^T n`` (``L`` the linear part), equal to ``L^-1 n`` for Blender's orthonormal rest matrices.
    """
    m = _matrices(rest_matrix)[0]
    return _unit(m[:3, :3].T @ _unit(n))


def _local_normals(base: FloatArray, n: FloatArray, local_normal: ArrayLike | None) -> FloatArray:
    if local_normal is not None:
        return np.broadcast_to(_unit(local_normal), (base.shape[0], 3))
    return _normalize_rows(np.einsum("nji,j->ni", base[:, :3, :3], n))


def _local_2d_basis(axes: FloatArray) -> tuple[FloatArray, FloatArray]:
    """In-plane ``x`` (the bone's +Y, projected onto the plane) and ``y = a x x``, per frame."""
    x = _BONE_AXIS[None, :] - (axes @ _BONE_AXIS)[:, None] * axes
    x = _normalize_rows(x)
    y = cross(axes, np.broadcast_to(x, axes.shape))
    return x, y


def shoulder_local_basis(local_normal: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """The 2D frame's ``(x, y)`` axes ``(3,)`` in the base's local axes, for the local normal ``a``.

    ``x`` is the bone direction (+Y) projected onto the plane ``a . p = 0``, ``y = a x x``. Use it to turn a
    2D root offset into a pose location (``loc = ox * x + oy * y``, pose locations are in rest-local axes).
    The arrays are read-only: one pair is shared by every call with the same normal.
    """
    return _shoulder_basis_of(np.asarray(local_normal, dtype=np.float64).reshape(3).tobytes())


@functools.lru_cache(maxsize=1024)
def _shoulder_basis_of(normal: bytes) -> tuple[FloatArray, FloatArray]:
    # By the normal's bits: the copies of a character in a crowd share their chains' normals, and a dozen tiny
    # ufunc calls per chain were ~3% of a crowd bake's solve.
    x, y = _local_2d_basis(_unit(np.frombuffer(normal, dtype=np.float64))[None, :])
    out = x[0].copy(), y[0].copy()
    for a in out:
        a.flags.writeable = False
    return out


def shoulder_frame(base_matrices: ArrayLike, n: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Armature-space shoulder frame per frame: ``(origin, x_axis, y_axis)``, each ``(N, 3)``.

    ``origin`` is the base translation (the upper bone's head); ``x_axis`` is the base's local +Y (the bone
    direction) projected onto the plane ``n`` and normalized (for a bone in the plane, just its direction);
    ``y_axis = n x x_axis``. Orthonormal even when the base carries scale; for drawing and reporting. The
    solve itself uses :func:`to_shoulder_2d`, whose units are the base's local units.
    """
    m = _matrices(base_matrices)
    nn = _unit(n)
    bone_dir = m[:, :3, 1]
    x = _normalize_rows(bone_dir - (bone_dir @ nn)[:, None] * nn[None, :])
    y = cross(np.broadcast_to(nn, x.shape), x)
    return m[:, :3, 3].copy(), x, y


def to_shoulder_2d(
    points_armature: ArrayLike,
    base_matrices: ArrayLike,
    n: ArrayLike,
    *,
    local_normal: ArrayLike | None = None,
) -> FloatArray:
    """Armature-space points ``(N, 3)`` -> 2D shoulder coordinates ``(N, 2)`` in the base's local units.

    ``base_matrices`` ``(N, 4, 4)`` (or one ``(4, 4)``), ``n`` the plane normal in armature space.
    ``local_normal``: the rotation axis in the base's local axes; pass :func:`local_axis` of the upper bone's
    rest matrix so the 2D orientation matches the pose rotation exactly. Default: derived per frame as the
    normalized ``L^T n`` of the base, which agrees whenever the parent's pose keeps the plane's orientation
    (any rotation about ``n``, any in-plane scale or mirror). The component along the normal is dropped (see
    :func:`out_of_plane_distance`).
    """
    m = _matrices(base_matrices)
    local = transform_points(invert_matrices(m), points_armature)
    axes = _local_normals(m, _unit(n), local_normal)
    x, y = _local_2d_basis(axes)
    return np.stack([np.sum(local * x, axis=1), np.sum(local * y, axis=1)], axis=1)


def from_shoulder_2d(
    points_2d: ArrayLike,
    base_matrices: ArrayLike,
    n: ArrayLike,
    *,
    local_normal: ArrayLike | None = None,
    depth: ArrayLike = 0.0,
) -> FloatArray:
    """Inverse of :func:`to_shoulder_2d`: 2D shoulder coordinates ``(N, 2)`` -> armature space ``(N, 3)``.

    ``depth`` (local units along the local normal, scalar or ``(N,)``) restores the dropped component; 0 puts
    the points on the plane through the upper bone's head.
    """
    m = _matrices(base_matrices)
    p2 = np.asarray(points_2d, dtype=np.float64).reshape(-1, 2)
    axes = _local_normals(m, _unit(n), local_normal)
    x, y = _local_2d_basis(axes)
    dz = np.asarray(depth, dtype=np.float64).reshape(-1, 1)
    local = p2[:, :1] * x + p2[:, 1:] * y + dz * axes
    return transform_points(m, local)


def out_of_plane_distance(points: ArrayLike, base_matrices: ArrayLike, n: ArrayLike) -> FloatArray:
    """Signed distance ``(N,)`` (armature units) of armature-space points from the base's plane.

    The plane passes through the base's origin with normal ``n``; the distance is positive on the side ``n``
    points to.
    """
    m = _matrices(base_matrices)
    p = _points(points)
    return np.asarray((p - m[:, :3, 3]) @ _unit(n), dtype=np.float64)


def chain_rest_2d(
    upper_rest: ArrayLike, lower_rest: ArrayLike, lower_length: float, n: ArrayLike
) -> tuple[float, float, float, float]:
    """Rest geometry of a two-bone chain in its shoulder space: ``(a, b, rest_shoulder, rest_elbow)``.

    ``upper_rest``, ``lower_rest``: the bones' rest matrices in armature space (``bone.matrix_local``);
    ``lower_length``: the lower bone's length. ``a`` = 2D distance from the upper head to the lower head,
    ``b`` = 2D length of the lower bone (both shrink if a bone leaves the plane), ``rest_shoulder`` = angle
    of the upper segment (0 for a connected chain), ``rest_elbow`` = lower segment's angle relative to it
    (radians, counter-clockwise about ``n``).
    """
    base = _matrices(upper_rest)
    axis = local_axis(base[0], n)
    lower = _matrices(lower_rest)[0]
    head = lower[:3, 3]
    tail = head + lower[:3, :3] @ (_BONE_AXIS * float(lower_length))
    pts = to_shoulder_2d(np.stack([head, tail]), np.repeat(base, 2, axis=0), n, local_normal=axis)
    upper_seg = pts[0]
    lower_seg = pts[1] - pts[0]
    rest_shoulder = float(np.arctan2(upper_seg[1], upper_seg[0]))
    lower_angle = float(np.arctan2(lower_seg[1], lower_seg[0]))
    rest_elbow = float((lower_angle - rest_shoulder + np.pi) % (2.0 * np.pi) - np.pi)
    return float(np.hypot(*upper_seg)), float(np.hypot(*lower_seg)), rest_shoulder, rest_elbow
