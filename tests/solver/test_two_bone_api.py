"""Public API shape, validation and flag contract of solve_two_bone."""

from __future__ import annotations

import numpy as np
import pytest

import solver
from solver import IKFlag, JointLimits, SolverState, solve_two_bone


def test_flag_values_follow_the_design_contract() -> None:
    expected = {
        "CLAMPED_OUTER": 1,
        "CLAMPED_INNER": 2,
        "SOFTENED": 4,
        "LIMITED_SHOULDER": 8,
        "LIMITED_ELBOW": 16,
        "ROOT_MOVED": 32,
        "STRETCHED": 64,
        "DIRECTION_HELD": 128,
    }
    assert {name: int(getattr(IKFlag, name)) for name in expected} == expected


def test_public_names_are_exported() -> None:
    for name in ("solve_two_bone", "forward_kinematics", "soft_distance", "JointLimits", "smooth_targets"):
        assert hasattr(solver, name)


def test_single_target_result_drops_the_frame_axis() -> None:
    res = solve_two_bone(np.array([200.0, 10.0]), 150.0, 125.0, softness=0.05)
    assert res.shoulder_angle.shape == () and res.end.shape == (2,) and res.flags.shape == ()
    _, tip = solver.forward_kinematics(res.shoulder_angle, res.elbow_angle, 150.0, 125.0)
    np.testing.assert_allclose(tip, res.end, atol=1e-12 * 275)
    listed = solve_two_bone([200.0, 10.0], 150.0, 125.0, softness=0.05)
    np.testing.assert_array_equal(listed.end, res.end)


def test_convenience_masks_match_the_flags() -> None:
    targets = np.array([[400.0, 0.0], [10.0, 0.0], [0.0, 0.0], [273.0, 0.0], [100.0, 0.0]])
    res = solve_two_bone(targets, 150.0, 125.0, limits=JointLimits(elbow=(0.2, 2.0)), softness=0.01)
    assert res.softened.tolist() == [True, False, False, True, False]
    assert res.clamped_inner.tolist() == [False, True, True, False, False]
    assert res.direction_held.tolist() == [False, False, True, False, False]
    assert res.limited[0] and res.limited[1] and not res.strategy_applied.any()


def test_empty_trajectory_keeps_the_previous_state() -> None:
    prev = SolverState(direction=(0.0, 1.0), bend=-1, root_offset=(1.0, 2.0))
    res = solve_two_bone(np.zeros((0, 2)), 1.0, 1.0, previous=prev)
    assert res.end.shape == (0, 2) and res.state == prev


@pytest.mark.parametrize(
    ("targets", "options"),
    [
        (np.zeros((3, 3)), {}),
        (np.array([[np.nan, 0.0]]), {}),
        (np.zeros((2, 2)), {"bend": 0}),
        (np.zeros((2, 2)), {"bend": [1, 1, 1]}),
        (np.zeros((2, 2)), {"softness": 1.5}),
        (np.zeros((2, 2)), {"stretch_range": (1.1, 1.2)}),
        (np.zeros((2, 2)), {"initial_direction": (0.0, 0.0)}),
        (np.zeros((2, 2)), {"pole": np.zeros((3, 2))}),
        (np.zeros(2), {"bend": 2}),
    ],
)
def test_invalid_input_is_rejected(targets: np.ndarray, options: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        solve_two_bone(targets, 1.0, 1.0, **options)  # type: ignore[arg-type]


def test_non_positive_lengths_are_rejected() -> None:
    with pytest.raises(ValueError):
        solve_two_bone(np.zeros((1, 2)), 0.0, 1.0)
