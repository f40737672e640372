"""``solver.chain_common.polish`` and ``finish`` on their own, against what each documents.

CCD and FABRIK reach the polish only after their sweeps, which leave it a few well-conditioned steps, so its
Levenberg-Marquardt schedule (the damping factor's rise, fall and floor, the point where it gives up, the stall
threshold, the rounds that put joints on their limits) converged through any small change to it: the mutation
run of ``chain_common`` left those untested. Here the polish runs on poses chosen so each part of the schedule
decides the outcome, and the truth is derived independently: for one bone the damped step is the closed form
``-d L sin(theta) / (L^2 (1 + mu) + (1e-6 L)^2)`` (target at distance ``d`` on +x), replayed in plain floats;
for longer chains each step is ``J^T (J J^T + lambda I)^-1 e`` solved by ``numpy.linalg.solve`` from a
hand-built Jacobian. ``finish`` is checked against its strategies' formulas on hand-made poses.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest

from solver.chain_common.finish import finish, run_chain_solver
from solver.chain_common.frame_loop import STALL_FRACTION
from solver.chain_common.options import ChainSetup, parse_options
from solver.chain_common.polish import polish
from solver.chain_common.result import LIMIT_BLOCKED, LIMITED, ROOT_MOVED, STRETCHED, ChainState

MU_FLOOR = 1e-3  # the damping factor after a first failed step
MU_GIVE_UP = 1e8  # the factor at which a frame stops: no damping helps any more


def joints_of(pose: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    absolute = np.cumsum(pose)
    steps = np.stack([lengths * np.cos(absolute), lengths * np.sin(absolute)], axis=-1)
    return np.vstack([[0.0, 0.0], np.cumsum(steps, axis=0)])


def tip_miss(pose: np.ndarray, lengths: np.ndarray, target: np.ndarray) -> float:
    return float(np.hypot(*(target - joints_of(pose, lengths)[-1])))


# --- one bone: the schedule in closed form ------------------------------------------------------------------


def one_bone_replay(theta: float, d: float, length: float,
                    setup: ChainSetup) -> tuple[float, int, list[str], list[float]]:
    """The polish of one bone towards ``(d, 0)`` as its docstring describes it, in scalars.

    Returns the final angle, the steps taken and what happened at each evaluation: ``good`` (the factor is
    lowered tenfold), ``fail`` (the step is undone, the factor raised tenfold, at least to 1e-3), then why it
    ended; and the gains of the good steps.
    """
    gains: list[float] = []
    base = (1e-6 * length) ** 2
    tol = setup.tolerance

    def miss(t: float) -> float:
        return math.hypot(d - length * math.cos(t), length * math.sin(t))

    best, mu, steps, backup, log = math.inf, 0.0, 0, theta, []
    while True:
        err = miss(theta)
        failed = err >= best
        if failed:
            theta, mu = backup, max(10.0 * mu, MU_FLOOR)
            log.append("fail")
        else:
            gain, best, mu = best - err, err, mu * 0.1
            gains.append(gain)
            log.append("good")
        if best <= tol:
            return theta, steps, [*log, "tolerance"], gains
        if steps >= setup.polish_iterations:
            return theta, steps, [*log, "cap"], gains
        if mu >= MU_GIVE_UP:
            return theta, steps, [*log, "give up"], gains
        if not failed and gain < STALL_FRACTION * tol:
            return theta, steps, [*log, "stall"], gains
        delta = -d * length * math.sin(theta) / (length * length * (1.0 + mu) + base)
        delta = max(-setup.polish_max_step, min(setup.polish_max_step, delta))
        backup, theta, steps = theta, theta + delta, steps + 1


def one_bone(length: float = 1.0, **options: Any) -> ChainSetup:
    return parse_options([length], **options)


def test_a_short_overshoot_converges_without_damping_and_stops_on_the_stall_threshold() -> None:
    """d = 1.5 L: each Gauss-Newton step flips the angle to -0.5 of itself, always better, so the factor stays 0;
    the error's floor is d - L, out of reach, and the polish stops at the first step that gains less than
    ``STALL_FRACTION * tolerance``. Starting angles where that step is the 1st, 2nd... (gains well clear of the
    threshold) pin the threshold and its comparison."""
    setup = one_bone()
    stall = STALL_FRACTION * setup.tolerance
    counts = []
    for theta0 in (1e-5, 5e-5, 1e-4, 2e-4):
        final, steps, log, gains = one_bone_replay(theta0, 1.5, 1.0, setup)
        assert log[-1] == "stall" and "fail" not in log
        # The last step's gain below the threshold, the ones before above it, all by a clear margin.
        assert gains[0] == math.inf and gains[-1] < 0.8 * stall and all(g > 1.2 * stall for g in gains[:-1])
        angles, taken = polish(np.array([[theta0]]), np.array([[1.5, 0.0]]), setup)
        assert taken[0] == steps
        # One bone: J J^T is singular, and the step's round-off is ~1e-16 / (1e-6 L)^2 of the angle, up to ~1e-4 of it.
        assert angles[0, 0] == pytest.approx(final, abs=3e-4 * theta0)
        counts.append(steps)
    assert counts == [1, 2, 3, 4]


@pytest.mark.parametrize("length", [1.0, 2.0])
def test_a_long_overshoot_raises_the_damping_tenfold_until_a_step_helps_and_lowers_it_after(length: float) -> None:
    """d = 3 L (the damping is the factor times trace(J J^T) = L^2, so L = 2 tells times from over): the undamped
    step overshoots to about -2 theta (worse), and so do the factors 1e-3, 1e-2, 0.1;
    1 is the first that helps (-theta / 2); then 0.1 fails again and 1 helps: the schedule alternates until the
    stall threshold. A factor raised or lowered by another ratio, or floored elsewhere, changes the count."""
    setup = one_bone(length)
    for theta0 in (0.01, 0.002):
        final, steps, log, _gains = one_bone_replay(theta0, 3.0 * length, length, setup)
        assert log[:6] == ["good", "fail", "fail", "fail", "fail", "good"]
        assert log[6:8] == ["fail", "good"] and log[-1] == "stall"
        angles, taken = polish(np.array([[theta0]]), np.array([[3.0 * length, 0.0]]), setup)
        assert taken[0] == steps and taken.dtype == np.int64
        assert angles[0, 0] == pytest.approx(final, abs=3e-4 * theta0)


def test_frames_polished_together_keep_their_own_schedules() -> None:
    """One call on frames that fail and retry (d = 3 L), converge undamped (d = 1.5 L) or give up at once (the
    target on the tip's line beyond reach): each frame takes its own steps, as alone."""
    setup = one_bone()
    starts = np.array([[0.01], [2e-4], [0.0], [0.002]])
    targets = np.array([[3.0, 0.0], [1.5, 0.0], [2.0, 0.0], [3.0, 0.0]])
    angles, taken = polish(starts, targets, setup)
    for start, target, got, count in zip(starts, targets, angles, taken, strict=True):
        final, steps, _log, _gains = one_bone_replay(float(start[0]), float(target[0]), 1.0, setup)
        assert count == steps
        assert got[0] == pytest.approx(final, abs=3e-4 * max(float(start[0]), 1e-6))


def test_a_step_larger_than_max_step_is_shortened_to_it() -> None:
    """From 0.3 rad at d = 3 L the undamped step is ~ -0.89 rad: cut to -0.25 it lands at 0.05 (better)."""
    setup = one_bone()
    angles, taken = polish(np.array([[0.3]]), np.array([[3.0, 0.0]]), dataclasses.replace(setup, polish_iterations=1))
    assert taken[0] == 1
    assert angles[0, 0] == pytest.approx(0.3 - setup.polish_max_step, abs=1e-15)
    final, steps, _log, _gains = one_bone_replay(0.3, 3.0, 1.0, setup)
    angles, taken = polish(np.array([[0.3]]), np.array([[3.0, 0.0]]), setup)
    assert taken[0] == steps
    assert angles[0, 0] == pytest.approx(final, abs=3e-4 * 0.3)


def test_polish_iterations_caps_the_steps_and_the_best_pose_is_kept() -> None:
    """Capped at k steps the polish returns the best pose it has met: with d = 3 L the second step fails, so
    two steps return the first step's pose."""
    setup = one_bone()
    for k in range(0, 6):
        capped = dataclasses.replace(setup, polish_iterations=k)
        final, steps, log, _gains = one_bone_replay(0.01, 3.0, 1.0, capped)
        assert steps == k and log[-1] == "cap"
        angles, taken = polish(np.array([[0.01]]), np.array([[3.0, 0.0]]), capped)
        assert taken[0] == k
        assert angles[0, 0] == pytest.approx(final, abs=3e-4 * 0.01)


def test_a_frame_no_step_helps_gives_up_when_the_damping_factor_reaches_1e8() -> None:
    """A straight chain pointing at a target beyond its reach: every step is exactly zero (the tip can only
    move across the line), so every step after the first fails and raises the factor, from 1e-3 tenfold, until
    it reaches 1e8: 1 + 11 steps (1e-3 ... 1e7 retried), whatever ``polish_iterations`` allows beyond that."""
    lengths = np.array([1.0, 0.8, 0.6])
    setup = parse_options(lengths, polish_iterations=10_000)
    mu, failures = MU_FLOOR, 0
    while mu < MU_GIVE_UP:  # the factor after each failure, in the polish's own float operations
        failures += 1
        mu *= 10.0
    assert failures == 11
    angles, taken = polish(np.zeros((2, 3)), np.array([[3.0, 0.0], [2.5, 0.0]]), setup)
    assert list(taken) == [1 + failures] * 2
    assert np.all(angles == 0.0)
    capped = polish(np.zeros((1, 3)), np.array([[3.0, 0.0]]), dataclasses.replace(setup, polish_iterations=7))
    assert capped[1][0] == 7


def test_a_target_on_the_tip_takes_no_step() -> None:
    setup = parse_options([1.0, 1.0])
    pose = np.array([[0.4, 0.7]])
    target = joints_of(pose[0], setup.lengths)[-1][None, :]
    angles, taken = polish(pose, target, setup)
    assert taken[0] == 0 and np.array_equal(angles, pose)
    assert polish(np.zeros((0, 2)), np.zeros((0, 2)), setup)[1].shape == (0,)


# --- longer chains: each step against numpy's solve -----------------------------------------------------------


def damped_step(pose: np.ndarray, target: np.ndarray, setup: ChainSetup, mu: float) -> tuple[np.ndarray, int]:
    """One polish step as documented: the damped least-squares change; a joint that would cross a limit is put on
    it and the others solve for the rest (three rounds at most); then the step is shortened to ``max_step``.
    Returns the new pose and the number of rounds that pinned a joint."""
    lengths, lo, hi = setup.lengths, setup.lower, setup.upper
    joints = joints_of(pose, lengths)
    e = target - joints[-1]
    lever = joints[-1] - joints[:-1]
    jac = np.stack([-lever[:, 1], lever[:, 0]])
    free = np.ones(len(pose), dtype=bool)
    pinned = np.zeros(len(pose))
    rest = e
    pinning_rounds = 0
    for _ in range(3):
        jf = jac * free
        m = jf @ jf.T
        m += ((1e-6 * setup.total_length) ** 2 + mu * np.trace(m)) * np.eye(2)
        delta = jf.T @ np.linalg.solve(m, rest)
        crossing = free & ((pose + delta < lo) | (pose + delta > hi))
        if not crossing.any():
            break
        pinning_rounds += 1
        pinned[crossing] = (np.clip(pose + delta, lo, hi) - pose)[crossing]
        free &= ~crossing
        rest = e - jac @ pinned
    delta = np.where(free, delta, pinned)
    delta *= min(1.0, setup.polish_max_step / max(float(np.abs(delta).max()), 1e-300))
    return np.clip(pose + delta, lo, hi), pinning_rounds


def test_the_first_step_is_the_damped_least_squares_change_with_the_base_damping() -> None:
    """A chain bent by only 1e-6 rad: ``J J^T`` is nearly singular across the chain, where the base damping
    ``(1e-6 L)^2`` is of the size of its small eigenvalue and sets the step (another base changes it by far
    more than the 1e-6 compared). Several frames at once, each its own step."""
    lengths = np.array([1.0, 0.8, 0.6, 0.4])
    setup = dataclasses.replace(parse_options(lengths), polish_iterations=1)
    poses = np.array([[0.0, 1e-6, -2e-6, 1e-6], [0.3, 0.4, 0.5, 0.6], [0.1, 2e-6, 0.0, -1e-6]])
    targets = np.array([[2.7, 0.2], [1.2, 1.9], [2.6, 0.5]])
    angles, taken = polish(poses, targets, setup)
    assert list(taken) == [1, 1, 1]
    for pose, target, got in zip(poses, targets, angles, strict=True):
        expected, _ = damped_step(pose, target, setup, 0.0)
        assert tip_miss(expected, lengths, target) < tip_miss(pose, lengths, target)  # a step that helped
        assert got == pytest.approx(expected, rel=1e-6, abs=1e-12)
        undamped = dataclasses.replace(setup, total_length=setup.total_length * 10.0)
        other, _ = damped_step(pose, target, undamped, 0.0)
        if pose[1] < 1e-3:  # nearly straight: the base damping matters
            assert np.abs(other - expected).max() > 1e-4


INF = math.inf


@pytest.mark.parametrize(("lower", "upper", "rounds"), [
    ([-INF] * 5, [0.32, INF, INF, INF, INF], 1),
    ([-INF] * 5, [0.32, 0.45, INF, INF, INF], 2),
    ([-INF] * 5, [0.32, 0.45, 0.35, INF, INF], 3),
    ([-INF, -INF, -INF, -INF, 0.25], [0.32, 0.45, INF, INF, INF], 3),
    ([-INF, -INF, -INF, -INF, 0.296], [INF] * 5, 1),
    ([-INF, -INF, -INF, -INF, 0.28], [0.32, INF, INF, INF, INF], 2),
])
def test_a_joint_that_would_cross_its_limit_is_put_on_it_and_the_others_solve_the_rest(
        lower: list[float], upper: list[float], rounds: int) -> None:
    """Limits that the first step crosses for the first joint, the second round for the second, the third for
    the third or the last (a lower limit): each round puts the crossing joints on their limit and solves the
    rest of the error with the joints still free; after three rounds the last round's step is kept for the
    joints still free (pinned in a fourth round, the step would differ)."""
    lengths = np.ones(5)
    setup = dataclasses.replace(parse_options(lengths, limits=np.stack([lower, upper], axis=1)), polish_iterations=1)
    pose = np.array([0.3, 0.4, 0.3, 0.2, 0.3])
    target = joints_of(pose, lengths)[-1] + np.array([-0.3, 0.2])
    expected, pinning = damped_step(pose, target, setup, 0.0)
    assert pinning == rounds
    assert tip_miss(expected, lengths, target) < tip_miss(pose, lengths, target)
    angles, taken = polish(pose[None, :], target[None, :], setup)
    assert taken[0] == 1
    assert angles[0] == pytest.approx(expected, abs=1e-12)
    assert np.all(angles[0] <= upper) and np.all(angles[0] >= lower)


# --- finish and run_chain_solver --------------------------------------------------------------------------------


def test_the_pipeline_counts_sweeps_plus_polish_steps_and_does_not_predict_by_default() -> None:
    """``iterations`` is the method's sweeps plus the polish steps, frame by frame (a sweep count of 1 to 7 beside
    capped polish steps, so a difference would show), and ``predict`` is off unless asked for (FABRIK relies
    on the default): a kernel that records its warm starts sees the plain previous pose."""
    lengths = np.array([1.0, 0.8, 0.6])
    setup = parse_options(lengths, polish_iterations=2)
    targets = np.array([[1.5, 0.9], [1.45, 1.0], [1.4, 1.1]])
    used = [5, 1, 7]

    def recording(starts: list[list[float]]) -> Any:
        def kernel(start: list[float], tx: float, ty: float) -> tuple[list[float], int]:
            starts.append(list(start))
            # The start turned by 0.3 rad at the root: far enough off that two polish steps do not converge.
            return [start[0] + 0.3, *start[1:]], used[len(starts) - 1]

        return kernel

    plain: list[list[float]] = []
    result = run_chain_solver(targets, setup, recording(plain))
    asked: list[list[float]] = []
    run_chain_solver(targets, setup, recording(asked), predict=False)
    predicted: list[list[float]] = []
    run_chain_solver(targets, setup, recording(predicted), predict=True)
    assert len(plain) == 3 and plain == asked and plain != predicted
    assert list(result.iterations) == [u + 2 for u in used]
    # The next call warm-starts from the last frame's swept pose (the kernel's answer), not the polished one.
    last_swept = [plain[-1][0] + 0.3, *plain[-1][1:]]
    assert list(result.state.angles) == last_swept and not np.allclose(result.angles[-1], last_swept)
    empty = run_chain_solver(np.zeros((0, 2)), setup, recording([]))
    assert np.array_equal(empty.state.angles, setup.warm_angles) and empty.state.root_offset == (0.0, 0.0)
    assert not np.any(result.converged)  # the cap of 2 steps stopped every frame's polish


def finish_on(angles: np.ndarray, solved: np.ndarray, setup: ChainSetup, flags: Any = None) -> Any:
    n = len(angles)
    flags = np.zeros(n, dtype=np.int64) if flags is None else np.asarray(flags, dtype=np.int64)
    return finish(solved.copy(), solved, flags, angles, np.zeros(n, dtype=np.int64), setup,
                  angles[-1] if n else setup.warm_angles)


def test_a_joint_within_1e_12_of_a_finite_limit_is_limited_and_an_open_side_never_is() -> None:
    """``LIMITED``: a joint within 1e-12 rad of a finite limit, on either side; 1e-9 away is not; an open side
    (infinite) and a finite limit elsewhere flag nothing. The solved targets are the tips: nothing is blocked."""
    lengths = np.array([1.0, 1.0])
    setup = parse_options(lengths, limits=[[-INF, INF], [-0.5, 0.7]])
    angles = np.array([[0.2, -0.5 + 5e-13], [0.2, 0.7 - 5e-13], [0.2, -0.5 + 1e-9], [0.2, 0.7 - 1e-9],
                       [0.2, 0.1], [-50.0, 0.1], [50.0, 0.1]])
    tips = np.array([joints_of(a, lengths)[-1] for a in angles])
    result = finish_on(angles, tips, setup)
    assert list(result.flags) == [LIMITED, LIMITED, 0, 0, 0, 0, 0]
    assert np.all(result.converged) and np.all(result.error == 0.0)
    # The targets' own flags (here CLAMPED_OUTER = 1 and DIRECTION_HELD = 128) are kept beside these.
    kept = finish_on(angles, tips, setup, flags=[1, 128, 1, 0, 0, 0, 0])
    assert list(kept.flags) == [1 | LIMITED, 128 | LIMITED, 1, 0, 0, 0, 0]
    open_upper = parse_options(lengths, limits=[[-INF, INF], [-0.5, INF]])
    assert list(finish_on(angles[4:], tips[4:], open_upper).flags) == [0, 0, 0]


def test_the_strategies_act_on_blocked_frames_only() -> None:
    """A frame that misses with limits set is blocked (even with no joint on a limit); ``move_root`` moves the
    root by the miss, capped at ``max_root_offset``; ``stretch`` scales the bones by the projection of the
    target on the tip, clipped to ``stretch_range``; a frame within tolerance is left alone."""
    lengths = np.array([1.0, 1.0])
    angles = np.array([[0.0, 0.3], [0.0, 0.3], [0.0, 0.3]])
    tip = joints_of(angles[0], lengths)[-1]
    solved = np.array([tip, tip * 1.05, tip + np.array([0.0, 0.5])])
    limits = [[-1.0, 1.0], [-1.0, 1.0]]
    accept = finish_on(angles, solved, parse_options(lengths, limits=limits))
    assert list(accept.flags) == [0, LIMIT_BLOCKED, LIMIT_BLOCKED]
    assert accept.error_solved[1] == pytest.approx(0.05 * math.hypot(*tip), rel=1e-12)

    moved = finish_on(angles, solved, parse_options(lengths, limits=limits, strategy="move_root",
                                                    max_root_offset=0.2, root_smoothing=0.0))
    assert moved.root_offset[0] == pytest.approx([0.0, 0.0], abs=0.0)
    assert moved.root_offset[1] == pytest.approx(0.05 * tip, rel=1e-12)  # the whole miss, under the cap
    assert moved.root_offset[2] == pytest.approx([0.0, 0.2], rel=1e-12)  # 0.5 cut to 0.2
    assert list(moved.flags) == [0, LIMIT_BLOCKED | ROOT_MOVED, LIMIT_BLOCKED | ROOT_MOVED]
    assert moved.end[1] == pytest.approx(solved[1], rel=1e-12) and moved.converged[1]
    assert moved.state.root_offset == pytest.approx((0.0, 0.2), rel=1e-12)


    stretched = finish_on(angles, solved, parse_options(lengths, limits=limits, strategy="stretch",
                                                        stretch_range=(0.9, 1.2)))
    projection = float(np.dot(tip, solved[2]) / np.dot(tip, tip))
    assert list(stretched.stretch) == pytest.approx([1.0, 1.05, projection], rel=1e-12)
    assert list(stretched.flags) == [0, LIMIT_BLOCKED | STRETCHED, LIMIT_BLOCKED | STRETCHED]
    assert stretched.end == pytest.approx(tip * np.array(stretched.stretch)[:, None], rel=1e-12)
    # A chain shorter than 1: the projection divides by |tip|^2 itself.
    small = finish_on(angles, solved * 0.1, parse_options(lengths * 0.1, limits=limits, strategy="stretch",
                                                          stretch_range=(0.9, 1.2)))
    assert list(small.stretch) == pytest.approx([1.0, 1.05, projection], rel=1e-12)
    clipped = finish_on(angles, solved * 2.0, parse_options(lengths, limits=limits, strategy="stretch",
                                                            stretch_range=(0.9, 1.2)))
    assert list(clipped.stretch) == pytest.approx([1.2] * 3, rel=1e-12)


def test_move_root_smooths_from_the_previous_calls_offset() -> None:
    """With ``root_smoothing`` the frames before the first hold the previous call's offset: a constant miss
    after a previous offset of zero starts lower and grows; after the same offset, it stays what it is."""
    lengths = np.array([1.0, 1.0])
    angles = np.tile([0.0, 0.3], (6, 1))
    tip = joints_of(angles[0], lengths)[-1]
    solved = np.tile(tip + np.array([0.0, 0.05]), (6, 1))
    options = dict(limits=[[-1.0, 1.0], [-1.0, 1.0]], strategy="move_root", root_smoothing=2.0)
    alone = finish_on(angles, solved, parse_options(lengths, **options))
    assert alone.root_offset == pytest.approx(np.tile([0.0, 0.05], (6, 1)), rel=1e-12)
    after_zero = finish_on(angles, solved, parse_options(lengths, previous=ChainState(
        angles=np.zeros(2), direction=np.array([1.0, 0.0]), root_offset=(0.0, 0.0)), **options))
    assert 0.0 < after_zero.root_offset[0, 1] < after_zero.root_offset[1, 1] < 0.05
    after_same = finish_on(angles, solved, parse_options(lengths, previous=ChainState(
        angles=np.zeros(2), direction=np.array([1.0, 0.0]), root_offset=(0.0, 0.05)), **options))
    assert after_same.root_offset == pytest.approx(np.tile([0.0, 0.05], (6, 1)), rel=1e-12)


def test_without_limits_a_miss_is_not_blocked_and_the_state_carries_the_last_direction() -> None:
    lengths = np.array([1.0, 1.0])
    setup = parse_options(lengths, strategy="stretch")
    angles = np.array([[0.0, 0.3], [0.1, 0.3], [0.1, 0.3], [0.1, 0.3]])
    solved = np.array([[0.0, 1.0], [3.0, 4.0], [0.4, -0.3], [0.0, 0.0]])
    result = finish_on(angles, solved, setup)
    assert list(result.flags) == [0] * 4 and list(result.stretch) == [1.0] * 4
    assert result.state.direction == pytest.approx([0.8, -0.6], rel=1e-15)  # the last solved target off the root
    assert np.array_equal(result.state.angles, angles[-1])
    assert finish_on(angles[:2], solved[:2], setup).state.direction == pytest.approx([0.6, 0.8], rel=1e-15)
    held = finish_on(angles[3:], solved[3:], setup)
    assert np.array_equal(held.state.direction, setup.warm_direction)
    none = finish_on(angles[:0], solved[:0], setup)
    assert none.state.root_offset == (0.0, 0.0) and none.angles.shape == (0, 2)
