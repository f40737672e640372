"""``solver.chain_common.frame_loop.solve_frames`` case by case, with a scripted kernel.

CCD and FABRIK reach the frame loop only through whole solves, where the polish after the sweeps hides most of
what the loop decides (which frames skip the kernel, which warm start the kernel gets, when a frame is solved
again from an even arc, how turns are unwound): the mutation run of ``frame_loop.py`` left those decisions
untested. Here the kernel is a script that records what it is given and answers what the case needs, and each
decision is checked against the loop's documentation and ``warm_start``'s functions, value by value.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from solver.chain_common.frame_loop import (
    COLLINEAR_EPS,
    RESTART_ERROR,
    SLOW_SWEEPS,
    solve_frames,
)
from solver.chain_common.options import ChainSetup, parse_options
from solver.chain_common.warm_start import (
    PREDICT_DAMPING,
    PREDICT_REACH,
    arc_start,
    folded_pose,
    predict_step,
    tip_error,
    wrap,
)

Answer = Callable[[list[float], float, float, int], tuple[Sequence[float], int]]


class Script:
    """A frame kernel answering ``answer(start, tx, ty, call number)``; every call is recorded."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.calls: list[tuple[list[float], float, float]] = []

    def __call__(self, start: list[float], tx: float, ty: float) -> tuple[list[float], int]:
        self.calls.append((list(start), tx, ty))
        pose, used = self.answer(list(start), tx, ty, len(self.calls))
        return list(pose), used


def never(start: list[float], tx: float, ty: float, call: int) -> tuple[Sequence[float], int]:
    raise AssertionError("the kernel ran on a frame the loop settles by itself")


def echo(used: int = 4) -> Answer:
    """The start back, after ``used`` iterations."""
    return lambda start, tx, ty, call: (start, used)


def setup_of(lengths: Sequence[float], warm: Sequence[float], **changes: Any) -> ChainSetup:
    setup = parse_options(list(lengths), initial_angles=list(warm), **changes)
    assert setup.warm_angles.tolist() == list(warm)  # inside the limits: the loop starts from it as given
    return setup


def target(distance: float, angle: float) -> np.ndarray:
    return np.array([[distance * math.cos(angle), distance * math.sin(angle)]])


def lists(setup: ChainSetup) -> tuple[list[float], list[float], list[float]]:
    return setup.lengths.tolist(), setup.lower.tolist(), setup.upper.tolist()


# --- frames settled without the kernel --------------------------------------------------------------------------


@pytest.mark.parametrize("shortfall", [0.0, 1e-13])
def test_a_target_on_the_outer_circle_gets_the_straight_chain_pointing_at_it(shortfall: float) -> None:
    setup = setup_of([1.0, 1.0, 1.0], [0.3, 0.2, 0.1])
    poses, used = solve_frames(Script(never), target(3.0 * (1.0 - shortfall), 0.7), setup)
    assert poses.dtype == np.float64 and used.dtype == np.int64
    assert poses.shape == (1, 3) and used.tolist() == [0]
    assert poses[0, 0] == pytest.approx(0.7, abs=1e-15) and poses[0, 1:].tolist() == [0.0, 0.0]


def test_just_inside_the_outer_circle_the_kernel_runs() -> None:
    kernel = Script(echo())
    setup = setup_of([1.0, 1.0, 1.0], [0.3, 0.2, 0.1])
    solve_frames(kernel, target(3.0 * (1.0 - 1e-11), 0.7), setup)
    assert [start for start, _x, _y in kernel.calls] == [[0.3, 0.2, 0.1]]


def test_the_straight_chain_its_limits_forbid_is_left_to_the_kernel_from_the_warm_start() -> None:
    kernel = Script(echo(6))
    setup = setup_of([1.0, 1.0, 1.0], [0.3, 0.2, 0.1], limits=[[math.nan, math.nan], [0.1, 1.0], [math.nan, math.nan]])
    poses, used = solve_frames(kernel, target(3.0, 0.7), setup)
    assert [start for start, _x, _y in kernel.calls] == [[0.3, 0.2, 0.1]]
    assert poses.tolist() == [[0.3, 0.2, 0.1]] and used.tolist() == [6]


