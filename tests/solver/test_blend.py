"""IK influence (solver.blend): weight 0 gives FK exactly, 1 gives IK, the blend is the short-path rotation
between them and continuous over frames, in every rotation mode. Truth: rotation matrices (rotations module,
checked against mathutils in test_rotations) and the angle about a fixed axis for planar rotations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.blend import blend_linear, blend_rotation, quaternions_from_channels, quaternions_from_matrices, slerp
from solver.rotations import (
    EULER_ORDERS,
    axis_angles_about_axis,
    eulers_about_axis,
    matrices_from_axis_angles,
    matrices_from_eulers,
    matrices_from_quaternions,
    quaternions_about_axis,
)

MODES = ("QUATERNION", "AXIS_ANGLE", *EULER_ORDERS)
AXES = (np.array([0.0, 0.0, 1.0]), np.array([0.0, -1.0, 0.0]), np.array([1.0, 0.0, 0.0]),
        np.array([0.3, -0.5, 0.8]))


def channels(mode: str, axis: np.ndarray, delta: np.ndarray) -> np.ndarray:
    if mode == "QUATERNION":
        return quaternions_about_axis(axis, delta)
    if mode == "AXIS_ANGLE":
        return axis_angles_about_axis(axis, delta)
    return eulers_about_axis(axis, delta, mode)


def matrices(mode: str, values: np.ndarray) -> np.ndarray:
    if mode == "QUATERNION":
        return matrices_from_quaternions(values)
    if mode == "AXIS_ANGLE":
        return matrices_from_axis_angles(values)
    return matrices_from_eulers(values, mode)


def angle_about(axis: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Angle of planar rotations about ``axis`` read from the matrices (independent of the blend's path)."""
    k = axis / np.linalg.norm(axis)
    ref = np.cross(k, [1.0, 0.0, 0.0] if abs(k[0]) < 0.9 else [0.0, 1.0, 0.0])
    ref /= np.linalg.norm(ref)
    moved = m @ ref
    return np.arctan2(np.cross(ref, moved) @ k, moved @ ref)


angles = st.floats(-3.0, 3.0)
weights = st.floats(0.0, 1.0)


@settings(max_examples=60, deadline=None)
@given(fk=st.lists(angles, min_size=1, max_size=6), ik=st.lists(angles, min_size=1, max_size=6),
       mode=st.sampled_from(MODES), axis=st.sampled_from(range(len(AXES))))
def test_weight_zero_is_fk_bit_for_bit_and_one_is_the_ik_rotation(fk, ik, mode, axis) -> None:  # type: ignore[no-untyped-def]
    n = min(len(fk), len(ik))
    k = AXES[axis]
    a, b = channels(mode, k, np.array(fk[:n])), channels(mode, k, np.array(ik[:n]))
    assert np.array_equal(blend_rotation(mode, a, b, 0.0), a)
    np.testing.assert_allclose(matrices(mode, blend_rotation(mode, a, b, 1.0)), matrices(mode, b), atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(fk=angles, ik=angles, w=weights, mode=st.sampled_from(MODES), axis=st.sampled_from(range(len(AXES))))
def test_planar_blend_is_the_short_path_angle(fk, ik, w, mode, axis) -> None:  # type: ignore[no-untyped-def]
    k = AXES[axis]
    a, b = channels(mode, k, np.array([fk])), channels(mode, k, np.array([ik]))
    diff = (ik - fk + np.pi) % (2 * np.pi) - np.pi
    if abs(abs(diff) - np.pi) < 1e-6:
        return  # a half turn apart: both sides are as short
    want = fk + w * diff
    got = angle_about(k, matrices(mode, blend_rotation(mode, a, b, w)))[0]
    assert abs((got - want + np.pi) % (2 * np.pi) - np.pi) < 1e-9


@pytest.mark.parametrize("mode", MODES)
def test_blend_over_frames_is_continuous_with_animated_weight(mode: str) -> None:
    # FK swings through more than a turn, IK follows it less than a half turn away (beyond that the short path
    # changes side, for any blend); the weight goes 0 -> 1 -> 0.
    t = np.linspace(0.0, 1.0, 401)
    k = AXES[3]
    fk = channels(mode, k, 7.0 * t)
    ik = channels(mode, k, 7.0 * t + 2.5 * np.sin(5.0 * t) + 0.3)
    w = np.clip(np.sin(np.pi * t) * 1.3, 0.0, 1.0)
    out = blend_rotation(mode, fk, ik, w)
    # Channel values change little between frames (no sign flips, no 2*pi jumps) ...
    step = np.abs(np.diff(out, axis=0)).max()
    own = max(np.abs(np.diff(fk, axis=0)).max(), np.abs(np.diff(ik, axis=0)).max())
    assert step < 2.0 * own + 0.02, (step, own)
    # ... and each frame is the rotation the short-path blend gives.
    diff = 2.5 * np.sin(5.0 * t) + 0.3
    got = angle_about(k, matrices(mode, out))
    err = (got - (7.0 * t + w * diff) + np.pi) % (2 * np.pi) - np.pi
    assert np.abs(err).max() < 1e-9


@settings(max_examples=40, deadline=None)
@given(q=st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4), r=st.lists(st.floats(-1.0, 1.0), min_size=4,
                                                                        max_size=4), w=weights)
