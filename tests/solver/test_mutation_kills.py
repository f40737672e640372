"""Promises that mutation testing (scripts/mutation.sh) showed no test held: each test here fails on mutants
of ``solver/`` that survived the rest of the suite. Grouped by module; the survivors list is in DEVELOPERS.md.
"""

from __future__ import annotations

import numpy as np
import pytest

from solver import IKFlag, JointLimits, solve_two_bone
from solver.rotations import (
    EULER_ORDERS,
    axis_angles_about_axis,
    eulers_from_matrices,
    matrices_from_axis_angles,
    matrices_from_eulers,
    quaternions_about_axis,
    rotation_matrices_about_axis,
    rotation_property,
)
from solver.smoothing import ExponentialFilter, OneEuroFilter, smooth_targets
from solver.soft import soft_distance, soft_distance_derivative, soft_inner_distance
from solver.spaces import (
    compose_matrices,
    from_shoulder_2d,
    shoulder_frame,
    shoulder_local_basis,
    to_shoulder_2d,
    transform_points,
    transform_vectors,
)

# --- solver/soft.py ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("total", "width"), [(2.0, 0.5), (3.0, 0.2), (1.0, 0.9)])
def test_soft_distance_derivative_is_the_slope_of_soft_distance(total: float, width: float) -> None:
    d = np.linspace(0.2 * total, 2.0 * total, 41)
    h = 1e-6
    slope = (soft_distance(d + h, total, width) - soft_distance(d - h, total, width)) / (2 * h)
    np.testing.assert_allclose(soft_distance_derivative(d, total, width), slope, rtol=1e-6, atol=1e-6)


def test_zero_width_leaves_distances_unchanged_beyond_the_boundary() -> None:
    d = np.array([0.5, 1.5, 3.0])
    np.testing.assert_array_equal(soft_distance(d, 2.0, 0.0), d)
    np.testing.assert_array_equal(soft_inner_distance(d, 1.0, 0.0), d)
    np.testing.assert_array_equal(soft_distance_derivative(d, 2.0, 0.0), np.ones(3))


@pytest.mark.parametrize("width", [0.0, 0.5])
def test_soft_functions_return_float64_arrays_of_the_input_shape_for_integer_input(width: float) -> None:
    d = np.array([[0, 1], [2, 3]])
    for out in (soft_distance(d, 3.0, width), soft_inner_distance(d, 1.0, width),
                soft_distance_derivative(d, 3.0, width)):
        assert out.dtype == np.float64
        assert out.shape == d.shape


# --- solver/smoothing.py ----------------------------------------------------------------------------------------


def _one_euro_reference(points: np.ndarray, rate: float, min_cutoff: float, beta: float, d_cutoff: float) -> np.ndarray:
    """The 1 euro filter as Casiez et al. publish it (speed from the previous filtered value, 2D speed norm)."""

    def alpha(cutoff: float) -> float:
        return 1.0 / (1.0 + rate / (2.0 * np.pi * cutoff))

    out = [points[0]]
    speed = np.zeros(2)
    for x in points[1:]:
        speed = speed + alpha(d_cutoff) * ((x - out[-1]) * rate - speed)
        out.append(out[-1] + alpha(min_cutoff + beta * np.linalg.norm(speed)) * (x - out[-1]))
    return np.array(out)