@pytest.mark.parametrize("excess", [0.0, 1e-13])
def test_a_target_on_the_inner_ring_gets_the_folded_chain(excess: float) -> None:
    setup = setup_of([2.0, 0.5, 0.5], [0.1, 0.4, -0.3])  # inner radius 2 * 2 - 3 = 1
    lengths, lower, upper = lists(setup)
    poses, used = solve_frames(Script(never), target(1.0 * (1.0 + excess), 0.4), setup)
    folded = folded_pose(0.4, lengths, setup.bend, lower, upper)
    assert folded is not None
    np.testing.assert_allclose(poses[0], folded, rtol=0, atol=1e-15)
    assert used.tolist() == [0]


def test_a_target_on_the_root_of_a_chain_with_an_inner_ring_folds_toward_the_warm_start() -> None:
    setup = setup_of([2.0, 0.5, 0.5], [0.25, 0.4, -0.3])
    lengths, lower, upper = lists(setup)
    poses, used = solve_frames(Script(never), np.array([[0.0, 0.0]]), setup)
    assert poses[0].tolist() == folded_pose(0.25, lengths, setup.bend, lower, upper)
    assert used.tolist() == [0]


def test_just_outside_the_inner_ring_the_kernel_runs() -> None:
    kernel = Script(echo())
    setup = setup_of([2.0, 0.5, 0.5], [0.1, 0.4, -0.3])
    solve_frames(kernel, target(1.0 * (1.0 + 1e-11), 0.4), setup)
    assert len(kernel.calls) == 1


def test_the_fold_its_limits_forbid_is_left_to_the_kernel() -> None:
    kernel = Script(echo())
    setup = setup_of([2.0, 0.5, 0.5], [0.1, 0.4, -0.3], limits=[[math.nan, math.nan], [-2.0, 2.0], [-2.0, 2.0]])
    solve_frames(kernel, target(1.0, 0.4), setup)
    assert len(kernel.calls) == 1


# --- the warm start the kernel gets -----------------------------------------------------------------------------


def test_a_straight_warm_start_inside_reach_is_replaced_by_the_even_arc() -> None:
    kernel = Script(echo())
    setup = setup_of([1.0, 1.0, 1.0], [0.2, 0.0, 0.0])
    lengths, lower, upper = lists(setup)
    solve_frames(kernel, target(2.0, 1.0), setup)
    start = kernel.calls[0][0]
    np.testing.assert_allclose(start, arc_start(1.0, 2.0, lengths, setup.bend, lower, upper), rtol=0, atol=1e-15)
    assert start[1] != 0.0


def test_the_arc_toward_a_target_on_the_root_keeps_the_warm_direction() -> None:
    kernel = Script(echo())
    setup = setup_of([1.0, 1.0, 1.0], [0.2, 0.0, 0.0])  # inner radius 0: the root is inside reach
    lengths, lower, upper = lists(setup)
    solve_frames(kernel, np.array([[0.0, 0.0]]), setup)
    assert kernel.calls[0][0] == arc_start(0.2, 0.0, lengths, setup.bend, lower, upper)


@pytest.mark.parametrize(("warm", "distance"), [
    ([0.2, 2e-9, 0.0], 2.0),  # a joint bent past STRAIGHT_EPS: not straight
    ([0.2, 0.0, 0.0], 3.0 - 1.5e-6),  # straight, but the target within the tolerance of full reach
])
def test_otherwise_the_kernel_starts_from_the_warm_start(warm: list[float], distance: float) -> None:
    kernel = Script(echo())
    setup = setup_of([1.0, 1.0, 1.0], warm)
    assert setup.tolerance == pytest.approx(3e-6)
    solve_frames(kernel, target(distance, 0.2), setup)
    assert kernel.calls[0][0] == warm