def test_slerp_stays_on_the_arc_between_general_rotations(q, r, w) -> None:  # type: ignore[no-untyped-def]
    a, b = np.array([q]), np.array([r])
    if np.linalg.norm(a) < 0.1 or np.linalg.norm(b) < 0.1:
        return
    s = slerp(a, b, w)
    ua, ub = a[0] / np.linalg.norm(a), b[0] / np.linalg.norm(b)
    ub = ub if float(ua @ ub) >= 0 else -ub
    total = np.arccos(np.clip(abs(float(ua @ ub)), 0, 1))
    to_a = np.arccos(np.clip(float(s[0] @ ua), -1, 1))
    to_b = np.arccos(np.clip(float(s[0] @ ub), -1, 1))
    assert abs(to_a - w * total) < 1e-6 and abs(to_b - (1 - w) * total) < 1e-6


def test_general_euler_blend_matches_quaternion_slerp() -> None:
    rng = np.random.default_rng(3)
    fk = rng.uniform(-2, 2, (50, 3))
    ik = rng.uniform(-2, 2, (50, 3))
    w = rng.uniform(0, 1, 50)
    for order in EULER_ORDERS:
        # Frames one at a time: random rotations are no animation to continue from frame to frame.
        out = np.concatenate([blend_rotation(order, fk[i:i + 1], ik[i:i + 1], w[i]) for i in range(len(w))])
        want = slerp(quaternions_from_channels(order, fk), quaternions_from_channels(order, ik), w)
        got = quaternions_from_matrices(matrices_from_eulers(out, order))
        assert np.abs(np.abs(np.sum(got * want, axis=1)) - 1).max() < 1e-9
        # The triple nearest the FK one: no component more than pi from FK's unless the rotation needs it.
        assert np.abs(out - fk).max() < 2 * np.pi


def test_quaternion_matrix_round_trip_near_half_turns() -> None:
    axis = AXES[3] / np.linalg.norm(AXES[3])
    for angle in (0.0, 1e-9, 1.0, np.pi - 1e-9, np.pi):
        q = quaternions_about_axis(axis, np.array([angle]))
        back = quaternions_from_matrices(matrices_from_quaternions(q))
        assert abs(abs(float(np.sum(back * q))) - 1.0) < 1e-12


def test_linear_blend_exact_at_the_ends_and_weights_checked() -> None:
    a, b = np.array([[0.1, 0.2, 0.3]] * 3), np.array([[1.0, 2.0, 3.0]] * 3)
    out = blend_linear(a, b, np.array([0.0, 0.5, 1.0]))
    assert np.array_equal(out[0], a[0]) and np.array_equal(out[2], b[2])
    np.testing.assert_allclose(out[1], (a[1] + b[1]) / 2)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        blend_linear(a, b, 1.5)
