"""The two-bone solver's closed forms, written once for Python floats and for numpy arrays.

The single-frame path (:mod:`solver.two_bone.single_frame`, pure ``math`` because a numpy call costs more
than its whole solve) and the vectorized passes used to restate these formulas by hand. Each one here takes
its elementwise functions from an :class:`Ops` module, :data:`FLOATS` or :data:`ARRAYS`, so both paths
run the same operations in the same order and a fix lands once. They round alike where numpy's ``exp``,
``arctan2``, ``cos`` and ``sin`` round as the C library's ``math`` does; numpy's SIMD versions (AVX-512 CPUs)
may differ by an ULP or two, so there the paths can differ in the last bits of a double. Only what a formula
needs beyond Python's operators is in :class:`Ops`; a "where" on floats evaluates both sides, so every
formula guards its divisions for both.

The vectorized block kernel (:func:`solver.two_bone.kernel.solve_block`) keeps its own in-place copy of the
half-angle solve and FK (``out=`` buffers, FK without trigonometry: its speed);
``tests/solver/test_single_frame_path.py`` holds it to the single-frame path, hence to these forms.
"""

from __future__ import annotations

import math
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from . import ops_array, ops_float

FloatArray = NDArray[np.float64]
F = TypeVar("F", float, FloatArray)

TAU = 2.0 * math.pi


class Ops(Protocol[F]):
    """Elementwise functions for one kind of number.

    Implemented by the modules :mod:`solver.ops_float` (:data:`FLOATS`) and :mod:`solver.ops_array`
    (:data:`ARRAYS`).
    """

    def sqrt(self, x: F, /) -> F: ...
    def atan2(self, y: F, x: F, /) -> F: ...
    def cos(self, x: F, /) -> F: ...
    def sin(self, x: F, /) -> F: ...
    def exp(self, x: F, /) -> F: ...
    def ceil(self, x: F, /) -> F: ...
    def where(self, condition: Any, yes: F | float, no: F | float, /) -> F: ...
    def maximum(self, x: F, bound: float, /) -> F: ...
    def minimum(self, x: F, bound: float, /) -> F: ...
    def isinf(self, x: F, /) -> Any: ...


FLOATS: Ops[float] = ops_float
ARRAYS: Ops[FloatArray] = ops_array


def wrap_pi(x: F, ops: Ops[F]) -> F:
    """``x`` wrapped to ``(-pi, pi]``."""
    return x - TAU * ops.ceil((x - math.pi) / TAU)


def half_angles(d: F, a: float, b: float, ops: Ops[F]) -> tuple[F, F]:
    """Elbow bend magnitude ``pi - gamma`` and shoulder offset ``alpha`` for clamped distances ``d``.

    Half-angle forms of the law of cosines: ``cos^2(gamma/2) = (L^2-d^2)/(4ab)``,
    ``sin^2(gamma/2) = (d^2-r^2)/(4ab)`` (same for alpha). They equal ``acos`` of the document's clamped
    cosines but keep full relative precision at both reach boundaries, where ``acos`` loses half the digits.
    """
    total = a + b
    r = abs(a - b)
    lmd = total - d
    lpd = total + d
    m = 2.0 * ops.atan2(ops.sqrt(lmd * lpd), ops.sqrt((d - r) * (d + r)))
    alpha = 2.0 * ops.atan2(ops.sqrt((b - a + d) * lmd), ops.sqrt((a - b + d) * lpd))
    return m, alpha


def soft_outer(d: F, total: float, width: float, ops: Ops[F]) -> F:
    """Soft IK at full reach: ``L - s exp(-(d - (L - s)) / s)`` above the knee ``L - s``, ``d`` below it.

    ``width`` (``s``) is in length units and must be > 0. Value and slope are continuous at the knee; the
    result stays below ``L`` (reaching it by rounding only far beyond reach).
    """
    knee = total - width
    # The maximum keeps exp's argument <= 0 on the pass-through side (no overflow where it is not used).
    return ops.where(d > knee, total - width * ops.exp(-ops.maximum(d - knee, 0.0) / width), d)


def soft_inner(d: F, inner: float, width: float, ops: Ops[F]) -> F:
    """Soft IK at the inner radius ``r``: ``r + s exp((d - (r + s)) / s)`` below the knee ``r + s`` (``s > 0``)."""
    knee = inner + width
    return ops.where(d < knee, inner + width * ops.exp(ops.minimum(d - knee, 0.0) / width), d)


