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
#: Runs longer than this (frames) are also split in the middle while fitting (see :func:`refine`).
SPLIT_LONGER = 256


def interpolate_kept(frames: ArrayLike, values: ArrayLike, kept: ArrayLike) -> FloatArray:
    """The values linear keys on the kept frames play back on every frame.

    ``values`` is (N, C); beyond the first and last kept frame the value holds, like Blender's constant
    extrapolation.
    """
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


def refine(kept: ArrayLike, deviation: ArrayLike, budget: ArrayLike, *, split_longer: int | None = None) -> BoolArray:
    """One Douglas-Peucker step: the worst over-budget frame of each run between kept frames is kept.

    Every run of frames between kept frames that holds a frame whose ``deviation`` exceeds its ``budget`` gets
    its worst such frame (largest excess) kept. Kept frames are never over budget
    (their keys are the full bake's); NaN deviations (frames not measured) are ignored. Returns a new mask,
    equal to ``kept`` when nothing is over budget. With ``split_longer``, a run over budget longer than that
    many frames also gets its middle frame: the worst frame of a long run that crosses many turns of the path
    falls anywhere, and splitting only there would take a round per level of a lopsided tree."""
    k = np.array(kept, dtype=bool)
    excess = np.asarray(deviation, dtype=np.float64) - np.broadcast_to(np.asarray(budget, dtype=np.float64),
                                                                        k.shape)
    excess = np.where(np.isfinite(excess) & ~k, excess, -np.inf)
    over = excess > 0
    if not over.any():
        return k
    # Segment id of every frame (the number of kept frames at or before it); the over-budget frames sorted by
    # segment, worst first, so the first of each segment is the one to keep (thousands of segments per round
    # on a long bake: no loop over them).
    candidates = np.flatnonzero(over)
    segment = np.cumsum(k)[candidates]
    order = np.lexsort((-excess[candidates], segment))
    first = np.ones(len(order), dtype=bool)
    first[1:] = segment[order][1:] != segment[order][:-1]
    worst = candidates[order[first]]
    if split_longer is not None:
        index = np.arange(len(k))
        left = np.maximum.accumulate(np.where(k, index, 0))[worst]
        right = np.minimum.accumulate(np.where(k, index, len(k) - 1)[::-1])[::-1][worst]
        long = right - left > split_longer
        k[(left[long] + right[long]) // 2] = True
    k[worst] = True
    return k


def reduce_keys(frames: ArrayLike, values: ArrayLike, tip: Callable[[FloatArray], FloatArray], budget: ArrayLike,
                kept: ArrayLike | None = None, *, max_rounds: int = 100_000) -> BoolArray:
    """Frames to keep so that the interpolated pose's tip stays within the budget on every frame.

    ``tip`` of the linearly interpolated ``values`` stays within ``budget`` (length units, scalar or (N,)) of
    ``tip(values)`` on every frame. ``tip`` maps (M, C) values to (M, D) positions row by row; ``kept`` is the
    first guess (default: first and last frame), always kept."""
    f = np.asarray(frames, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64).reshape(len(f), -1)
    k = np.zeros(len(f), dtype=bool) if kept is None else np.array(kept, dtype=bool)
    if len(f) == 0:
        return k
    k[0] = k[-1] = True
    reference = tip(v)
    deviation = np.zeros(len(f))
    dirty = np.ones(len(f), dtype=bool)
    index = np.arange(len(f))
    for _ in range(max_rounds):
        # Only the runs between kept frames that just got a new key can change: the others were within budget.
        rows = np.flatnonzero(dirty)
        interpolated = np.stack([np.interp(f[rows], f[k], v[k, c]) for c in range(v.shape[1])], axis=1)
        deviation[rows] = np.linalg.norm(tip(interpolated) - reference[rows], axis=-1)
        new = refine(k, deviation, budget, split_longer=SPLIT_LONGER)
        if np.array_equal(new, k):
            return k
        added = new & ~k
        k = new
        left = np.maximum.accumulate(np.where(k, index, 0))
        right = np.minimum.accumulate(np.where(k, index, len(f) - 1)[::-1])[::-1]
        dirty = ~k & (added[left] | added[right])
    return k


def chain_tip(values: ArrayLike, rest_angles: ArrayLike, lengths: ArrayLike) -> FloatArray:
    """Tip of a planar chain in its shoulder space from its baked channels.

    ``values`` is (N, n + 3): each bone's pose rotation from its rest angle (n, radians), the root offset (2,
    shoulder-space x and y) and the uniform stretch (1). Returns (N, 2).
    """
    v = np.asarray(values, dtype=np.float64)
    n = len(np.asarray(lengths))
    angles = v[:, :n] + np.asarray(rest_angles, dtype=np.float64)
    tips = chain_forward_kinematics(angles, lengths)[:, -1, :]
    return tips * v[:, n + 2:n + 3] + v[:, n:n + 2]
