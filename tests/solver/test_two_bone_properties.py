"""Property-based checks of the two-bone solve over random (including degenerate) lengths and targets."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import IKFlag, JointLimits, forward_kinematics, solve_two_bone

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def lengths(draw: st.DrawFn) -> tuple[float, float]:
    kind = draw(st.sampled_from(["random", "equal", "tiny_upper", "tiny_lower", "huge"]))
    a = draw(st.floats(1e-3, 1e3))
    if kind == "equal":
        return a, a
    if kind == "tiny_upper":
        return a * 1e-6, a
    if kind == "tiny_lower":
        return a, a * 1e-6
    if kind == "huge":
        return a * 1e6, draw(st.floats(1e-3, 1e3)) * 1e6
    return a, draw(st.floats(1e-3, 1e3))


@st.composite
def target_sets(draw: st.DrawFn, a: float, b: float) -> np.ndarray:
    """A short trajectory mixing ordinary, boundary, zero and huge targets."""
    total, inner = a + b, abs(a - b)
    n = draw(st.integers(1, 12))
    pts = []
    for _ in range(n):
        kind = draw(st.sampled_from(["box", "zero", "inner", "outer", "huge", "tiny"]))
        ang = draw(st.floats(-math.pi, math.pi))
        u = np.array([math.cos(ang), math.sin(ang)])
        if kind == "box":
            pts.append(u * draw(st.floats(0.0, 2.0)) * total)
        elif kind == "zero":
            pts.append(np.zeros(2))
        elif kind == "inner":
            pts.append(u * inner)
        elif kind == "outer":
            pts.append(u * total)
        elif kind == "huge":
            pts.append(u * total * draw(st.floats(1e3, 1e12)))
        else:
            pts.append(u * total * draw(st.floats(1e-15, 1e-6)))
    return np.array(pts)


@st.composite
def problems(draw: st.DrawFn) -> tuple[float, float, np.ndarray, int]:
    a, b = draw(lengths())
    return a, b, draw(target_sets(a, b)), draw(st.sampled_from([1, -1]))


def _all_finite(res: object) -> bool:
    names = ["shoulder_angle", "elbow_angle", "elbow", "end", "error", "error_solved", "sensitivity"]
    return all(np.isfinite(getattr(res, n)).all() for n in names)


@SETTINGS
@given(problems(), st.sampled_from([0.0, 0.05]), st.sampled_from([0.0, 0.02]))
def test_finite_round_trip_and_no_bend_flip(problem: tuple, softness: float, inner_softness: float) -> None:
    a, b, targets, bend = problem
    total = a + b
    res = solve_two_bone(targets, a, b, bend=bend, softness=softness, inner_softness=inner_softness)
    assert _all_finite(res)
    elbow, tip = forward_kinematics(res.shoulder_angle, res.elbow_angle, a, b)
    np.testing.assert_allclose(tip, res.end, rtol=0, atol=1e-12 * total)
    np.testing.assert_allclose(elbow, res.elbow, rtol=0, atol=1e-12 * total)
    # The solved target is reached to floating-point level, whatever the raw target was.
    assert res.error_solved.max() <= 1e-9 * total
    # Without limits the elbow always stays on the caller's side (never 0 thanks to eps).
    assert (np.sign(res.elbow_angle) == bend).all()
    assert (res.bend == bend).all()
    assert (-math.pi < res.shoulder_angle).all() and (res.shoulder_angle <= math.pi).all()


@SETTINGS
@given(problems())
def test_error_is_exactly_the_clamped_distance(problem: tuple) -> None:
    a, b, targets, bend = problem
    total = a + b
    res = solve_two_bone(targets, a, b, bend=bend)
    raw_d = np.hypot(targets[:, 0], targets[:, 1])
    np.testing.assert_allclose(res.distance, raw_d, rtol=1e-15, atol=0)
    held = (res.flags & IKFlag.DIRECTION_HELD) != 0
    expected = np.where(held, res.solved_distance, np.abs(raw_d - res.solved_distance))
    # Far targets: |target - tip| and raw_d - solved each round at a few ulps of raw_d (4.4e-16 relative
    # seen for targets ~1e13 away), so the bound is 4 ulps (8.9e-16) of the raw distance.
    tol = 1e-9 * total + 4 * np.finfo(np.float64).eps * raw_d
    assert (np.abs(res.error - expected) <= tol + 1e-9 * total * held).all()
    reachable = ~held & (raw_d >= abs(a - b) + 1e-9 * total) & (raw_d <= total - 1e-9 * total)
    assert (res.error[reachable] <= 1e-9 * total).all()
    assert (res.solved_distance <= total).all() and (res.solved_distance >= abs(a - b)).all()


@st.composite
def limit_sets(draw: st.DrawFn) -> JointLimits:
    shoulder = None
    elbow = None
    if draw(st.booleans()):
        lo = draw(st.floats(-4.0, 4.0))
        shoulder = (lo, lo + draw(st.floats(0.0, 5.0)))
    if draw(st.booleans()) or shoulder is None:
        lo = draw(st.floats(-math.pi, math.pi))
        elbow = (lo, min(math.pi, lo + draw(st.floats(0.0, 3.0))))
    return JointLimits(shoulder=shoulder, elbow=elbow)


@SETTINGS
@given(problems(), limit_sets(), st.sampled_from(["accept", "move_root", "stretch"]), st.booleans())
def test_limits_always_respected_and_reported(problem: tuple, limits: JointLimits, strategy: str, soft: bool) -> None:
    a, b, targets, bend = problem
    total = a + b
    res = solve_two_bone(targets, a, b, bend=bend, limits=limits, strategy=strategy, softness=0.05 if soft else 0.0)
    assert _all_finite(res)
    if limits.shoulder is not None:
        assert (res.shoulder_angle >= limits.shoulder[0]).all()
        assert (res.shoulder_angle <= limits.shoulder[1]).all()
    if limits.elbow is not None:
        assert (res.elbow_angle >= limits.elbow[0]).all()
        assert (res.elbow_angle <= limits.elbow[1]).all()
    # The reported tip is what the final angles, lengths, stretch and root offset produce.
    _, tip = forward_kinematics(res.shoulder_angle, res.elbow_angle, a, b, scale=res.stretch, root=res.root_offset)
    np.testing.assert_allclose(tip, res.end, rtol=0, atol=1e-12 * total * 1.2)
    np.testing.assert_allclose(res.error, np.hypot(*(res.end - targets).T), rtol=1e-12, atol=1e-12 * total)
    # Strategies act only where declared, within their bounds.
    assert (np.hypot(*res.root_offset.T) <= 0.1 * total * (1 + 1e-12)).all()
    assert (res.stretch >= 0.9).all() and (res.stretch <= 1.1).all()
    limited = (res.flags & (IKFlag.LIMITED_SHOULDER | IKFlag.LIMITED_ELBOW)) != 0
    if strategy != "move_root":
        assert not res.root_offset.any()
    if strategy != "stretch":
        assert (res.stretch == 1.0).all()
    else:
        assert ((res.stretch == 1.0) | limited).all()
    # Frames the limits left alone are still solved to floating-point level.
    free = ~limited & (res.root_offset == 0).all(axis=1) & (res.stretch == 1.0)
    assert (res.error_solved[free] <= 1e-9 * total).all()


@SETTINGS
@given(
    st.lists(st.tuples(st.floats(-2, 2), st.floats(-2, 2)), min_size=2, max_size=40),
    st.lists(st.tuples(st.floats(-2, 2), st.floats(-2, 2)), min_size=2, max_size=40),
    st.sampled_from([1, -1]),
)
def test_pole_side_changes_only_outside_the_deadzone(targets: list, poles: list, fallback: int) -> None:
    n = min(len(targets), len(poles))
    t = np.array(targets[:n])
    p = np.array(poles[:n])
    dead = 0.05
    res = solve_two_bone(t, 1.0, 0.8, pole=p, pole_deadzone=dead, bend=fallback)
    assert ((res.bend == 1) == (res.elbow_angle > 0)).all()
    prev = fallback
    raw_d = np.hypot(t[:, 0], t[:, 1])
    direction = res.solved_target / res.solved_distance[:, None]
    for i in range(n):
        cross = direction[i, 0] * p[i, 1] - direction[i, 1] * p[i, 0]
        if abs(cross) > dead * np.hypot(*p[i]):
            assert res.bend[i] == (1 if cross < 0 else -1)
            # The elbow really is on the pole's side of the shoulder->target line.
            if raw_d[i] > 0.3:
                side_elbow = direction[i, 0] * res.elbow[i, 1] - direction[i, 1] * res.elbow[i, 0]
                assert np.sign(side_elbow) == np.sign(cross)
        else:
            assert res.bend[i] == prev
        prev = res.bend[i]
