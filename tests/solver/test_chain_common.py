"""Properties shared by the long-chain solvers (CCD and FABRIK) and their common helpers.

Truth is recomputed here: forward kinematics by hand (cumulative angles), the reach ring from the lengths,
the soft-IK formula of the source document, the law of cosines for two bones.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import chain_common as cc
from solver.ccd import solve_ccd
from solver.fabrik import solve_fabrik

SOLVERS: list[Callable[..., cc.ChainResult]] = [solve_ccd, solve_fabrik]
FAST = settings(max_examples=25, deadline=None)


def hand_fk(angles: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Tip positions (..., 2): each bone's absolute direction is the running sum of the angles."""
    absolute = np.cumsum(angles, axis=-1)
    return np.stack([(lengths * np.cos(absolute)).sum(-1), (lengths * np.sin(absolute)).sum(-1)], axis=-1)


def polar(r: np.ndarray, th: np.ndarray) -> np.ndarray:
    return np.stack([r * np.cos(th), r * np.sin(th)], axis=-1)


@st.composite
def chains(draw: Any, max_bones: int = 12) -> np.ndarray:
    n = draw(st.integers(2, max_bones))
    return np.array(draw(st.lists(st.floats(0.3, 2.0), min_size=n, max_size=n)))


def ring(lengths: np.ndarray) -> tuple[float, float]:
    total = float(lengths.sum())
    return max(0.0, 2.0 * float(lengths.max()) - total), total


# --- helpers -------------------------------------------------------------------------------------------


def setup_for(lengths: Any, **overrides: Any) -> cc.ChainSetup:
    options: dict[str, Any] = dict(
        limits=None, tolerance=1e-6, max_iterations=2000, sweep_tolerance=1e-4, polish_iterations=500,
        softness=0.0, strategy="accept", max_root_offset=None, stretch_range=(0.9, 1.1), initial_angles=None,
        previous=None, bend=1,
    )
    options.update(overrides)
    return cc.parse_options(lengths, **options)


def test_reach_radii_hand_values() -> None:
    assert cc.reach_radii(np.array([3.0, 1.0, 1.0])) == (1.0, 5.0)
    assert cc.reach_radii(np.array([1.0, 1.0, 1.0])) == (0.0, 3.0)


def test_prepare_targets_clamps_softens_and_holds_direction() -> None:
    setup = setup_for([3.0, 1.0, 1.0], softness=0.1)  # L = 5, inner radius 1, soft width 0.5
    raw = np.array([[0.0, 9.0], [2.0, 0.0], [4.8, 0.0], [0.0, -0.5], [0.0, 0.0]])
    _, solved, flags = cc.prepare_targets(raw, setup)
    # Beyond reach: soft distance 5 - 0.5 * exp(-(9 - 4.5) / 0.5), along +y.
    assert solved[0] == pytest.approx([0.0, 5.0 - 0.5 * math.exp(-9.0)], abs=1e-12)
    assert flags[0] == cc.CLAMPED_OUTER | cc.SOFTENED
    assert solved[1] == pytest.approx([2.0, 0.0]) and flags[1] == 0
    assert solved[2] == pytest.approx([5.0 - 0.5 * math.exp(-0.6), 0.0])
    assert flags[2] == cc.SOFTENED
    assert solved[3] == pytest.approx([0.0, -1.0]) and flags[3] == cc.CLAMPED_INNER
    # On the root: the previous frame's direction (-y) is kept, at the inner radius.
    assert solved[4] == pytest.approx([0.0, -1.0])
    assert flags[4] == cc.CLAMPED_INNER | cc.DIRECTION_HELD


