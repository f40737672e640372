"""The closed forms shared by the single-frame path and the vectorized passes give the same numbers on both."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from solver import closed_forms as cf
from solver.limits import wrap_pi
from solver.soft import soft_distance, soft_inner_distance

RNG = np.random.default_rng(7)


def elementwise(form: Callable[..., object], *arrays: np.ndarray, **scalars: float) -> None:
    """``form`` on whole arrays equals ``form`` on each element's floats, bit for bit."""
    whole = np.broadcast_to(np.asarray(form(*arrays, **scalars, ops=cf.ARRAYS)), arrays[0].shape)
    for i in range(arrays[0].size):
        one = form(*(float(x[i]) for x in arrays), **scalars, ops=cf.FLOATS)
        assert isinstance(one, float), type(one)
        assert one == whole[i] or (math.isnan(one) and math.isnan(whole[i])), (i, one, whole[i])


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
