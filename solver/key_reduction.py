"""Fewer keys for a baked chain, with the tip kept within a tolerance of the full bake on every frame.

Animators edit baked curves, and a key on every frame makes that painful. Reducing each channel on its own
(the usual curve cleaners) bounds each channel's error, not the hand's: small errors of the shoulder and elbow
add up along the chain. Here every channel of a chain keeps keys on the same frames, chosen on the chain's tip
path: Douglas-Peucker style, a segment between two kept frames whose interpolated pose puts the tip further from
the full bake's tip than the budget gets its worst frame as a new key, until no frame is over budget.

:func:`refine` is one such step on measured deviations (the Blender layer measures playback, which is the
guarantee); :func:`reduce_keys` runs it to the end on a model of the tip (:func:`chain_tip`), which gives the
Blender layer a good first set of frames.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .fk import chain_forward_kinematics

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


def interpolate_kept(frames: ArrayLike, values: ArrayLike, kept: ArrayLike) -> FloatArray:
    """``values`` (N, C) as linear keys on the ``kept`` frames play them back on every frame (constant beyond
    the first and last kept frame, like Blender's constant extrapolation)."""
    f = np.asarray(frames, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    k = np.asarray(kept, dtype=bool)
    if not k.any():
        raise ValueError("at least one frame must be kept")
    v2 = v.reshape(len(f), -1)
    out = np.empty_like(v2)
    for c in range(v2.shape[1]):
        out[:, c] = np.interp(f, f[k], v2[k, c])
    return out.reshape(v.shape)


def refine(kept: ArrayLike, deviation: ArrayLike, budget: ArrayLike) -> BoolArray:
    """One Douglas-Peucker step: every run of frames between kept frames that holds a frame whose ``deviation``
    exceeds its ``budget`` gets its worst such frame (largest excess) kept. Kept frames are never over budget
    (their keys are the full bake's); NaN deviations (frames not measured) are ignored. Returns a new mask,
    equal to ``kept`` when nothing is over budget."""
    k = np.array(kept, dtype=bool)
    excess = np.asarray(deviation, dtype=np.float64) - np.broadcast_to(np.asarray(budget, dtype=np.float64),
                                                                        k.shape)
    excess = np.where(np.isfinite(excess) & ~k, excess, -np.inf)
    over = excess > 0
    if not over.any():
        return k
    # Segment id of every frame: the number of kept frames at or before it.
    segment = np.cumsum(k)
    for s in np.unique(segment[over]):
        members = np.flatnonzero((segment == s) & over)
        k[members[np.argmax(excess[members])]] = True
    return k


def reduce_keys(frames: ArrayLike, values: ArrayLike, tip: Callable[[FloatArray], FloatArray], budget: ArrayLike,
                kept: ArrayLike | None = None, *, max_rounds: int = 10_000) -> BoolArray:
    """Frames to keep so that ``tip`` of the linearly interpolated ``values`` stays within ``budget`` of
    ``tip(values)`` on every frame. ``tip`` maps (N, C) values to (N, D) positions; ``kept`` is the first
    guess (default: first and last frame), always kept."""
    f = np.asarray(frames, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    k = np.zeros(len(f), dtype=bool) if kept is None else np.array(kept, dtype=bool)
    if len(f) == 0:
        return k
    k[0] = k[-1] = True
    reference = tip(v)
    for _ in range(max_rounds):
        deviation = np.linalg.norm(tip(interpolate_kept(f, v, k)) - reference, axis=-1)
        new = refine(k, deviation, budget)
        if np.array_equal(new, k):
            return k
        k = new
    return k


def chain_tip(values: ArrayLike, rest_angles: ArrayLike, lengths: ArrayLike) -> FloatArray:
    """Tip of a planar chain in its shoulder space from baked channels ``values`` (N, n + 3): each bone's pose
    rotation from its rest angle (n), the root offset (2, shoulder-space x and y) and the uniform stretch (1)."""
    v = np.asarray(values, dtype=np.float64)
    n = len(np.asarray(lengths))
    angles = v[:, :n] + np.asarray(rest_angles, dtype=np.float64)
    tips = chain_forward_kinematics(angles, lengths)[:, -1, :]
    return tips * v[:, n + 2:n + 3] + v[:, n:n + 2]
