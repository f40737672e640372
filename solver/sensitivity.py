"""How much target noise the analytic solution amplifies (source: 目标抖一个像素，肘部抖十度).

The law of cosines feeds a ratio ``x`` into ``acos``, whose derivative ``-1/sqrt(1 - x^2)`` diverges at
full extension (x -> 1) and full fold (x -> -1). In terms of the solved distance ``d`` (r = |a-b|,
L = a+b), ``sin(gamma) = Q / (2ab)`` with ``Q = sqrt((d^2 - r^2) (L^2 - d^2))``, so

- elbow:    |d elbow / d d| = 2 d / Q
- shoulder: |d alpha / d d| = |d^2 - a^2 + b^2| / (d Q)
- direction: |d phi / d target| = 1 / d_raw (tangential; unaffected by soft IK)

In the (radial, tangential) basis the Jacobian d(shoulder, elbow)/d(target) is
``[[-bend*alpha'*k, 1/d_raw], [bend*m'*k, 0]]`` where ``k`` is the derivative of the soft IK mapping
(1 where no softening). The sensitivity is its largest singular value, in radians per length unit.

Conventions that keep it finite everywhere: at a hard-clamped frame the clamp's own zero derivative is
ignored and the value is the one-sided derivative from inside the reachable range, evaluated at the clamped
distance (``eps`` away from the boundary, hence large but finite: it says "noise here snaps the elbow").
Soft IK bounds it at the outer limit because ``k`` decays faster than ``1/Q`` grows. Near the shoulder the
direction term uses ``max(d_raw, zero_distance)``. Joint limits and strategies are not included: this is
the amplification of the analytic solution that the limits then act on.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import closed_forms
from .closed_forms import ARRAYS

FloatArray = NDArray[np.float64]


def soft_chain_factor(
    raw_distance: ArrayLike,
    a: float,
    b: float,
    outer_width: float,
    inner_width: float,
) -> FloatArray:
    """d(softened distance)/d(raw distance) through the outer then inner soft IK (widths in length units)."""
    d = np.asarray(raw_distance, dtype=np.float64)
    k = closed_forms.soft_slope(d, a, b, outer_width, inner_width, ARRAYS)
    return np.ones_like(d) if isinstance(k, float) else np.asarray(k)


def angle_sensitivity(
    raw_distance: ArrayLike,
    solved_distance: ArrayLike,
    chain_factor: ArrayLike,
    a: float,
    b: float,
    zero_distance: float,
) -> FloatArray:
    """Largest singular value of d(shoulder, elbow)/d(target), radians per length unit, per frame.

    ``raw_distance``: |target|; ``solved_distance``: after soft IK and the hard clamp (strictly inside
    ``(|a-b|, a+b)``); ``chain_factor``: :func:`soft_chain_factor`; ``zero_distance``: floor of the raw
    distance for the direction term.
    """
    d = np.asarray(solved_distance, dtype=np.float64)
    r = abs(a - b)
    total = a + b
    return sensitivity_from_products(
        np.asarray(raw_distance, dtype=np.float64),
        d,
        (d - r) * (d + r),
        (total - d) * (total + d),
        chain_factor,
        a,
        b,
        zero_distance,
    )


def sensitivity_from_products(
    raw_distance: FloatArray,
    d: FloatArray,
    inner_product: FloatArray,
    outer_product: FloatArray,
    chain_factor: ArrayLike,
    a: float,
    b: float,
    zero_distance: float,
) -> FloatArray:
    """:func:`angle_sensitivity` given ``(d-r)(d+r)`` and ``(L-d)(L+d)`` (already computed by the solve).

    The formula is :func:`solver.closed_forms.sensitivity`, shared with the single-frame path.
    """
    k = np.asarray(chain_factor, dtype=np.float64)
    return np.asarray(
        closed_forms.sensitivity(raw_distance, d, inner_product, outer_product, k, a, b, zero_distance, ARRAYS)
    )
