"""Rotation channels about a fixed axis: checked against hand-written elementary rotations and continuity."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from solver.rotations import (
    EULER_ORDERS,
    axis_angles_about_axis,
    eulers_about_axis,
    eulers_from_matrices,
    matrices_from_axis_angles,
    matrices_from_eulers,
    matrices_from_quaternions,
    quaternions_about_axis,
    rotation_matrices_about_axis,
)


def rx(t: float) -> np.ndarray:
    c, s = np.cos(t), np.sin(t)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def ry(t: float) -> np.ndarray:
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rz(t: float) -> np.ndarray:
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


ELEMENTARY = {"X": rx, "Y": ry, "Z": rz}


def euler_truth(e: np.ndarray, order: str) -> np.ndarray:
    """Order 'ABC' applies A first: R = R_C R_B R_A, angles taken from e = (x, y, z)."""
    angle = dict(zip("XYZ", e, strict=True))
    a, b, c = order
    return ELEMENTARY[c](angle[c]) @ ELEMENTARY[b](angle[b]) @ ELEMENTARY[a](angle[a])


def wrap(x: np.ndarray) -> np.ndarray:
    return (x + np.pi) % (2 * np.pi) - np.pi


axes = st.tuples(*[st.floats(-1, 1)] * 3).filter(lambda v: np.linalg.norm(v) > 0.1)


def test_rodrigues_matches_elementary_rotations() -> None:
    angles = np.array([-2.0, 0.3, 1.0, 3.0])
    for name, axis in (("X", (1, 0, 0)), ("Y", (0, 1, 0)), ("Z", (0, 0, 1))):
        got = rotation_matrices_about_axis(axis, angles)
        want = np.stack([ELEMENTARY[name](t) for t in angles])
        np.testing.assert_allclose(got, want, atol=1e-14)


def test_rodrigues_fixes_axis_and_rotates_counter_clockwise() -> None:
    axis = np.array([1.0, 2.0, -2.0]) / 3.0
    r = rotation_matrices_about_axis(axis, [0.7])[0]
    np.testing.assert_allclose(r @ axis, axis, atol=1e-15)
    np.testing.assert_allclose(r.T @ r, np.eye(3), atol=1e-15)
    assert np.isclose(np.linalg.det(r), 1.0)
    assert np.isclose(np.arccos((np.trace(r) - 1) / 2), 0.7)
    u = np.cross(axis, [1.0, 0, 0])
    u /= np.linalg.norm(u)
    # Counter-clockwise about axis: u turns toward axis x u.
    assert np.dot(r @ u, np.cross(axis, u)) == pytest.approx(np.sin(0.7))


@pytest.mark.parametrize("order", EULER_ORDERS)
def test_euler_matrix_definition(order: str) -> None:
    rng = np.random.default_rng(1)
    e = rng.uniform(-4, 4, size=(20, 3))
    got = matrices_from_eulers(e, order)
    want = np.stack([euler_truth(row, order) for row in e])
    np.testing.assert_allclose(got, want, atol=1e-14)


@pytest.mark.parametrize("order", EULER_ORDERS)
def test_euler_decomposition_round_trip(order: str) -> None:
    rng = np.random.default_rng(2)
    m = rotation_matrices_about_axis(rng.normal(size=3), rng.uniform(-7, 7, size=300))
    e = eulers_from_matrices(m, order)
    rebuilt = np.stack([euler_truth(row, order) for row in e])
    np.testing.assert_allclose(rebuilt, m, atol=1e-12)


def test_quaternion_matrix_matches_rodrigues_and_normalizes() -> None:
    axis = np.array([0.3, -0.5, 0.8])
    delta = np.linspace(-6, 6, 25)
    q = quaternions_about_axis(axis, delta)
    np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1.0)
    np.testing.assert_allclose(matrices_from_quaternions(q), rotation_matrices_about_axis(axis, delta), atol=1e-14)
    np.testing.assert_allclose(matrices_from_quaternions(3.5 * q), matrices_from_quaternions(q), atol=1e-14)
    # Blender's normalize_qt fallback for a zero quaternion: (0, 1, 0, 0), a half turn about X.
    np.testing.assert_allclose(matrices_from_quaternions([[0, 0, 0, 0]])[0], rx(np.pi), atol=1e-15)


def test_axis_angle_matrix_matches_rodrigues() -> None:
    axis = np.array([2.0, 0.0, -1.0])
    delta = np.linspace(-9, 9, 31)
    aa = axis_angles_about_axis(axis, delta)
    np.testing.assert_allclose(matrices_from_axis_angles(aa), rotation_matrices_about_axis(axis, delta), atol=1e-14)
    np.testing.assert_allclose(matrices_from_axis_angles([[1.0, 0, 0, 0]])[0], np.eye(3))


@settings(max_examples=60, deadline=None)
@given(axis=axes, start=st.floats(-10, 10), steps=st.lists(st.floats(-3.0, 3.0), min_size=2, max_size=40))
def test_quaternions_sign_continuous(axis: tuple[float, float, float], start: float, steps: list[float]) -> None:
    delta = start + np.cumsum(steps)
    wrapped = wrap(delta)  # the solver may hand over wrapped angles: the output must still be continuous
    q = quaternions_about_axis(axis, wrapped)
    np.testing.assert_allclose(matrices_from_quaternions(q), rotation_matrices_about_axis(axis, delta), atol=1e-12)
    dq = np.linalg.norm(np.diff(q, axis=0), axis=1)
    assert np.all(np.sum(q[1:] * q[:-1], axis=1) >= -1e-12)
    assert np.all(dq <= np.abs(wrap(np.diff(delta))) / 2 + 1e-12)


@settings(max_examples=60, deadline=None)
@given(axis=axes, start=st.floats(-10, 10), steps=st.lists(st.floats(-3.0, 3.0), min_size=2, max_size=40))
def test_axis_angles_continuous(axis: tuple[float, float, float], start: float, steps: list[float]) -> None:
    delta = start + np.cumsum(steps)
    aa = axis_angles_about_axis(axis, wrap(delta))
    np.testing.assert_allclose(matrices_from_axis_angles(aa), rotation_matrices_about_axis(axis, delta), atol=1e-12)
    assert np.all(np.abs(np.diff(aa[:, 0])) <= np.abs(wrap(np.diff(delta))) + 1e-12)


def middle_angle_cos(e: np.ndarray, order: str) -> np.ndarray:
    return np.cos(e[:, "XYZ".index(order[1])])


@settings(max_examples=120, deadline=None)
@given(
    axis=axes,
    order=st.sampled_from(EULER_ORDERS),
    start=st.floats(-7, 7),
    steps=st.lists(st.floats(-0.02, 0.02), min_size=2, max_size=60),
)
def test_eulers_continuous_away_from_gimbal_lock(
    axis: tuple[float, float, float], order: str, start: float, steps: list[float]
) -> None:
    delta = start + np.cumsum(steps)
    e = eulers_about_axis(axis, wrap(delta), order)
    np.testing.assert_allclose(matrices_from_eulers(e, order), rotation_matrices_about_axis(axis, delta), atol=1e-12)
    cos_mid = np.abs(middle_angle_cos(e, order))
    assume(cos_mid.min() > 0.3)
    # Euler rates are bounded by |omega| * (1 + 2 / |cos(middle)|): no 2*pi jumps or flips.
    bound = np.abs(np.diff(delta)) * (1 + 2 / np.minimum(cos_mid[1:], cos_mid[:-1])) + 1e-9
    assert np.all(np.abs(np.diff(e, axis=0)).max(axis=1) <= bound)


@pytest.mark.parametrize("order", EULER_ORDERS)
def test_eulers_through_gimbal_lock_about_middle_axis(order: str) -> None:
    axis = np.zeros(3)
    axis["XYZ".index(order[1])] = 1.0
    delta = np.linspace(0, np.pi, 7)  # hits pi/2 exactly (gimbal lock)
    e = eulers_about_axis(axis, delta, order)
    np.testing.assert_allclose(matrices_from_eulers(e, order), rotation_matrices_about_axis(axis, delta), atol=1e-12)
    want = np.zeros((7, 3))
    want[:, "XYZ".index(order[1])] = delta
    np.testing.assert_allclose(e, want, atol=1e-9)


@pytest.mark.parametrize("order", EULER_ORDERS)
def test_eulers_through_gimbal_lock_general_axis(order: str) -> None:
    # About (1, 1, 1) x -> y -> z cycle: the first axis lands on the last (gimbal lock) at 2pi/3 or 4pi/3.
    i, _, k = ("XYZ".index(c) for c in order)
    lock = 2 * np.pi / 3 if k == (i + 1) % 3 else 4 * np.pi / 3
    delta = lock + np.linspace(-0.6, 0.6, 13)
    assert np.any(delta == lock)
    axis = np.ones(3)
    m = rotation_matrices_about_axis(axis, delta)
    assert abs(abs(m[6, k, i]) - 1) < 1e-12
    e = eulers_about_axis(axis, delta, order)
    np.testing.assert_allclose(matrices_from_eulers(e, order), m, atol=1e-9)
    assert np.all(np.abs(np.diff(e, axis=0)) < np.pi)


@pytest.mark.parametrize("order", EULER_ORDERS)
def test_eulers_join_previous_value(order: str) -> None:
    axis = np.array([0.2, 0.9, -0.4])
    delta = np.array([0.5, 0.6, 0.7])
    plain = eulers_about_axis(axis, delta, order)
    shifted = plain[0] + np.array([2, -4, 6]) * np.pi
    joined = eulers_about_axis(axis, delta, order, previous=shifted)
    np.testing.assert_allclose(joined[0], shifted, atol=1e-12)
    np.testing.assert_allclose(joined - joined[0], plain - plain[0], atol=1e-12)
    # The equivalent triple (a + pi, pi - b, c + pi) of the first frame as the previous value: it is kept.
    i, j, k = ("XYZ".index(c) for c in order)
    other = plain[0].copy()
    other[i] += np.pi
    other[j] = np.pi - other[j]
    other[k] += np.pi
    np.testing.assert_allclose(euler_truth(other, order), euler_truth(plain[0], order), atol=1e-12)
    joined = eulers_about_axis(axis, delta, order, previous=other)
    np.testing.assert_allclose(joined[0], other, atol=1e-12)


def test_quaternions_and_axis_angles_join_previous() -> None:
    axis = np.array([0.0, 0.0, 1.0])
    q = quaternions_about_axis(axis, [0.1, 0.2], previous=[-1.0, 0.0, 0.0, 0.0])
    assert q[0, 0] < 0
    aa = axis_angles_about_axis(axis, [0.1, 0.2], previous=[-4 * np.pi - 0.1, 0.0, 0.0, -1.0])
    np.testing.assert_allclose(aa[:, 1:], [[0, 0, -1], [0, 0, -1]])
    np.testing.assert_allclose(aa[:, 0], [-4 * np.pi - 0.1, -4 * np.pi - 0.2], atol=1e-12)


def test_nan_angles_stay_nan_without_breaking_neighbours() -> None:
    delta = np.array([3.0, np.nan, -3.0])
    q = quaternions_about_axis([0, 0, 1], delta)
    assert np.all(np.isnan(q[1]))
    assert np.dot(q[0], q[2]) > 0
    e = eulers_about_axis([0, 0, 1], delta, "XYZ")
    assert np.all(np.isnan(e[1]))
    assert abs(e[2, 2] - e[0, 2]) < np.pi


def equivalent_triples(e: np.ndarray, order: str) -> list[np.ndarray]:
    """The two Euler triples of one rotation: e and (a + pi, pi - b, c + pi) (first, middle, last axis)."""
    i, j, k = ("XYZ".index(c) for c in order)
    alt = e.copy()
    alt[i] += np.pi
    alt[j] = np.pi - alt[j]
    alt[k] += np.pi
    return [e, alt]


def nearest_distance(candidate: np.ndarray, prev: np.ndarray) -> float:
    """Sum over axes of the distance to prev after the best per-axis 2*pi shift."""
    d = np.abs(candidate - prev) % (2 * np.pi)
    return float(np.sum(np.minimum(d, 2 * np.pi - d)))


@settings(max_examples=80, deadline=None)
@given(
    axis=axes,
    order=st.sampled_from(EULER_ORDERS),
    steps=st.lists(st.floats(-2.5, 2.5), min_size=1, max_size=50),
    previous=st.one_of(st.none(), st.tuples(*[st.floats(-9, 9)] * 3)),
)
def test_eulers_are_the_greedy_closest_choice(
    axis: tuple[float, float, float], order: str, steps: list[float], previous: tuple | None
) -> None:
    """Each frame is, of both equivalent triples under every 2*pi shift, one closest to the frame before
    (Blender's make_compatible); ties may go either way."""
    delta = np.cumsum(steps)
    m = rotation_matrices_about_axis(axis, delta)
    got = eulers_from_matrices(m, order, previous=previous)
    np.testing.assert_allclose(matrices_from_eulers(got, order), m, atol=1e-9)
    prevs = np.concatenate([[previous], got[:-1]]) if previous is not None else got[:-1]
    current = got if previous is not None else got[1:]
    for prev, cur in zip(prevs, current, strict=True):
        best = min(nearest_distance(c, prev) for c in equivalent_triples(cur, order))
        assert np.abs(cur - prev).sum() <= best + 1e-9  # closest, and already shifted next to prev


def test_against_mathutils() -> None:
    pytest.importorskip("bpy")
    import mathutils

    rng = np.random.default_rng(5)
    for order in EULER_ORDERS:
        for e in rng.uniform(-3, 3, size=(5, 3)):
            want = np.array(mathutils.Euler(e, order).to_matrix())
            np.testing.assert_allclose(matrices_from_eulers(e, order)[0], want, atol=1e-6)
        axis = rng.normal(size=3)
        delta = np.cumsum(rng.uniform(-0.3, 0.3, size=80))
        ours = eulers_about_axis(axis, delta, order)
        compat = mathutils.Euler(ours[0], order)
        for f, d in enumerate(delta):
            m = mathutils.Matrix.Rotation(d, 3, mathutils.Vector(axis))
            compat = m.to_euler(order, compat)
            np.testing.assert_allclose(np.array(compat), ours[f], atol=1e-4)
    axis = np.array([0.3, -0.2, 0.9])
    for q in quaternions_about_axis(axis, [-2.0, 0.4, 5.0]):
        want = np.array(mathutils.Quaternion(q).to_matrix())
        np.testing.assert_allclose(matrices_from_quaternions(q)[0], want, atol=1e-6)
        want_aa = np.array(mathutils.Matrix.Rotation(2 * np.arctan2(np.linalg.norm(q[1:]), q[0]), 3, q[1:]))
        np.testing.assert_allclose(matrices_from_quaternions(q)[0], want_aa, atol=1e-6)
