"""The closed forms shared by the single-frame path and the vectorized passes give the same numbers on both."""

from __future__ import annotations

import math
from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import pytest

from solver import closed_forms as cf
from solver import ops_array
from solver.limits import wrap_pi
from solver.soft import soft_distance, soft_inner_distance

RNG = np.random.default_rng(7)


def _each(function: Callable[..., float]) -> Callable[..., np.ndarray]:
    """``function`` of Python floats applied element by element to float64 arrays."""
    return lambda *xs: np.vectorize(function, otypes=[np.float64])(*xs)


# cf.ARRAYS with the C library's transcendental functions (Python's ``math``), element by element. The forms run
# the same operations in the same order on both paths, so with the same exp, atan2, cos and sin they give the
# same bits. numpy's own versions are SIMD ones on some CPUs (AVX-512) and may round an ULP or two apart from the
# C library: that is numpy's rounding, held to 1e-13 of the C library's results separately (:func:`elementwise`).
C_ARRAYS: cf.Ops[np.ndarray] = SimpleNamespace(  # type: ignore[assignment]
    **{name: getattr(ops_array, name) for name in ops_array.__all__
       if name not in ("atan2", "cos", "sin", "exp")},
    atan2=_each(math.atan2), cos=_each(math.cos), sin=_each(math.sin), exp=_each(math.exp))


def elementwise(form: Callable[..., object], *arrays: np.ndarray, **scalars: float) -> None:
    """``form`` on whole arrays equals ``form`` on each element's floats, bit for bit (the same C functions on
    both), and numpy's own functions give the arrays within 1e-13 (relative) of that."""
    whole = np.broadcast_to(np.asarray(form(*arrays, **scalars, ops=C_ARRAYS)), arrays[0].shape)
    for i in range(arrays[0].size):
        one = form(*(float(x[i]) for x in arrays), **scalars, ops=cf.FLOATS)
        assert isinstance(one, float), type(one)
        assert one == whole[i] or (math.isnan(one) and math.isnan(whole[i])), (i, one, whole[i])
    numpy_whole = np.broadcast_to(np.asarray(form(*arrays, **scalars, ops=cf.ARRAYS)), arrays[0].shape)
    np.testing.assert_allclose(numpy_whole, whole, rtol=1e-13, atol=1e-15)


def test_wrap_pi_is_one_formula_on_both_and_in_the_limits_module() -> None:
    x = np.concatenate([RNG.uniform(-20.0, 20.0, 200), [math.pi, -math.pi, 0.0, 3 * math.pi, -3 * math.pi]])
    elementwise(cf.wrap_pi, x)
    np.testing.assert_array_equal(wrap_pi(x), cf.wrap_pi(x, cf.ARRAYS))
    assert cf.wrap_pi(math.pi, cf.FLOATS) == math.pi and cf.wrap_pi(-math.pi, cf.FLOATS) == math.pi


@pytest.mark.parametrize(("a", "b"), [(1.0, 0.8), (0.8, 1.0), (1.0, 1.0)])
def test_half_angles(a: float, b: float) -> None:
    lo, hi = abs(a - b), a + b
    d = np.concatenate([RNG.uniform(lo, hi, 100), [lo, hi, lo + 1e-12, hi - 1e-12]])
    for k in range(2):
        elementwise(lambda d, ops, k=k: cf.half_angles(d, a, b, ops)[k], d)
    m, alpha = cf.half_angles(d, a, b, cf.ARRAYS)
    # The law of cosines itself: the elbow bend and the shoulder offset put the tip at distance d.
    gamma = math.pi - m
    np.testing.assert_allclose(np.sqrt(a * a + b * b - 2 * a * b * np.cos(gamma)), d, atol=1e-9)
    np.testing.assert_allclose(b * np.sin(m), d * np.sin(alpha), atol=1e-9)


def test_soft_forms_on_both_sides_of_their_knees() -> None:
    d = np.concatenate([RNG.uniform(0.0, 3.0, 200), [1.7, 1.8, 0.25, 1e6]])
    elementwise(cf.soft_outer, d, total=1.8, width=0.1)
    elementwise(cf.soft_inner, d, inner=0.2, width=0.05)
    np.testing.assert_array_equal(soft_distance(d, 1.8, 0.1), cf.soft_outer(d, 1.8, 0.1, cf.ARRAYS))
    np.testing.assert_array_equal(soft_inner_distance(d, 0.2, 0.05), cf.soft_inner(d, 0.2, 0.05, cf.ARRAYS))
    below = d < 1.7
    np.testing.assert_array_equal(cf.soft_outer(d, 1.8, 0.1, cf.ARRAYS)[below], d[below])
    assert np.all(cf.soft_outer(d, 1.8, 0.1, cf.ARRAYS) <= 1.8)


