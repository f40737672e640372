"""Soft IK (软化伸展极限): C1 at the knee, monotonic, never reaching L; softness=0 is the hard clamp."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import IKFlag, soft_distance, soft_inner_distance, solve_two_bone
from solver.soft import soft_distance_derivative


@settings(max_examples=150, deadline=None)
@given(st.floats(1e-3, 1e4), st.floats(0.01, 0.2))
def test_soft_distance_is_c1_at_the_knee_monotonic_and_below_l(total: float, fraction: float) -> None:
    s = fraction * total
    knee = total - s
    h = 1e-6 * s
    # Value continuous at the knee; one-sided slopes both 1 (C1).
    below = soft_distance(knee - h, total, s)
    at = soft_distance(knee, total, s)
    above = soft_distance(knee + h, total, s)
    assert at == knee
    assert abs((at - below) / h - 1.0) < 1e-6
    assert abs((above - at) / h - 1.0) < 1e-5
    assert soft_distance_derivative(knee, total, s) == 1.0
    d = np.concatenate([np.linspace(0, 3 * total, 3001), total * np.array([10.0, 1e3, 1e6])])
    out = soft_distance(d, total, s)
    assert (np.diff(out) >= 0).all()
    assert (out[d < knee + 20 * s] < total).all()  # strictly below L until exp(-20) hits rounding
    assert (out <= total).all()
    # Analytic derivative matches finite differences everywhere above the knee.
    mid = knee + s * np.array([0.1, 0.5, 1.0, 3.0])
    fd = (soft_distance(mid + h, total, s) - soft_distance(mid - h, total, s)) / (2 * h)
    np.testing.assert_allclose(fd, np.exp(-(mid - knee) / s), rtol=1e-5)


def test_inner_softening_mirrors_the_outer_one() -> None:
    r, s = 25.0, 10.0
    d = np.linspace(0.0, 100.0, 2001)
    out = soft_inner_distance(d, r, s)
    assert (np.diff(out) > 0).all() and (out > r).all()
    np.testing.assert_array_equal(out[d >= r + s], d[d >= r + s])


def test_softness_zero_reproduces_the_hard_clamp_exactly() -> None:
    rng = np.random.default_rng(11)
    targets = rng.uniform(-400, 400, size=(500, 2))
    hard = solve_two_bone(targets, 150.0, 125.0)
    zero = solve_two_bone(targets, 150.0, 125.0, softness=0.0, inner_softness=0.0)
    for name in ("shoulder_angle", "elbow_angle", "end", "error", "flags", "sensitivity"):
        np.testing.assert_array_equal(getattr(zero, name), getattr(hard, name))


def test_soft_arm_never_locks_and_the_error_is_the_softened_distance() -> None:
    a, b = 150.0, 125.0
    total = a + b
    d = np.linspace(200.0, 400.0, 801)
    targets = np.stack([d, np.zeros_like(d)], axis=1)
    res = solve_two_bone(targets, a, b, softness=0.05)
    assert (res.elbow_angle > 1e-6).all()  # always a little bend: no "snap" to straight
    assert (np.diff(res.elbow_angle) <= 1e-15).all()  # straightens monotonically
    np.testing.assert_allclose(res.solved_distance, soft_distance(d, total, 0.05 * total), rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.error, np.abs(d - res.solved_distance), atol=1e-9 * total)
    assert (((res.flags & IKFlag.SOFTENED) != 0) == (d > total - 0.05 * total)).all()
    # The elbow angle is C1 across the knee: no kink in the curve (second difference stays small).
    knee = int(np.searchsorted(d, total - 0.05 * total))
    second = np.abs(np.diff(res.elbow_angle, 2))
    assert second[knee - 3 : knee + 3].max() < 5 * np.median(second[knee - 40 : knee - 10])


def test_soft_ik_bounds_the_sensitivity_at_the_outer_limit() -> None:
    a, b = 150.0, 125.0
    total = a + b
    d = np.concatenate([np.linspace(260.0, 300.0, 4001), [total, 1e4]])
    targets = np.stack([d, np.zeros_like(d)], axis=1)
    hard = solve_two_bone(targets, a, b)
    for fraction in (0.03, 0.05, 0.08):
        soft = solve_two_bone(targets, a, b, softness=fraction)
        s = fraction * total
        # Bound from the closed form: k*|m'| <= sqrt(2L / ((L^2 - r^2) s)), plus 1/d and the alpha term.
        bound = 3 * math.sqrt(2 * total / ((total**2 - (a - b) ** 2) * s)) + 1 / 260.0
        assert soft.sensitivity.max() < bound
        assert np.isfinite(soft.sensitivity).all()
    assert hard.sensitivity.max() > 100 * bound  # the hard clamp sits on the acos singularity