@pytest.mark.parametrize(
    "bad",
    [
        dict(lengths=[1.0, -1.0]),
        dict(limits=[[0.0, 1.0]]),
        dict(limits=[[1.0, 0.0], [0.0, 1.0]]),
        dict(strategy="teleport"),
        dict(bend=0),
        dict(stretch_range=(1.1, 1.2)),
        dict(tolerance=0.0),
        dict(initial_angles=[0.0]),
    ],
)
def test_invalid_options_raise(bad: dict[str, Any]) -> None:
    bad = dict(bad)  # a copy: the parameter is shared by every run in one process (mutmut runs the suite twice)
    lengths = bad.pop("lengths", [1.0, 1.0])
    with pytest.raises(ValueError):
        setup_for(lengths, **bad)


def test_wrap() -> None:
    assert cc.wrap(3 * math.pi + 0.25) == pytest.approx(-math.pi + 0.25)
    assert cc.wrap(-0.5) == pytest.approx(-0.5)


@given(chains(), st.floats(0.05, 0.999), st.floats(-math.pi, math.pi), st.sampled_from([1, -1]))
@FAST
def test_arc_start_points_at_the_target_and_bends_to_the_bend_side(
    lengths: np.ndarray, fraction: float, phi: float, bend: int
) -> None:
    n = len(lengths)
    inf = [math.inf] * n
    pose = np.array(cc.arc_start(phi, fraction * lengths.sum(), list(lengths), bend, [-x for x in inf], inf))
    tip = hand_fk(pose, lengths)
    assert math.atan2(tip[1], tip[0]) == pytest.approx(phi, abs=1e-9) or abs(abs(phi) - math.pi) < 1e-6
    assert np.all(np.sign(pose[1:]) == bend)


def test_arc_start_takes_the_other_side_when_limits_forbid_the_bend_side() -> None:
    lengths = [1.0, 1.0, 1.0]
    lower = [-math.inf, 0.0, 0.0]
    upper = [math.inf, 2.0, 2.0]
    pose = cc.arc_start(0.0, 2.0, lengths, -1, lower, upper)
    assert all(0.0 < r <= 2.0 for r in pose[1:])


def test_polish_is_the_minimal_change_for_a_small_residual() -> None:
    lengths = np.array([1.0, 0.8, 0.6, 0.4])
    setup = setup_for(lengths)
    start = np.array([[0.3, 0.4, 0.5, 0.6]])
    target = hand_fk(start[0], lengths) + np.array([1e-3, -2e-3])
    polished, steps = cc.polish(start, target[None, :], setup)
    assert np.hypot(*(hand_fk(polished[0], lengths) - target)) <= 1e-6 * lengths.sum()
    # First-order minimal-norm change: J^T (J J^T)^-1 e, J from the hand-computed joint lever arms.
    absolute = np.cumsum(start[0])
    steps_xy = np.stack([lengths * np.cos(absolute), lengths * np.sin(absolute)], axis=-1)
    joints = np.vstack([[0.0, 0.0], np.cumsum(steps_xy, axis=0)])
    lever = joints[-1] - joints[:-1]
    jac = np.stack([-lever[:, 1], lever[:, 0]])
    e = target - joints[-1]
    minimal = jac.T @ np.linalg.solve(jac @ jac.T, e)
    assert polished[0] - start[0] == pytest.approx(minimal, abs=1e-5)
    assert 1 <= steps[0] <= 3


def test_predict_step_is_the_minimal_change_and_leaves_settled_or_far_frames_alone() -> None:
    lengths = [1.0, 0.8, 0.6, 0.4]
    lower, upper = [-math.inf] * 4, [math.inf] * 4
    warm = [0.3, 0.4, 0.5, 0.6]
    tip = hand_fk(np.array(warm), np.array(lengths))
    e = np.array([1e-3, -2e-3])
    tx, ty = tip + e
    step = cc.predict_step(warm, tx, ty, lengths, lower, upper, 1e-18, 0.1, 0.25, 1e-9)
    absolute = np.cumsum(warm)
    joints = np.vstack([[0.0, 0.0], np.cumsum(np.stack([lengths * np.cos(absolute),
                                                           lengths * np.sin(absolute)], axis=-1), axis=0)])
    lever = joints[-1] - joints[:-1]
    jac = np.stack([-lever[:, 1], lever[:, 0]])
    assert np.array(step) - warm == pytest.approx(jac.T @ np.linalg.solve(jac @ jac.T, e), rel=1e-6)
    # First order: the residual is of the order of the squared step.
    assert np.hypot(*(hand_fk(np.array(step), np.array(lengths)) - [tx, ty])) < 1e-5
    # Within the tolerance (settled) or beyond reach (a jump): the warm start itself, untouched.
    assert cc.predict_step(warm, tx, ty, lengths, lower, upper, 1e-18, 0.1, 0.25, 1e-2) is warm
    assert cc.predict_step(warm, tx + 1.0, ty, lengths, lower, upper, 1e-18, 0.1, 0.25, 1e-9) is warm


