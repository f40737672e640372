"""Soft reach limits: compress distances near full extension so the arm never locks (source: 软化伸展极限)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import closed_forms
from .closed_forms import ARRAYS

FloatArray = NDArray[np.float64]


def soft_distance(d: ArrayLike, total_length: float, soft_width: float) -> FloatArray:
    """Return the softened reach distance.

    ``d`` (any shape, length units) below ``total_length - soft_width`` passes unchanged; above it the
    distance becomes ``L - s * exp(-(d - (L - s)) / s)``: value and first derivative are continuous at
    ``L - s`` and the result stays strictly below ``L``. ``soft_width`` is in length units (not a fraction);
    ``soft_width <= 0`` returns ``d`` unchanged (the caller's hard clamp then applies). The formula is
    :func:`solver.closed_forms.soft_outer`, shared with the single-frame path.
    """
    d_arr = np.asarray(d, dtype=np.float64)
    s = float(soft_width)
    if s <= 0.0:
        return d_arr.copy()
    return np.asarray(closed_forms.soft_outer(d_arr, float(total_length), s, ARRAYS))


def soft_distance_derivative(d: ArrayLike, total_length: float, soft_width: float) -> FloatArray:
    """d(soft_distance)/dd: 1 below the knee, ``exp(-(d - (L - s)) / s)`` above it."""
    d_arr = np.asarray(d, dtype=np.float64)
    s = float(soft_width)
    if s <= 0.0:
        return np.ones_like(d_arr)
    knee = float(total_length) - s
    over = np.maximum(d_arr - knee, 0.0)
    return np.where(d_arr > knee, np.exp(-over / s), 1.0)


def soft_inner_distance(d: ArrayLike, inner_radius: float, soft_width: float) -> FloatArray:
    """Mirror of :func:`soft_distance` at the inner boundary.

    Below ``inner_radius + s`` the distance becomes ``r + s * exp((d - (r + s)) / s)``: C1 at the knee,
    strictly above ``r`` for finite ``d``. ``soft_width <= 0`` returns ``d`` unchanged.
    """
    d_arr = np.asarray(d, dtype=np.float64)
    s = float(soft_width)
    if s <= 0.0:
        return d_arr.copy()
    return np.asarray(closed_forms.soft_inner(d_arr, float(inner_radius), s, ARRAYS))
