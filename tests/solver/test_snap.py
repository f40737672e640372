"""Snap FK to IK (solver.snap): the target placed for an FK tip is one the soft solve brings back to that tip,
and the pole lies on the elbow's side of the shoulder->tip line. Truth: solver.soft and plain geometry."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import solve_two_bone
from solver.snap import INVERSE_CAP, inverse_soft_distance, snap_pole, snap_target
from solver.soft import soft_distance

L = 1.8


@settings(max_examples=80, deadline=None)
@given(r=st.floats(0.0, 0.9999 * L), softness=st.floats(0.0, 0.4))
def test_soft_reach_of_the_inverse_is_the_fk_distance(r, softness) -> None:  # type: ignore[no-untyped-def]
    d = inverse_soft_distance(r, L, softness * L)
    assert d >= r - 1e-15
    assert abs(float(soft_distance(d, L, softness * L)) - r) < 1e-9 * L


def test_full_reach_and_beyond_are_capped() -> None:
    s = 0.1 * L
    assert float(inverse_soft_distance(L, L, s)) == (L - s) + INVERSE_CAP * s
    assert float(inverse_soft_distance(2 * L, L, s)) == (L - s) + INVERSE_CAP * s
    assert float(inverse_soft_distance(0.5, L, 0.0)) == 0.5


def test_snapped_target_gives_the_fk_tip_back_through_the_solver() -> None:
    rng = np.random.default_rng(5)
    a, b = 1.0, 0.8
    shoulder_angle = rng.uniform(-3, 3, 40)
    elbow = rng.uniform(0.02, 2.5, 40)
    tip = np.stack([a * np.cos(shoulder_angle) + b * np.cos(shoulder_angle + elbow),
                    a * np.sin(shoulder_angle) + b * np.sin(shoulder_angle + elbow)], axis=1)
    target = snap_target(np.zeros((40, 3)), np.c_[tip, np.zeros(40)], L, 0.1 * L)[:, :2]
    r = solve_two_bone(target, a, b, softness=0.1, bend=1)
    np.testing.assert_allclose(r.end, tip, atol=1e-9)


def test_pole_goes_out_from_the_line_on_the_elbow_side() -> None:
    shoulder = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    tip = np.array([[2.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    elbow = np.array([[1.0, 0.5, 0.0], [1.0, 0.0, 0.0]])  # bent up; straight
    poles, straight = snap_pole(shoulder, elbow, tip, 0.9)
    np.testing.assert_allclose(poles[0], [1.0, 1.4, 0.0])
    assert list(straight) == [False, True]


def test_bend_sides_follow_the_chain_convention() -> None:
    from solver.snap import bend_sides

    s = np.zeros((3, 3))
    e = np.array([[1.0, 0.0, 0.0]] * 3)
    t = np.array([[1.5, 0.5, 0.0], [1.5, -0.5, 0.0], [2.0, 0.0, 0.0]])  # turns left, right, straight
    assert list(bend_sides(s, e, t, [0.0, 0.0, 1.0])) == [1, -1, 0]
    assert list(bend_sides(s, e, t, [0.0, 0.0, -1.0])) == [-1, 1, 0]