def test_the_predictor_moves_the_warm_start_by_one_damped_step() -> None:
    kernel = Script(echo())
    warm = [0.3, 0.6, 0.4]
    setup = setup_of([1.0, 1.0, 1.0], warm)
    lengths, lower, upper = lists(setup)
    x, y = 0.0, 0.0
    for i, a in enumerate(np.cumsum(warm)):
        x, y = x + lengths[i] * math.cos(a), y + lengths[i] * math.sin(a)
    near = np.array([[x + 0.02, y - 0.03]])  # within PREDICT_REACH * L of the warm start's tip
    solve_frames(kernel, near, setup, predict=True)
    expected = predict_step(warm, float(near[0, 0]), float(near[0, 1]), lengths, lower, upper,
                            (PREDICT_DAMPING * 3.0) ** 2, PREDICT_REACH * 3.0, setup.polish_max_step,
                            setup.tolerance)
    assert kernel.calls[0][0] == expected and expected != warm
    solve_frames(kernel, near, setup)
    assert kernel.calls[1][0] == warm


# --- frames solved again ----------------------------------------------------------------------------------------

LENGTHS3 = [1.0, 1.0, 1.0]
WARM = [0.0, 0.5, 0.5]  # its tip is far from the target of jumped(): the target jumped


def jumped() -> tuple[np.ndarray, float, float]:
    """A target at 0.8 L (the even arc reaches it without its half-turn cap), ~1.2 L from WARM's tip."""
    tx, ty = 2.4 * math.cos(2.0), 2.4 * math.sin(2.0)
    return np.array([[tx, ty]]), tx, ty


def off_by(tx: float, ty: float, error: float) -> list[float]:
    """A bent pose of LENGTHS3 whose tip falls ``error`` short of (tx, ty) on its ray: an even arc ``[phi - b,
    b, b]`` (three unit bones: chord ``sin(3b/2) / sin(b/2)``, pointing along ``phi``)."""
    chord = math.hypot(tx, ty) - error
    lo, hi = 1e-9, 2 * math.pi / 3  # the chord falls from 3 to 0 over this range
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if math.sin(1.5 * mid) / math.sin(0.5 * mid) > chord else (lo, mid)
    b = 0.5 * (lo + hi)
    pose = [math.atan2(ty, tx) - b, b, b]
    assert tip_error(pose, tx, ty, LENGTHS3) == pytest.approx(error, rel=1e-9)
    return pose


def test_a_jumped_frame_left_far_off_after_slow_sweeps_is_solved_again_from_the_arc() -> None:
    points, tx, ty = jumped()
    bad = off_by(tx, ty, 2 * RESTART_ERROR * 3.0)
    setup = setup_of(LENGTHS3, WARM)
    lengths, lower, upper = lists(setup)
    arc = arc_start(math.atan2(ty, tx), math.hypot(tx, ty), lengths, setup.bend, lower, upper)
    assert tip_error(arc, tx, ty, lengths) < tip_error(bad, tx, ty, lengths)
    kernel = Script(lambda start, x, y, call: (bad, SLOW_SWEEPS) if call == 1 else (start, 7))
    poses, used = solve_frames(kernel, points, setup)
    assert len(kernel.calls) == 2 and kernel.calls[1][0] == arc
    assert poses[0].tolist() == arc and used.tolist() == [SLOW_SWEEPS + 7]


def test_the_solve_again_is_kept_only_when_it_is_closer() -> None:
    points, tx, ty = jumped()
    bad = off_by(tx, ty, 2 * RESTART_ERROR * 3.0)
    worse = off_by(tx, ty, 4 * RESTART_ERROR * 3.0)
    kernel = Script(lambda start, x, y, call: (bad, SLOW_SWEEPS) if call == 1 else (worse, 5))
    poses, used = solve_frames(kernel, points, setup_of(LENGTHS3, WARM))
    assert len(kernel.calls) == 2
    assert poses[0].tolist() == bad and used.tolist() == [SLOW_SWEEPS + 5]


