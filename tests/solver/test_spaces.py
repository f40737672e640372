"""Armature space <-> shoulder space, checked against chains built from matrices and forward kinematics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.fk import forward_kinematics
from solver.rotations import EULER_ORDERS, rotation_matrices_about_axis
from solver.spaces import (
    PLANES,
    chain_rest_2d,
    compose_matrices,
    cross,
    from_shoulder_2d,
    invert_matrices,
    local_axis,
    out_of_plane_distance,
    plane_normal,
    shoulder_frame,
    shoulder_local_basis,
    to_shoulder_2d,
    transform_points,
)


def affine(linear: np.ndarray, translation: np.ndarray) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = linear
    m[:3, 3] = translation
    return m


def bone_rest(head: np.ndarray, direction: np.ndarray, n: np.ndarray, roll_flip: bool = False) -> np.ndarray:
    """An orthonormal bone rest matrix: +Y along ``direction`` (in the plane), +Z along +-n."""
    y = direction / np.linalg.norm(direction)
    z = -n if roll_flip else n
    x = np.cross(y, z)
    return affine(np.stack([x, y, z], axis=1), head)


def test_planes_are_right_handed_screen_axes() -> None:
    assert set(PLANES) == {"XZ", "XY", "YZ"}
    for u, v, n in PLANES.values():
        np.testing.assert_array_equal(np.cross(u, v), n)
    np.testing.assert_array_equal(plane_normal("XZ"), [0, -1, 0])
    np.testing.assert_array_equal(plane_normal("XY"), [0, 0, 1])
    np.testing.assert_array_equal(plane_normal("YZ"), [1, 0, 0])


def test_transform_and_invert_with_negative_scale() -> None:
    rng = np.random.default_rng(0)
    lin = rng.normal(size=(10, 3, 3)) * np.array([-1.0, 2.0, 0.5])
    m = np.stack([affine(lin[i], rng.normal(size=3)) for i in range(10)])
    p = rng.normal(size=(10, 3))
    homogeneous = np.concatenate([p, np.ones((10, 1))], axis=1)
    want = np.stack([m[i] @ homogeneous[i] for i in range(10)])[:, :3]
    np.testing.assert_allclose(transform_points(m, p), want, atol=1e-12)
    np.testing.assert_allclose(transform_points(m[0], p[:1]), want[:1], atol=1e-12)
    one_matrix = np.stack([m[0] @ homogeneous[i] for i in range(10)])[:, :3]
    np.testing.assert_allclose(transform_points(m[0], p), one_matrix, atol=1e-12)  # one matrix, N points
    np.testing.assert_allclose(invert_matrices(m) @ m, np.broadcast_to(np.eye(4), m.shape), atol=1e-10)
    singular = np.zeros((1, 4, 4))
    assert np.all(np.isnan(invert_matrices(singular)[0, :3, :3]))


def rz(t: float) -> np.ndarray:
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


@pytest.mark.parametrize("mode", ["QUATERNION", "AXIS_ANGLE", *EULER_ORDERS])
def test_compose_matrices_is_translate_rotate_scale(mode: str) -> None:
    # A rotation about +Z by t is (cos t/2, 0, 0, sin t/2), (t, 0, 0, 1) and (0, 0, t) in every Euler order.
    t = np.array([0.4, -2.5])
    loc = np.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 0.5]])
    scale = np.array([[1.0, -2.0, 0.5], [3.0, 1.0, -1.0]])
    if mode == "QUATERNION":
        rot = 2.0 * np.stack([np.cos(t / 2), 0 * t, 0 * t, np.sin(t / 2)], axis=1)  # Blender normalizes
    elif mode == "AXIS_ANGLE":
        rot = np.stack([t, 0 * t, 0 * t, 5 + 0 * t], axis=1)
    else:
        rot = np.stack([0 * t, 0 * t, t], axis=1)
    got = compose_matrices(loc, rot, scale, mode)
    for f in range(2):
        want = affine(rz(t[f]) @ np.diag(scale[f]), loc[f])
        np.testing.assert_allclose(got[f], want, atol=1e-12)


def test_compose_matrices_euler_order_matters() -> None:
    e = np.array([[0.3, -0.7, 1.1]])
    one = np.ones((1, 3))
    zero = np.zeros((1, 3))
    xyz = compose_matrices(zero, e, one, "XYZ")[0, :3, :3]
    zyx = compose_matrices(zero, e, one, "ZYX")[0, :3, :3]
    rx = rotation_matrices_about_axis([1, 0, 0], [0.3])[0]
    ry = rotation_matrices_about_axis([0, 1, 0], [-0.7])[0]
    rzz = rotation_matrices_about_axis([0, 0, 1], [1.1])[0]
    np.testing.assert_allclose(xyz, rzz @ ry @ rx, atol=1e-12)
    np.testing.assert_allclose(zyx, rx @ ry @ rzz, atol=1e-12)


def test_local_axis_maps_back_to_the_plane_normal() -> None:
    n = plane_normal("XZ")
    rest = bone_rest(np.array([1.0, 0, 2]), np.array([1.0, 0, 1]), n, roll_flip=True)
    a = local_axis(rest, n)
    np.testing.assert_allclose(rest[:3, :3] @ a, n, atol=1e-15)
    np.testing.assert_allclose(a, [0, 0, -1], atol=1e-15)


def test_shoulder_frame_is_orthonormal_and_follows_the_bone() -> None:
    n = plane_normal("XY")
    base = bone_rest(np.array([1.0, 2.0, 0.0]), np.array([0.0, 1.0, 0.0]), n)
    base[:3, :3] *= 3.0  # scale does not change the frame's directions
    origin, x, y = shoulder_frame(base, n)
    np.testing.assert_allclose(origin, [[1, 2, 0]])
    np.testing.assert_allclose(x, [[0, 1, 0]], atol=1e-15)
    np.testing.assert_allclose(y, [[-1, 0, 0]], atol=1e-15)
    np.testing.assert_allclose(out_of_plane_distance([[5.0, 5.0, 0.25]], base, n), [0.25])


def test_to_shoulder_2d_hand_computed() -> None:
    # Front view: upper bone at (1, 0, 1) pointing +X; n = -Y so +y of shoulder space is n x x = +Z.
    n = plane_normal("XZ")
    base = bone_rest(np.array([1.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0]), n)
    got = to_shoulder_2d([[3.0, 0.0, 1.0], [1.0, 0.0, 4.0], [1.0, 7.0, 1.0]], np.repeat(base[None], 3, 0), n)
    np.testing.assert_allclose(got, [[2, 0], [0, 3], [0, 0]], atol=1e-15)
    # A parent pose scaled by 2: local units halve.
    scaled = affine(2.0 * base[:3, :3], base[:3, 3])
    np.testing.assert_allclose(to_shoulder_2d([[3.0, 0.0, 1.0]], scaled, n), [[1.0, 0.0]], atol=1e-15)


def test_shoulder_local_basis() -> None:
    x, y = shoulder_local_basis([0, 0, 1])
    np.testing.assert_allclose(x, [0, 1, 0])
    np.testing.assert_allclose(y, [-1, 0, 0])


def test_shoulder_local_basis_is_each_normals_own_and_read_only() -> None:
    # Bases are shared by normal (a crowd's copies of a character): normals close together, asked for in turn
    # and again, each get the basis of their own normal, which no caller can change for the next.
    normals = [[0.0, 0.1, 1.0], [0.0, 0.3, 1.0], [0.2, 0.1, 1.0], [0.0, 0.1, 1.0], [1e-9, 0.1, 1.0]]
    for n in normals + normals[::-1]:
        a = np.asarray(n) / np.linalg.norm(n)
        x, y = shoulder_local_basis(n)
        expected = np.array([0.0, 1.0, 0.0]) - a[1] * a
        expected /= np.linalg.norm(expected)
        np.testing.assert_allclose(x, expected, rtol=0, atol=1e-15)
        np.testing.assert_allclose(y, np.cross(a, expected), rtol=0, atol=1e-15)
        assert abs(float(x @ a)) < 1e-15
        with pytest.raises(ValueError):
            x[0] = 0.0


unit = st.floats(-1, 1)
finite = st.floats(-5, 5)


@settings(max_examples=80, deadline=None)
@given(
    plane=st.sampled_from(sorted(PLANES)),
    direction=st.tuples(unit, unit).filter(lambda v: np.hypot(*v) > 0.2),
    head=st.tuples(finite, finite, finite),
    parent_scale=st.tuples(st.floats(0.3, 3), st.floats(0.3, 3)),
    mirror=st.booleans(),
    roll_flip=st.booleans(),
    pts=st.lists(st.tuples(finite, finite), min_size=1, max_size=6),
)
def test_round_trip_in_plane(
    plane: str,
    direction: tuple[float, float],
    head: tuple[float, float, float],
    parent_scale: tuple[float, float],
    mirror: bool,
    roll_flip: bool,
    pts: list[tuple[float, float]],
) -> None:
    u, v, n = (np.array(a) for a in PLANES[plane])
    rest = bone_rest(np.array(head), direction[0] * u + direction[1] * v, n, roll_flip)
    # Parent pose deformation in armature space: in-plane non-uniform scale, optionally a mirror.
    sx = -parent_scale[0] if mirror else parent_scale[0]
    deform = np.outer(u, u) * sx + np.outer(v, v) * parent_scale[1] + np.outer(n, n)
    base = affine(deform @ rest[:3, :3], deform @ rest[:3, 3])
    p2 = np.array(pts)
    bases = np.repeat(base[None], len(p2), 0)
    arm = from_shoulder_2d(p2, bases, n, local_normal=local_axis(rest, n))
    np.testing.assert_allclose(out_of_plane_distance(arm, bases, n), 0.0, atol=1e-9)
    np.testing.assert_allclose(to_shoulder_2d(arm, bases, n, local_normal=local_axis(rest, n)), p2, atol=1e-9)
    np.testing.assert_allclose(to_shoulder_2d(arm, bases, n), p2, atol=1e-9)


def blender_pose(parent_pose: np.ndarray, parent_rest: np.ndarray, rest: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """Blender's pose matrix of a child bone (inherits rotation and scale): pp @ pr^-1 @ r @ basis."""
    return parent_pose @ np.linalg.inv(parent_rest) @ rest @ basis


