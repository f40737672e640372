"""CCD-specific behaviour: one sweep checked against hand geometry, damping, limits inside a sweep."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.ccd import ccd_frame, solve_ccd

INF = math.inf


def sweep_once(angles: list[float], target: tuple[float, float], lengths: list[float], **kw: float) -> list[float]:
    n = len(lengths)
    lower = kw.pop("lower_all", -INF)
    upper = kw.pop("upper_all", INF)
    out, used = ccd_frame(
        angles, target[0], target[1], lengths, [lower] * n, [upper] * n, tolerance=1e-12,
        sweep_tolerance=1e-12, max_iterations=1, max_step=kw.get("max_step", math.pi),
    )
    assert used == 1
    return out


def test_one_sweep_turns_the_last_joint_then_the_first_toward_the_target() -> None:
    # Straight chain along +x; target (1, 1). Last joint (at (1, 0)): tip (2, 0) -> (1, 1) is a quarter
    # turn; the tip is then on the target and the first joint has nothing left to turn.
    assert sweep_once([0.0, 0.0], (1.0, 1.0), [1.0, 1.0]) == pytest.approx([0.0, math.pi / 2])
    # Target (0, 2): last joint turns by atan2 of (tip - joint) x (target - joint): (1,0) to (-1,2).
    turn = math.atan2(2.0, -1.0)
    tip = (1.0 + math.cos(turn), math.sin(turn))
    first = math.atan2(2.0, 0.0) - math.atan2(tip[1], tip[0])
    assert sweep_once([0.0, 0.0], (0.0, 2.0), [1.0, 1.0]) == pytest.approx([first, turn])


def test_a_single_bone_points_at_its_target_after_one_sweep() -> None:
    assert sweep_once([0.3], (-2.0, -2.0), [1.0]) == pytest.approx([-3 * math.pi / 4])


@given(
    st.lists(st.floats(-1.0, 1.0), min_size=2, max_size=10),
    st.floats(-3.0, 3.0), st.floats(-3.0, 3.0), st.floats(0.01, 0.5),
)
@settings(max_examples=40, deadline=None)
def test_damping_bounds_every_joint_turn_per_sweep(
    start: list[float], tx: float, ty: float, max_step: float
) -> None:
    lengths = [0.5] * len(start)
    out = sweep_once(list(start), (tx, ty), lengths, max_step=max_step)
    assert np.all(np.abs(np.subtract(out, start)) <= max_step + 1e-12)


def test_limits_clip_inside_a_sweep() -> None:
    out = sweep_once([0.0, 0.0], (1.0, 1.0), [1.0, 1.0], lower_all=-0.5, upper_all=0.5)
    assert max(out) <= 0.5 and min(out) >= -0.5
    assert out[1] == 0.5  # the last joint wanted a quarter turn and stops at its limit


def test_smaller_damping_still_converges_with_more_sweeps() -> None:
    lengths = np.full(12, 0.5)
    targets = np.array([[-2.0, 1.5]])
    loose = solve_ccd(targets, lengths, max_step=1.0)
    tight = solve_ccd(targets, lengths, max_step=0.05)
    assert loose.converged.all() and tight.converged.all()
    assert tight.iterations[0] > loose.iterations[0]


def test_invalid_max_step_raises() -> None:
    with pytest.raises(ValueError):
        solve_ccd([[1.0, 0.0]], [1.0, 1.0], max_step=0.0)


def test_a_far_jump_does_not_wind_joints_by_whole_turns() -> None:
    # From nearly folded to nearly straight: the sweeps turn some joints a long way round; the result is
    # reported as the same pose with every joint within half a turn of the previous frame.
    lengths = np.array([1.45, 0.5, 1.0, 1.53, 1.75, 1.1, 1.35, 0.81, 0.63, 0.74, 0.51, 0.3, 0.44, 1.5, 1.54])
    targets = np.array([[1.0, 0.0], [lengths.sum() * (1 - 1e-4), 0.0]])
    res = solve_ccd(targets, lengths)
    assert res.converged.all()
    assert np.all(np.abs(np.diff(res.angles, axis=0)) <= math.pi)


def test_a_coiled_chain_does_not_whip_round_when_the_tip_passes_a_joint() -> None:
    # Regression (found by hypothesis): the target moves out from near the root; the coiled chain's tip
    # passes close to its third joint, where undamped CCD turned that joint by ~0.25 rad per frame for a
    # target moving 0.015 per frame.
    lengths = np.array([1.41481377, 1.88101015, 1.3, 1.31147909, 1.4750629])
    t = np.linspace(0.0, 1.0, 4000)
    r = 0.9603 + (4.1589 - 0.9603) * t
    targets = np.stack([r * np.cos(-1.9341 * t), r * np.sin(-1.9341 * t)], axis=1)
    res = solve_ccd(targets, lengths)
    assert res.converged.all()
    step = np.hypot(*np.diff(targets, axis=0).T)
    assert np.abs(np.diff(res.angles, axis=0)).max() < 10.0 * step.max() / lengths.min()
