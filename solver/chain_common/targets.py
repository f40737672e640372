"""The reach step, vectorized over frames: filter, clamp to the reach ring and soften the raw targets."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..smoothing import smooth_targets
from ..soft import soft_distance
from .options import ChainSetup, reach_radii
from .result import CLAMPED_INNER, CLAMPED_OUTER, DIRECTION_HELD, SOFTENED

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def prepare_targets(targets: ArrayLike, setup: ChainSetup) -> tuple[FloatArray, FloatArray, IntArray]:
    """Filter (option ``smoothing``), clamp and soften the raw targets (vectorized over frames).

    ``targets`` is (N, 2), or (2,) for one frame. Returns ``(raw (N, 2), solved (N, 2), flags (N,))``.
    The distance is clamped to the reach ring ``[inner, L]`` (a target at or beyond full reach lands
    exactly on the outer circle, so the error equals the clamped distance) after soft IK (``softness * L``
    wide, :func:`solver.soft.soft_distance`). A target exactly on the root with a non-zero inner radius
    keeps the last non-zero direction.
    """
    raw = np.asarray(targets, dtype=np.float64)
    if raw.shape == (2,):  # one frame (a live preview); the result keeps the frame axis
        raw = raw[None, :]
    if raw.ndim != 2 or raw.shape[1] != 2:
        raise ValueError(f"targets must have shape (N, 2), got {raw.shape}")
    if not np.all(np.isfinite(raw)):
        raise ValueError("targets must be finite")
    aimed = raw if setup.smoothing is None or len(raw) < 2 else smooth_targets(raw, setup.smoothing)
    inner, outer = reach_radii(setup.lengths)
    dist = np.hypot(aimed[:, 0], aimed[:, 1])
    flags = np.zeros(len(raw), dtype=np.int64)

    tiny = 1e-12 * outer
    nonzero = dist > tiny
    # Last non-zero direction, carried forward over frames (first frame: the warm start's direction).
    idx = np.where(nonzero, np.arange(len(raw)), -1)
    np.maximum.accumulate(idx, out=idx)
    safe = np.where(nonzero, dist, 1.0)
    unit_now = aimed / safe[:, None]
    unit = np.where((idx >= 0)[:, None], unit_now[np.maximum(idx, 0)], setup.warm_direction[None, :])

    soft_width = setup.softness * outer
    if soft_width <= 1e-12 * outer:  # below rounding: a plain clamp (and no overflow in exp(-x / s))
        soft_width = 0.0
    solved_d = soft_distance(dist, outer, soft_width) if soft_width > 0.0 else dist.copy()
    flags |= np.where(dist > outer - soft_width, SOFTENED, 0) if soft_width > 0.0 else 0
    flags |= np.where(dist >= outer, CLAMPED_OUTER, 0)
    solved_d = np.minimum(solved_d, outer)
    below = solved_d < inner
    flags |= np.where(below, CLAMPED_INNER, 0)
    flags |= np.where(below & ~nonzero, DIRECTION_HELD, 0)
    solved_d = np.maximum(solved_d, inner)
    solved = unit * solved_d[:, None]
    return raw, solved, flags