@settings(max_examples=60, deadline=None)
@given(
    plane=st.sampled_from(sorted(PLANES)),
    angles=st.tuples(*[st.floats(-3, 3)] * 4),
    parent_scale=st.tuples(st.floats(0.3, 3), st.floats(0.3, 3)),
    mirror=st.booleans(),
    rolls=st.tuples(st.booleans(), st.booleans()),
    lengths=st.tuples(st.floats(0.2, 3), st.floats(0.2, 3)),
)
def test_pose_rotation_about_local_axis_is_2d_forward_kinematics(
    plane: str,
    angles: tuple[float, float, float, float],
    parent_scale: tuple[float, float],
    mirror: bool,
    rolls: tuple[bool, bool],
    lengths: tuple[float, float],
) -> None:
    """The contract the bake relies on: rotating the upper bone by du and the lower by dl about their local
    axes moves the tip to FK(rest_shoulder + du, rest_elbow + dl) in shoulder space, with rest lengths, even
    under a scaled and mirrored parent pose."""
    u, v, n = (np.array(a) for a in PLANES[plane])
    a_len, b_len = lengths
    parent_dir, upper_dir, lower_dir = angles[0], angles[1], angles[2]

    def in_plane(t: float) -> np.ndarray:
        return np.cos(t) * u + np.sin(t) * v

    parent_rest = bone_rest(0.3 * u, in_plane(parent_dir), n)
    upper_rest = bone_rest(parent_rest[:3, 3] + in_plane(parent_dir), in_plane(upper_dir), n, rolls[0])
    lower_rest = bone_rest(upper_rest[:3, 3] + a_len * in_plane(upper_dir), in_plane(lower_dir), n, rolls[1])
    sx = -parent_scale[0] if mirror else parent_scale[0]
    deform = np.outer(u, u) * sx + np.outer(v, v) * parent_scale[1] + np.outer(n, n)
    spin = np.eye(4)
    spin[:3, :3] = rotation_matrices_about_axis(local_axis(parent_rest, n), [angles[3]])[0]
    parent_pose = affine(deform, 0.1 * v) @ parent_rest @ spin

    du, dl = 0.7 * angles[3], -1.3 * angles[0]
    upper_basis = np.eye(4)
    upper_basis[:3, :3] = rotation_matrices_about_axis(local_axis(upper_rest, n), [du])[0]
    lower_basis = np.eye(4)
    lower_basis[:3, :3] = rotation_matrices_about_axis(local_axis(lower_rest, n), [dl])[0]
    upper_pose = blender_pose(parent_pose, parent_rest, upper_rest, upper_basis)
    lower_pose = blender_pose(upper_pose, upper_rest, lower_rest, lower_basis)
    tip = (lower_pose @ np.array([0.0, b_len, 0.0, 1.0]))[:3]
    elbow = lower_pose[:3, 3]

    base = parent_pose @ np.linalg.inv(parent_rest) @ upper_rest
    a2, b2, rest_shoulder, rest_elbow = chain_rest_2d(upper_rest, lower_rest, b_len, n)
    assert a2 == pytest.approx(a_len) and b2 == pytest.approx(b_len)
    want_elbow, want_tip = forward_kinematics(rest_shoulder + du, rest_elbow + dl, a2, b2)
    axis = local_axis(upper_rest, n)
    got = to_shoulder_2d(np.stack([elbow, tip]), np.stack([base, base]), n, local_normal=axis)
    np.testing.assert_allclose(got, np.stack([want_elbow, want_tip]), atol=1e-9)
    back = from_shoulder_2d(np.stack([want_elbow, want_tip]), np.stack([base, base]), n, local_normal=axis)
    np.testing.assert_allclose(back, np.stack([elbow, tip]), atol=1e-9)


