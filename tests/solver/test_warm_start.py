"""``solver.chain_common.warm_start`` function by function, against what each documents.

CCD and FABRIK reach these only through whole solves, where the sweeps and the polish correct a poor warm start,
so a wrong constant or a limit clipped on the wrong side rarely shows in their results: the mutation run of
``chain_common`` found those holes. Truth here is independent of the code: the even arc's chord and direction
from its own forward kinematics, the predictor's step from the damped least-squares formula in numpy, the fold
from its geometry.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver.chain_common.warm_start import STRAIGHT_EPS, TAU, arc_start, folded_pose, predict_step, tip_error, wrap

FREE3 = ([-math.inf] * 3, [math.inf] * 3)


def tip(pose: list[float], lengths: list[float]) -> np.ndarray:
    a = np.cumsum(pose)
    return np.array([float(np.dot(lengths, np.cos(a))), float(np.dot(lengths, np.sin(a)))])


# --- arc_start ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "fraction", "within"), [(3, 0.99, 5e-4), (4, 0.99, 5e-4), (5, 0.99, 5e-4),
                                                      (3, 0.97, 1.5e-3)])
def test_the_even_arc_reaches_about_the_distance_along_the_direction(n: int, fraction: float, within: float) -> None:
    lengths = [1.0] * n
    distance = fraction * n
    pose = arc_start(0.7, distance, lengths, 1, [-math.inf] * n, [math.inf] * n)
    rel = pose[1:]
    assert max(rel) == min(rel) > 0.0  # every joint bent alike, on the bend side
    end = tip(pose, lengths)
    assert math.atan2(end[1], end[0]) == pytest.approx(0.7, abs=1e-12)  # on the root -> target ray
    # The chord of the even arc is the distance to second order in the bend (L (1 - (n^2 - 1) k^2 / 24)): near
    # full reach it is off by a fourth-order term only, well below what a wrong coefficient would leave.
    assert float(np.hypot(*end)) == pytest.approx(distance, abs=within)


def test_the_even_arc_bends_to_the_other_side_for_bend_minus_one_and_when_the_limits_forbid_the_first() -> None:
    lengths = [1.0, 1.0, 1.0]
    assert all(r < 0.0 for r in arc_start(0.2, 2.5, lengths, -1, *FREE3)[1:])
    forbid_positive = ([-math.inf, -math.inf, -math.inf], [math.inf, 0.0, 0.0])
    assert all(r < 0.0 for r in arc_start(0.2, 2.5, lengths, 1, *forbid_positive)[1:])


def test_the_even_arc_is_clipped_to_the_limits_first_bone_included() -> None:
    lengths = [1.0, 1.0, 1.0]
    lower, upper = [-0.1, -math.inf, -math.inf], [0.1, 0.3, math.inf]
    pose = arc_start(1.5, 2.0, lengths, 1, lower, upper)
    assert pose[0] == 0.1 and pose[1] == 0.3
    pose = arc_start(-1.5, 2.0, lengths, 1, lower, upper)
    assert pose[0] == -0.1


def test_the_even_arc_points_at_the_target_when_its_joints_are_clipped_differently() -> None:
    lengths = [1.0, 1.0, 1.0]
    pose = arc_start(0.7, 2.0, lengths, 1, [-math.inf] * 3, [math.inf, 0.3, math.inf])
    assert pose[1] == 0.3 and pose[2] > 0.3
    end = tip(pose, lengths)
    assert math.atan2(end[1], end[0]) == pytest.approx(0.7, abs=1e-12)


@pytest.mark.parametrize(("direction", "expected"), [(0.3, 0.3), (2.0, 1.0), (-2.0, -1.0)])
def test_one_bone_points_at_the_target_within_its_limits(direction: float, expected: float) -> None:
    assert arc_start(direction, 0.5, [1.0], 1, [-1.0], [1.0]) == [expected]


def test_the_even_arc_caps_at_half_a_turn() -> None:
    pose = arc_start(0.0, 0.0, [1.0, 1.0, 1.0], 1, *FREE3)  # a target on the root: the most bend there is
    assert pose[1:] == [math.pi / 3, math.pi / 3]


def test_a_bend_of_only_straight_eps_is_straight_so_the_other_side_is_taken() -> None:
    # Limits that leave only STRAIGHT_EPS of bend on the bend side: still straight, the other side is used.
    lengths = [1.0, 1.0]
    pose = arc_start(0.0, 1.5, lengths, 1, [-math.inf, -1.0], [math.inf, STRAIGHT_EPS])
    assert pose[1] == -1.0


# --- predict_step -------------------------------------------------------------------------------------------------


def damped_step(warm: list[float], target: np.ndarray, lengths: list[float], damping: float) -> np.ndarray:
    """``J^T (J J^T + damping I)^-1 (target - tip)``, the Jacobian from forward differences' exact form."""
    a = np.cumsum(warm)
    n = len(warm)
    jac = np.zeros((2, n))
    for i in range(n):
        jac[0, i] = -sum(lengths[k] * math.sin(a[k]) for k in range(i, n))
        jac[1, i] = sum(lengths[k] * math.cos(a[k]) for k in range(i, n))
    error = target - tip(warm, lengths)
    return jac.T @ np.linalg.solve(jac @ jac.T + damping * np.eye(2), error)