def soft_slope(raw: F, a: float, b: float, outer_width: float, inner_width: float, ops: Ops[F]) -> F | float:
    """d(softened distance)/d(raw distance) through the outer then the inner soft IK (widths in length units).

    Without soft IK (both widths 0) the slope is the float 1.0, whatever ``raw`` is.
    """
    total = a + b
    k: F | float = 1.0
    d1: F = raw
    if outer_width > 0.0:
        knee = total - outer_width
        k = ops.exp(-ops.maximum(raw - knee, 0.0) / outer_width)
        d1 = ops.where(raw > knee, total - outer_width * k, raw)
    if inner_width > 0.0:
        knee_in = abs(a - b) + inner_width
        k = k * ops.exp(ops.minimum(d1 - knee_in, 0.0) / inner_width)
    return k


def sensitivity(
    raw: F, d: F, inner_product: F, outer_product: F, chain_factor: F | float, a: float, b: float, zero_distance: float,
    ops: Ops[F],
) -> F:
    """Largest singular value of d(shoulder, elbow)/d(target) (see :mod:`solver.sensitivity`).

    ``inner_product`` is ``(d-r)(d+r)``, ``outer_product`` ``(L-d)(L+d)``, ``chain_factor`` :func:`soft_slope`.
    """
    k = chain_factor
    q = ops.sqrt(inner_product * outer_product)
    m_rate = 2.0 * d / q
    alpha_rate = abs(d * d + (b * b - a * a)) / (d * q)
    inv_raw = 1.0 / ops.maximum(raw, zero_distance)
    frob2 = k * k * (alpha_rate * alpha_rate + m_rate * m_rate) + inv_raw * inv_raw
    det2 = 2.0 * k * m_rate * inv_raw
    # (s1 + s2)^2 = F^2 + 2|det| and (s1 - s2)^2 = F^2 - 2|det|: no cancellation-prone F^4 - 4 det^2.
    return 0.5 * (ops.sqrt(frob2 + det2) + ops.sqrt(ops.maximum(frob2 - det2, 0.0)))


def stretch_factor(d: F, elbow: F, a: float, b: float, lo: float, hi: float, ops: Ops[F]) -> F:
    """Bone scale that makes a chain whose elbow sits at ``elbow`` span ``d``, clipped to ``[lo, hi]``.

    The chain spans ``D = sqrt(a^2 + b^2 + 2ab cos(elbow))``; the factor is ``d / D`` (``hi`` where D = 0).
    """
    span = ops.sqrt(a * a + b * b + 2.0 * a * b * ops.cos(elbow))
    ratio = ops.where(span > 0.0, d / ops.where(span > 0.0, span, 1.0), hi)
    return ops.minimum(ops.maximum(ratio, lo), hi)


def shoulder_stretch(
    sx: F, sy: F, d: F, s_bound: float, a: float, b: float, lo: float, hi: float, ops: Ops[F],
) -> F:
    """Bone scale that puts the tip on the target with the shoulder at ``s_bound``, clipped to ``[lo, hi]``.

    The target is ``(sx, sy)``, at distance ``d``.

    The scaled tip ``k (a u + b v)`` meets the target when ``T / k`` is at distance ``b`` from ``a u``
    (u = (cos s, sin s)): ``w^2 d^2 - 2 w a (T.u) + a^2 - b^2 = 0`` with ``w = 1/k``; the positive root nearest
    to 1 (none real: 1).
    """
    d2 = d * d
    p = sx * math.cos(s_bound) + sy * math.sin(s_bound)
    disc = a * a * p * p - d2 * (a * a - b * b)
    root = ops.sqrt(ops.maximum(disc, 0.0))
    w1 = (a * p + root) / d2
    w2 = (a * p - root) / d2
    k1 = ops.where(w1 > 0.0, 1.0 / ops.where(w1 > 0.0, w1, 1.0), math.inf)
    k2 = ops.where(w2 > 0.0, 1.0 / ops.where(w2 > 0.0, w2, 1.0), math.inf)
    k = ops.where(abs(k2 - 1.0) < abs(k1 - 1.0), k2, k1)
    k = ops.where((disc < 0.0) | ops.isinf(k), 1.0, k)
    return ops.minimum(ops.maximum(k, lo), hi)


def fk(
    s: F, e: F, a: F | float, b: F | float, root_x: F | float, root_y: F | float, ops: Ops[F],
) -> tuple[F, F, F, F]:
    """Forward kinematics (docs/design.md): elbow and tip ``(ex, ey, end_x, end_y)`` from the angles.

    The bones are ``a`` and ``b`` long, the shoulder sits at ``(root_x, root_y)``.
    """
    ex = a * ops.cos(s) + root_x
    ey = a * ops.sin(s) + root_y
    se = s + e
    return ex, ey, ex + b * ops.cos(se), ey + b * ops.sin(se)


def dist2(x: F, y: F, tx: F | float, ty: F | float) -> F:
    """Squared distance from ``(x, y)`` to ``(tx, ty)``."""
    dx = x - tx
    dy = y - ty
    return dx * dx + dy * dy