def test_predict_step_turns_no_joint_further_than_max_step_and_respects_limits() -> None:
    lengths = [1.0] * 6
    warm = [0.0, 1e-4, -1e-4, 1e-4, -1e-4, 1e-4]  # nearly straight: shortening it is nearly singular
    tip = hand_fk(np.array(warm), np.array(lengths))
    step = cc.predict_step(warm, tip[0] - 0.2, tip[1], lengths, [-math.inf] * 6, [math.inf] * 6,
                           (1e-3 * 6) ** 2, 0.3, 0.1, 1e-9)
    assert np.abs(np.array(step) - warm).max() == pytest.approx(0.1)
    lower, upper = [-1.0] * 6, [1e-4] * 6
    limited = cc.predict_step(warm, tip[0] - 0.2, tip[1], lengths, lower, upper, (1e-3 * 6) ** 2, 0.3, 0.1, 1e-9)
    assert np.all(np.array(limited) >= lower) and np.all(np.array(limited) <= upper)


# --- properties of both solvers ------------------------------------------------------------------------


@pytest.mark.parametrize("solve", SOLVERS)
@given(lengths=chains(max_bones=32), data=st.data())
@settings(max_examples=15, deadline=None)
def test_reachable_targets_converge_without_limits(
    solve: Callable[..., cc.ChainResult], lengths: np.ndarray, data: Any
) -> None:
    inner, outer = ring(lengths)
    n_frames = data.draw(st.integers(1, 4))
    r = np.array(data.draw(st.lists(st.floats(inner + 1e-3 * outer, outer * (1 - 1e-4)), min_size=n_frames,
                                    max_size=n_frames)))
    th = np.array(data.draw(st.lists(st.floats(-math.pi, math.pi), min_size=n_frames, max_size=n_frames)))
    targets = polar(r, th)
    res = solve(targets, lengths)
    tip = hand_fk(res.angles, lengths)
    assert np.all(np.hypot(*(tip - targets).T) <= 1e-6 * outer)
    assert np.all(res.converged)
    assert res.end == pytest.approx(tip, abs=1e-12)
    assert np.all(res.iterations >= 0)


@pytest.mark.parametrize("solve", SOLVERS)
@pytest.mark.parametrize(("lengths", "targets"), [
    # Found by the property above: the chain folded round a near target must unfold to 96 % / 99 % of its
    # reach, where the sweeps crawl and the polish alone ran out of steps.
    ([1.0, 0.875, 0.46875, 2.0, 1.921875, 1.75, 1.125, 1.5, 0.75, 1.5, 1.125, 1.125, 1.46875, 1.5, 1.75,
      0.78125, 0.8125, 0.34375, 1.3125, 1.0625, 1.1796875, 1.09375, 1.890625, 1.09375, 0.5, 0.5, 0.5, 0.5, 0.5],
     [[2.0, 0.0], [30.75, 0.0]]),
    ([0.5, 2.0, 2.0, 1.5, 1.5, 1.0, 2.0, 1.0, 2.0, 2.0, 1.5, 1.5, 1.5, 1.5, 1.0, 1.5, 2.0, 1.0, 1.0, 1.0, 0.5,
      0.75, 0.75, 0.5, 0.75, 0.375, 0.3125, 0.3125, 0.5],
     [[1.0, 0.0], [22.0, 0.0], [1.0, 0.0], [33.5 * math.cos(2.0), 33.5 * math.sin(2.0)]]),
])
def test_a_folded_chain_jumping_to_near_full_reach_converges(
    solve: Callable[..., cc.ChainResult], lengths: list[float], targets: list[list[float]]
) -> None:
    lens = np.array(lengths)
    res = solve(np.array(targets), lens)
    assert np.all(np.hypot(*(hand_fk(res.angles, lens) - np.array(targets)).T) <= 1e-6 * lens.sum())


