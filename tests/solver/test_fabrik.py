"""FABRIK-specific behaviour: one iteration against a hand-written backward/forward pass, limits in the
forward pass, angle unwrapping next to the warm start."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver.chain_common import SLOW_RATIO, SLOW_SWEEPS, STALL_FRACTION, parse_options, tip_error, wrap
from solver.fabrik import fabrik_frame, make_fabrik_kernel, solve_fabrik

INF = math.inf


def one_iteration(angles: list[float], target: tuple[float, float], lengths: list[float],
                  lower: list[float] | None = None, upper: list[float] | None = None) -> list[float]:
    n = len(lengths)
    limited = lower is not None
    out, used = fabrik_frame(
        angles, target[0], target[1], lengths, lower or [-INF] * n, upper or [INF] * n, tolerance=1e-12,
        sweep_tolerance=1e-12, max_iterations=1, limited=limited,
    )
    assert used == 1
    return out


def test_one_iteration_matches_a_hand_backward_forward_pass() -> None:
    lengths = np.array([1.0, 0.7, 0.4])
    start = [0.2, 0.3, -0.4]
    target = np.array([0.3, 1.2])
    absolute = np.cumsum(start)
    p = np.vstack([[0.0, 0.0], np.cumsum(np.stack([lengths * np.cos(absolute), lengths * np.sin(absolute)], 1), 0)])
    p[-1] = target
    for i in (2, 1, 0):
        v = p[i] - p[i + 1]
        p[i] = p[i + 1] + v / np.linalg.norm(v) * lengths[i]
    p[0] = 0.0
    for i in (0, 1, 2):
        v = p[i + 1] - p[i]
        p[i + 1] = p[i] + v / np.linalg.norm(v) * lengths[i]
    direction = np.arctan2(*(np.diff(p, axis=0)[:, ::-1].T))
    expected = np.diff(np.concatenate([[0.0], direction]))
    assert one_iteration(start, (target[0], target[1]), list(lengths)) == pytest.approx(expected)


def test_limited_forward_pass_keeps_every_iteration_inside_the_limits() -> None:
    lower = [-0.2, -0.3, -0.3]
    upper = [0.2, 0.3, 0.3]
    out = one_iteration([0.0, 0.0, 0.0], (0.0, 2.5), [1.0, 1.0, 1.0], lower, upper)
    assert all(lo <= a <= hi for a, lo, hi in zip(out, lower, upper, strict=True))
    assert out == pytest.approx([0.2, 0.3, 0.3])  # everything curls as far as allowed toward +y


def test_relative_angles_are_unwrapped_next_to_the_warm_start() -> None:
    # The elbow sits at 3.1 rad (almost folded) and the target asks for 3.2: the answer stays continuous
    # (3.2) instead of wrapping to 3.2 - 2 pi.
    lengths = np.array([1.0, 0.6])
    target = np.array([[1.0 + 0.6 * math.cos(3.2), 0.6 * math.sin(3.2)]])
    res = solve_fabrik(target, lengths, initial_angles=[0.0, 3.1])
    assert res.converged[0]
    assert res.angles[0, 1] > math.pi
    assert res.angles[0, 1] == pytest.approx(3.2, abs=1e-4)


def test_fabrik_spreads_a_bend_over_the_chain() -> None:
    # A characteristic difference from CCD: from the straight pose FABRIK bends every joint, not mainly
    # the ones nearest the tip.
    lengths = np.ones(8)
    res = solve_fabrik([[4.0, 4.0]], lengths)
    assert res.converged[0]
    assert np.count_nonzero(np.abs(res.angles[0, 1:]) > 0.05) >= 5


# --- when the passes stop, and the passes' own cases (pinned after mutation testing of fabrik.py) -------------


def _tip(angles: list[float], lengths: list[float]) -> tuple[float, float]:
    px, py = _joints(angles, lengths)
    return px[-1], py[-1]


def _joints(angles: list[float], lengths: list[float]) -> tuple[list[float], list[float]]:
    """Joint positions as the solvers' own loops compute them (the same sums in the same order)."""
    px, py = [0.0], [0.0]
    x = y = a = 0.0
    for angle, length in zip(angles, lengths, strict=True):
        a += angle
        x, y = x + length * math.cos(a), y + length * math.sin(a)
        px.append(x)
        py.append(y)
    return px, py


