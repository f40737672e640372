"""Euler triples: matrices from them, and continuous triples from matrices (Blender's six orders).

Conventions (Blender's, checked against ``mathutils`` in ``tests/solver/test_rotations.py``): matrices act on
column vectors; order ``'XYZ'`` means ``R = Rz @ Ry @ Rx`` (X applied first), in general ``'ABC'`` means
``R = R_C @ R_B @ R_A``; the stored triple is always ``(angle_x, angle_y, angle_z)``. Of the two triples a
matrix has, :func:`eulers_from_matrices` keeps the one closest to the frame before (like Blender's
``Euler.make_compatible``), without 2*pi jumps. :mod:`solver.rotations` re-exports these names.
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
