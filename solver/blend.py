"""Blend an FK pose with an IK solution per frame, in each of Blender's rotation modes (IK influence).

``weight`` 0 gives the FK channel values exactly, 1 the IK rotation. In between, rotations are blended on the
short path between the two (quaternion slerp) and written back in the bone's own mode:

- quaternions ``(w, x, y, z)``: slerp from FK to IK, with IK taken on FK's hemisphere;
- Euler triples in any order: through quaternions, then the equivalent triple closest to the FK triple of
  the same frame (no 2*pi jumps where FK has none);
- axis-angle ``(angle, x, y, z)``: through quaternions, axis on FK's side, angle within pi of FK's.

Each frame's result is chosen relative to the same frame's FK values, so the blend is as continuous over
frames as the FK keys are; where FK and IK differ by more than a half turn the short path changes side (any
blend of rotations has to pick a side there). Location and scale blend linearly (:func:`blend_linear`).
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .rotations import (
    EULER_ORDERS,
    eulers_from_matrices,
    matrices_from_eulers,
    matrices_from_quaternions,
)

FloatArray = NDArray[np.float64]
_TWO_PI = 2.0 * np.pi
# Below this angle between FK and IK slerp degenerates to a linear blend (sin(theta) ~ theta).
_SLERP_LINEAR = 1e-6


def _weights(weight: ArrayLike, n: int) -> FloatArray:
    w = np.broadcast_to(np.asarray(weight, dtype=np.float64).reshape(-1) if np.ndim(weight) else
                        np.asarray(weight, dtype=np.float64), (n,)).astype(np.float64)
    if not np.all((w >= 0.0) & (w <= 1.0)):
        raise ValueError("blend weights must lie in [0, 1]")
    return w


def blend_linear(fk: ArrayLike, ik: ArrayLike, weight: ArrayLike) -> FloatArray:
    """``(1 - w) * fk + w * ik`` per frame (``fk``, ``ik``: (N, k); ``weight``: scalar or (N,)), exact at 0
    and 1."""
    a = np.atleast_2d(np.asarray(fk, dtype=np.float64))
    b = np.atleast_2d(np.asarray(ik, dtype=np.float64))
    w = _weights(weight, len(a))[:, None]
    out: FloatArray = np.where(w == 0.0, a, np.where(w == 1.0, b, a + w * (b - a)))
    return out


def quaternions_from_matrices(matrices: ArrayLike) -> FloatArray:
    """Unit quaternions ``(N, 4)`` (w >= 0) of rotation matrices ``(N, 3, 3)`` (Shepperd's method: the
    largest of the four squared components is taken as the pivot, so no cancellation near half turns)."""
    m = np.asarray(matrices, dtype=np.float64).reshape(-1, 3, 3)
    tr = m[:, 0, 0] + m[:, 1, 1] + m[:, 2, 2]
    diag = np.stack([tr, m[:, 0, 0], m[:, 1, 1], m[:, 2, 2]], axis=1)
    pivot = np.argmax(diag, axis=1)
    q = np.empty((len(m), 4))
    for p in range(4):
        sel = pivot == p
        if not sel.any():
            continue
        r = m[sel]
        if p == 0:
            s = 2.0 * np.sqrt(np.maximum(1.0 + tr[sel], 1e-300))
            q[sel] = np.stack([0.25 * s, (r[:, 2, 1] - r[:, 1, 2]) / s, (r[:, 0, 2] - r[:, 2, 0]) / s,
                               (r[:, 1, 0] - r[:, 0, 1]) / s], axis=1)
            continue
        i = p - 1
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(np.maximum(1.0 + r[:, i, i] - r[:, j, j] - r[:, k, k], 1e-300))
        block = np.empty((len(r), 4))
        block[:, 0] = (r[:, k, j] - r[:, j, k]) / s
        block[:, 1 + i] = 0.25 * s
        block[:, 1 + j] = (r[:, j, i] + r[:, i, j]) / s
        block[:, 1 + k] = (r[:, k, i] + r[:, i, k]) / s
        q[sel] = block
    q *= np.where(q[:, :1] < 0.0, -1.0, 1.0)
    norm = np.linalg.norm(q, axis=1, keepdims=True)
    out: FloatArray = q / norm
    return out


def _unit_quaternions(q: FloatArray) -> FloatArray:
    """Normalized like Blender does before use (an all-zero quaternion is a half turn about X)."""
    out = q.copy()
    norm = np.linalg.norm(out, axis=1)
    zero = ~(norm > 0.0)
    out[zero] = (0.0, 1.0, 0.0, 0.0)
    norm[zero] = 1.0
    result: FloatArray = out / norm[:, None]
    return result


def slerp(q0: ArrayLike, q1: ArrayLike, weight: ArrayLike) -> FloatArray:
    """Spherical interpolation on the short path from ``q0`` to ``q1`` (each (N, 4), normalized first):
    ``q1`` is taken on ``q0``'s hemisphere, so the result has a non-negative dot product with ``q0``."""
    a = _unit_quaternions(np.atleast_2d(np.asarray(q0, dtype=np.float64)))
    b = _unit_quaternions(np.atleast_2d(np.asarray(q1, dtype=np.float64)))
    w = _weights(weight, len(a))
    dot = np.sum(a * b, axis=1)
    b = np.where(dot[:, None] < 0.0, -b, b)
    dot = np.clip(np.abs(dot), -1.0, 1.0)
    theta = np.arccos(dot)
    sin_t = np.sin(theta)
    small = theta < _SLERP_LINEAR
    safe = np.where(small, 1.0, sin_t)
    c0 = np.where(small, 1.0 - w, np.sin((1.0 - w) * theta) / safe)
    c1 = np.where(small, w, np.sin(w * theta) / safe)
    out = c0[:, None] * a + c1[:, None] * b
    result: FloatArray = out / np.linalg.norm(out, axis=1, keepdims=True)
    return result