def test_one_euro_filter_matches_the_published_filter_with_a_speed_term() -> None:
    rng = np.random.default_rng(5)
    t = np.arange(60) / 24.0
    points = np.c_[np.cos(3 * t), 0.5 * np.sin(5 * t)] * 2.0 + rng.normal(scale=0.02, size=(60, 2))
    params = dict(rate=24.0, min_cutoff=0.8, beta=0.7, d_cutoff=1.3)
    np.testing.assert_allclose(OneEuroFilter(**params).apply(points), _one_euro_reference(points, **params),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("flt", [ExponentialFilter(2.0), OneEuroFilter(beta=0.5)])
def test_filters_keep_empty_and_single_frame_trajectories(flt: ExponentialFilter | OneEuroFilter) -> None:
    assert flt.apply(np.zeros((0, 2))).shape == (0, 2)
    np.testing.assert_array_equal(flt.apply(np.array([[1.5, -2.0]])), [[1.5, -2.0]])
    out = flt.apply(np.array([[0, 0], [3, 4]]))  # integer input still filters in float64
    assert out.dtype == np.float64 and 0.0 < out[1, 0] < 3.0


def test_exponential_filter_time_constants() -> None:
    points = np.random.default_rng(2).normal(size=(10, 2))
    np.testing.assert_allclose(ExponentialFilter(0.0).apply(points), points, rtol=1e-12, atol=1e-12)  # allowed: none
    assert ExponentialFilter(0.5).alpha == pytest.approx(1.0 - np.exp(-2.0))  # below one frame is allowed too
    with pytest.raises(ValueError):
        ExponentialFilter(-0.1)


def test_one_euro_filter_rejects_a_negative_beta_and_nan() -> None:
    for bad in (-0.1, float("nan")):
        with pytest.raises(ValueError):
            OneEuroFilter(beta=bad)


@pytest.mark.parametrize("bad", [np.zeros(3), np.zeros((4, 3)), np.zeros((2, 2, 2))])
def test_trajectories_of_the_wrong_shape_raise_value_error(bad: np.ndarray) -> None:
    with pytest.raises(ValueError):
        smooth_targets(bad)


def test_smooth_targets_passes_its_parameters_and_defaults_to_one_euro() -> None:
    points = np.random.default_rng(4).normal(size=(12, 2))
    np.testing.assert_allclose(smooth_targets(points, "exponential", time_constant=0.0), points, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(smooth_targets(points), OneEuroFilter().apply(points))


# --- solver/rotations.py ----------------------------------------------------------------------------------------

_AXIS = {"X": 0, "Y": 1, "Z": 2}


def test_rotation_property_names_blenders_channels() -> None:
    assert rotation_property("QUATERNION") == ("rotation_quaternion", 4)
    assert rotation_property("AXIS_ANGLE") == ("rotation_axis_angle", 4)
    for order in EULER_ORDERS:
        assert rotation_property(order) == ("rotation_euler", 3)


def test_axis_angle_matrices_match_rodrigues_for_an_oblique_axis() -> None:
    axis = np.array([0.3, -0.8, 0.5])
    angles = np.array([-2.0, 0.4, 1.3])
    aa = np.c_[angles, np.tile(axis * 2.5, (3, 1))]  # any axis length
    np.testing.assert_allclose(matrices_from_axis_angles(aa), rotation_matrices_about_axis(axis, angles), atol=1e-12)


def test_quaternion_sign_follows_previous_only_when_it_points_away() -> None:
    q = quaternions_about_axis([0, 0, 1], [np.nan, 0.0, 2.0])
    # previous orthogonal to the first finite quaternion, or at an acute angle: no flip.
    for previous in ([0.0, 1.0, 0.0, 0.0], [0.5, 0.0, 0.0, 0.0], [0.1, 0.0, 0.0, -1.0]):
        np.testing.assert_array_equal(quaternions_about_axis([0, 0, 1], [np.nan, 0.0, 2.0], previous=previous), q)
    # previous pointing away from the first finite frame (frame 1; frame 2 alone would agree): the whole result flips.
    flipped = quaternions_about_axis([0, 0, 1], [np.nan, 0.0, 2.0], previous=[-0.1, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(flipped, -q)


def test_axis_angle_flips_only_for_a_previous_axis_pointing_away() -> None:
    base = axis_angles_about_axis([0, 0, 1], [0.5, 0.6])
    for previous in ([0.3, 1.0, 0.0, 0.0], [0.3, 0.0, 0.0, 0.5]):  # orthogonal, or along the axis but short
        np.testing.assert_allclose(axis_angles_about_axis([0, 0, 1], [0.5, 0.6], previous=previous), base)
    away = axis_angles_about_axis([0, 0, 1], [0.5, 0.6], previous=[-0.5, 0.0, 0.0, -2.0])
    np.testing.assert_allclose(away, [[-0.5, 0, 0, -1], [-0.6, 0, 0, -1]])


@pytest.mark.parametrize(("delta", "previous_angle", "expected_shift"),
                         [([2.0, 2.1], 2.0 - 2 * np.pi, -1), ([0.0, 3.0], -2.5, 0), ([0.5, 0.6], 13.0, 2)])
def test_axis_angle_joins_the_previous_angle(delta: list[float], previous_angle: float, expected_shift: int) -> None:
    out = axis_angles_about_axis([0, 0, 1], delta, previous=[previous_angle, 0.0, 0.0, 1.0])
    np.testing.assert_allclose(out[:, 0], np.array(delta) + 2 * np.pi * expected_shift)
    assert abs(out[0, 0] - previous_angle) <= np.pi


@pytest.mark.parametrize("order", EULER_ORDERS)
def test_gimbal_locked_frames_round_trip_and_keep_the_last_angle(order: str) -> None:
    i, j, k = (_AXIS[c] for c in order)
    # The middle angle passes through +pi/2 (locked at frames 0 and 3), the others move.
    middle = np.array([90.0, 84.0, 88.0, 90.0, 93.0, 97.0])
    eulers = np.zeros((6, 3))
    eulers[:, i] = np.radians([10.0, 12.0, 15.0, 17.0, 20.0, 22.0])
    eulers[:, j] = np.radians(middle)
    eulers[:, k] = np.radians([-30.0, -28.0, -25.0, -21.0, -18.0, -15.0])
    m = matrices_from_eulers(eulers, order)
    out = eulers_from_matrices(m, order)
    np.testing.assert_allclose(matrices_from_eulers(out, order), m, atol=1e-9)
    assert out[0, k] == 0.0  # locked first frame, nothing keyed before: the last angle is 0
    assert out[3, k] == pytest.approx(out[2, k], abs=1e-12)  # locked later: the last angle keeps its value
    assert np.all(np.abs(np.diff(out[1:], axis=0)) < 0.5)  # continuous after the first frame


# --- solver/spaces.py -------------------------------------------------------------------------------------------


def _base(frames: int) -> np.ndarray:
    """Base matrices with translation, a rotation off the XZ plane and non-uniform scale."""
    return compose_matrices(np.c_[np.arange(frames), np.ones(frames), -np.arange(frames)],
                            np.c_[0.3 + 0.1 * np.arange(frames), np.full(frames, 0.4), np.full(frames, -0.2)],
                            [[1.5, 0.7, 1.2]], "XYZ")


def test_transform_vectors_applies_the_linear_part_only() -> None:
    m = _base(3)
    v = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5], [2.0, 0.0, 0.0]])
    np.testing.assert_allclose(transform_vectors(m, v), transform_points(m, v) - transform_points(m, np.zeros((3, 3))),
                               atol=1e-12)
    assert np.linalg.norm(transform_vectors(m, v) - transform_points(m, v)) > 1.0  # the translation is left out


def test_compose_matrices_broadcasts_any_single_row() -> None:
    frames = 4
    rows = {"location": np.c_[np.arange(frames), np.zeros(frames), np.zeros(frames)],
            "rotation": np.c_[np.linspace(0, 1, frames), np.zeros(frames), np.zeros(frames)],
            "scale": np.c_[np.linspace(1, 2, frames), np.ones(frames), np.ones(frames)]}
    single = {"location": [[0.0, 0.0, 0.0]], "rotation": [[0.0, 0.0, 0.0]], "scale": [[1.0, 1.0, 1.0]]}
    full = compose_matrices(rows["location"], rows["rotation"], rows["scale"], "XYZ")
    for name in rows:
        args = {**single, name: rows[name]}
        out = compose_matrices(args["location"], args["rotation"], args["scale"], "XYZ")
        assert out.shape == (frames, 4, 4)
        assert len({out[f].tobytes() for f in range(frames)}) == frames  # every frame its own row
    assert full.shape == (frames, 4, 4)


def test_from_shoulder_2d_puts_points_at_the_given_depth_with_an_explicit_local_normal() -> None:
    m = _base(3)
    a = np.array([0.2, 0.35, 0.9])  # a local normal off the bone's +Y axis and off m's own L^T n
    a_unit = a / np.linalg.norm(a)
    x, y = shoulder_local_basis(a)
    assert abs(x @ a_unit) < 1e-12 and abs(np.linalg.norm(x) - 1.0) < 1e-12 and x[1] > 0.0
    p2 = np.array([[1.0, 0.5], [-0.3, 2.0], [0.7, -1.1]])
    for depth in (0.25, np.array([0.0, -0.4, 1.3])):
        got = from_shoulder_2d(p2, m, [0.0, -1.0, 0.0], local_normal=a, depth=depth)
        local = p2[:, :1] * x + p2[:, 1:] * y + np.reshape(depth, (-1, 1)) * a_unit
        np.testing.assert_allclose(got, transform_points(m, local), atol=1e-12)
        np.testing.assert_allclose(to_shoulder_2d(got, m, [0.0, -1.0, 0.0], local_normal=a), p2, atol=1e-12)


def test_shoulder_frame_projects_an_off_plane_bone_onto_the_plane() -> None:
    m = _base(2)
    n = np.array([0.0, -1.0, 0.0])
    origin, x, y = shoulder_frame(m, n)
    np.testing.assert_allclose(origin, m[:, :3, 3])
    np.testing.assert_allclose(x @ n, 0.0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(x, axis=1), 1.0)
    assert np.all(np.sum(x * m[:, :3, 1], axis=1) > 0.0)  # along the bone, not against it
    np.testing.assert_allclose(y, np.cross(n, x), atol=1e-12)


# --- solver/_scalar.py (the single-frame path) ------------------------------------------------------------------


@pytest.mark.parametrize("width", [2 * np.pi, 7.0])
@pytest.mark.parametrize("lo", [-4.0, -1.0, 0.5])
def test_a_shoulder_range_of_a_full_turn_limits_nothing_on_either_path(width: float, lo: float) -> None:
    free = solve_two_bone(np.array([[0.9 * np.cos(t), 0.9 * np.sin(t)] for t in np.linspace(-3.0, 3.0, 7)]),
                          1.0, 0.8, bend=-1)
    limits = JointLimits(shoulder=(lo, lo + width))
    for f, target in enumerate(free.end):
        for got in (solve_two_bone(target, 1.0, 0.8, bend=-1, limits=limits),
                    solve_two_bone(target[None], 1.0, 0.8, bend=-1, limits=limits)):
            shoulder = float(np.ravel(got.shoulder_angle)[0])
            assert lo <= shoulder <= lo + width  # expressed inside the range
            assert abs(np.remainder(shoulder - free.shoulder_angle[f] + np.pi, 2 * np.pi) - np.pi) < 1e-9
            assert int(np.ravel(got.flags)[0]) & IKFlag.LIMITED_SHOULDER == 0
            np.testing.assert_allclose(np.reshape(got.end, 2), target, atol=1e-9)


_FIELDS = ("shoulder_angle", "elbow_angle", "end", "error", "root_offset", "stretch", "flags", "bend")


@pytest.mark.parametrize("strategy", ["accept", "move_root", "stretch"])
@pytest.mark.parametrize(
    "limits",
    [JointLimits(shoulder=(-0.4, 0.9)), JointLimits(elbow=(0.3, 1.2)), JointLimits(elbow=(-1.0, -0.2)),
     JointLimits(shoulder=(2.5, 3.6), elbow=(-0.5, 0.5))],
    ids=["shoulder", "elbow", "elbow-negative", "both"],
)
def test_single_frame_path_agrees_with_one_limit_at_a_time(limits: JointLimits, strategy: str) -> None:
    # The property test always limits both joints; one joint alone takes other branches of the single path.
    angles = np.linspace(-3.0, 3.0, 9)
    for bend in (1, -1):
        for reach in (0.35, 1.2, 1.9):
            for t in angles:
                target = np.array([reach * np.cos(t), reach * np.sin(t)])
                opts = dict(bend=bend, limits=limits, strategy=strategy, max_root_offset=0.3, stretch_range=(0.8, 1.3))
                single = solve_two_bone(target, 1.0, 0.8, **opts)
                batch = solve_two_bone(target[None], 1.0, 0.8, **opts)
                for name in _FIELDS:
                    np.testing.assert_allclose(np.asarray(getattr(single, name), dtype=float),
                                               np.asarray(getattr(batch, name), dtype=float)[0], atol=1e-9,
                                               err_msg=f"{name} at {target}, bend {bend}")


# --- solver/two_bone.py -----------------------------------------------------------------------------------------


def test_per_frame_bends_of_both_signs_are_accepted_and_used() -> None:
    targets = np.array([[1.2, 0.3], [1.2, 0.3], [0.9, -0.4]])
    bends = np.array([1, -1, -1])
    got = solve_two_bone(targets, 1.0, 0.8, bend=bends)
    for f in range(3):
        one = solve_two_bone(targets[f:f + 1], 1.0, 0.8, bend=int(bends[f]))
        np.testing.assert_allclose(got.elbow_angle[f], one.elbow_angle[0], atol=1e-12)
    assert np.sign(got.elbow_angle).tolist() == [1.0, -1.0, -1.0]
    with pytest.raises(ValueError):
        solve_two_bone(targets, 1.0, 0.8, bend=np.array([1, 0, -1]))


@pytest.mark.parametrize("scale", [1e-200, 1e-3, 1.0, 1e200])
def test_single_frame_path_reports_the_targets_like_the_batch_path(scale: float) -> None:
    # The property test compares the solved fields, not the targets echoed back; extreme scales take the
    # overflow-safe distance branch.
    for target in (np.array([0.6, -0.8]) * scale, np.array([-3.0, 4.0]) * scale):
        single = solve_two_bone(target, 1.0, 0.8, softness=0.05)
        batch = solve_two_bone(target[None], 1.0, 0.8, softness=0.05)
        for name in ("target", "input_target", "solved_target", "distance"):
            np.testing.assert_allclose(np.reshape(getattr(single, name), -1), np.reshape(getattr(batch, name)[0], -1),
                                       rtol=1e-12, atol=0.0, err_msg=name)
        assert single.sensitivity_params == batch.sensitivity_params
