"""Joint limits and the declared strategies (accept / move_root / stretch), against geometric truth."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver import IKFlag, JointLimits, Strategy, forward_kinematics, solve_two_bone

A, B = 150.0, 125.0
L = A + B


def _span(elbow: float) -> float:
    """Shoulder-to-tip distance of the chain for a given elbow angle (law of cosines)."""
    return math.sqrt(A * A + B * B + 2 * A * B * math.cos(elbow))


def test_accept_keeps_the_error_of_an_elbow_that_cannot_straighten() -> None:
    limits = JointLimits(elbow=(0.5, 2.5))
    target = np.array([[0.0, 270.0]])
    res = solve_two_bone(target, A, B, limits=limits, strategy="accept")
    assert res.elbow_angle[0] == 0.5
    assert res.flags[0] & IKFlag.LIMITED_ELBOW and not res.flags[0] & IKFlag.LIMITED_SHOULDER
    # Best reach: the tip is on the target's ray at the span the limited elbow allows.
    assert res.error[0] == pytest.approx(270.0 - _span(0.5), abs=1e-9)
    assert math.atan2(res.end[0, 1], res.end[0, 0]) == pytest.approx(math.pi / 2, abs=1e-12)
    assert res.limited[0] and not res.strategy_applied[0]


def test_accept_with_a_shoulder_limit_is_the_closest_tip_of_a_brute_force_search() -> None:
    rng = np.random.default_rng(3)
    for case in range(60):
        slo = rng.uniform(-3, 3)
        shoulder = (slo, slo + rng.uniform(0.2, 2.5))
        elo = rng.uniform(-1.0, 2.5)
        elbow = (elo, min(elo + rng.uniform(0.1, 2.5), math.pi))
        limits = JointLimits(shoulder=shoulder, elbow=elbow if case % 2 else None)
        ang, d = rng.uniform(-math.pi, math.pi), rng.uniform(0, 300)
        target = np.array([[d * math.cos(ang), d * math.sin(ang)]])
        res = solve_two_bone(target, A, B, limits=limits)
        e_range = limits.elbow or (0.0, math.pi)
        e_range = (max(e_range[0], 0.0), e_range[1])  # bend=+1 keeps the elbow in [0, pi]
        s = np.linspace(*shoulder, 300)[:, None]
        e = np.linspace(*e_range, 300)[None, :]
        _, tips = forward_kinematics(s, e, A, B)
        grid_best = np.hypot(*(tips - res.solved_target[0]).transpose(2, 0, 1)).min()
        assert res.error_solved[0] <= grid_best + 1e-9
        assert shoulder[0] <= res.shoulder_angle[0] <= shoulder[1]


def test_move_root_reaches_when_the_offset_is_within_the_cap() -> None:
    limits = JointLimits(elbow=(0.5, 2.5))
    target = np.array([[0.0, 270.0]])
    missing = 270.0 - _span(0.5)
    res = solve_two_bone(target, A, B, limits=limits, strategy="move_root", max_root_offset=50.0)
    assert res.error[0] <= 1e-9 * L
    np.testing.assert_allclose(res.root_offset[0], [0.0, missing], atol=1e-9)
    assert res.flags[0] & IKFlag.ROOT_MOVED
    capped = solve_two_bone(target, A, B, limits=limits, strategy="move_root", max_root_offset=2.0)
    assert missing > 2.0
    assert np.hypot(*capped.root_offset[0]) == pytest.approx(2.0)
    assert capped.error[0] == pytest.approx(missing - 2.0, abs=1e-6)


def test_move_root_is_smoothed_without_lag_and_only_around_limited_frames() -> None:
    limits = JointLimits(elbow=(0.5, 2.5))
    n = 80
    reach = np.full(n, 200.0)
    reach[35:45] = 268.0  # a burst the elbow limit cannot follow
    targets = np.stack([np.zeros(n), reach], axis=1)
    sigma = 3.0
    res = solve_two_bone(
        targets, A, B, limits=limits, strategy=Strategy.MOVE_ROOT, max_root_offset=40.0, root_smoothing=sigma
    )
    raw = solve_two_bone(
        targets, A, B, limits=limits, strategy=Strategy.MOVE_ROOT, max_root_offset=40.0, root_smoothing=0.0
    )
    limited = res.limited
    moved = np.flatnonzero(res.flags & IKFlag.ROOT_MOVED)
    lim_idx = np.flatnonzero(limited)
    assert set(np.flatnonzero(raw.flags & IKFlag.ROOT_MOVED)) == set(lim_idx)
    assert all(np.min(np.abs(lim_idx - i)) <= math.ceil(3 * sigma) for i in moved)
    oy = res.root_offset[:, 1]
    # Zero lag: the smoothed bump is symmetric about the burst's centre (frames 35..44).
    np.testing.assert_allclose(oy[:40][::-1], oy[40:], atol=1e-12)
    # Smoother than the raw step: the largest frame-to-frame jump shrinks.
    assert np.abs(np.diff(oy)).max() < 0.5 * np.abs(np.diff(raw.root_offset[:, 1])).max()
    # Frames eased by the smoothing but not limited still reach their target exactly from the moved root.
    eased = np.setdiff1d(moved, lim_idx)
    assert eased.size > 0 and res.error[eased].max() <= 1e-9 * L
    _, tip = forward_kinematics(res.shoulder_angle, res.elbow_angle, A, B, root=res.root_offset)
    np.testing.assert_allclose(tip, res.end, atol=1e-9)


def test_stretch_scales_both_bones_within_the_range() -> None:
    limits = JointLimits(elbow=(0.5, 2.5))
    target = np.array([[270.0, 0.0]])
    res = solve_two_bone(target, A, B, limits=limits, strategy="stretch")
    k = 270.0 / _span(0.5)
    assert 1.0 < k <= 1.1
    assert res.stretch[0] == pytest.approx(k, rel=1e-12)
    assert res.error[0] <= 1e-9 * L
    assert res.flags[0] & IKFlag.STRETCHED
    _, tip = forward_kinematics(res.shoulder_angle, res.elbow_angle, A, B, scale=res.stretch)
    np.testing.assert_allclose(tip, res.end, atol=1e-9)
    # Too far for +10%: the factor stops at the bound and the rest of the error is reported.
    far = solve_two_bone(np.array([[274.0, 0.0]]), A, B, limits=JointLimits(elbow=(1.0, 2.5)), strategy="stretch")
    assert far.stretch[0] == pytest.approx(1.1)
    assert far.error[0] == pytest.approx(274.0 - 1.1 * _span(1.0), abs=1e-6)
    narrow = solve_two_bone(
        np.array([[274.0, 0.0]]),
        A,
        B,
        limits=JointLimits(elbow=(1.0, 2.5)),
        strategy="stretch",
        stretch_range=(0.95, 1.02),
    )
    assert narrow.stretch[0] == pytest.approx(1.02)


def test_stretch_shrinks_for_an_elbow_that_cannot_fold() -> None:
    limits = JointLimits(elbow=(0.0, 2.0))
    target = np.array([[0.0, -120.0]])
    res = solve_two_bone(target, A, B, limits=limits, strategy="stretch")
    assert res.stretch[0] == pytest.approx(max(0.9, 120.0 / _span(2.0)))
    accept = solve_two_bone(target, A, B, limits=limits)
    assert res.error[0] < accept.error[0]


def test_strategies_leave_frames_without_limits_untouched() -> None:
    rng = np.random.default_rng(5)
    targets = rng.uniform(-260, 260, size=(200, 2))
    limits = JointLimits(shoulder=(-1.0, 1.0), elbow=(0.3, 2.8))
    base = solve_two_bone(targets, A, B, limits=limits)
    for strategy in ("move_root", "stretch"):
        res = solve_two_bone(targets, A, B, limits=limits, strategy=strategy, root_smoothing=0.0)
        free = ~base.limited
        np.testing.assert_array_equal(res.shoulder_angle[free], base.shoulder_angle[free])
        np.testing.assert_array_equal(res.end[free], base.end[free])
        assert not res.strategy_applied[free].any()
        assert res.strategy_applied[base.limited].any()
        # A strategy never makes a frame worse than accepting the error.
        assert (res.error_solved <= base.error_solved + 1e-9).all()


def test_limits_are_validated() -> None:
    with pytest.raises(ValueError):
        JointLimits(elbow=(1.0, 0.0))
    with pytest.raises(ValueError):
        JointLimits(shoulder=(0.0, math.inf))
    with pytest.raises(ValueError):
        solve_two_bone(np.zeros((1, 2)), A, B, strategy="teleport")


def test_stretch_also_answers_a_shoulder_limit_when_a_scale_can_reach() -> None:
    # Shoulder stuck at 0: the target (200 at 0.5 rad) lies inside the lower bone's circle around the elbow,
    # so only shorter bones reach it. Closed form: |T/k - a u| = b with u = (1, 0).
    limits = JointLimits(shoulder=(0.0, 0.3))
    target = 200.0 * np.array([[math.cos(0.5), math.sin(0.5)]])
    p, d = target[0, 0], 200.0
    w = (A * p + math.sqrt(A * A * p * p - d * d * (A * A - B * B))) / (d * d)
    res = solve_two_bone(target, A, B, limits=limits, strategy="stretch", stretch_range=(0.8, 1.1))
    assert res.stretch[0] == pytest.approx(1.0 / w, rel=1e-9)
    assert res.error[0] <= 1e-9 * L
    assert res.shoulder_angle[0] == 0.0
    assert res.flags[0] & IKFlag.STRETCHED and res.flags[0] & IKFlag.LIMITED_SHOULDER
    # Within the default +-10% it cannot reach: the factor stops at 0.9 and still beats accepting the error.
    default = solve_two_bone(target, A, B, limits=limits, strategy="stretch")
    accept = solve_two_bone(target, A, B, limits=limits)
    assert default.stretch[0] == pytest.approx(0.9)
    assert 0 < default.error[0] < accept.error[0]


def test_limits_search_each_frame_on_the_side_its_pole_chose() -> None:
    # The pole overrides ``bend`` frame by frame; the box search must use each frame's own side, not the
    # fallback: the elbow stays in that side's half and the tip is as close as a brute-force grid allows.
    rng = np.random.default_rng(11)
    n = 80
    ang = rng.uniform(-math.pi, math.pi, n)
    reach = rng.uniform(0.1, 1.05, n) * L
    targets = np.stack([reach * np.cos(ang), reach * np.sin(ang)], axis=1)
    poles = rng.normal(size=(n, 2)) * L
    limits = JointLimits(shoulder=(-1.5, 2.0), elbow=(-2.2, 2.6))
    res = solve_two_bone(targets, A, B, bend=1, pole=poles, limits=limits)
    assert (res.bend == -1).any() and (res.bend == 1).any()
    s = np.linspace(*limits.shoulder, 400)[:, None]
    for i in range(n):
        e_range = (0.0, limits.elbow[1]) if res.bend[i] > 0 else (limits.elbow[0], 0.0)
        assert e_range[0] <= res.elbow_angle[i] <= e_range[1]
        _, tips = forward_kinematics(s, np.linspace(*e_range, 400)[None, :], A, B)
        grid_best = np.hypot(*(tips - res.solved_target[i]).transpose(2, 0, 1)).min()
        assert res.error_solved[i] <= grid_best + 1e-9
