"""Stretch to reach: scale a chain up to ``max_stretch`` so its tip reaches a target beyond full reach.

The chain (total length ``L``, soft width ``s`` in length units, knee ``K = L - s``) is solved as the same
chain scaled by ``k``: the solver sees the target at ``d / k`` and the solved pose is scaled back by ``k``
(similar triangles), so any solver can be composed with it unchanged (:func:`scale_targets`).

``k(d)`` (:func:`stretch_factor`), with ``x = d / K`` and a blend width ``delta = s / K`` (at most half of
``max_stretch - 1``):

- ``x <= 1 - delta``: ``k = 1`` (the chain is not stretched);
- around ``x = 1``: ``k = 1 + (x - 1 + delta)^2 / (4 delta)``, a quadratic blend into ``k = x`` (value and
  slope continuous at both ends: the onset is C1; it is a smooth maximum, so ``k >= x``);
- ``k = x`` beyond it: the stretched chain's knee sits on the target, which is reached exactly;
- around ``x = max_stretch`` the mirror blend caps it: ``k <= max_stretch`` always, ``k = max_stretch`` from
  ``x = max_stretch + delta`` on, where the chain is soft IK of length ``max_stretch * L`` and width
  ``max_stretch * s``.

So the softening happens at the stretched length. The reached distance ``k * soft(d / k)`` is C1 and
non-decreasing in ``d`` (``soft`` is, and ``k * soft(d / k)`` grows with ``k``). Every target up to
:func:`reach_limit` ``= (max_stretch - delta) * K`` is reached exactly. Without softness (``s = 0``) the blends
vanish: ``k = clip(d / L, 1, max_stretch)``, a corner at the onset like the hard clamp it replaces.

Volume preservation (:func:`volume_factor`): the bones keep their area by thinning across the bone by
``1 / sqrt(k)``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .result import IKFlag

FloatArray = NDArray[np.float64]

# Flag bit set on frames where stretch to reach scaled the chain (k > 1); named in the flag tables as
# "stretched_to_reach". Distinct from the Stretch limit strategy's bit 64.
REACH_STRETCHED = int(IKFlag.STRETCHED_TO_REACH)
# Factors this close to 1 count as unstretched (float rounding of the quadratic blend's tail).
_UNSTRETCHED = 1e-12


def _check(total_length: float, soft_width: float, max_stretch: float) -> tuple[float, float, float]:
    length, s, m = float(total_length), float(soft_width), float(max_stretch)
    if not (np.isfinite(length) and length > 0.0):
        raise ValueError(f"total_length must be finite and positive, got {total_length!r}")
    if not (np.isfinite(m) and m >= 1.0):
        raise ValueError(f"max_stretch must be finite and at least 1, got {max_stretch!r}")
    if not (np.isfinite(s) and 0.0 <= s < length):
        raise ValueError(f"soft_width must lie in [0, total_length), got {soft_width!r}")
    knee = length - s
    delta = min(s / knee, 0.5 * (m - 1.0))
    return knee, delta, m


def _smooth_max(x: FloatArray, floor: float, delta: float) -> FloatArray:
    """C1 maximum of ``x`` and ``floor`` (a quadratic over ``|x - floor| < delta``); always >= both."""
    if delta < 1e-12:  # no room to blend (no softness, or max_stretch ~1): the plain maximum
        return np.maximum(x, floor)
    u = x - floor
    blend = floor + (u + delta) ** 2 / (4.0 * delta)
    out: FloatArray = np.where(u <= -delta, floor, np.where(u >= delta, x, blend))
    return out


def stretch_factor(distance: ArrayLike, total_length: float, soft_width: float, max_stretch: float) -> FloatArray:
    """The scale ``k`` (same shape as ``distance``) of a chain reaching a target ``distance`` from its root.

    ``soft_width``: the soft IK width in length units (``softness * L``; 0 for none). See the module text.
    """
    knee, delta, m = _check(total_length, soft_width, max_stretch)
    x = np.asarray(distance, dtype=np.float64) / knee
    x = np.where(np.isfinite(x), x, 1.0)
    k = _smooth_max(x, 1.0, delta)
    out: FloatArray = m - _smooth_max(m - k, 0.0, delta)
    return np.clip(out, 1.0, m)


def reach_limit(total_length: float, soft_width: float, max_stretch: float) -> float:
    """The farthest target distance a stretched chain reaches exactly."""
    knee, delta, m = _check(total_length, soft_width, max_stretch)
    return (m - delta) * knee


def volume_factor(stretch: ArrayLike) -> FloatArray:
    """Scale across the bone that keeps a bone's area when it is scaled by ``stretch`` along it."""
    out: FloatArray = 1.0 / np.sqrt(np.asarray(stretch, dtype=np.float64))
    return out


def scale_targets(targets: ArrayLike, total_length: float, soft_width: float,
                  max_stretch: float) -> tuple[FloatArray, FloatArray]:
    """``(targets / k, k)`` for targets ``(N, 2)`` or ``(2,)`` in shoulder space (root at the origin): solve the
    chain for the returned targets, then scale its positions and lengths by ``k`` (``(N,)`` or 0-d)."""
    t = np.asarray(targets, dtype=np.float64)
    d = np.linalg.norm(t, axis=-1)
    k = stretch_factor(d, total_length, soft_width, max_stretch)
    return t / k[..., None], k


def stretched_flags(k: ArrayLike) -> NDArray[np.int64]:
    """:data:`REACH_STRETCHED` where ``k`` stretched the chain, else 0."""
    out: NDArray[np.int64] = np.where(np.asarray(k) > 1.0 + _UNSTRETCHED, REACH_STRETCHED, 0).astype(np.int64)
    return out
