"""IK/FK (issue 14): an animated IK influence blends the bake over the bones' own FK keys, stretch to reach
scales the chain so the tip gets to a target beyond full reach, and snapping the target to the FK pose makes
turning IK on invisible. Truth is Blender's playback (``frame_set`` and the evaluated pose): the FK pose and
the influence are read by playing the scene before the bake, the IK pose from a twin rig baked at influence 1.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import promises
import pytest
import rigs
from mathutils import Quaternion, Vector

FRAMES = list(range(1, 31))


def key_fk(rig: rigs.ArmRig, frames: list[int], upper: list[float], lower: list[float]) -> None:
    """Key in-plane FK rotations (radians about the plane normal) in each bone's own rotation mode, with
    Blender's default (Bezier) interpolation, as an animator would."""
    arm = rig.armature
    for f, angles in zip(frames, zip(upper, lower, strict=True), strict=True):
        for name, angle in zip((rig.upper, rig.lower), angles, strict=True):
            pb = arm.pose.bones[name]
            axis = np.array(arm.data.bones[name].matrix_local)[:3, :3].T @ rig.normal
            q = Quaternion(Vector(axis), angle)
            prop, _size = rigs.rotation_prop(pb.rotation_mode)
            if pb.rotation_mode == "QUATERNION":
                pb.rotation_quaternion = q
            elif pb.rotation_mode == "AXIS_ANGLE":
                # One axis, a signed angle (to_axis_angle would flip the axis with the angle's sign, and keys
                # interpolating through a zero axis leave the plane).
                pb.rotation_axis_angle = (angle, *(axis / np.linalg.norm(axis)))
            else:
                pb.rotation_euler = q.to_euler(pb.rotation_mode, pb.rotation_euler)
            pb.keyframe_insert(prop, frame=f)


def key_influence(chain: bpy.types.PropertyGroup, armature: bpy.types.Object, values: dict[int, float]) -> None:
    for f, w in values.items():
        chain.ik_influence = w
        armature.keyframe_insert(chain.path_from_id("ik_influence"), frame=f)


def wrap(x: np.ndarray) -> np.ndarray:
    return (x + np.pi) % (2 * np.pi) - np.pi


def keyed_errors(rig: rigs.ArmRig) -> np.ndarray:
    """The error curve's values per frame (what the Graph Editor shows). The property itself playing back, on
    an action keyed before the bake as here, is held by test_error_property_playback.py."""
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, "soft_ik_error"))
    assert fc is not None
    return np.array([fc.evaluate(f) for f in FRAMES])


