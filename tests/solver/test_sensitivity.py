"""Sensitivity |d angles / d target| against a finite-difference Jacobian of the solve itself."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import solve_two_bone


def _fd_sigma(target: np.ndarray, a: float, b: float, h: float, **options: object) -> float:
    """Largest singular value of d(shoulder, elbow)/d(target) by central differences."""
    jac = np.empty((2, 2))
    for k in range(2):
        step = np.zeros(2)
        step[k] = h
        plus = solve_two_bone(np.array([target + step]), a, b, **options)
        minus = solve_two_bone(np.array([target - step]), a, b, **options)
        ds = math.remainder(plus.shoulder_angle[0] - minus.shoulder_angle[0], 2 * math.pi)
        jac[:, k] = [ds / (2 * h), (plus.elbow_angle[0] - minus.elbow_angle[0]) / (2 * h)]
    return float(np.linalg.svd(jac, compute_uv=False)[0])


@settings(max_examples=120, deadline=None)
@given(
    st.floats(0.5, 5.0),
    st.floats(0.5, 5.0),
    st.floats(0.05, 0.95),
    st.floats(-math.pi, math.pi),
    st.sampled_from([0.0, 0.06]),
    st.sampled_from([1, -1]),
)
def test_sensitivity_matches_finite_differences(
    a: float, b: float, where: float, ang: float, softness: float, bend: int
) -> None:
    inner, total = abs(a - b), a + b
    d = inner + where * (total - inner) * 1.2  # also beyond the reach when softened
    if softness == 0.0:
        d = min(d, total - 1e-3 * total)
    target = d * np.array([math.cos(ang), math.sin(ang)])
    res = solve_two_bone(np.array([target]), a, b, softness=softness, bend=bend)
    fd = _fd_sigma(target, a, b, 1e-6 * total, softness=softness, bend=bend)
    assert math.isclose(res.sensitivity[0], fd, rel_tol=1e-4, abs_tol=1e-9)


def test_sensitivity_explodes_near_full_extension_and_fold_without_soft_ik() -> None:
    a, b = 150.0, 125.0
    d = np.array([200.0, 274.0, 274.999, 25.001, 26.0])
    res = solve_two_bone(np.stack([d, np.zeros_like(d)], axis=1), a, b)
    assert res.sensitivity[2] > 10 * res.sensitivity[1] > 10 * res.sensitivity[0]
    assert res.sensitivity[3] > 10 * res.sensitivity[4] > res.sensitivity[0]


def test_sensitivity_is_finite_on_clamped_and_degenerate_frames() -> None:
    targets = np.array([[0.0, 0.0], [1e-300, 0.0], [275.0, 0.0], [1e9, 0.0], [25.0, 0.0]])
    for a, b in ((150.0, 125.0), (100.0, 100.0)):
        res = solve_two_bone(targets, a, b)
        assert np.isfinite(res.sensitivity).all() and (res.sensitivity > 0).all()
