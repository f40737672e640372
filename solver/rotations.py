"""Pose rotations about one fixed local axis, written in each of Blender's rotation modes.

A 2D chain only ever rotates a bone about the plane normal expressed in the bone's rest-local axes
(:func:`solver.spaces.local_axis`). This module turns per-frame angles ``delta`` (radians, shape ``(N,)``,
counter-clockwise about ``axis``) into the channel values Blender stores, continuous over frames so the baked
F-curves interpolate without spins:

- quaternions ``(w, x, y, z)``: no ``q``/``-q`` sign flips between frames;
- Euler triples ``(x, y, z)`` in any of the six orders: no 2*pi jumps, and of the two equivalent triples
  the one closest to the previous frame (like Blender's ``Euler.make_compatible``);
- axis-angle ``(angle, x, y, z)``: the angle unwrapped (it may leave ``[-pi, pi]``).

Conventions (Blender's, checked against ``mathutils`` in the tests): matrices act on column vectors;
Euler order ``'XYZ'`` means ``R = Rz @ Ry @ Rx`` (X applied first), in general order ``'ABC'`` means
``R = R_C @ R_B @ R_A``; the stored triple is always ``(angle_x, angle_y, angle_z)``.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .eulers import EULER_ORDERS as EULER_ORDERS  # the Euler half (solver/eulers.py), re-exported
from .eulers import eulers_from_matrices as eulers_from_matrices
from .eulers import matrices_from_eulers as matrices_from_eulers
from .threads import in_two_halves

FloatArray = NDArray[np.float64]

_TWO_PI: Final = 2.0 * np.pi


def rotation_property(rotation_mode: str) -> tuple[str, int]:
    """The property Blender keys for ``rotation_mode`` and its number of channels.

    ``rotation_quaternion`` (4), ``rotation_axis_angle`` (4) or ``rotation_euler`` (3, any Euler order).
    """
    if rotation_mode == "QUATERNION":
        return "rotation_quaternion", 4
    if rotation_mode == "AXIS_ANGLE":
        return "rotation_axis_angle", 4
    return "rotation_euler", 3


def _unit_axis(axis: ArrayLike) -> FloatArray:
    a = np.asarray(axis, dtype=np.float64).reshape(3)
    norm = float(np.linalg.norm(a))
    if not np.isfinite(norm) or norm == 0.0:
        raise ValueError(f"rotation axis must be a finite non-zero 3-vector, got {a!r}")
    return a / norm


def _angles(delta: ArrayLike) -> FloatArray:
    return np.atleast_1d(np.asarray(delta, dtype=np.float64)).reshape(-1)


def _unwrap(delta: FloatArray, start_near: float | None = None) -> FloatArray:
    """Shift each angle by a multiple of 2*pi so consecutive values differ by at most pi.

    ``start_near``: the first value is moved to within pi of it (joining earlier animation). NaN entries stay
    NaN and do not disturb their neighbours' unwrapping.
    """
    finite = np.isfinite(delta)
    every = bool(finite.all())  # the usual case: no masking and scattering back
    out = delta.copy()
    vals = out if every else out[finite]
    if vals.size:
        steps = np.diff(vals)
        if (np.abs(steps) < np.pi).all():
            # Nothing to shift: np.unwrap would add a cumulative sum of zeros, which turns -0.0 into 0.0 after
            # the first value; done the same way so both give the same bits.
            vals[1:] += 0.0
        else:
            vals = np.unwrap(vals)
        if start_near is not None:
            vals = vals + _TWO_PI * np.round((start_near - vals[0]) / _TWO_PI)
        if every:
            return vals
        out[finite] = vals
    return out


def rotation_matrices_about_axis(axis: ArrayLike, delta: ArrayLike) -> FloatArray:
    """Rodrigues' formula: ``(N, 3, 3)`` rotations by ``delta`` about ``axis``.

    ``delta`` in radians, counter-clockwise; ``axis`` of any non-zero length.
    """
    k = _unit_axis(axis)
    d = _angles(delta)
    kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    s = np.sin(d)[:, None, None]
    c = np.cos(d)[:, None, None]
    eye = np.eye(3)[None]
    out: FloatArray = eye + s * kx[None] + (1.0 - c) * (kx @ kx)[None]
    return out


# --- quaternions -----------------------------------------------------------------------------------------


def quaternions_about_axis(axis: ArrayLike, delta: ArrayLike, *, previous: ArrayLike | None = None) -> FloatArray:
    """Unit quaternions ``(N, 4)`` as ``(w, x, y, z)`` for rotations by ``delta`` about ``axis``.

    Sign-continuous: consecutive quaternions have a non-negative dot product (the angles are unwrapped first,
    so a jump of ``delta`` across +-pi does not flip ``q`` to ``-q``). ``previous`` (4 values, any norm): the
    quaternion keyed just before the range; the sign of the whole result is chosen to agree with it.
    """
    k = _unit_axis(axis)
    d = _unwrap(_angles(delta))
    half = 0.5 * d
    q = np.empty((d.size, 4))
    q[:, 0] = np.cos(half)
    sin = np.sin(half)
    for i in range(3):  # a column at a time: the same products as a broadcast, without its temporary
        q[:, i + 1] = sin * k[i]
    if previous is not None and d.size:
        p = np.asarray(previous, dtype=np.float64).reshape(4)
        first = np.flatnonzero(np.isfinite(d))
        if first.size and float(np.dot(p, q[first[0]])) < 0.0:
            q = -q
    return q


# Angles per pass of quaternions_about_axes: its arrays stay in the L2 cache (whole bakes of 64 columns x 2,000
# frames measured ~2x slower).
ANGLES_AT_ONCE = 8192


def quaternions_about_axes(axes: ArrayLike, deltas: ArrayLike) -> FloatArray:
    """:func:`quaternions_about_axis` (without ``previous``) of many columns at once, bit for bit.

    A bake asks for one quaternion column per chain bone; computed together, each step is one ufunc call over
    a few columns instead of a dozen calls per column (each column still gets the same operations). The two
    halves of the columns are computed at once on two threads (:func:`solver.threads.in_two_halves`): the
    float64 ``cos`` and ``sin`` are most of the time, and numpy runs them without the GIL.

    Args:
        axes: (C, 3) each column's rotation axis (any non-zero length).
        deltas: (C, N) each column's angles, radians, frames in order.

    Returns:
        (C, N, 4) unit quaternions ``(w, x, y, z)``, sign-continuous along each column.
    """
    unit: dict[bytes, FloatArray] = {}  # the chains of a crowd share their bones' axes: each normalized once
    rows = np.asarray(axes, dtype=np.float64).reshape(-1, 3)
    k = np.stack([unit[key] if (key := a.tobytes()) in unit else unit.setdefault(key, _unit_axis(a)) for a in rows])
    d = np.array(deltas, dtype=np.float64).reshape(len(k), -1)
    # _unwrap's usual case: no step reaches pi (so every angle is finite), and it adds 0.0 after the first.
    steps = d[:, 1:] - d[:, :-1]
    if d.shape[1] > 1 and float(np.abs(steps).max()) < np.pi:
        d[:, 1:] += 0.0
    else:
        for c in range(len(d)):
            d[c] = _unwrap(d[c])
    q = np.empty((*d.shape, 4))
    step = max(1, ANGLES_AT_ONCE // max(d.shape[1], 1))

    def fill(rows: slice) -> None:
        for c in range(rows.start, rows.stop, step):
            part = slice(c, min(c + step, rows.stop))
            half = 0.5 * d[part]
            q[part, :, 0] = np.cos(half)
            sin = np.sin(half)
            for i in range(3):
                np.multiply(sin, k[part, i, None], out=q[part, :, i + 1])

    in_two_halves(fill, len(d), d.size)
    return q


def matrices_from_quaternions(quaternions: ArrayLike) -> FloatArray:
    """``(N, 3, 3)`` rotation matrices from ``(N, 4)`` quaternions ``(w, x, y, z)``.

    Like Blender, the quaternion is normalized first; an all-zero quaternion becomes ``(0, 1, 0, 0)``
    (Blender's ``normalize_qt`` fallback, a half turn about X).
    """
    q = np.atleast_2d(np.asarray(quaternions, dtype=np.float64)).copy()
    norm = np.linalg.norm(q, axis=1)
    zero = norm == 0.0
    q[zero] = (0.0, 1.0, 0.0, 0.0)
    norm[zero] = 1.0
    q /= norm[:, None]
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    m = np.empty((q.shape[0], 3, 3))
    m[:, 0, 0] = 1.0 - 2.0 * (y * y + z * z)
    m[:, 0, 1] = 2.0 * (x * y - w * z)
    m[:, 0, 2] = 2.0 * (x * z + w * y)
    m[:, 1, 0] = 2.0 * (x * y + w * z)
    m[:, 1, 1] = 1.0 - 2.0 * (x * x + z * z)
    m[:, 1, 2] = 2.0 * (y * z - w * x)
    m[:, 2, 0] = 2.0 * (x * z - w * y)
    m[:, 2, 1] = 2.0 * (y * z + w * x)
    m[:, 2, 2] = 1.0 - 2.0 * (x * x + y * y)
    return m


# --- axis-angle ------------------------------------------------------------------------------------------


def axis_angles_about_axis(axis: ArrayLike, delta: ArrayLike, *, previous: ArrayLike | None = None) -> FloatArray:
    """Axis-angle values ``(N, 4)`` as ``(angle, x, y, z)`` (Blender's ``rotation_axis_angle`` layout).

    The axis is ``axis`` normalized on every frame and the angle is ``delta`` unwrapped (continuous, may leave
    ``[-pi, pi]``). ``previous`` (4 values): the axis-angle keyed before the range; if its axis points the
    other way the result uses ``(-angle, -axis)``, and the first angle is moved by a multiple of 2*pi to lie
    within pi of the previous angle.
    """
    k = _unit_axis(axis)
    d = _angles(delta)
    start: float | None = None
    if previous is not None:
        p = np.asarray(previous, dtype=np.float64).reshape(4)
        if float(np.dot(p[1:], k)) < 0.0:
            k = -k
            d = -d
        start = float(p[0])
    d = _unwrap(d, start)
    out = np.empty((d.size, 4))
    out[:, 0] = d
    out[:, 1:] = k[None, :]
    return out


def matrices_from_axis_angles(axis_angles: ArrayLike) -> FloatArray:
    """``(N, 3, 3)`` rotation matrices from ``(N, 4)`` ``(angle, x, y, z)``.

    The axis is normalized; a zero axis gives the identity (as Blender does).
    """
    aa = np.atleast_2d(np.asarray(axis_angles, dtype=np.float64))
    axes = aa[:, 1:]
    norm = np.linalg.norm(axes, axis=1)
    zero = norm == 0.0
    k = axes / np.where(zero, 1.0, norm)[:, None]
    angle = np.where(zero, 0.0, aa[:, 0])
    kx = np.zeros((aa.shape[0], 3, 3))
    kx[:, 0, 1], kx[:, 0, 2] = -k[:, 2], k[:, 1]
    kx[:, 1, 0], kx[:, 1, 2] = k[:, 2], -k[:, 0]
    kx[:, 2, 0], kx[:, 2, 1] = -k[:, 1], k[:, 0]
    s = np.sin(angle)[:, None, None]
    c = np.cos(angle)[:, None, None]
    return np.eye(3)[None] + s * kx + (1.0 - c) * (kx @ kx)


# --- Euler (the conversions themselves: solver/eulers.py) ----------------------------------------------


def eulers_about_axis(
    axis: ArrayLike, delta: ArrayLike, order: str, *, previous: ArrayLike | None = None
) -> FloatArray:
    """Continuous Euler triples ``(N, 3)`` ``(x, y, z)`` for rotations by ``delta`` about ``axis``.

    ``order``: one of :data:`EULER_ORDERS`. ``previous``: the Euler triple keyed just before the range, so the
    bake joins the existing animation without a 2*pi jump or a flip to the equivalent triple.
    """
    return eulers_from_matrices(rotation_matrices_about_axis(axis, delta), order, previous=previous)