@pytest.mark.parametrize("solve", SOLVERS)
@given(lengths=chains(), data=st.data(), strategy=st.sampled_from(cc.STRATEGIES))
@settings(max_examples=20, deadline=None)
def test_limits_are_never_violated_and_nothing_is_nan(
    solve: Callable[..., cc.ChainResult], lengths: np.ndarray, data: Any, strategy: str
) -> None:
    n = len(lengths)
    lo = np.array(data.draw(st.lists(st.floats(-2.5, 0.5), min_size=n, max_size=n)))
    width = np.array(data.draw(st.lists(st.floats(0.0, 3.0), min_size=n, max_size=n)))
    limits = np.stack([lo, lo + width], axis=1)
    limits[0] = [-math.pi, math.pi] if data.draw(st.booleans()) else limits[0]
    limits[data.draw(st.integers(0, n - 1)), 1] = np.nan  # an open side
    outer = lengths.sum()
    targets = np.array(data.draw(st.lists(st.tuples(st.floats(-1.3 * outer, 1.3 * outer),
                                                    st.floats(-1.3 * outer, 1.3 * outer)), min_size=1, max_size=6)))
    res = solve(targets, lengths, limits=limits, strategy=strategy, softness=data.draw(st.floats(0.0, 0.1)))
    upper = np.where(np.isnan(limits[:, 1]), np.inf, limits[:, 1])
    assert np.all(res.angles >= limits[:, 0] - 1e-12) and np.all(res.angles <= upper + 1e-12)
    for field in (res.angles, res.joints, res.end, res.error, res.error_solved, res.root_offset, res.stretch):
        assert np.all(np.isfinite(field))
    # The reported error is the forward-kinematics error (with the strategy's offset and stretch).
    tip = hand_fk(res.angles, lengths) * res.stretch[:, None] + res.root_offset
    assert res.error == pytest.approx(np.hypot(*(tip - targets).T), abs=1e-9)
    assert np.all(np.hypot(*res.root_offset.T) <= 0.1 * outer + 1e-12)
    assert np.all((res.stretch >= 0.9) & (res.stretch <= 1.1))
    assert np.all(res.converged == (res.error_solved <= 1e-6 * outer))


def law_of_cosines(a: float, b: float, x: float, y: float, bend: int) -> tuple[float, float]:
    d = math.hypot(x, y)
    gamma = math.acos((a * a + b * b - d * d) / (2 * a * b))
    alpha = math.acos((a * a + d * d - b * b) / (2 * a * d))
    return math.atan2(y, x) - bend * alpha, bend * (math.pi - gamma)


@pytest.mark.parametrize("solve", SOLVERS)
@given(
    a=st.floats(0.5, 2.0), b=st.floats(0.5, 2.0), fraction=st.floats(0.03, 0.97),
    th=st.floats(-math.pi, math.pi), bend=st.sampled_from([1, -1]),
)
@FAST
def test_two_bones_give_the_analytic_answer(
    solve: Callable[..., cc.ChainResult], a: float, b: float, fraction: float, th: float, bend: int
) -> None:
    inner, outer = abs(a - b), a + b
    d = inner + fraction * (outer - inner)
    target = polar(np.array([d]), np.array([th]))
    res = solve(target, [a, b], bend=bend)
    shoulder, elbow = law_of_cosines(a, b, target[0, 0], target[0, 1], bend)
    assert res.end[0] == pytest.approx(target[0], abs=1e-6 * outer)
    assert np.sign(res.angles[0, 1]) == bend
    assert res.angles[0, 1] == pytest.approx(elbow, abs=1e-4)
    assert cc.wrap(res.angles[0, 0] - shoulder) == pytest.approx(0.0, abs=1e-4)


