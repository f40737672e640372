"""Forward kinematics for planar chains: the independent truth every solve is checked against."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


def forward_kinematics(
    shoulder_angle: ArrayLike,
    elbow_angle: ArrayLike,
    a: float,
    b: float,
    *,
    scale: ArrayLike = 1.0,
    root: ArrayLike = (0.0, 0.0),
) -> tuple[FloatArray, FloatArray]:
    """Return ``(elbow, tip)`` positions, each of shape ``shoulder_angle.shape + (2,)``.

    Angles in radians, counter-clockwise: ``shoulder_angle`` from +x, ``elbow_angle`` relative to the upper
    bone. ``scale`` multiplies both bone lengths (stretch), ``root`` (``(..., 2)``) offsets the shoulder.
    """
    s = np.asarray(shoulder_angle, dtype=np.float64)
    e = np.asarray(elbow_angle, dtype=np.float64)
    k = np.asarray(scale, dtype=np.float64)
    r = np.asarray(root, dtype=np.float64)
    ka = k * float(a)
    kb = k * float(b)
    elbow = np.stack([ka * np.cos(s), ka * np.sin(s)], axis=-1) + r
    tip = elbow + np.stack([kb * np.cos(s + e), kb * np.sin(s + e)], axis=-1)
    return elbow, tip


def chain_forward_kinematics(angles: ArrayLike, lengths: ArrayLike) -> FloatArray:
    """Joint positions of an N-bone chain rooted at the origin.

    ``angles`` has shape ``(..., n)``: the first is absolute (from +x), each next is relative to its parent.
    ``lengths`` has shape ``(n,)`` or broadcasts to ``angles``. Returns ``(..., n + 1, 2)``: the root (origin),
    each joint, then the tip.
    """
    ang = np.cumsum(np.asarray(angles, dtype=np.float64), axis=-1)
    lens = np.asarray(lengths, dtype=np.float64)
    steps = np.stack([lens * np.cos(ang), lens * np.sin(ang)], axis=-1)
    pts = np.cumsum(steps, axis=-2)
    zero = np.zeros((*pts.shape[:-2], 1, 2))
    return np.concatenate([zero, pts], axis=-2)
