"""Stretch to reach (solver.stretch), composed around the public two-bone solve: the scale never exceeds
max_stretch, the tip reaches every target within reach_limit, the onset is C1 with softness and the reached
distance is monotonic. Truth: forward kinematics of the solved angles at the stretched lengths."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import forward_kinematics, solve_two_bone
from solver.result import IKFlag
from solver.stretch import (
    REACH_STRETCHED,
    reach_limit,
    scale_targets,
    stretch_factor,
    stretched_flags,
    volume_factor,
)

A, B = 1.0, 0.8
L = A + B


def solve_stretched(targets: np.ndarray, softness: float, max_stretch: float) -> tuple[np.ndarray, np.ndarray]:
    """Tip positions (N, 2) and scales (N,) of the chain with stretch to reach, as rigging/chain_solve composes
    it: solve for targets / k, scale the pose back by k."""
    scaled, k = scale_targets(targets, L, softness * L, max_stretch)
    r = solve_two_bone(scaled, A, B, softness=softness)
    _elbow, tip = forward_kinematics(r.shoulder_angle, r.elbow_angle, A, B, scale=k)
    return tip, k


@settings(max_examples=80, deadline=None)
@given(d=st.floats(0.0, 10.0), softness=st.floats(0.0, 0.3), m=st.floats(1.0, 3.0))
def test_stretch_never_exceeds_max_and_never_shrinks(d, softness, m) -> None:  # type: ignore[no-untyped-def]
    k = float(stretch_factor(d, L, softness * L, m))
    assert 1.0 <= k <= m


@settings(max_examples=80, deadline=None)
@given(frac=st.floats(0.05, 1.0), angle=st.floats(-3.1, 3.1), softness=st.floats(0.0, 0.3),
       m=st.floats(1.0, 2.5))
def test_targets_within_the_reach_limit_are_reached(frac, angle, softness, m) -> None:  # type: ignore[no-untyped-def]
    inner = abs(A - B) * 1.01  # the inner ring the folded chain cannot reach inside
    d = inner + frac * (reach_limit(L, softness * L, m) - inner)
    target = d * np.array([[np.cos(angle), np.sin(angle)]])
    tip, _k = solve_stretched(target, softness, m)
    assert np.linalg.norm(tip - target) < 1e-8 * L


def test_targets_beyond_are_reached_softly_at_the_stretched_length() -> None:
    m, softness = 1.25, 0.05
    d = np.linspace(reach_limit(L, softness * L, m) * 1.01, 4 * L, 50)
    tip, k = solve_stretched(np.stack([d, np.zeros_like(d)], axis=1), softness, m)
    reached = np.linalg.norm(tip, axis=1)
    assert np.all(reached < m * L) and np.all(reached < d)
    assert np.all(k <= m) and k[-1] == m
    # Far away the stretched chain is straight at m * L, approached like soft IK of width m * s.
    assert abs(reached[-1] - m * L) < 1e-6


@pytest.mark.parametrize("softness", [0.02, 0.1, 0.25])
@pytest.mark.parametrize("m", [1.05, 1.25, 2.0])
def test_reached_distance_and_scale_are_c1_and_monotonic(softness: float, m: float) -> None:
    d = np.linspace(0.5 * L, 3.0 * m * L, 60001)
    h = d[1] - d[0]
    tip, k = solve_stretched(np.stack([d, np.zeros_like(d)], axis=1), softness, m)
    r = tip[:, 0]
    assert np.all(np.diff(r) >= -1e-12) and np.all(np.diff(k) >= 0)
    # C1: the slope changes by no more than the curvature allows over one step (a corner jumps by O(1)).
    for curve in (r, k * L):
        slope = np.diff(curve) / h
        assert np.abs(np.diff(slope)).max() < 1e-2, np.abs(np.diff(slope)).max()


def test_without_softness_the_onset_is_the_plain_clamp() -> None:
    d = np.array([0.5 * L, L, 1.1 * L, 1.3 * L, 5 * L])
    np.testing.assert_allclose(stretch_factor(d, L, 0.0, 1.25), [1.0, 1.0, 1.1, 1.25, 1.25])


def test_onset_is_where_the_soft_knee_would_start() -> None:
    s = 0.1 * L
    knee = L - s
    delta = s / knee
    # Unstretched below the blend, k = d / knee above it, the smooth maximum in between.
    assert stretch_factor((1 - delta) * knee * 0.999, L, s, 2.0) == 1.0
    assert stretch_factor((1 + delta) * knee * 1.001, L, s, 2.0) == pytest.approx((1 + delta) * 1.001)
    assert stretch_factor(knee, L, s, 2.0) > 1.0


def test_flags_and_volume() -> None:
    assert REACH_STRETCHED == int(IKFlag.STRETCHED_TO_REACH)
    assert list(stretched_flags(np.array([1.0, 1.0 + 1e-15, 1.2]))) == [0, 0, REACH_STRETCHED]
    k = np.array([1.0, 1.21, 4.0])
    np.testing.assert_allclose(volume_factor(k), [1.0, 1 / 1.1, 0.5])
    np.testing.assert_allclose(volume_factor(k) ** 2 * k, 1.0)  # the area across x along stays


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="max_stretch"):
        stretch_factor(1.0, L, 0.0, 0.9)
    with pytest.raises(ValueError, match="soft_width"):
        stretch_factor(1.0, L, L, 1.2)