@pytest.mark.parametrize("solve", SOLVERS)
@given(lengths=chains(max_bones=16), data=st.data())
@settings(max_examples=12, deadline=None)
def test_smooth_target_path_gives_a_smooth_chain(
    solve: Callable[..., cc.ChainResult], lengths: np.ndarray, data: Any
) -> None:
    inner, outer = ring(lengths)
    r0, r1 = (data.draw(st.floats(inner + 0.1 * outer, 0.9 * outer)) for _ in range(2))
    th0 = data.draw(st.floats(-math.pi, math.pi))
    th1 = th0 + data.draw(st.floats(-2.0, 2.0))
    # Sample densely enough that one frame moves the target by at most 0.2 % of the shortest bone.
    travel = abs(r1 - r0) + abs(th1 - th0) * outer
    n_frames = int(min(4000, max(50, travel / (0.002 * lengths.min()))))
    t = np.linspace(0.0, 1.0, n_frames)
    targets = polar(r0 + (r1 - r0) * t, th0 + (th1 - th0) * t)
    res = solve(targets, lengths)
    assert np.all(res.converged)
    joint_change = np.abs(np.diff(res.angles, axis=0)).max(axis=1)
    explained = np.hypot(*np.diff(targets, axis=0).T) / lengths.min()
    # Switching to another solution of the same target moves joints by a large angle in one frame; here
    # every per-frame change stays within a small multiple of what the target's own motion can cause, plus
    # the settling of a frame that the sweeps left within sweep_tolerance (1e-4 L) of its target.
    settle = 10.0 * 1e-4 * outer / lengths.min()
    assert np.all(joint_change <= 20.0 * explained + settle)


@pytest.mark.parametrize("solve", SOLVERS)
def test_targets_at_or_beyond_full_reach_give_the_exactly_straight_chain(
    solve: Callable[..., cc.ChainResult],
) -> None:
    lengths = np.array([1.0, 0.5, 0.75, 1.25])
    targets = np.array([[0.0, 3.5], [-3.0, -3.0], [7.0, 0.0], [2.0, 2.0]])
    res = solve(targets, lengths)
    assert np.all(res.angles[:3, 1:] == 0.0)
    direction = np.arctan2(targets[:3, 1], targets[:3, 0])
    assert np.allclose(np.cos(res.angles[:3, 0] - direction), 1.0)
    assert res.error[:3] == pytest.approx(np.hypot(*targets[:3].T) - 3.5, abs=1e-12)
    assert list(res.flags[:3] & cc.CLAMPED_OUTER) == [cc.CLAMPED_OUTER] * 3
    assert res.converged.all()


@pytest.mark.parametrize("solve", SOLVERS)
def test_straight_chain_collinear_with_its_target_bends(solve: Callable[..., cc.ChainResult]) -> None:
    lengths = np.ones(6)
    res = solve([[4.0, 0.0], [2.0, 0.0], [0.5, 0.0]], lengths)
    assert res.converged.all()
    assert np.all(np.abs(res.angles[0, 1:]).max() > 0.1)