@pytest.mark.parametrize(("sweeps", "error", "warm"), [
    (SLOW_SWEEPS - 1, 2 * RESTART_ERROR, WARM),  # the sweeps did not crawl
    (SLOW_SWEEPS, 0.5 * RESTART_ERROR, WARM),  # close enough for the polish
    (SLOW_SWEEPS, 2 * RESTART_ERROR, None),  # the target did not jump: the warm start was near it
])
def test_no_solve_again_without_slow_sweeps_a_far_miss_and_a_jump(sweeps: int, error: float,
                                                                  warm: list[float] | None) -> None:
    points, tx, ty = jumped()
    bad = off_by(tx, ty, error * 3.0)
    start = warm if warm is not None else off_by(tx, ty, 0.5 * PREDICT_REACH * 3.0)
    kernel = Script(lambda s, x, y, call: (bad, sweeps))
    poses, used = solve_frames(kernel, points, setup_of(LENGTHS3, start))
    assert len(kernel.calls) == 1 and poses[0].tolist() == bad and used.tolist() == [sweeps]


def test_no_solve_again_with_a_joint_on_its_limit() -> None:
    points, tx, ty = jumped()
    bad = off_by(tx, ty, 2 * RESTART_ERROR * 3.0)
    # The middle joint sits on a limit (the warm start inside it).
    bound = [-3.0, bad[1]] if bad[1] >= WARM[1] else [bad[1], 3.0]
    limits = [[math.nan, math.nan], bound, [math.nan, math.nan]]
    kernel = Script(lambda s, x, y, call: (bad, SLOW_SWEEPS))
    poses, used = solve_frames(kernel, points, setup_of(LENGTHS3, WARM, limits=limits))
    assert len(kernel.calls) == 1 and poses[0].tolist() == bad and used.tolist() == [SLOW_SWEEPS]


# Bent by exactly COLLINEAR_EPS (its sine is the bound to the last bit): still collinear.
EDGE = math.asin(COLLINEAR_EPS)


@pytest.mark.parametrize("bent", [0.0, math.pi, 0.5 * COLLINEAR_EPS, EDGE, -EDGE])
def test_a_collinear_pose_off_its_target_is_solved_again_from_the_arc(bent: float) -> None:
    assert abs(math.sin(bent)) <= COLLINEAR_EPS
    points, tx, ty = jumped()
    setup = setup_of(LENGTHS3, [0.3, 0.4, 0.2])
    lengths, lower, upper = lists(setup)
    line = [0.2, bent, 0.0]
    arc = arc_start(math.atan2(ty, tx), math.hypot(tx, ty), lengths, setup.bend, lower, upper)
    kernel = Script(lambda start, x, y, call: (line, 3) if call == 1 else (start, 2))
    poses, used = solve_frames(kernel, points, setup)
    assert len(kernel.calls) == 2 and kernel.calls[1][0] == arc
    assert poses[0].tolist() == arc and used.tolist() == [5]


@pytest.mark.parametrize("case", ["bent", "on target", "on a limit"])
def test_no_solve_again_for_a_bent_pose_one_on_its_target_or_one_on_a_limit(case: str) -> None:
    points, tx, ty = jumped()
    phi = math.atan2(ty, tx)
    pose = {"bent": [0.2, 2 * COLLINEAR_EPS, 0.0], "on target": [phi, 0.0, 0.0], "on a limit": [0.2, 0.0, 0.0]}[case]
    if case == "on target":
        points = np.array([[math.cos(phi), math.sin(phi)]])
        pose = [phi, 0.0, math.pi]  # 1 + 1 - 1: folded back onto the line, on its target
    limits = [[math.nan, math.nan], [0.0, 1.0], [math.nan, math.nan]] if case == "on a limit" else None
    kernel = Script(lambda s, x, y, call: (pose, 3))
    poses, used = solve_frames(kernel, points, setup_of(LENGTHS3, [0.3, 0.4, 0.2], limits=limits))
    assert len(kernel.calls) == 1 and poses[0].tolist() == pose and used.tolist() == [3]


