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

import itertools
from typing import Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]

EULER_ORDERS: Final = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
_AXIS_INDEX: Final = {"X": 0, "Y": 1, "Z": 2}
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
    a few columns instead of a dozen calls per column (each column still gets the same operations).

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
    for c in range(0, len(d), step):
        part = slice(c, c + step)
        half = 0.5 * d[part]
        q[part, :, 0] = np.cos(half)
        sin = np.sin(half)
        for i in range(3):
            np.multiply(sin, k[part, i, None], out=q[part, :, i + 1])
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


# --- Euler -----------------------------------------------------------------------------------------------


def _check_order(order: str) -> tuple[int, int, int, bool]:
    if order not in EULER_ORDERS:
        raise ValueError(f"Euler order must be one of {EULER_ORDERS}, got {order!r}")
    i, j, k = (_AXIS_INDEX[c] for c in order)
    # An odd permutation of XYZ flips the handedness of the (i, j, k) frame.
    parity = (j - i) % 3 != 1
    return i, j, k, parity


def _elementary(axis: int, angle: FloatArray) -> FloatArray:
    c, s = np.cos(angle), np.sin(angle)
    m = np.zeros((angle.size, 3, 3))
    a, b = (axis + 1) % 3, (axis + 2) % 3
    m[:, axis, axis] = 1.0
    m[:, a, a] = c
    m[:, b, b] = c
    m[:, b, a] = s
    m[:, a, b] = -s
    return m


def matrices_from_eulers(eulers: ArrayLike, order: str) -> FloatArray:
    """``(N, 3, 3)`` rotation matrices from ``(N, 3)`` Euler triples ``(x, y, z)`` in radians.

    Order ``'ABC'`` applies A first: ``R = R_C @ R_B @ R_A`` (Blender's convention).
    """
    e = np.atleast_2d(np.asarray(eulers, dtype=np.float64))
    i, j, k, _ = _check_order(order)
    return _elementary(k, e[:, k]) @ _elementary(j, e[:, j]) @ _elementary(i, e[:, i])


def _euler_candidates(m: FloatArray, order: str) -> tuple[FloatArray, FloatArray, NDArray[np.bool_]]:
    """Both Euler triples for each matrix, and a mask of gimbal-locked frames (middle angle at +-pi/2)."""
    i, j, k, parity = _check_order(order)
    # For an even order R = R_k R_j R_i gives R[k,i] = -sin(b), R[j,i] = cos(b) sin(c), ... ; an odd order is
    # the same formulas in a mirrored frame, which negates every angle.
    sign = -1.0 if parity else 1.0
    rii, rji, rki = m[:, i, i], m[:, j, i], m[:, k, i]
    rkj, rkk = m[:, k, j], m[:, k, k]
    cy = np.hypot(rii, rji)
    locked = cy <= 16.0 * np.finfo(np.float32).eps
    e1 = np.empty((m.shape[0], 3))
    e2 = np.empty((m.shape[0], 3))
    e1[:, i] = np.arctan2(sign * rkj, rkk)
    e1[:, j] = np.arctan2(-sign * rki, cy)
    e1[:, k] = np.arctan2(sign * rji, rii)
    e2[:, i] = np.arctan2(-sign * rkj, -rkk)
    e2[:, j] = np.arctan2(-sign * rki, -cy)
    e2[:, k] = np.arctan2(-sign * rji, -rii)
    if np.any(locked):
        e1[locked, i] = np.arctan2(-sign * m[locked, j, k], m[locked, j, j])
        e1[locked, k] = 0.0
        e2[locked] = e1[locked]
    return e1, e2, locked


def _closer_candidate(cur: FloatArray, prev: FloatArray) -> NDArray[np.intp]:
    """``(n, 2)``: for each previous candidate, 1 if the current second candidate is strictly closer."""
    d = np.abs(cur[:, :, None, :] - prev[:, None, :, :])  # (n, cur c, prev s, axis)
    cost = np.sum(np.minimum(d, _TWO_PI - d), axis=3)
    out: NDArray[np.intp] = (cost[:, 1, :] < cost[:, 0, :]).astype(np.intp)
    return out


def _scan_states(pick: NDArray[np.intp], start: int) -> NDArray[np.intp]:
    """States ``s_0 = start, s_{f+1} = pick[f, s_f]`` for a 2-state recurrence, without a Python loop.

    Each step is constant (both rows agree), identity or swap: a state is the last constant's value (or
    ``start``) flipped once per swap since.
    """
    steps = pick.shape[0]
    if steps == 0:
        return np.array([start], dtype=np.intp)
    const = pick[:, 0] == pick[:, 1]
    swap = (pick[:, 0] == 1) & (pick[:, 1] == 0)
    swaps = np.concatenate([[0], np.cumsum(swap)])
    idx = np.where(const, np.arange(1, steps + 1), 0)
    last_reset = np.maximum.accumulate(np.concatenate([[0], idx]))
    base = np.where(last_reset > 0, pick[np.maximum(last_reset - 1, 0), 0], start)
    out: NDArray[np.intp] = ((base + swaps - swaps[last_reset]) % 2).astype(np.intp)
    return out