def _frame(angles: list[float], target: tuple[float, float], lengths: list[float], *, passes: int = 10_000,
           tolerance: float = 1e-12, sweep_tolerance: float = 1e-12) -> tuple[list[float], int]:
    n = len(lengths)
    return fabrik_frame(list(angles), target[0], target[1], lengths, [-INF] * n, [INF] * n, tolerance=tolerance,
                        sweep_tolerance=sweep_tolerance, max_iterations=passes, limited=False)


def test_the_passes_measure_the_distance_to_the_target_not_one_coordinate() -> None:
    lengths = [1.0, 1.0]
    start = [0.5, -1.0]
    tip = _tip(start, lengths)
    target = (tip[0], 0.6)  # straight above the tip: no error in x at all
    out, used = _frame(start, target, lengths, passes=200)
    assert used >= 1
    assert tip_error(out, *target, lengths) < 1e-6


def test_a_target_on_the_tip_takes_no_pass() -> None:
    start = [0.4, -0.3, 0.2]
    lengths = [1.0, 0.8, 0.5]
    out, used = _frame(start, _tip(start, lengths), lengths, sweep_tolerance=1e-3)
    assert used == 0 and out == start


def test_a_pass_that_gains_nothing_stops_the_frame() -> None:
    # Every joint held by its limits: the first pass cannot move the tip, so there is no second.
    _out, used = fabrik_frame([0.3, 0.2], 0.0, 1.5, [1.0, 1.0], [0.3, 0.2], [0.3, 0.2], tolerance=1e-9,
                              sweep_tolerance=1e-9, max_iterations=500, limited=True)
    assert used == 1


@pytest.mark.parametrize(("start", "target", "lengths", "passes"), [
    ([0.05, -0.1, 0.05], (2.999, 0.0), [1.0, 1.0, 1.0], 10_000),  # the crawl near full reach: slow passes
    ([0.3, 0.2, 0.1], (3.5, 0.4), [1.0, 1.0, 1.0], 10_000),  # out of reach: slower and slower
    ([0.0, 0.1], (1.9999, 0.0), [1.0, 1.0], 10_000),  # a pass that gains nothing
    ([0.05, -0.1, 0.05], (2.999, 0.0), [1.0, 1.0, 1.0], 4),  # the cap on passes
])
def test_the_passes_stop_by_the_rules_pass_by_pass(start: list[float], target: tuple[float, float],
                                                    lengths: list[float], passes: int) -> None:
    """The stopping rules replayed on the error after each pass (a frame cut to k passes is the frame after k
    passes): the tolerances, the cap, a pass gaining less than the stall, SLOW_SWEEPS slow passes in a row."""
    _out, used = _frame(start, target, lengths, passes=passes)
    errors = [tip_error(_frame(start, target, lengths, passes=k)[0], *target, lengths) for k in range(used + 1)]
    previous, slow, stop = math.inf, 0, None
    for k, error in enumerate(errors):
        if (error <= 1e-12 or k >= passes or previous - error < STALL_FRACTION * 1e-12
                or slow >= SLOW_SWEEPS):
            stop = k
            break
        slow = slow + 1 if error > SLOW_RATIO * previous else 0
        previous = error
    assert stop == used, (stop, used, errors)


def test_the_sweep_tolerance_stops_after_the_first_pass_reaching_it() -> None:
    start, lengths, target = [0.05, -0.1, 0.05], [1.0, 1.0, 1.0], (2.999, 0.0)
    errors = [tip_error(_frame(start, target, lengths, passes=k)[0], *target, lengths) for k in range(12)]
    between = 0.5 * (errors[5] + errors[6])  # reached by the sixth pass, not the fifth
    _out, used = _frame(start, target, lengths, sweep_tolerance=between)
    assert used == 6


def test_a_limited_pass_with_limits_that_do_not_bind_is_the_free_pass() -> None:
    lengths = [1.0, 0.7, 0.4]
    start = [0.2, 0.3, -0.4]
    free = one_iteration(start, (0.3, 1.2), lengths)
    limited = one_iteration(start, (0.3, 1.2), lengths, [-3.0] * 3, [3.0] * 3)
    assert limited == pytest.approx(free, abs=1e-12)