@pytest.mark.parametrize("solve", SOLVERS)
def test_unreachable_with_limits_reports_the_error_and_strategies_act(
    solve: Callable[..., cc.ChainResult],
) -> None:
    lengths = np.array([1.0, 1.0, 1.0])
    limits = np.array([[-0.2, 0.2], [-0.3, 0.3], [-0.3, 0.3]])  # the chain can only curl a little
    target = np.array([[0.0, 2.6]])  # reachable by length, not within these limits
    accept = solve(target, lengths, limits=limits)
    assert not accept.converged[0]
    assert accept.flags[0] & cc.LIMIT_BLOCKED and accept.flags[0] & cc.LIMITED
    assert accept.error[0] == pytest.approx(np.hypot(*(hand_fk(accept.angles[0], lengths) - target[0])))

    moved = solve(target, lengths, limits=limits, strategy="move_root", max_root_offset=10.0)
    assert moved.flags[0] & cc.ROOT_MOVED
    assert moved.error[0] == pytest.approx(0.0, abs=1e-9)
    assert moved.joints[0, 0] == pytest.approx(moved.root_offset[0])

    capped = solve(target, lengths, limits=limits, strategy="move_root", max_root_offset=0.1)
    assert np.hypot(*capped.root_offset[0]) == pytest.approx(0.1)
    assert capped.error[0] == pytest.approx(accept.error[0] - 0.1, abs=1e-6)

    stretched = solve(target, lengths, limits=limits, strategy="stretch", stretch_range=(0.5, 1.5))
    assert stretched.flags[0] & cc.STRETCHED
    assert stretched.error[0] < accept.error[0]
    assert np.hypot(*np.diff(stretched.joints[0], axis=0).T) == pytest.approx(lengths * stretched.stretch[0])


@pytest.mark.parametrize("solve", SOLVERS)
def test_previous_state_continues_a_solve_exactly(solve: Callable[..., cc.ChainResult]) -> None:
    lengths = np.array([1.0, 0.9, 0.8, 0.7, 0.6])
    t = np.linspace(0.0, 3.0, 40)
    targets = polar(2.5 + 0.5 * np.sin(t), t)
    whole = solve(targets, lengths)
    state = None
    pieces = []
    for f in range(len(targets)):
        one = solve(targets[f : f + 1], lengths, previous=state)
        state = one.state
        pieces.append(one.angles[0])
    assert np.array(pieces) == pytest.approx(whole.angles, abs=1e-9)


@pytest.mark.parametrize("solve", SOLVERS)
def test_a_target_on_the_root_keeps_the_previous_direction(solve: Callable[..., cc.ChainResult]) -> None:
    lengths = np.array([3.0, 1.0, 1.0])  # inner radius 1
    res = solve([[0.0, -2.0], [0.0, 0.0]], lengths)
    assert res.flags[1] & cc.DIRECTION_HELD
    assert res.end[1] == pytest.approx([0.0, -1.0], abs=1e-5)


@pytest.mark.parametrize("solve", SOLVERS)
def test_target_smoothing_filters_before_ik_and_errors_stay_raw(solve: Callable[..., cc.ChainResult]) -> None:
    from solver.smoothing import smooth_targets

    lengths = np.array([1.0, 0.8, 0.6])
    rng = np.random.default_rng(3)
    t = np.linspace(0.0, 2.0, 60)
    raw = polar(1.5 + 0.2 * np.sin(3 * t), t) + rng.normal(0.0, 0.01, (60, 2))
    filtered = solve(raw, lengths, smoothing="exponential")
    reference = solve(smooth_targets(raw, "exponential"), lengths)
    assert filtered.angles == pytest.approx(reference.angles, abs=1e-12)
    assert filtered.error == pytest.approx(np.hypot(*(hand_fk(filtered.angles, lengths) - raw).T), abs=1e-9)


