"""CCD-specific behaviour: one sweep checked against hand geometry, damping, limits inside a sweep, and when the
sweeps of a frame stop."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.ccd import DAMPING_REACH, ccd_frame, make_ccd_kernel, solve_ccd
from solver.chain_common import SLOW_RATIO, SLOW_SWEEPS, parse_options

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
    with pytest.raises(ValueError, match=r"^max_step must be positive$"):
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


# --- when the sweeps stop, and how far each turn may go (pinned after mutation testing of ccd.py) ------------


def _tip(angles: list[float], lengths: list[float]) -> tuple[float, float]:
    x = y = a = 0.0
    for angle, length in zip(angles, lengths, strict=True):
        a += angle
        x, y = x + length * math.cos(a), y + length * math.sin(a)
    return x, y


def _frame(angles: list[float], target: tuple[float, float], lengths: list[float], *, sweeps: int = 10_000,
           lower: float = -INF, upper: float = INF, max_step: float = 0.5) -> tuple[list[float], int]:
    n = len(lengths)
    return ccd_frame(list(angles), target[0], target[1], lengths, [lower] * n, [upper] * n, tolerance=1e-12,
                     sweep_tolerance=1e-12, max_iterations=sweeps, max_step=max_step)


def test_the_sweeps_measure_the_distance_to_the_target_not_one_coordinate() -> None:
    lengths = [1.0, 1.0]
    start = [0.5, -1.0]
    tip = _tip(start, lengths)
    target = (tip[0], 0.6)  # straight above the tip: no error in x at all
    out, used = _frame(start, target, lengths, sweeps=200)
    assert used >= 1
    assert math.dist(_tip(out, lengths), target) < 1e-6


def test_a_sweep_that_gains_nothing_stops_the_frame() -> None:
    # Every joint held by its limits: the first sweep cannot move the tip, so there is no second.
    _out, used = _frame([0.3, 0.2], (0.0, 1.5), [1.0, 1.0], lower=0.25, upper=0.35)
    _out, used_locked = ccd_frame([0.3, 0.2], 0.0, 1.5, [1.0, 1.0], [0.3, 0.2], [0.3, 0.2], tolerance=1e-9,
                                  sweep_tolerance=1e-9, max_iterations=500, max_step=0.5)
    assert used_locked == 1
    assert used <= 3  # one sweep to reach the limits, one that gains nothing


def test_the_crawl_near_full_extension_stops_after_slow_sweeps_in_a_row() -> None:
    """Near full reach each sweep removes a little of the error; after SLOW_SWEEPS sweeps in a row that each
    left more than SLOW_RATIO of the error before them, the frame is left to the polish."""
    lengths = [1.0, 1.0, 1.0]
    start = [0.05, -0.1, 0.05]
    target = (2.999, 0.0)
    _out, used = _frame(start, target, lengths)
    errors = [math.dist(_tip(_frame(start, target, lengths, sweeps=k)[0], lengths), target) for k in range(used + 1)]
    assert errors[-1] > 1e-6  # stopped by the rule, not converged
    slow = [errors[j] > SLOW_RATIO * errors[j - 1] for j in range(1, len(errors))]
    # It stops at the first sweep count whose last SLOW_SWEEPS sweeps were all slow.
    first = next(k for k in range(SLOW_SWEEPS, len(slow) + 1) if all(slow[k - SLOW_SWEEPS:k]))
    assert used == first + 1


@given(st.lists(st.floats(-2.5, 2.5), min_size=2, max_size=8), st.floats(-3.0, 3.0), st.floats(-3.0, 3.0))
@settings(max_examples=60, deadline=None)
def test_each_turn_is_capped_by_the_reach_beyond_its_joint(start: list[float], tx: float, ty: float) -> None:
    lengths = [0.5 + 0.1 * i for i in range(len(start))]
    error = math.dist(_tip(start, lengths), (tx, ty))
    out = sweep_once(list(start), (tx, ty), lengths)  # max_step pi: only the reach cap binds
    for i, (before, after) in enumerate(zip(start, out, strict=True)):
        cap = DAMPING_REACH * error / math.fsum(lengths[i:])
        assert abs(after - before) <= min(cap, math.pi) + 1e-12, (i, after - before, cap)
    # The frame loop's kernel precomputes 1 / reach: the same sweeps as computing it per frame.
    setup = parse_options(np.array(lengths), None, None)
    kernel = make_ccd_kernel(setup, 0.5)
    n = len(lengths)
    alone = ccd_frame(list(start), tx, ty, lengths, [-INF] * n, [INF] * n, tolerance=setup.tolerance,
                      sweep_tolerance=setup.sweep_tolerance, max_iterations=setup.max_iterations, max_step=0.5)
    assert kernel(list(start), tx, ty) == alone


def test_a_smoothly_moving_target_costs_a_sweep_or_two_per_frame() -> None:
    """The warm start is moved by one predicted step before the sweeps (solve_ccd's predict): without it the
    same path costs ~5 sweeps a frame."""
    t = np.linspace(0.0, 1.0, 200)
    targets = np.stack([1.5 + 0.3 * np.cos(3.0 * t), 0.8 * np.sin(2.0 * t)], axis=1)
    res = solve_ccd(targets, np.array([1.0, 0.8, 0.6]))
    assert res.converged.all()
    assert np.median(res.iterations) <= 2 and res.iterations[1:].max() <= 3