@pytest.mark.parametrize(("closer", "kept"), [
    (True, "again"),  # collinear again, but closer
    (False, "first"),  # collinear again and further: the first pose stays
])
def test_a_collinear_solve_again_is_kept_only_when_closer(closer: bool, kept: str) -> None:
    points, tx, ty = jumped()
    phi = math.atan2(ty, tx)
    first = [phi + 0.3, 0.0, 0.0]
    again = [phi + (0.1 if closer else 0.6), 0.0, 0.0]
    kernel = Script(lambda start, x, y, call: (first, 3) if call == 1 else (again, 4))
    poses, used = solve_frames(kernel, points, setup_of(LENGTHS3, [0.3, 0.4, 0.2]))
    assert len(kernel.calls) == 2 and used.tolist() == [7]
    assert poses[0].tolist() == (again if kept == "again" else first)


# --- turns and the next frame's warm start ----------------------------------------------------------------------


def test_whole_turns_from_the_previous_frame_are_unwound_and_the_next_frame_starts_from_the_result() -> None:
    warm = [0.3, 0.4, 0.2]
    wound = [warm[0] + 2 * math.pi + 0.1, warm[1] + 0.05, warm[2] - 2 * math.pi - 0.2]
    kernel = Script(lambda start, x, y, call: (wound, 3) if call == 1 else (start, 1))
    points = np.vstack([target(2.0, 0.9), target(2.1, 0.95)])
    poses, used = solve_frames(kernel, points, setup_of(LENGTHS3, warm))
    np.testing.assert_allclose(poses[0], [warm[0] + 0.1, warm[1] + 0.05, warm[2] - 0.2], rtol=0, atol=1e-12)
    assert kernel.calls[1][0] == poses[0].tolist() and poses[1].tolist() == poses[0].tolist()
    assert used.tolist() == [3, 1]


def test_a_turn_the_limits_forbid_to_unwind_is_kept() -> None:
    warm = [0.5, 0.4, 0.2]
    wound = [warm[0] + 2 * math.pi - 0.1, warm[1], warm[2]]  # unwound: 0.4, below the limit
    limits = [[0.45, 7.0], [math.nan, math.nan], [math.nan, math.nan]]
    kernel = Script(lambda start, x, y, call: (wound, 3))
    poses, _used = solve_frames(kernel, target(2.0, 0.9), setup_of(LENGTHS3, warm, limits=limits))
    assert poses[0].tolist() == wound


@pytest.mark.parametrize("turn", [math.pi - 1e-9, -math.pi + 1e-9])
def test_less_than_half_a_turn_is_left_as_it_is(turn: float) -> None:
    warm = [0.3, 0.4, 0.2]
    pose = [warm[0] + turn, warm[1], warm[2]]
    kernel = Script(lambda start, x, y, call: (pose, 3))
    poses, _used = solve_frames(kernel, target(2.0, 0.9), setup_of(LENGTHS3, warm))
    assert poses[0].tolist() == pose


# --- the bounds themselves (each comparison on its exact value) and short chains --------------------------------


def test_the_outer_and_inner_bounds_are_inclusive() -> None:
    outer = 3.0 * (1.0 - 1e-12)
    poses, used = solve_frames(Script(never), np.array([[outer, 0.0]]), setup_of(LENGTHS3, [0.3, 0.2, 0.1]))
    assert poses[0].tolist() == [0.0, 0.0, 0.0] and used.tolist() == [0]
    inner = 1.0 * (1.0 + 1e-12)
    _poses, used = solve_frames(Script(never), np.array([[inner, 0.0]]), setup_of([2.0, 0.5, 0.5], [0.1, 0.4, -0.3]))
    assert used.tolist() == [0]