def test_the_predictor_takes_the_damped_least_squares_step() -> None:
    lengths = [1.0, 0.8, 0.6]
    warm = [0.3, 0.5, 0.4]
    target = tip(warm, lengths) + np.array([0.03, -0.02])
    damping = 1e-3
    out = predict_step(warm, *target, lengths, *FREE3, damping, 0.5, 1.0, 1e-9)
    np.testing.assert_allclose(np.subtract(out, warm), damped_step(warm, target, lengths, damping), rtol=1e-9,
                               atol=1e-15)


def test_the_predictor_leaves_a_settled_or_a_far_frame_as_it_is() -> None:
    lengths = [1.0, 1.0, 1.0]
    warm = [0.3, 0.5, 0.4]
    here = tip(warm, lengths)
    assert predict_step(warm, *(here + 1e-12), lengths, *FREE3, 1e-3, 0.15, 1.0, 1e-9) is warm
    # Further than ``reach`` (0.15) but within one unit: a squared error past reach squared, not past 1.
    assert predict_step(warm, *(here + np.array([0.5, 0.0])), lengths, *FREE3, 1e-3, 0.15, 1.0, 1e-9) is warm


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_the_predictor_shortens_a_step_past_max_step_to_it_whatever_its_sign(sign: float) -> None:
    lengths = [1.0, 1.0, 1.0]
    warm = [0.3, 0.5, 0.4]
    # A target moved across the lever of the last bone: its joint turns the most, positive or negative.
    a = sum(warm)
    target = tip(warm, lengths) + sign * 0.1 * np.array([-math.sin(a), math.cos(a)])
    full = damped_step(warm, target, lengths, 1e-6)
    biggest = float(np.abs(full).max())
    assert float(full[np.argmax(np.abs(full))]) * sign > 0.0  # the biggest turn has the target's sign
    cap = 0.25 * biggest
    out = predict_step(warm, *target, lengths, *FREE3, 1e-6, 1.0, cap, 1e-9)
    step = np.subtract(out, warm)
    assert float(np.abs(step).max()) == pytest.approx(cap, rel=1e-12)
    np.testing.assert_allclose(step, full * cap / biggest, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_the_predictor_clips_to_either_limit(sign: float) -> None:
    # The step turns with the target's offset: its biggest joint change is negative for one sign (the lower
    # limit clips it), positive for the other (the upper one).
    lengths = [1.0, 1.0, 1.0]
    warm = [0.3, 0.5, 0.4]
    target = tip(warm, lengths) + sign * np.array([-0.05, 0.05])
    free = np.subtract(predict_step(warm, *target, lengths, *FREE3, 1e-3, 1.0, 1.0, 1e-9), warm)
    moving = int(np.argmax(np.abs(free)))
    bound = warm[moving] + 0.1 * free[moving]  # the limit a tenth of the way along the joint's step
    lower, upper = [-math.inf] * 3, [math.inf] * 3
    if free[moving] < 0.0:
        lower[moving] = bound
    else:
        upper[moving] = bound
    out = predict_step(warm, *target, lengths, lower, upper, 1e-3, 1.0, 1.0, 1e-9)
    assert out[moving] == bound


# --- folded_pose --------------------------------------------------------------------------------------------------


def test_the_fold_lays_the_longest_bone_toward_the_target_and_the_others_back() -> None:
    lengths = [2.0, 0.5, 0.5]
    pose = folded_pose(0.4, lengths, 1, *FREE3)
    assert pose == [0.4, math.pi, 0.0]
    end = tip(pose, lengths)
    assert float(np.hypot(*end)) == pytest.approx(1.0, abs=1e-12)  # the inner ring: 2 - 0.5 - 0.5
    assert folded_pose(0.4, lengths, -1, *FREE3) == [0.4, -math.pi, 0.0]


def test_the_fold_with_the_longest_bone_in_the_middle_turns_the_first_bone_back() -> None:
    lengths = [0.5, 2.0, 0.5]
    pose = folded_pose(0.4, lengths, 1, *FREE3)
    assert pose is not None
    assert pose[0] == 0.4 - math.pi  # the first bone points away from the target, the nearer way round
    assert pose[1:] == [math.pi, math.pi]
    assert tip_error(pose, 1.0 * math.cos(0.4), 1.0 * math.sin(0.4), lengths) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(("lower", "upper", "expected"), [
    ([-math.inf, 0.0, 0.0], [math.inf, math.pi, 0.0], [0.4, math.pi, 0.0]),  # both joints exactly on their limits
    ([-math.inf, -math.pi, -1.0], [math.inf, 0.0, 1.0], [0.4, -math.pi, 0.0]),  # only the other side allowed
])
def test_the_fold_on_its_limits(lower: list[float], upper: list[float], expected: list[float]) -> None:
    assert folded_pose(0.4, [2.0, 0.5, 0.5], 1, lower, upper) == expected


@pytest.mark.parametrize(("lower", "upper"), [
    ([-math.inf, -3.0, -1.0], [math.inf, 3.0, 1.0]),  # the half-turn out of reach
    ([-math.inf, -math.inf, 0.1], [math.inf, math.inf, 1.0]),  # the straight joint out of reach
    ([-math.inf, -math.inf, -1.0], [math.inf, math.inf, -0.1]),
])
def test_a_fold_the_limits_forbid_is_none(lower: list[float], upper: list[float]) -> None:
    assert folded_pose(0.4, [2.0, 0.5, 0.5], 1, lower, upper) is None


@pytest.mark.parametrize(("phi", "lower", "upper", "expected"), [
    (0.4, [6.0, -4.0, -4.0], [7.0, 4.0, 4.0], 0.4 + TAU),  # a turn up into the first bone's range
    (0.4, [-6.0, -4.0, -4.0], [-5.0, 4.0, 4.0], 0.4 - TAU),  # a turn down
    (0.4, [0.4, -4.0, -4.0], [1.0, 4.0, 4.0], 0.4),  # exactly on the lower limit: no turn
    (0.4, [-1.0, -4.0, -4.0], [0.4, 4.0, 4.0], 0.4),  # exactly on the upper limit
])
def test_the_folds_first_bone_is_turned_by_a_whole_turn_into_its_limits(phi: float, lower: list[float],
                                                                         upper: list[float], expected: float) -> None:
    pose = folded_pose(phi, [2.0, 0.5, 0.5], 1, lower, upper)
    assert pose is not None and pose[0] == expected


def test_the_folds_first_bone_turned_down_onto_its_lower_limit_or_up_onto_its_upper_one() -> None:
    lengths = [2.0, 0.5, 0.5]
    down, up = 0.4 - TAU, 0.4 + TAU
    pose = folded_pose(0.4, lengths, 1, [down, -4.0, -4.0], [down + 0.1, 4.0, 4.0])
    assert pose is not None and pose[0] == down
    pose = folded_pose(0.4, lengths, 1, [up - 0.1, -4.0, -4.0], [up, 4.0, 4.0])
    assert pose is not None and pose[0] == up


def test_a_first_bone_its_limits_keep_off_every_turn_is_none() -> None:
    assert folded_pose(0.4, [2.0, 0.5, 0.5], 1, [1.0, -4.0, -4.0], [2.0, 4.0, 4.0]) is None


def test_wrap_is_half_open() -> None:
    assert wrap(math.pi) == -math.pi and wrap(-math.pi) == -math.pi and wrap(0.5) == 0.5
