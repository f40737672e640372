"""State across calls: what ``previous=`` (a :class:`SolverState`) promises on its own, not only through the
single-frame path agreeing with the batch path.

- A Move Root chain solved in two calls, the second with the first call's state, continues its root offset
  instead of dropping it to zero at the seam; with a steady history it is exactly the one-call solve.
- One frame honours the previous direction (target on the shoulder) and the previous bend (pole on the
  shoulder->target line, inside the hysteresis dead zone), and a previous root offset (smoothing history).

Truth is plain geometry of the outputs (directions of the tip and elbow), not a second run of the same path.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver import IKFlag, JointLimits, SolverState, solve_two_bone

A, B = 1.0, 0.8
# The elbow kept at 60 degrees or more: the tip reaches at most 1.56 from the shoulder.
LIMITS = JointLimits(elbow=(math.radians(60.0), math.radians(170.0)))
MOVE_ROOT = {"limits": LIMITS, "strategy": "move_root", "max_root_offset": 0.1, "root_smoothing": 3}


def path(n: int = 40, far_until: int = 20) -> np.ndarray:
    """Held out of the limited reach (the root must move, capped: a steady history) until ``far_until``, then
    well inside and moving."""
    i = np.arange(n)
    r = np.where(i < far_until, 1.75, 1.3)
    ang = 0.02 * np.maximum(i - far_until, 0)
    return np.stack([r * np.cos(ang), r * np.sin(ang)], axis=1)


def test_second_call_continues_the_root_offset_of_the_first() -> None:
    targets = path()
    whole = solve_two_bone(targets, A, B, **MOVE_ROOT)
    first = solve_two_bone(targets[:20], A, B, **MOVE_ROOT)
    assert first.state.root_offset == pytest.approx(tuple(first.root_offset[-1]))
    assert np.linalg.norm(first.root_offset[-1]) == pytest.approx(0.1, rel=1e-9)  # capped at its end
    second = solve_two_bone(targets[20:], A, B, previous=first.state, **MOVE_ROOT)
    fresh = solve_two_bone(targets[20:], A, B, **MOVE_ROOT)
    # The second call's frames need no offset of their own: on its own it keeps none (a jump of the cap) ...
    assert np.abs(fresh.root_offset).max() == 0.0
    # ... with the state it eases out of the first call's offset, in its direction, as one call would.
    np.testing.assert_allclose(second.root_offset, whole.root_offset[20:], atol=1e-12)
    norms = np.linalg.norm(second.root_offset, axis=1)
    assert 0.2 < norms[0] / 0.1 < 1.0
    assert (np.diff(norms) <= 1e-15).all() and norms[-1] < 1e-3
    last = first.root_offset[-1] / np.linalg.norm(first.root_offset[-1])
    assert float(second.root_offset[0] @ last) == pytest.approx(norms[0], rel=1e-3)
    # The chain stays in one piece: the tip is the moved root plus the two bones (forward kinematics).
    for res in (first, second):
        elbow = res.root_offset + A * np.stack([np.cos(res.shoulder_angle), np.sin(res.shoulder_angle)], axis=1)
        total = res.shoulder_angle + res.elbow_angle
        np.testing.assert_allclose(res.elbow, elbow, atol=1e-12)
        np.testing.assert_allclose(res.end, elbow + B * np.stack([np.cos(total), np.sin(total)], axis=1),
                                   atol=1e-12)


@pytest.mark.parametrize("split", [17, 22, 25])
def test_a_split_anywhere_starts_nearer_the_first_calls_offset_than_a_fresh_solve(split: int) -> None:
    targets = path()
    first = solve_two_bone(targets[:split], A, B, **MOVE_ROOT)
    second = solve_two_bone(targets[split:], A, B, previous=first.state, **MOVE_ROOT)
    fresh = solve_two_bone(targets[split:], A, B, **MOVE_ROOT)
    last = first.root_offset[-1]
    assert np.linalg.norm(second.root_offset[0] - last) < np.linalg.norm(fresh.root_offset[0] - last)
    assert np.linalg.norm(second.root_offset[0]) <= 0.1 + 1e-12  # the cap holds across the seam


@pytest.mark.parametrize("angle", [0.5 * math.pi, -2.2, 3.0])
def test_one_frame_on_the_shoulder_keeps_the_previous_direction(angle: float) -> None:
    d = (math.cos(angle), math.sin(angle))
    res = solve_two_bone(np.array([0.0, 0.0]), A, B, previous=SolverState(direction=d))
    assert int(res.flags) & int(IKFlag.DIRECTION_HELD)
    # Folded to the inner reach |a - b|, the tip lies along the held direction.
    end = np.asarray(res.end)
    assert np.linalg.norm(end) == pytest.approx(abs(A - B), rel=1e-6)
    assert math.atan2(end[1], end[0]) == pytest.approx(angle, abs=1e-9)
    assert res.state.direction == pytest.approx(d)


@pytest.mark.parametrize("previous_bend", [1, -1])
def test_one_frame_with_the_pole_on_the_line_keeps_the_previous_bend(previous_bend: int) -> None:
    target = np.array([1.2 * math.cos(0.7), 1.2 * math.sin(0.7)])
    pole = 2.0 * target  # on the shoulder->target line: inside the dead zone, the pole cannot decide
    res = solve_two_bone(target, A, B, bend=-previous_bend, pole=pole,
                         previous=SolverState(direction=(1.0, 0.0), bend=previous_bend))
    assert int(res.bend) == previous_bend and res.state.bend == previous_bend
    assert np.sign(float(res.elbow_angle)) == previous_bend
    # bend +1 puts the elbow on the clockwise side of the shoulder->target line (docs/design.md).
    elbow = np.asarray(res.elbow)
    side = target[0] * elbow[1] - target[1] * elbow[0]
    assert np.sign(side) == -previous_bend
    np.testing.assert_allclose(res.end, target, atol=1e-9)


def test_one_frame_eases_out_of_a_previous_root_offset() -> None:
    target = np.array([1.3, 0.2])  # reachable within the limits: needs no offset of its own
    alone = solve_two_bone(target, A, B, **MOVE_ROOT)
    assert np.abs(np.asarray(alone.root_offset)).max() == 0.0
    held = (0.06, -0.08)
    res = solve_two_bone(target, A, B, previous=SolverState(root_offset=held), **MOVE_ROOT)
    offset = np.asarray(res.root_offset)
    ratio = float(offset @ np.array(held)) / float(np.dot(held, held))
    assert 0.0 < ratio < 1.0
    assert abs(offset[0] * held[1] - offset[1] * held[0]) < 1e-12  # along the held offset
    assert int(res.flags) & int(IKFlag.ROOT_MOVED)
    np.testing.assert_allclose(res.end, target, atol=1e-9)  # and still on the target from the moved root
