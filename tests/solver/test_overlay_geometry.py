"""Overlay geometry of a chain, checked in world space for rigs that are moved, rotated and scaled.

The truth: a shoulder-space point (x, y) of a rig whose plane-to-world map is ``T @ R @ S`` lies at
``T + R @ (S @ (x, y, 0))``, built here independently from rotation angles; radii are measured back in
world space (uniform scale) or by undoing the map by hand (non-uniform scale).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver.overlay_geometry import (
    JITTER_FRACTION,
    SENSITIVE_DEGREES,
    ChainOverlayInput,
    annulus_triangles_2d,
    build_overlay,
    world_to_plane,
)


def rotation(axis: str, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], dtype=float)
    if axis == "y":
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]], dtype=float)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=float)


def plane_map(scale: tuple[float, float, float], origin: tuple[float, float, float]) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = rotation("z", 0.7) @ rotation("x", -0.4) @ rotation("y", 1.1) @ np.diag(scale)
    m[:3, 3] = origin
    return m


ORIGIN = (1.5, -2.0, 0.75)
A, B = 1.2, 0.8


def make_input(w: np.ndarray, **kw: object) -> ChainOverlayInput:
    def at(x: float, y: float, z: float = 0.0) -> np.ndarray:
        return w[:3, :3] @ np.array([x, y, z]) + w[:3, 3]

    args: dict[str, object] = dict(
        plane_to_world=w, lengths=(A, B), softness=0.1, inner_softness=0.05,
        target_world=at(2.6, 0.4), solved_target_world=at(1.9, 0.3), tip_world=at(1.88, 0.29),
        bend=1, limited_joints=(), elbow_world=at(0.9, -0.7),
    )
    args.update(kw)
    return ChainOverlayInput(**args)  # type: ignore[arg-type]


def radii(w: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Distances from the shoulder in world units (valid for a uniform scale)."""
    return np.linalg.norm(points - w[:3, 3], axis=1)


def normal_offsets(w: np.ndarray, points: np.ndarray) -> np.ndarray:
    n = np.cross(w[:3, 0], w[:3, 1])
    n /= np.linalg.norm(n)
    return (points - w[:3, 3]) @ n


@pytest.mark.parametrize("scale", [1.0, 2.5, 0.3])
def test_rings_have_world_radii_of_the_scaled_chain_and_lie_in_the_plane(scale: float) -> None:
    w = plane_map((scale, scale, scale), ORIGIN)
    ov = build_overlay(make_input(w))
    np.testing.assert_allclose(radii(w, ov.outer_ring), (A + B) * scale, rtol=1e-12)
    np.testing.assert_allclose(radii(w, ov.inner_ring), abs(A - B) * scale, rtol=1e-12)
    for element in (ov.outer_ring, ov.inner_ring, ov.reach_band, ov.soft_band):
        np.testing.assert_allclose(normal_offsets(w, element), 0.0, atol=1e-12)
    # The ring closes: its segments chain end to start and the last one returns to the first point.
    np.testing.assert_allclose(ov.outer_ring[1::2][:-1], ov.outer_ring[2::2])
    np.testing.assert_allclose(ov.outer_ring[-1], ov.outer_ring[0], atol=1e-12)


def test_soft_bands_span_the_softened_distances() -> None:
    scale = 2.0
    w = plane_map((scale, scale, scale), ORIGIN)
    total = A + B
    ov = build_overlay(make_input(w, softness=0.1, inner_softness=0.05))
    r = radii(w, ov.soft_band) / scale
    np.testing.assert_allclose([r.min(), r.max()], [total - 0.1 * total, total], rtol=1e-12)
    r_in = radii(w, ov.inner_soft_band) / scale
    np.testing.assert_allclose([r_in.min(), r_in.max()], [A - B, A - B + 0.05 * total], rtol=1e-12)
    r_reach = radii(w, ov.reach_band) / scale
    np.testing.assert_allclose([r_reach.min(), r_reach.max()], [A - B, total], rtol=1e-12)


def test_zero_softness_draws_no_band() -> None:
    ov = build_overlay(make_input(np.eye(4), softness=0.0, inner_softness=0.0))
    assert ov.soft_band.shape == (0, 3)
    assert ov.inner_soft_band.shape == (0, 3)


def test_non_uniform_scale_maps_rings_to_the_ellipse_of_the_rig() -> None:
    w = plane_map((2.0, 0.5, 1.0), ORIGIN)
    ov = build_overlay(make_input(w))
    # Undo the map by hand: translation, then the rotation (orthonormal), then the diagonal scale.
    rot = rotation("z", 0.7) @ rotation("x", -0.4) @ rotation("y", 1.1)
    local = (ov.outer_ring - np.array(ORIGIN)) @ rot / np.array([2.0, 0.5, 1.0])
    np.testing.assert_allclose(np.hypot(local[:, 0], local[:, 1]), A + B, rtol=1e-12)
    np.testing.assert_allclose(local[:, 2], 0.0, atol=1e-12)
    # And the module's own inverse agrees.
    np.testing.assert_allclose(world_to_plane(w, ov.outer_ring), local, atol=1e-12)