@pytest.mark.parametrize(("outer", "inner"), [(0.09, 0.0), (0.0, 0.05), (0.09, 0.05)])
def test_soft_slope_and_sensitivity(outer: float, inner: float) -> None:
    a, b = 1.0, 0.8
    raw = np.concatenate([RNG.uniform(0.0, 2.5, 100), [0.0, 1e-12, 1.71, 1.8]])
    elementwise(lambda r, ops: cf.soft_slope(r, a, b, outer, inner, ops), raw)
    d = np.clip(raw, 0.2 + 1e-9, 1.8 - 1e-9)
    k = np.asarray(cf.soft_slope(raw, a, b, outer, inner, cf.ARRAYS))
    elementwise(lambda r, dd, kk, ops: cf.sensitivity(r, dd, (dd - 0.2) * (dd + 0.2), (1.8 - dd) * (1.8 + dd), kk,
                                                      a, b, 1e-9, ops), raw, d, k)
    assert cf.soft_slope(1.0, a, b, 0.0, 0.0, cf.FLOATS) == 1.0


def test_stretch_forms_including_their_guarded_cases() -> None:
    a, b = 1.0, 0.8
    d = RNG.uniform(0.25, 1.9, 120)
    elbow = np.concatenate([RNG.uniform(-math.pi, math.pi, 119), [math.pi]])  # a = b would span 0 at pi
    elementwise(lambda dd, e, ops: cf.stretch_factor(dd, e, a, b, 0.8, 1.3, ops), d, elbow)
    elementwise(lambda dd, e, ops: cf.stretch_factor(dd, e, 1.0, 1.0, 0.8, 1.3, ops), d, elbow)
    t = RNG.uniform(-math.pi, math.pi, 120)
    sx, sy = d * np.cos(t), d * np.sin(t)
    for s_bound in (-2.0, 0.3, 2.9):
        elementwise(lambda x, y, dd, ops, s=s_bound: cf.shoulder_stretch(x, y, dd, s, a, b, 0.8, 1.3, ops), sx, sy, d)
    k = cf.shoulder_stretch(sx, sy, d, 0.3, a, b, 0.8, 1.3, cf.ARRAYS)
    assert np.all((k >= 0.8) & (k <= 1.3)) and np.any(k == 1.0) and np.any((k != 1.0) & (k > 0.8) & (k < 1.3))


def test_forward_kinematics_with_and_without_a_root() -> None:
    s = RNG.uniform(-4.0, 4.0, 50)
    e = RNG.uniform(-3.0, 3.0, 50)
    for k in range(4):
        elementwise(lambda ss, ee, ops, k=k: cf.fk(ss, ee, 1.0, 0.8, 0.0, 0.0, ops)[k], s, e)
        elementwise(lambda ss, ee, ops, k=k: cf.fk(ss, ee, 1.1, 0.9, 0.25, -0.5, ops)[k], s, e)
    ex, ey, tx, ty = cf.fk(s, e, 1.0, 0.8, 0.25, -0.5, cf.ARRAYS)
    np.testing.assert_allclose(np.hypot(ex - 0.25, ey + 0.5), 1.0)
    np.testing.assert_allclose(np.hypot(tx - ex, ty - ey), 0.8)
    np.testing.assert_allclose(np.arctan2(ty - ey, tx - ex), np.arctan2(np.sin(s + e), np.cos(s + e)))


# --- each form against an independent oracle (the float/array tests above cannot see a slip both share) --------


