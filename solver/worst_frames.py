"""The frames a bake report lists first: the largest errors among the valid frames, in a stable order."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def worst_frames(error: NDArray[np.float64], valid: NDArray[np.bool_], count: int) -> NDArray[np.intp]:
    """Indices of up to ``count`` valid frames by decreasing error, ties in frame order.

    The same indices as ``np.argsort(-np.where(valid, error, -inf), kind="stable")[:count]`` with the invalid
    frames dropped (a NaN error sorts after every number, as there), without sorting every frame: a long bake's
    report wants ten of thousands, and a full stable sort of each chain's errors cost ~75 µs per 2,000 frames
    against ~10 µs for a partition.
    """
    key = -np.where(valid, error, -np.inf)
    if count <= 0:
        return np.empty(0, dtype=np.intp)
    if len(key) > count:
        kth = np.partition(key, count - 1)[count - 1]  # the count-th smallest key, NaNs last
        if not np.isnan(kth):
            # Every frame of a smaller key, and those of an equal key in frame order: a stable sort of those
            # gives the full sort's first ``count``.
            candidates = np.flatnonzero(key <= kth)
            order = candidates[np.argsort(key[candidates], kind="stable")][:count]
            return order[valid[order]]
    order = np.argsort(key, kind="stable")[:count]
    return order[valid[order]]