def eulers_from_matrices(matrices: ArrayLike, order: str, *, previous: ArrayLike | None = None) -> FloatArray:
    """Continuous Euler triples ``(N, 3)`` for rotation matrices ``(N, 3, 3)``.

    Frame by frame (starting from ``previous``, the Euler keyed before the range, if given) each triple is the
    one of the two equivalent triples, each shifted per axis by multiples of 2*pi, that is closest to the
    previous frame's (sum of absolute differences), as Blender's ``make_compatible`` does. At gimbal lock only
    the combination of the first and last angle is defined; the last angle then keeps its previous value.
    """
    m = np.asarray(matrices, dtype=np.float64).reshape(-1, 3, 3)
    i, j, k, _ = _check_order(order)
    out = np.full((m.shape[0], 3), np.nan)
    finite = np.all(np.isfinite(m), axis=(1, 2))
    if not np.any(finite):
        return out
    mf = m[finite]
    e1, e2, locked = _euler_candidates(mf, order)
    if previous is not None:
        prev = np.asarray(previous, dtype=np.float64).reshape(1, 3)
        mf = np.concatenate([np.eye(3)[None], mf])
        e1 = np.concatenate([prev, e1])
        e2 = np.concatenate([prev, e2])
        locked = np.concatenate([[False], locked])
    cand = np.stack([e1, e2], axis=1)  # (n, 2, 3)
    # Principal values (|difference| < 2*pi), so the distance mod 2*pi per axis is min(|d|, 2*pi - |d|).
    principal = np.arctan2(np.sin(cand), np.cos(cand))
    n = cand.shape[0]
    # pick[f - 1, s]: the candidate chosen at frame f when frame f - 1 chose candidate s.
    pick = _closer_candidate(principal[1:], principal[:-1])
    locked_idx = np.flatnonzero(locked)
    chosen = np.empty((n, 3))
    # Between gimbal-locked frames the choice is a 2-state recurrence, scanned vectorized; a locked frame's
    # value depends on the previous triple itself, and the next frame restarts from it.
    bounds = sorted({0, *locked_idx.tolist(), n})
    for seg_start, seg_end in itertools.pairwise(bounds):
        first, start_state = seg_start, 0
        if locked[seg_start]:
            if seg_start == 0:
                chosen[0] = e1[0]
            else:
                chosen[seg_start] = _locked_compatible(mf[seg_start], e1[seg_start], chosen[seg_start - 1], i, j, k)
            first = seg_start + 1
            if first >= seg_end:
                continue
            d = np.abs(principal[first] - np.arctan2(np.sin(chosen[seg_start]), np.cos(chosen[seg_start])))
            cost = np.sum(np.minimum(d, _TWO_PI - d), axis=1)
            start_state = int(cost[1] < cost[0])
        seg_states = _scan_states(pick[first : seg_end - 1], start_state)
        chosen[first:seg_end] = cand[np.arange(first, seg_end), seg_states]
    # Per-axis 2*pi shifts toward the previous frame: a cumulative unwrap (the first row is kept as is).
    chosen = np.unwrap(chosen, axis=0)
    if previous is not None:
        chosen = chosen[1:]
    out[finite] = chosen
    return out


def _locked_compatible(
    m: FloatArray,
    e: FloatArray,
    prev: FloatArray,
    i: int,
    j: int,
    k: int,
) -> FloatArray:
    """Gimbal lock: keep the last-applied angle from ``prev`` and solve the first one from the matrix."""
    out = e.copy()
    out[j] = e[j] + _TWO_PI * np.round((prev[j] - e[j]) / _TWO_PI)
    out[k] = prev[k]
    # R = R_k(c) R_j(b) R_i(a)  =>  R_i(a) = R_j(b)^T R_k(c)^T R; read a from the rotation about axis i.
    r_first = (
        _elementary(j, np.array([out[j]])).transpose(0, 2, 1)
        @ _elementary(k, np.array([out[k]])).transpose(0, 2, 1)
        @ m[None]
    )[0]
    a, b = (i + 1) % 3, (i + 2) % 3
    angle = float(np.arctan2(r_first[b, a], r_first[a, a]))
    out[i] = angle + _TWO_PI * np.round((prev[i] - angle) / _TWO_PI)
    return out


def eulers_about_axis(
    axis: ArrayLike, delta: ArrayLike, order: str, *, previous: ArrayLike | None = None
) -> FloatArray:
    """Continuous Euler triples ``(N, 3)`` ``(x, y, z)`` for rotations by ``delta`` about ``axis``.

    ``order``: one of :data:`EULER_ORDERS`. ``previous``: the Euler triple keyed just before the range, so the
    bake joins the existing animation without a 2*pi jump or a flip to the equivalent triple.
    """
    return eulers_from_matrices(rotation_matrices_about_axis(axis, delta), order, previous=previous)