@pytest.mark.parametrize("solve", SOLVERS)
def test_root_offset_is_smoothed_over_frames_and_stays_capped(solve: Callable[..., cc.ChainResult]) -> None:
    lengths = np.array([1.0, 1.0, 1.0])
    limits = np.array([[-0.2, 0.2], [-0.3, 0.3], [-0.3, 0.3]])
    targets = np.array([[3.5, 0.0]] * 5 + [[0.0, 2.6]] * 5 + [[3.5, 0.0]] * 5)  # blocked in the middle only
    sharp = solve(targets, lengths, limits=limits, strategy="move_root", root_smoothing=0.0)
    smooth = solve(targets, lengths, limits=limits, strategy="move_root", root_smoothing=2.0)
    sharp_len = np.hypot(*sharp.root_offset.T)
    smooth_len = np.hypot(*smooth.root_offset.T)
    assert np.all(sharp_len[:5] == 0.0) and np.all(sharp_len[5:10] > 0.0)
    assert smooth_len[4] > 0.0 and smooth.flags[4] & cc.ROOT_MOVED  # the body starts leaning early
    assert np.all(smooth_len <= 0.3 + 1e-12)  # default cap 0.1 L
    assert np.abs(np.diff(smooth_len)).max() < np.abs(np.diff(sharp_len)).max()


@pytest.mark.parametrize("solve", SOLVERS)
@pytest.mark.parametrize("bend", [1, -1])
def test_two_bones_follow_the_analytic_solver_along_a_path(solve: Callable[..., cc.ChainResult], bend: int) -> None:
    from solver.two_bone import solve_two_bone

    a, b = 1.5, 1.25
    t = np.linspace(0.0, 4.0, 200)
    targets = polar(1.5 + 0.9 * np.sin(1.3 * t), 2.0 * t)  # distance 0.6 .. 2.4 inside the ring [0.25, 2.75]
    chain = solve(targets, [a, b], bend=bend)
    analytic = solve_two_bone(targets, a, b, bend=bend)
    assert np.all(np.sign(chain.angles[:, 1]) == bend)
    assert chain.angles[:, 1] == pytest.approx(analytic.elbow_angle, abs=1e-4)
    assert np.abs(np.cos(chain.angles[:, 0] - analytic.shoulder_angle) - 1.0).max() < 1e-8


@pytest.mark.parametrize("solve", SOLVERS)
def test_a_static_target_settles_within_the_documented_bound_and_stays(
    solve: Callable[..., cc.ChainResult],
) -> None:
    lengths = np.array([1.0, 0.9, 0.8, 0.7, 0.6, 0.5])
    res = solve(np.tile([[1.5, 2.0]], (30, 1)), lengths)
    assert res.converged.all()
    change = np.abs(np.diff(res.angles, axis=0)).max(axis=1)
    assert change.max() <= 1e-4 * lengths.sum() / lengths.min()
    assert np.all(change[-10:] == 0.0)


@pytest.mark.parametrize("solve", SOLVERS)
def test_one_target_of_shape_2_and_an_empty_range(solve: Callable[..., cc.ChainResult]) -> None:
    lengths = np.array([1.0, 1.0, 1.0])
    one = solve([1.0, 1.0], lengths)
    assert one.angles.shape == (1, 3) and one.converged[0]
    assert hand_fk(one.angles[0], lengths) == pytest.approx([1.0, 1.0], abs=3e-6)
    empty = solve(np.zeros((0, 2)), lengths, initial_angles=[0.1, 0.2, 0.3])
    assert empty.angles.shape == (0, 3) and empty.state.angles == pytest.approx([0.1, 0.2, 0.3])


@pytest.mark.parametrize("solve", SOLVERS)
def test_a_target_on_the_root_never_folds_a_joint_its_limits_forbid(solve: Callable[..., cc.ChainResult]) -> None:
    # Found by hypothesis: the folded inner-ring pose left a joint limited to [0.5, 0.5] straight (angle 0).
    lengths = np.array([2.0, 0.5, 0.375, 1.0])
    limits = np.array([[0.0, 0.0], [0.0, np.nan], [0.0, 0.0], [0.5, 0.5]])
    res = solve(np.array([[0.0, 0.0]]), lengths, limits=limits, strategy="accept", softness=0.0)
    assert res.angles[0, 3] == pytest.approx(0.5)
    assert np.all(res.angles >= limits[:, 0] - 1e-12)