def test_a_short_chain_on_its_outer_circle_is_straightened_too() -> None:
    # Lengths below one unit: the shortcut depends on the reach, not on the units.
    poses, used = solve_frames(Script(never), target(0.9, 0.5), setup_of([0.3, 0.3, 0.3], [0.3, 0.2, 0.1]))
    assert poses[0, 1:].tolist() == [0.0, 0.0] and used.tolist() == [0]


@pytest.mark.parametrize("bent", [1e-9, -1e-9])
def test_a_warm_start_bent_by_exactly_straight_eps_counts_as_straight(bent: float) -> None:
    kernel = Script(echo())
    setup = setup_of(LENGTHS3, [0.2, bent, 0.0])
    lengths, lower, upper = lists(setup)
    solve_frames(kernel, target(2.0, 1.0), setup)
    assert kernel.calls[0][0] == arc_start(1.0, 2.0, lengths, setup.bend, lower, upper)


def test_a_straight_warm_start_with_the_target_at_exactly_full_reach_less_the_tolerance_is_not_bent() -> None:
    kernel = Script(echo())
    setup = setup_of(LENGTHS3, [0.0, 0.0, 0.0])
    solve_frames(kernel, np.array([[3.0 - setup.tolerance, 0.0]]), setup)
    assert kernel.calls[0][0] == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("bound", [[0.0, 1.0], [-1.0, 0.0]])
def test_the_straight_chain_is_allowed_on_a_limit(bound: list[float]) -> None:
    limits = [[math.nan, math.nan], bound, [math.nan, math.nan]]
    poses, used = solve_frames(Script(never), target(3.0, 0.7), setup_of(LENGTHS3, [0.3, 0.0, 0.1], limits=limits))
    assert poses[0, 1:].tolist() == [0.0, 0.0] and used.tolist() == [0]


def test_one_bone_and_two_bone_chains() -> None:
    # One bone (its own inner ring: only a limit that keeps it off the target leaves the frame to the kernel):
    # no joint to be straight or collinear, the kernel's pose is kept.
    kernel = Script(lambda start, x, y, call: ([0.1], 3))
    poses, used = solve_frames(kernel, target(0.5, 0.4), setup_of([1.0], [0.0], limits=[[-0.1, 0.1]]))
    assert poses.tolist() == [[0.1]] and used.tolist() == [3] and len(kernel.calls) == 1
    # Two bones, collinear off the target: solved again from the arc as a longer chain is.
    kernel = Script(lambda start, x, y, call: ([0.2, 0.0], 3) if call == 1 else (start, 2))
    setup = setup_of([1.0, 1.0], [0.3, 0.4])
    lengths, lower, upper = lists(setup)
    poses, used = solve_frames(kernel, target(1.2, 1.1), setup)
    assert kernel.calls[1][0] == arc_start(1.1, 1.2, lengths, setup.bend, lower, upper)
    assert used.tolist() == [5]


@pytest.mark.parametrize("distance", [0.0, 0.8])
def test_the_arc_for_a_collinear_pose_aims_at_the_target_or_keeps_the_warm_direction_on_the_root(
        distance: float) -> None:
    kernel = Script(lambda start, x, y, call: ([0.2, 0.0, 0.0], 3) if call == 1 else (start, 2))
    setup = setup_of(LENGTHS3, [0.3, 0.4, 0.2])
    lengths, lower, upper = lists(setup)
    solve_frames(kernel, target(distance, 1.1), setup)
    phi = 1.1 if distance > 0.0 else 0.3
    assert kernel.calls[1][0] == arc_start(phi, distance, lengths, setup.bend, lower, upper)


def test_a_collinear_pose_with_a_joint_on_its_upper_limit_is_not_solved_again() -> None:
    limits = [[math.nan, math.nan], [math.nan, math.nan], [-1.0, 0.0]]
    kernel = Script(lambda s, x, y, call: ([0.2, 0.0, 0.0], 3))
    solve_frames(kernel, target(2.0, 1.1), setup_of(LENGTHS3, [0.3, 0.4, -0.2], limits=limits))
    assert len(kernel.calls) == 1