def quaternions_from_channels(rotation_mode: str, values: ArrayLike) -> FloatArray:
    """Unit quaternions ``(N, 4)`` of the channel values ``(N, k)`` of one rotation mode (as Blender
    evaluates them: a quaternion is normalized, an axis-angle's axis too)."""
    v = np.atleast_2d(np.asarray(values, dtype=np.float64))
    if rotation_mode == "QUATERNION":
        return _unit_quaternions(v)
    if rotation_mode == "AXIS_ANGLE":
        axis = v[:, 1:]
        norm = np.linalg.norm(axis, axis=1)
        # Blender: a zero axis is no rotation (rotations.matrices_from_axis_angles).
        axis = axis / np.where(norm > 0.0, norm, 1.0)[:, None]
        half = np.where(norm > 0.0, 0.5 * v[:, 0], 0.0)
        return np.concatenate([np.cos(half)[:, None], np.sin(half)[:, None] * axis], axis=1)
    if rotation_mode not in EULER_ORDERS:
        raise ValueError(f"unknown rotation mode {rotation_mode!r}")
    return quaternions_from_matrices(matrices_from_eulers(v, rotation_mode))


def _nearest_turn(angle: FloatArray, reference: FloatArray) -> FloatArray:
    out: FloatArray = angle + _TWO_PI * np.round((reference - angle) / _TWO_PI)
    return out


def _axis_angles_near(q: FloatArray, fk: FloatArray) -> FloatArray:
    """Axis-angle values of unit quaternions ``q``, each with its axis on the side of the FK axis and its
    angle within pi of the FK angle (the FK values of the same frame)."""
    vec = q[:, 1:]
    norm = np.linalg.norm(vec, axis=1)
    angle = 2.0 * np.arctan2(norm, q[:, 0])
    fk_axis = fk[:, 1:]
    fk_norm = np.linalg.norm(fk_axis, axis=1)
    fk_unit = np.where((fk_norm > 0.0)[:, None], fk_axis / np.where(fk_norm > 0.0, fk_norm, 1.0)[:, None],
                       [0.0, 1.0, 0.0])
    # No rotation: any axis will do; FK's keeps the curves flat.
    axis = np.where((norm > 1e-300)[:, None], vec / np.where(norm > 1e-300, norm, 1.0)[:, None], fk_unit)
    flip = np.sum(axis * fk_unit, axis=1) < 0.0
    axis = np.where(flip[:, None], -axis, axis)
    angle = np.where(flip, -angle, angle)
    return np.concatenate([_nearest_turn(angle, fk[:, 0])[:, None], axis], axis=1)


def channels_near(rotation_mode: str, quaternions: ArrayLike, fk: ArrayLike) -> FloatArray:
    """Channel values ``(N, k)`` of unit ``quaternions`` in ``rotation_mode``, each frame the representation
    nearest to that frame's ``fk`` values (quaternion sign, Euler triple and 2*pi turns, axis side)."""
    q = np.atleast_2d(np.asarray(quaternions, dtype=np.float64))
    ref = np.atleast_2d(np.asarray(fk, dtype=np.float64))
    if rotation_mode == "QUATERNION":
        out: FloatArray = np.where((np.sum(q * ref, axis=1) < 0.0)[:, None], -q, q)
        return out
    if rotation_mode == "AXIS_ANGLE":
        return _axis_angles_near(q, ref)
    return _eulers_near(rotation_mode, q, ref, np.ones(len(q), dtype=bool))


def _eulers_near(order: str, q: FloatArray, fk: FloatArray, run_start: NDArray[np.bool_]) -> FloatArray:
    """Euler triples of ``q``: each run of frames (a new run where ``run_start``) continuous from the FK triple
    of its first frame, frame to frame like Blender's ``make_compatible`` (a per-frame choice against FK
    could swap between the two equivalent triples where their distances to FK cross)."""
    m = matrices_from_quaternions(q)
    out = np.empty((len(q), 3))
    starts = [*np.flatnonzero(run_start).tolist(), len(q)]
    for a, b in itertools.pairwise(starts):
        out[a:b] = eulers_from_matrices(m[a:b], order, previous=fk[a])
    return out


def blend_rotation(rotation_mode: str, fk: ArrayLike, ik: ArrayLike, weight: ArrayLike) -> FloatArray:
    """Per-frame blend of a bone's FK and IK rotation channels ``(N, k)`` in its ``rotation_mode``.

    Frames with ``weight`` 0 return the FK values unchanged (bit for bit); frames with weight 1 the IK
    rotation (in the representation nearest to FK); others the slerp on the short path.
    """
    a = np.atleast_2d(np.asarray(fk, dtype=np.float64))
    b = np.atleast_2d(np.asarray(ik, dtype=np.float64))
    w = _weights(weight, len(a))
    out = a.copy()
    act = w > 0.0
    if not act.any():
        return out
    q = slerp(quaternions_from_channels(rotation_mode, a[act]), quaternions_from_channels(rotation_mode, b[act]),
              w[act])
    if rotation_mode in EULER_ORDERS:
        # Runs of blended frames continue frame to frame from the FK triple where the run starts.
        idx = np.flatnonzero(act)
        starts = np.ones(len(idx), dtype=bool)
        starts[1:] = np.diff(idx) > 1
        out[act] = _eulers_near(rotation_mode, q, a[act], starts)
    else:
        out[act] = channels_near(rotation_mode, q, a[act])
    return out