def played(rig: rigs.ArmRig, frames: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(N, 2) shoulder turn and elbow angle, and (N, 3) world tip, as Blender plays them."""
    j = promises.joints(rig, frames)
    world = promises.armature_worlds(rig, frames)
    ev_tip = []
    for f in frames:
        bpy.context.scene.frame_set(f)
        ev_tip.append(np.array(rig.armature.pose.bones[rig.lower].tail))
    return np.stack([j.shoulder_delta, j.elbow], axis=1), promises.to_world(world, np.array(ev_tip))


def posed_angles(rig: rigs.ArmRig, frame: int, how: str) -> np.ndarray:
    """(shoulder, elbow) angles Blender shows at ``frame`` once Solve ran (``how`` "solve") or with the Live
    Preview on ("live_preview"), measured in the chain's plane from the evaluated pose (the preview is switched
    off again)."""
    scene = bpy.context.scene
    scene.frame_set(frame)
    if how == "solve":
        rigs.enter_pose_mode(rig)
        assert bpy.ops.pose.soft_ik_solve() == {"FINISHED"}
        bpy.context.view_layer.update()
    else:
        rig.armature.soft_ik_2d.live_preview = True
        scene.frame_set(frame)
        bpy.context.view_layer.update()
    try:
        pb = rig.armature.pose.bones
        head, elbow, tail = (np.array(pb[rig.upper].head), np.array(pb[rig.lower].head), np.array(pb[rig.lower].tail))
        bones = rig.armature.data.bones
        rest = np.array(pb[rig.parent].matrix) @ np.linalg.inv(np.array(bones[rig.parent].matrix_local)) @ np.array(
            bones[rig.upper].matrix_local)
        shoulder = promises.signed_angle(rest[:3, 1], np.array(pb[rig.upper].matrix)[:3, 1], rig.normal)[0]
        bend = promises.signed_angle(elbow - head, tail - elbow, rig.normal)[0]
        return np.array([shoulder, bend])
    finally:
        rig.armature.soft_ik_2d.live_preview = False


def align_rolls(rig: rigs.ArmRig) -> None:
    """Roll the chain bones so the plane normal is their local Z: Euler keys about it then interpolate in the
    plane (about an oblique axis the three angles do not, and the arm leaves the plane between keys)."""
    rigs.enter_pose_mode(rig)
    bpy.ops.object.mode_set(mode="EDIT")
    for name in (rig.upper, rig.lower):
        rig.armature.data.edit_bones[name].align_roll(Vector(rig.normal))
    bpy.ops.object.mode_set(mode="OBJECT")


def arm_pair(modes: tuple[str, str]) -> tuple[rigs.ArmRig, rigs.ArmRig, bpy.types.Object]:
    """Two identical arms in one place (one blends, the twin shows the pure IK) and a target circling them."""
    rig = rigs.build_arm("Rig", modes=modes, rest_bend_deg=15.0)
    twin = rigs.build_arm("Twin", modes=modes, rest_bend_deg=15.0)
    for r in (rig, twin):
        align_rolls(r)
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.2 + 0.3 * math.sin(f / 5), lambda f: 0.3 + 0.12 * f)
    return rig, twin, target


@pytest.mark.parametrize("modes", [("QUATERNION", "XYZ"), ("AXIS_ANGLE", "ZXY"), ("YZX", "QUATERNION")])
def test_animated_influence_plays_the_blend_of_fk_keys_and_ik(empty_file: bpy.types.Scene,
                                                             modes: tuple[str, str]) -> None:
    rig, twin, target = arm_pair(modes)
    # FK: the arm swings down and up again (Bezier keys), more than a quarter turn from where IK puts it.
    key_fk(rig, [1, 12, 30], [0.2, -1.4, 0.6], [0.1, 1.2, 0.4])
    fk, _ = played(rig, FRAMES)
    chain = rigs.add_chain(rig, target)
    key_influence(chain, rig.armature, {1: 0.0, 15: 1.0, 30: 0.0})
    weights = []
    for f in FRAMES:
        bpy.context.scene.frame_set(f)
        weights.append(chain.ik_influence)
    w = np.array(weights)
    assert w[0] == 0.0 and w[14] == 1.0 and w[-1] == 0.0 and 0.1 < w[5] < 0.9
    rigs.add_chain(twin, target)
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    assert rigs.bake(twin, 1, 30) == {"FINISHED"}
    ik, _ = played(twin, FRAMES)
    got, tip = played(rig, FRAMES)
    # Each joint turns from its FK angle toward its IK angle by the influence, on the short path.
    want = fk + w[:, None] * wrap(ik - fk)
    bad = np.abs(wrap(got - want)).max(axis=1)
    assert bad.max() < 2e-4, (np.flatnonzero(bad > 2e-4), bad.max(), wrap(ik - fk)[bad > 2e-4], w[bad > 2e-4])
    # Influence 0: the FK keys as they played before the bake; 1: the IK pose.
    assert np.abs(wrap(got[[0, -1]] - fk[[0, -1]])).max() < 1e-5
    assert np.abs(wrap(got[14] - ik[14])).max() < 1e-5
    # The error curve is the blended pose's real error, measured by playback.
    errors = keyed_errors(rig)
    miss = np.linalg.norm(tip - rigs.evaluate(rig, target, FRAMES).target_world, axis=1)
    np.testing.assert_allclose(errors, miss, atol=1e-5)
    assert miss[0] > 0.05 and miss[14] < 1e-4  # FK misses the target, IK reaches it


def test_influence_one_everywhere_is_the_plain_bake(empty_file: bpy.types.Scene) -> None:
    rig, twin, target = arm_pair(("QUATERNION", "QUATERNION"))
    key_fk(rig, [1, 30], [0.2, 0.6], [0.1, 0.4])
    rigs.add_chain(rig, target)
    rigs.add_chain(twin, target)
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    assert rigs.bake(twin, 1, 30) == {"FINISHED"}
    got, _ = played(rig, FRAMES)
    ik, _ = played(twin, FRAMES)
    assert np.abs(wrap(got - ik)).max() < 1e-6


@pytest.mark.parametrize("how", ["solve", "live_preview"])
def test_solve_and_live_preview_honour_the_influence(empty_file: bpy.types.Scene, how: str) -> None:
    rig, twin, target = arm_pair(("QUATERNION", "XYZ"))
    key_fk(rig, [1, 30], [0.2, -0.9], [0.1, 0.9])
    chain = rigs.add_chain(rig, target)
    rigs.add_chain(twin, target)
    assert rigs.bake(twin, 1, 30) == {"FINISHED"}
    frame = 10
    fk, _ = played(rig, [frame])
    ik, _ = played(twin, [frame])
    chain.ik_influence = 0.35
    want = fk[0] + 0.35 * wrap(ik[0] - fk[0])
    assert np.abs(wrap(posed_angles(rig, frame, how) - want)).max() < 2e-4


def stretch_rig(**chain_props: object) -> tuple[rigs.ArmRig, bpy.types.PropertyGroup, bpy.types.Object,
                                                np.ndarray]:
    rig = rigs.build_arm(rest_bend_deg=20.0)
    rigs.place_armature(rig, scale=(1.3, 1.3, 1.3))
    # Distances from 0.9 to 1.6 of the chain's length, circling.
    radius = np.linspace(0.9, 1.6, len(FRAMES)) * rig.length
    target = rigs.circle_target(rig, FRAMES, lambda f: float(radius[f - 1]), lambda f: 0.2 + 0.05 * f)
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.05
    chain.stretch_to_reach, chain.max_stretch = True, 1.25
    for key, value in chain_props.items():
        setattr(chain, key, value)
    return rig, chain, target, radius / rig.length


def test_stretch_to_reach_plays_the_tip_on_targets_within_max_stretch(empty_file: bpy.types.Scene) -> None:
    rig, _chain, target, ratio = stretch_rig()
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    ev = rigs.evaluate(rig, target, FRAMES)
    miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
    scales = []
    flags = []
    for f in FRAMES:
        bpy.context.scene.frame_set(f)
        scales.append(np.array(rig.armature.pose.bones[rig.upper].scale))
        flags.append(rig.armature.pose.bones[rig.lower]["soft_ik_flags"])
    scale = np.array(scales)
    # Within reach of the stretched chain (the soft band at the stretched length aside): on the target.
    within = ratio <= 1.25 * 0.95 - 0.05
    assert within.sum() >= 8
    assert miss[within].max() < 1e-5 * rig.length
    # Beyond it: never more than max_stretch, short of the target but close to the full stretched reach.
    assert scale.max() <= 1.25 + 1e-6
    far = ratio > 1.4
    assert far.any() and (miss[far] > 0.01).all()
    reach = np.linalg.norm(ev.tip - ev.shoulder, axis=1)[far] / rig.length
    assert (reach < 1.25).all() and (reach > 1.2).all()
    np.testing.assert_allclose(scale[:, 0], scale[:, 1])  # uniform without Preserve Volume
    # Flags say when stretching acted; the error curve says how far the target still is.
    stretched = (np.array(flags) & 256) != 0
    assert stretched[far].all() and not stretched[ratio < 0.9].any()
    np.testing.assert_allclose(keyed_errors(rig), miss, atol=1e-5)


def test_preserve_volume_thins_both_bones_without_shear(empty_file: bpy.types.Scene) -> None:
    rig, chain, target, ratio = stretch_rig()
    chain.preserve_volume = True
    # Full inheritance would shear the lower bone: refused, by name, nothing written.
    rigs.enter_pose_mode(rig)
    with pytest.raises(RuntimeError, match="Inherit Scale to Aligned"):
        bpy.ops.pose.soft_ik_bake(frame_start=1, frame_end=30)
    assert rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "scale"), 0) is None
    bpy.ops.object.mode_set(mode="OBJECT")
    rig.armature.data.bones[rig.lower].inherit_scale = "ALIGNED"
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    ev = rigs.evaluate(rig, target, FRAMES)
    miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
    within = ratio <= 1.25 * 0.95 - 0.05
    assert miss[within].max() < 1e-5 * rig.length
    for f in (FRAMES[-1], FRAMES[len(FRAMES) // 2]):
        bpy.context.scene.frame_set(f)
        for name in (rig.upper, rig.lower):
            m = np.array(rig.armature.pose.bones[name].matrix)[:3, :3]
            lengths = np.linalg.norm(m, axis=0)
            k = lengths[1]
            assert k > 1.05
            np.testing.assert_allclose(lengths[[0, 2]], 1 / math.sqrt(k), rtol=1e-5)
            gram = m.T @ m
            assert np.abs(gram - np.diag(np.diag(gram))).max() < 1e-5  # no shear


def test_influence_zero_plays_fk_keys_that_leave_the_plane_as_they_were(empty_file: bpy.types.Scene) -> None:
    # Euler keys about an oblique axis (the bones' rolls are not aligned with the plane): between keys the arm
    # leaves the plane. Influence 0 must keep that pose exactly, not its in-plane shadow.
    rig = rigs.build_arm("Rig", modes=("XYZ", "ZXY"), rest_bend_deg=15.0)
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.2, lambda f: 0.3 + 0.12 * f)
    key_fk(rig, [1, 12, 30], [0.2, -1.4, 0.6], [0.1, 1.2, 0.4])
    before = rigs.evaluate(rig, target, FRAMES)
    off_plane = np.abs((before.tip - before.shoulder) @ rig.normal)
    assert off_plane.max() > 1e-3
    chain = rigs.add_chain(rig, target)
    key_influence(chain, rig.armature, {1: 0.0, 20: 0.0, 30: 0.6})
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    after = rigs.evaluate(rig, target, FRAMES)
    np.testing.assert_allclose(after.tip[:20], before.tip[:20], atol=1e-6)
    miss = np.linalg.norm(after.tip_world - after.target_world, axis=1)
    np.testing.assert_allclose(keyed_errors(rig), miss, atol=1e-5)


@pytest.mark.parametrize("space", ["WORLD", "CHARACTER"])
def test_snap_then_bake_ik_changes_nothing_visible(empty_file: bpy.types.Scene, space: str) -> None:
    rig = rigs.build_arm("Rig", modes=("QUATERNION", "XYZ"), rest_bend_deg=15.0)
    align_rolls(rig)
    rigs.animate_parent(rig, FRAMES, lambda f: 0.02 * f, lambda f: (0.01 * f, 0.0))
    # Nearly straight on some frames (inside the soft band: the target must go beyond the tip), bent on others.
    key_fk(rig, [1, 12, 30], [0.2, -1.0, 0.6], [0.03, 1.1, 0.3])
    before = rigs.evaluate(rig, rigs.new_empty("Probe"), FRAMES)
    fk_joints = promises.joints(rig, FRAMES)
    parent = None if space == "WORLD" else rig.armature
    target, pole = rigs.new_empty("Target", parent), rigs.new_empty("Pole", parent)
    chain = rigs.add_chain(rig, target, target_space=space)
    chain.pole, chain.softness = pole, 0.1
    rigs.enter_pose_mode(rig)
    assert bpy.ops.pose.soft_ik_snap_target(use_frame_range=True, frame_start=1, frame_end=30) == {"FINISHED"}
    assert rigs.fcurve(target, "location", 0) is not None and rigs.fcurve(pole, "location", 0) is not None
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    after = rigs.evaluate(rig, target, FRAMES)
    joints = promises.joints(rig, FRAMES)
    np.testing.assert_allclose(after.tip_world, before.tip_world, atol=1e-5 * rig.length)
    assert np.abs(wrap(joints.shoulder_delta - fk_joints.shoulder_delta)).max() < 1e-5
    assert np.abs(wrap(joints.elbow - fk_joints.elbow)).max() < 1e-5
    # In the soft band the target sits beyond the FK tip, which soft IK pulls back onto it.
    d_tip = np.linalg.norm(before.tip - before.shoulder, axis=1)
    d_target = np.linalg.norm(after.target_arm - after.shoulder, axis=1)
    band = d_tip > 0.95 * rig.length
    assert band.any() and (d_target[band] > d_tip[band] + 1e-4).all()


def test_snap_one_frame_keys_it_and_solve_keeps_the_pose(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm("Rig", modes=("QUATERNION", "QUATERNION"), rest_bend_deg=15.0)
    key_fk(rig, [1, 30], [0.2, -0.8], [0.2, 0.9])
    target = rigs.new_empty("Target")
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0
    scene = bpy.context.scene
    scene.frame_set(10)
    fk = promises.joints(rig, [10])
    rigs.enter_pose_mode(rig)
    assert bpy.ops.pose.soft_ik_snap_target(insert_keys=True) == {"FINISHED"}
    fc = rigs.fcurve(target, "location", 0)
    assert fc is not None and [k.co[0] for k in fc.keyframe_points] == [10.0]
    assert bpy.ops.pose.soft_ik_solve() == {"FINISHED"}
    bpy.context.view_layer.update()
    pb = rig.armature.pose.bones
    head, elbow, tail = (np.array(pb[rig.upper].head), np.array(pb[rig.lower].head), np.array(pb[rig.lower].tail))
    bend = promises.signed_angle(elbow - head, tail - elbow, rig.normal)[0]
    assert abs(wrap(bend - fk.elbow[0])) < 1e-5
    np.testing.assert_allclose(np.array(target.matrix_world.translation),
                               (np.array(rig.armature.matrix_world) @ np.append(tail, 1.0))[:3], atol=1e-5)


@pytest.mark.parametrize("volume", [False, True])
@pytest.mark.parametrize("how", ["solve", "live_preview"])
def test_solve_and_live_preview_stretch_to_reach(empty_file: bpy.types.Scene, how: str, volume: bool) -> None:
    rig, _chain, target, ratio = stretch_rig(preserve_volume=volume)
    rig.armature.data.bones[rig.lower].inherit_scale = "ALIGNED"
    frame = int(np.argmin(np.abs(ratio - 1.1))) + 1  # a target 1.1 chain lengths away: reached stretched
    scene = bpy.context.scene
    scene.frame_set(frame)
    rigs.enter_pose_mode(rig)
    try:
        if how == "solve":
            assert bpy.ops.pose.soft_ik_solve() == {"FINISHED"}
        else:
            rig.armature.soft_ik_2d.live_preview = True
            scene.frame_set(frame)
        bpy.context.view_layer.update()
        pb = rig.armature.pose.bones
        tip = (np.array(rig.armature.matrix_world) @ np.append(np.array(pb[rig.lower].tail), 1.0))[:3]
        assert np.linalg.norm(tip - np.array(target.matrix_world.translation)) < 1e-5 * rig.length
        k = pb[rig.upper].scale[1]
        assert 1.05 < k <= 1.25
        assert pb[rig.upper].scale[0] == pytest.approx(1 / math.sqrt(k) if volume else k, rel=1e-6)
        assert int(pb[rig.lower]["soft_ik_flags"]) & 256
    finally:
        rig.armature.soft_ik_2d.live_preview = False


def test_snap_without_a_pole_takes_the_fk_bend_side(empty_file: bpy.types.Scene) -> None:
    # The rest pose bends one way (Bend +1 from it), FK bends the other way all along: IK would flip the elbow.
    rig = rigs.build_arm("Rig", modes=("QUATERNION", "QUATERNION"), rest_bend_deg=15.0)
    rigs.place_armature(rig, scale=(-1.2, 1.2, 1.2))  # mirrored: the side is the armature's, not the world's
    key_fk(rig, [1, 30], [0.2, -0.6], [-0.6, -1.2])
    before = rigs.evaluate(rig, rigs.new_empty("Probe"), FRAMES)
    target = rigs.new_empty("Target")
    chain = rigs.add_chain(rig, target)
    chain.softness, chain.bend = 0.0, 1
    rigs.enter_pose_mode(rig)
    assert bpy.ops.pose.soft_ik_snap_target(use_frame_range=True, frame_start=1, frame_end=30) == {"FINISHED"}
    assert chain.bend == -1
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    after = rigs.evaluate(rig, target, FRAMES)
    np.testing.assert_allclose(after.elbow, before.elbow, atol=1e-5 * rig.length)
    np.testing.assert_allclose(after.tip_world, before.tip_world, atol=1e-5 * rig.length)