def test_a_solve_again_bent_at_its_first_joint_only_is_kept_even_when_further() -> None:
    phi = 1.1
    first = [phi + 0.3, 0.0, 0.0]
    again = [phi + 1.5, 0.5, 0.0]  # bent (joint 1), further from the target than ``first``
    points = target(2.0, phi)
    assert tip_error(again, *points[0], LENGTHS3) > tip_error(first, *points[0], LENGTHS3)
    kernel = Script(lambda start, x, y, call: (first, 3) if call == 1 else (again, 4))
    poses, _used = solve_frames(kernel, points, setup_of(LENGTHS3, [0.3, 0.4, 0.2]))
    assert poses[0].tolist() == again


def test_a_collinear_solve_again_as_far_as_the_first_pose_is_not_taken() -> None:
    first, again = [0.3, 0.0, 0.0], [-0.3, 0.0, 0.0]  # mirror images about the target's ray: the same miss
    points = np.array([[2.0, 0.0]])
    assert tip_error(again, *points[0], LENGTHS3) == tip_error(first, *points[0], LENGTHS3)
    kernel = Script(lambda start, x, y, call: (first, 3) if call == 1 else (again, 4))
    poses, _used = solve_frames(kernel, points, setup_of(LENGTHS3, [0.3, 0.4, 0.2]))
    assert poses[0].tolist() == first


@pytest.mark.parametrize("distance", [0.0, 0.8])
def test_a_solve_again_after_slow_sweeps_needs_a_target_off_the_root(distance: float) -> None:
    # Near the root: a far miss after slow sweeps, from a warm start far off, is solved again only off the root.
    bad = [1.4, 2.0, 1.5]
    kernel = Script(lambda start, x, y, call: (bad, SLOW_SWEEPS) if call == 1 else (start, 1))
    points = target(distance, 2.0)
    setup = setup_of(LENGTHS3, [0.0, 0.5, 0.5])
    assert tip_error(bad, *points[0], LENGTHS3) > RESTART_ERROR * 3.0
    solve_frames(kernel, points, setup)
    assert len(kernel.calls) == (2 if distance > 0.0 else 1)


def test_no_solve_again_after_slow_sweeps_with_a_joint_on_its_lower_limit() -> None:
    points, tx, ty = jumped()
    bad = off_by(tx, ty, 2 * RESTART_ERROR * 3.0)
    limits = [[math.nan, math.nan], [bad[1], 3.0], [math.nan, math.nan]]
    kernel = Script(lambda s, x, y, call: (bad, SLOW_SWEEPS))
    solve_frames(kernel, points, setup_of(LENGTHS3, [0.0, bad[1] + 0.3, 0.5], limits=limits))
    assert len(kernel.calls) == 1


def test_exactly_half_a_turn_is_not_unwound() -> None:
    kernel = Script(lambda start, x, y, call: ([math.pi, 0.4, 0.2], 3))
    poses, _used = solve_frames(kernel, target(2.0, 0.9), setup_of(LENGTHS3, [0.0, 0.4, 0.2]))
    assert poses[0].tolist() == [math.pi, 0.4, 0.2]


@pytest.mark.parametrize("side", ["lower", "upper"])
def test_a_turn_unwound_onto_a_limit_is_unwound(side: str) -> None:
    warm = [0.5, 0.4, 0.2]
    # Wound by a whole turn less (more) a tenth: unwound a tenth below (above) the warm start, on the limit.
    wound = [warm[0] + (2 * math.pi - 0.1 if side == "lower" else -2 * math.pi + 0.1), warm[1], warm[2]]
    unwound = warm[0] + wrap(wound[0] - warm[0])
    bound = [unwound, 7.0] if side == "lower" else [-7.0, unwound]
    limits = [bound, [math.nan, math.nan], [math.nan, math.nan]]
    kernel = Script(lambda start, x, y, call: (wound, 3))
    poses, _used = solve_frames(kernel, target(2.0, 0.9), setup_of(LENGTHS3, warm, limits=limits))
    assert poses[0, 0] == unwound