def test_one_pass_unwraps_next_to_the_warm_start() -> None:
    lengths = [1.0, 0.6]
    target = (1.0 + 0.6 * math.cos(3.2), 0.6 * math.sin(3.2))  # the elbow folded past pi
    out = one_iteration([0.0, 3.1], target, lengths)
    assert math.pi < out[1] < 3.3


def test_a_joint_on_the_point_just_placed_is_set_back_along_minus_x() -> None:
    """The backward pass places the tip on the target; the joint before it sits exactly there (the target is
    the old elbow), so it has no direction to be pulled along and goes one bone length along -x."""
    lengths = np.array([1.0, 0.8])
    start = [0.4, 0.9]
    elbow = np.array([math.cos(0.4), math.sin(0.4)])
    p1 = elbow - [lengths[1], 0.0]  # the elbow, set back from the tip (on the target)
    p1 = p1 / np.linalg.norm(p1) * lengths[0]  # forward pass: root at the origin
    p2 = p1 + (elbow - p1) / np.linalg.norm(elbow - p1) * lengths[1]
    a1 = math.atan2(p1[1], p1[0])
    a2 = math.atan2(p2[1] - p1[1], p2[0] - p1[0])
    out = one_iteration(start, (float(elbow[0]), float(elbow[1])), list(lengths))
    assert [wrap(o - e) for o, e in zip(out, [a1, a2 - a1], strict=True)] == pytest.approx([0.0, 0.0], abs=1e-12)


def test_joints_on_the_point_just_placed_go_along_plus_x_in_the_forward_pass() -> None:
    """From exact positions (a straight chain along -x, the target on the other side at one bone length) the
    backward pass puts the elbow on the root, so the forward pass finds each joint on the point just placed
    and sets it one bone length along +x."""
    px, py = [0.0, -1.0, -2.0], [0.0, 0.0, 0.0]
    out, used = fabrik_frame([math.pi, 0.0], 1.0, 0.0, [1.0, 1.0], [-INF] * 2, [INF] * 2, tolerance=1e-12,
                             sweep_tolerance=1e-12, max_iterations=1, limited=False, positions=(px, py))
    assert used == 1
    assert (px, py) == ([0.0, 1.0, 2.0], [0.0, 0.0, 0.0])
    assert out == [0.0, 0.0]


def test_the_kernel_carries_each_frame_s_joint_positions_to_the_next() -> None:
    """FABRIK works on positions: after the first frame (its positions rebuilt from its angles) the frame
    loop's kernel hands each frame the previous frame's own final positions, which round differently from
    positions rebuilt from angles: the same bits as chaining the frames so."""
    lengths = [1.0, 0.7, 0.4, 0.3]
    setup = parse_options(np.array(lengths), None, None)
    rng = np.random.default_rng(5)
    targets = [(1.2 + 0.3 * math.cos(t), 0.9 * math.sin(t)) for t in np.cumsum(rng.uniform(0.05, 0.4, 40))]
    options = {"tolerance": setup.tolerance, "sweep_tolerance": setup.sweep_tolerance,
               "max_iterations": setup.max_iterations, "limited": False}
    pose, _used = fabrik_frame([0.2, 0.3, -0.4, 0.1], *targets[0], lengths, [-INF] * 4, [INF] * 4, **options)
    chained, positions = [pose], _joints(pose, lengths)
    for tx, ty in targets[1:]:
        pose, _used = fabrik_frame(pose, tx, ty, lengths, [-INF] * 4, [INF] * 4, **options, positions=positions)
        chained.append(pose)
    kernel = make_fabrik_kernel(setup)
    got, pose = [], [0.2, 0.3, -0.4, 0.1]
    for tx, ty in targets:
        pose, _used = kernel(pose, tx, ty)
        got.append(pose)
    assert got == chained
    rebuilt, pose = [], [0.2, 0.3, -0.4, 0.1]
    for tx, ty in targets:  # positions rebuilt from each frame's angles: not the same bits everywhere
        pose, _used = fabrik_frame(pose, tx, ty, lengths, [-INF] * 4, [INF] * 4, **options)
        rebuilt.append(pose)
    assert rebuilt != chained