def test_chain_rest_2d_hand_computed() -> None:
    n = plane_normal("XY")
    upper = bone_rest(np.zeros(3), np.array([1.0, 0, 0]), n)
    lower = bone_rest(np.array([2.0, 0, 0]), np.array([0.0, 1, 0]), n)
    a, b, s, e = chain_rest_2d(upper, lower, 1.5, n)
    assert (a, b, s, e) == pytest.approx((2.0, 1.5, 0.0, np.pi / 2))
    # Unconnected lower bone: the upper segment runs head -> lower head, so the rest shoulder angle is not 0.
    lower = bone_rest(np.array([2.0, 2.0, 0]), np.array([1.0, 0, 0]), n)
    a, b, s, e = chain_rest_2d(upper, lower, 1.0, n)
    assert (a, b, s, e) == pytest.approx((np.sqrt(8), 1.0, np.pi / 4, -np.pi / 4))


def test_against_mathutils() -> None:
    pytest.importorskip("bpy")
    import mathutils

    rng = np.random.default_rng(3)
    for mode in ("QUATERNION", "AXIS_ANGLE", *EULER_ORDERS):
        loc, scale = rng.normal(size=3), rng.uniform(-2, 2, size=3)
        if mode == "QUATERNION":
            rot = rng.normal(size=4)
            r = mathutils.Quaternion(rot).normalized()
        elif mode == "AXIS_ANGLE":
            rot = rng.normal(size=4)
            r = mathutils.Quaternion(rot[1:], rot[0])
        else:
            rot = rng.uniform(-3, 3, size=3)
            r = mathutils.Euler(rot, mode)
        want = np.array(mathutils.Matrix.LocRotScale(loc, r, scale))
        np.testing.assert_allclose(compose_matrices(loc, rot, scale, mode)[0], want, atol=1e-5)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-300, 3.7e12, np.nan, np.inf]), min_size=6,
                max_size=6))
def test_cross_of_two_vectors_has_the_bits_of_the_row_wise_product(values: list[float]) -> None:
    # The single-vector path (Python floats) must give what the rows give and np.cross gives, signed zeros,
    # infinities and NaNs included: a chain's rest axes are computed by it, its frames by the rows.
    a, b = np.array(values[:3]), np.array(values[3:])
    single = cross(a, b)
    rows = cross(a[None], b[None])[0]
    with np.errstate(invalid="ignore"):
        expected = np.cross(a, b)
    assert single.dtype == np.float64 and single.shape == (3,)
    assert single.tobytes() == rows.tobytes() == expected.tobytes()


def test_cross_of_float32_vectors_stays_float32() -> None:
    a, b = np.array([0.1, 0.2, 0.3], dtype=np.float32), np.array([0.7, -0.4, 0.9], dtype=np.float32)
    assert cross(a, b).dtype == np.float32
    assert cross(a, b).tobytes() == cross(a[None], b[None])[0].tobytes()