def test_target_markers_and_error_segment_sit_on_the_given_world_points() -> None:
    w = plane_map((1.7, 1.7, 1.7), ORIGIN)
    data = make_input(w)
    ov = build_overlay(data)
    # The cross is two segments whose midpoints are the raw target; the diamond's corners average to the
    # solved target.
    np.testing.assert_allclose(ov.target_marker.reshape(2, 2, 3).mean(axis=1), [data.target_world] * 2,
                               atol=1e-12)
    np.testing.assert_allclose(ov.solved_marker.reshape(-1, 2, 3)[:, 0].mean(axis=0), data.solved_target_world,
                               atol=1e-12)
    np.testing.assert_allclose(ov.error_segment, [data.tip_world, data.target_world])
    # Marker size follows the chain length and the rig's scale.
    half_diagonal = np.linalg.norm(ov.target_marker[1] - ov.target_marker[0]) / 2
    assert half_diagonal == pytest.approx(0.04 * (A + B) * 1.7)


def test_marker_around_an_off_plane_target_stays_parallel_to_the_plane() -> None:
    w = plane_map((1.0, 1.0, 1.0), ORIGIN)
    off = w[:3, :3] @ np.array([1.0, 0.5, 0.3]) + w[:3, 3]
    ov = build_overlay(make_input(w, target_world=off))
    np.testing.assert_allclose(normal_offsets(w, ov.target_marker), 0.3, atol=1e-12)


@pytest.mark.parametrize("bend", [1, -1])
def test_bend_arrow_points_to_the_elbow_side(bend: int) -> None:
    w = plane_map((1.3, 1.3, 1.3), ORIGIN)
    data = make_input(w, bend=bend)
    ov = build_overlay(data)
    start, end = ov.bend_arrow[0], ov.bend_arrow[1]
    n = np.cross(w[:3, 0], w[:3, 1])
    u = np.asarray(data.solved_target_world) - w[:3, 3]
    # bend=+1: elbow (and the arrow) clockwise of shoulder->target about n, i.e. (u x arrow) . n < 0.
    assert np.sign(np.dot(np.cross(u, end - start), n)) == -bend
    # The arrow starts halfway to the solved target.
    np.testing.assert_allclose(start, (w[:3, 3] + np.asarray(data.solved_target_world)) / 2, atol=1e-12)


def test_mirrored_rig_keeps_the_arrow_on_the_rigs_own_elbow_side() -> None:
    # A negative scale mirrors the plane: the arrow, built in shoulder space, mirrors with it.
    w = plane_map((-1.0, 1.0, 1.0), ORIGIN)
    data = make_input(w, bend=1)
    ov = build_overlay(data)
    local = world_to_plane(w, ov.bend_arrow[:2])
    u2 = world_to_plane(w, data.solved_target_world)[0, :2]
    d = local[1, :2] - local[0, :2]
    assert u2[0] * d[1] - u2[1] * d[0] < 0.0


def test_limit_marks_appear_only_for_the_joint_whose_limit_acts() -> None:
    w = plane_map((1.0, 1.0, 1.0), ORIGIN)
    data = make_input(w)
    assert build_overlay(data).limit_marks.shape == (0, 3)
    shoulder = build_overlay(make_input(w, limited_joints=("shoulder",))).limit_marks
    np.testing.assert_allclose(shoulder.reshape(2, 2, 3).mean(axis=1), [w[:3, 3]] * 2, atol=1e-12)
    elbow = build_overlay(make_input(w, limited_joints=("elbow",))).limit_marks
    np.testing.assert_allclose(elbow.reshape(2, 2, 3).mean(axis=1), [data.elbow_world] * 2, atol=1e-12)
    both = build_overlay(make_input(w, limited_joints=("shoulder", "elbow"))).limit_marks
    assert both.shape == (8, 3)


def test_sensitivity_figure_is_degrees_per_jitter_of_the_world_chain_length() -> None:
    scale = 2.0
    w = plane_map((scale, scale, scale), ORIGIN)
    sens = 3.0  # rad per world unit
    ov = build_overlay(make_input(w, sensitivity=sens))
    expected = math.degrees(sens * JITTER_FRACTION * (A + B) * scale)
    assert ov.sensitivity_degrees == pytest.approx(expected)
    assert ov.sensitive == (expected >= SENSITIVE_DEGREES)
    calm = build_overlay(make_input(w, sensitivity=0.5))
    loud = build_overlay(make_input(w, sensitivity=50.0))
    assert not calm.sensitive and loud.sensitive


def test_move_root_and_stretch_move_and_scale_the_rings() -> None:
    w = plane_map((1.0, 1.0, 1.0), ORIGIN)
    ov = build_overlay(make_input(w, center_2d=(0.2, -0.1), stretch=1.1))
    center = w[:3, :3] @ np.array([0.2, -0.1, 0.0]) + w[:3, 3]
    np.testing.assert_allclose(np.linalg.norm(ov.outer_ring - center, axis=1), (A + B) * 1.1, rtol=1e-12)


def test_annulus_triangles_cover_its_area() -> None:
    tris = annulus_triangles_2d(1.0, 2.0, segments=512).reshape(-1, 3, 2)
    e1, e2 = tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]
    area = 0.5 * np.abs(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]).sum()
    assert area == pytest.approx(math.pi * (4.0 - 1.0), rel=1e-4)
    assert annulus_triangles_2d(1.0, 1.0).shape == (0, 2)
