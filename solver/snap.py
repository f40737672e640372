"""Snap FK to IK: where to put a chain's target (and pole) so the IK solve gives back the FK pose.

Soft IK reaches ``soft(d)`` for a target ``d`` from the shoulder (:mod:`solver.soft`), so a target put exactly
on an FK tip in the soft band would be pulled short. The target goes on the shoulder->tip line at
``soft^-1(|tip - shoulder|)``; the solve then puts the tip back where FK had it (below the knee, and without
softness, that is the tip itself). The pole goes on the elbow's side of that line, so the bend side is FK's.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
# A straight FK arm would need a target infinitely far: soft(knee + CAP * s) misses full reach by e^-CAP * s.
INVERSE_CAP = 20.0


def inverse_soft_distance(r: ArrayLike, total_length: float, soft_width: float) -> FloatArray:
    """The distance ``d`` with ``soft_distance(d) == r`` (``r < total_length``); ``r`` at or beyond full reach
    maps to ``knee + INVERSE_CAP * s``. ``soft_width <= 0``: ``r`` unchanged."""
    r_arr = np.asarray(r, dtype=np.float64)
    s = float(soft_width)
    if s <= 0.0:
        return r_arr.copy()
    knee = float(total_length) - s
    gap = np.maximum(float(total_length) - r_arr, 0.0)
    with np.errstate(divide="ignore", over="ignore"):
        over = np.where(gap > 0.0, -s * np.log(np.minimum(gap / s, 1.0)), INVERSE_CAP * s)
    out: FloatArray = np.where(r_arr > knee, knee + np.minimum(over, INVERSE_CAP * s), r_arr)
    return out


def snap_target(shoulder: ArrayLike, tip: ArrayLike, total_length: ArrayLike, soft_width: ArrayLike) -> FloatArray:
    """Target points ``(N, 3)`` for FK ``shoulder`` and ``tip`` points ``(N, 3)`` (any one space, lengths in
    it): on the shoulder->tip line at the distance whose soft reach is the FK tip's."""
    s = np.atleast_2d(np.asarray(shoulder, dtype=np.float64))
    t = np.atleast_2d(np.asarray(tip, dtype=np.float64))
    length = np.broadcast_to(np.asarray(total_length, dtype=np.float64), (len(t),))
    width = np.broadcast_to(np.asarray(soft_width, dtype=np.float64), (len(t),))
    v = t - s
    r = np.linalg.norm(v, axis=1)
    d = np.array([float(inverse_soft_distance(ri, li, wi)) for ri, li, wi in zip(r, length, width, strict=True)])
    scale = np.where(r > 0.0, d / np.where(r > 0.0, r, 1.0), 1.0)
    out: FloatArray = s + v * scale[:, None]
    return out


def snap_pole(shoulder: ArrayLike, elbow: ArrayLike, tip: ArrayLike, distance: ArrayLike) -> tuple[FloatArray,
                                                                                                      NDArray[np.bool_]]:
    """Pole points ``(N, 3)`` ``distance`` away from the FK ``elbow``, straight out from the shoulder->tip line
    on the elbow's side; and a mask of the frames where the arm is straight (no side to take: the caller keeps
    the pole where it was)."""
    s = np.atleast_2d(np.asarray(shoulder, dtype=np.float64))
    e = np.atleast_2d(np.asarray(elbow, dtype=np.float64))
    t = np.atleast_2d(np.asarray(tip, dtype=np.float64))
    dist = np.broadcast_to(np.asarray(distance, dtype=np.float64), (len(e),))
    line = t - s
    line_len = np.linalg.norm(line, axis=1)
    unit = line / np.where(line_len > 0.0, line_len, 1.0)[:, None]
    rel = e - s
    out_dir = rel - np.sum(rel * unit, axis=1)[:, None] * unit
    off = np.linalg.norm(out_dir, axis=1)
    straight = off <= 1e-6 * np.maximum(line_len, 1e-300)
    points: FloatArray = e + out_dir / np.where(straight, 1.0, off)[:, None] * dist[:, None]
    return points, straight


def bend_sides(shoulder: ArrayLike, elbow: ArrayLike, tip: ArrayLike, normal: ArrayLike) -> NDArray[np.int64]:
    """Per frame the side the elbow bends to (``bend`` convention: +1 when the lower segment turns
    counter-clockwise about ``normal`` from the upper one), 0 where the arm is (numerically) straight."""
    s = np.atleast_2d(np.asarray(shoulder, dtype=np.float64))
    e = np.atleast_2d(np.asarray(elbow, dtype=np.float64))
    t = np.atleast_2d(np.asarray(tip, dtype=np.float64))
    n = np.atleast_2d(np.asarray(normal, dtype=np.float64))
    u, v = e - s, t - e
    turn = np.sum(np.cross(u, v) * n, axis=1)
    scale = np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1) * np.linalg.norm(n, axis=1)
    out: NDArray[np.int64] = np.where(np.abs(turn) > 1e-6 * scale, np.sign(turn), 0).astype(np.int64)
    return out