@pytest.mark.parametrize(("outer", "inner"), [(0.09, 0.0), (0.0, 0.05), (0.09, 0.05), (0.5, 0.4), (0.95, 0.9)])
def test_soft_slope_is_the_derivative_of_the_soft_distances(outer: float, inner: float) -> None:
    a, b = 1.0, 0.8  # L = 1.8, r = 0.2

    def soft(x: np.ndarray) -> np.ndarray:
        y = cf.soft_outer(x, 1.8, outer, cf.ARRAYS) if outer > 0.0 else x
        return cf.soft_inner(y, 0.2, inner, cf.ARRAYS) if inner > 0.0 else y

    # Both knees and both sides of them, away from the kinks themselves (one-sided there); the last widths
    # overlap (outer knee below the inner one), where the inner slope is taken at the outer-softened distance.
    raw = np.concatenate([np.linspace(0.01, 2.6, 400), [0.21, 0.24, 0.26, 1.65, 1.75, 1.85]])
    raw = raw[np.min(np.abs(raw[:, None] - np.array([0.2 + inner, 1.8 - outer])[None, :]), axis=1) > 1e-4]
    h = 1e-7
    numeric = (soft(raw + h) - soft(raw - h)) / (2 * h)
    np.testing.assert_allclose(cf.soft_slope(raw, a, b, outer, inner, cf.ARRAYS), numeric, rtol=1e-5, atol=1e-7)


def test_soft_chain_factor_keeps_the_frame_axis_without_soft_ik() -> None:
    from solver.sensitivity import soft_chain_factor

    got = soft_chain_factor(np.array([0.5, 1.0, 1.5]), 1.0, 0.8, 0.0, 0.0)
    assert got.shape == (3,) and np.all(got == 1.0)


def test_stretch_factor_makes_the_scaled_chain_span_the_distance() -> None:
    a, b = 1.0, 0.8
    elbow = RNG.uniform(-math.pi, math.pi, 200)
    span = np.sqrt(a * a + b * b + 2 * a * b * np.cos(elbow))  # law of cosines, the chain's own reach
    d = span * RNG.uniform(0.5, 2.0, 200)
    k = cf.stretch_factor(d, elbow, a, b, 0.01, 100.0, cf.ARRAYS)
    np.testing.assert_allclose(k * span, d, rtol=1e-12)
    # Clipped to the range; a chain folded onto itself (a = b, elbow = pi) spans nothing: the largest factor.
    np.testing.assert_array_equal(cf.stretch_factor(d, elbow, a, b, 0.9, 1.1, cf.ARRAYS), np.clip(k, 0.9, 1.1))
    assert cf.stretch_factor(0.7, math.pi, 1.0, 1.0, 0.9, 1.1, cf.FLOATS) == 1.1
    assert cf.stretch_factor(0.3, math.pi, 1.0, 1.0, 0.5, 2.0, cf.FLOATS) == 2.0


def _shoulder_roots(sx: float, sy: float, s: float, a: float, b: float) -> list[float]:
    """Every scale k > 0 with |T/k - a u| = b (u at angle s), from numpy's polynomial roots in w = 1/k."""
    d2 = sx * sx + sy * sy
    p = sx * math.cos(s) + sy * math.sin(s)
    roots = np.roots([d2, -2.0 * a * p, a * a - b * b])
    return [1.0 / float(w.real) for w in roots if abs(w.imag) < 1e-12 and w.real > 0.0]


def test_shoulder_stretch_is_the_root_nearest_to_one_or_one() -> None:
    seen = {"two roots": 0, "one root": 0, "none": 0}
    for i in range(600):
        a, b = (1.0, 0.8) if i % 2 else (0.8, 1.0)  # a < b: the roots' product is negative, one is positive
        t = RNG.uniform(-math.pi, math.pi)
        d = RNG.uniform(0.05, 2.5)
        sx, sy, s = d * math.cos(t), d * math.sin(t), RNG.uniform(-math.pi, math.pi)
        k = cf.shoulder_stretch(sx, sy, d, s, a, b, 0.01, 100.0, cf.FLOATS)
        roots = _shoulder_roots(sx, sy, s, a, b)
        seen["none" if not roots else "one root" if len(roots) == 1 else "two roots"] += 1
        if not roots:
            assert k == 1.0
            continue
        best = min(roots, key=lambda r: abs(r - 1.0))
        assert k == pytest.approx(best, rel=1e-9), (sx, sy, s, roots)
        # The scaled chain really reaches: the tip of k (a u + b v) for some v is the target.
        ux, uy = math.cos(s), math.sin(s)
        assert math.hypot(sx / k - a * ux, sy / k - a * uy) == pytest.approx(b, rel=1e-9)
        assert cf.shoulder_stretch(sx, sy, d, s, a, b, 0.9, 1.1, cf.FLOATS) == min(max(k, 0.9), 1.1)
    assert min(seen.values()) > 10, seen  # every case was met
