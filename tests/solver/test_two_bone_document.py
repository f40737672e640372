"""The source document's worked example (四) and boundary table (六), a=150, b=125, checked by FK."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver import IKFlag, forward_kinematics, solve_two_bone

A, B = 150.0, 125.0
L = A + B


def _interior_elbow_deg(elbow_angle: float) -> float:
    return math.degrees(math.pi - abs(elbow_angle))


def test_worked_example_d200_matches_the_document_acos_formulas() -> None:
    # Independent truth: the document's own formulas (acos of the clamped cosines).
    cos_gamma = (A * A + B * B - 200.0**2) / (2 * A * B)
    cos_alpha = (A * A + 200.0**2 - B * B) / (2 * A * 200.0)
    assert cos_gamma == pytest.approx(-0.05)
    assert cos_alpha == pytest.approx(0.78125)
    res = solve_two_bone(np.array([[200.0, 0.0]]), A, B, bend=1)
    assert _interior_elbow_deg(res.elbow_angle[0]) == pytest.approx(math.degrees(math.acos(cos_gamma)), abs=1e-9)
    assert _interior_elbow_deg(res.elbow_angle[0]) == pytest.approx(92.87, abs=0.005)
    # Target on +x, so the shoulder offset alpha is minus the shoulder angle for bend=+1.
    assert -math.degrees(res.shoulder_angle[0]) == pytest.approx(math.degrees(math.acos(cos_alpha)), abs=1e-9)
    assert -math.degrees(res.shoulder_angle[0]) == pytest.approx(38.62, abs=0.005)


@pytest.mark.parametrize("phi", [0.0, 0.7, 2.5, -2.0, math.pi])
def test_both_mirrored_solutions_reach_the_same_tip(phi: float) -> None:
    target = 200.0 * np.array([[math.cos(phi), math.sin(phi)]])
    up = solve_two_bone(target, A, B, bend=1)
    down = solve_two_bone(target, A, B, bend=-1)
    assert up.elbow_angle[0] > 0 > down.elbow_angle[0]
    assert up.elbow_angle[0] == pytest.approx(-down.elbow_angle[0], abs=1e-12)
    for res in (up, down):
        _, tip = forward_kinematics(res.shoulder_angle, res.elbow_angle, A, B)
        np.testing.assert_allclose(tip, target, atol=1e-9 * L)
    # bend=+1: the elbow is on the clockwise side of the shoulder->target line (docs/design.md).
    cross_up = target[0, 0] * up.elbow[0, 1] - target[0, 1] * up.elbow[0, 0]
    assert cross_up < 0


def test_d300_is_clamped_to_275_straight_along_the_target() -> None:
    res = solve_two_bone(np.array([[0.0, 300.0]]), A, B)
    assert res.solved_distance[0] == pytest.approx(275.0, abs=1e-6)
    assert res.solved_distance[0] <= L
    assert abs(res.elbow_angle[0]) < 1e-3  # straight up to eps
    assert res.shoulder_angle[0] == pytest.approx(math.pi / 2, abs=1e-3)
    _, tip = forward_kinematics(res.shoulder_angle, res.elbow_angle, A, B)
    assert np.hypot(*tip[0]) <= L
    assert res.error[0] == pytest.approx(300.0 - res.solved_distance[0], abs=1e-9 * L)
    assert res.flags[0] & IKFlag.CLAMPED_OUTER


def test_d25_is_the_fold_boundary_without_jumps() -> None:
    # Approach d=25 from both sides: angles must change continuously (no division blow-up).
    ds = np.linspace(24.0, 26.0, 401)
    res = solve_two_bone(np.stack([ds, np.zeros_like(ds)], axis=1), A, B)
    assert np.isfinite(res.shoulder_angle).all() and np.isfinite(res.elbow_angle).all()
    assert np.max(np.abs(np.diff(res.elbow_angle))) < 0.05
    assert np.max(np.abs(np.diff(res.shoulder_angle))) < 0.05
    i25 = int(np.argmin(np.abs(ds - 25.0)))
    assert _interior_elbow_deg(res.elbow_angle[i25]) == pytest.approx(0.0, abs=0.05)
    _, tip = forward_kinematics(res.shoulder_angle, res.elbow_angle, A, B)
    np.testing.assert_allclose(np.hypot(tip[:, 0], tip[:, 1]), np.maximum(ds, 25.0), atol=1e-6)


def test_d0_folds_to_25_along_the_previous_direction() -> None:
    direction = np.array([math.cos(2.0), math.sin(2.0)])
    targets = np.array([100.0 * direction, [0.0, 0.0], [0.0, 0.0]])
    res = solve_two_bone(targets, A, B)
    for i in (1, 2):
        assert res.flags[i] & IKFlag.DIRECTION_HELD
        np.testing.assert_allclose(res.end[i], 25.0 * direction, atol=1e-6)
        assert res.error[i] == pytest.approx(25.0, abs=1e-6)


def test_d0_on_the_first_frame_uses_the_documented_default_direction() -> None:
    res = solve_two_bone(np.zeros((1, 2)), A, B)
    np.testing.assert_allclose(res.end[0], [25.0, 0.0], atol=1e-6)
    res = solve_two_bone(np.zeros((1, 2)), A, B, initial_direction=(0.0, -2.0))
    np.testing.assert_allclose(res.end[0], [0.0, -25.0], atol=1e-6)


def test_crossing_the_bone_line_keeps_the_bend() -> None:
    # The target sweeps across the upper bone's line: the elbow must stay on its side, every frame.
    t = np.linspace(-1.0, 1.0, 201)
    targets = np.stack([np.full_like(t, 200.0), 80.0 * t], axis=1)
    for bend in (1, -1):
        res = solve_two_bone(targets, A, B, bend=bend)
        assert (np.sign(res.elbow_angle) == bend).all()
        assert np.max(np.abs(np.diff(res.elbow_angle))) < 0.05
        assert np.max(np.abs(np.diff(res.shoulder_angle))) < 0.05
        assert res.error.max() <= 1e-9 * L


def test_boundary_table_in_one_trajectory() -> None:
    targets = np.array([[300.0, 0.0], [200.0, 0.0], [25.0, 0.0], [0.0, 0.0]])
    res = solve_two_bone(targets, A, B)
    np.testing.assert_allclose(res.solved_distance, [275.0, 200.0, 25.0, 25.0], atol=1e-6)
    np.testing.assert_allclose(res.error, [25.0, 0.0, 0.0, 25.0], atol=1e-6)
    _, tip = forward_kinematics(res.shoulder_angle, res.elbow_angle, A, B)
    np.testing.assert_allclose(tip, res.end, atol=1e-9 * L)
