"""Fix Target Space with rotation: a target turning well past 180 degrees (quaternion, axis-angle, Euler),
re-parented to a moving, rotated, mirrored armature, keeps continuous keys (no quaternion sign flip, no
axis-angle wrap or axis flip, no Euler 360 degree jump: Blender would interpolate each as a turn the long way
round between keys) and moves in the world exactly as before on every frame (``matrix_world`` after
``frame_set``). An unanimated target keeps its place.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Quaternion, Vector

FRAMES = list(range(1, 41))


def moving_rig() -> rigs.ArmRig:
    rig = rigs.build_arm()
    rigs.animate_parent(rig, FRAMES, lambda f: 0.5 * math.sin(f / 6.0), lambda f: (0.02 * f, 0.01 * f))
    rigs.place_armature(rig, scale=(-1.2, 1.2, 1.2), keyed_shift=lambda f: (0.04 * f, 0.0, 0.01 * f),
                        frames=FRAMES)
    obj = rig.armature
    for f in FRAMES:  # the armature turns too, so the target's local rotation is not its world one
        obj.rotation_euler = (0.4 + 0.02 * f, -0.3, 0.9 - 0.03 * f)
        obj.keyframe_insert("rotation_euler", frame=f)
    return rig


def turning_target(rig: rigs.ArmRig, mode: str) -> bpy.types.Object:
    """An unparented Empty in rotation ``mode`` on a reachable path, turning 1.6 turns about a tilted axis
    (keys every frame, continuous: quaternion signs, Euler angles and the axis-angle angle never jump)."""
    target = rigs.new_empty("Target")
    target.rotation_mode = mode
    points = rigs.circle_points(rig, FRAMES, lambda f: 1.0 + 0.4 * math.sin(f / 3.0), lambda f: 0.2 * f)
    axis = Vector((0.3, -0.5, 0.8)).normalized()
    euler = None
    for f, p in zip(FRAMES, points, strict=True):
        target.location = p.tolist()
        angle = 1.6 * 2 * math.pi * (f - 1) / (len(FRAMES) - 1)
        q = Quaternion((math.cos(angle / 2), *(math.sin(angle / 2) * axis)))
        if mode == "QUATERNION":
            target.rotation_quaternion = q
        elif mode == "AXIS_ANGLE":
            target.rotation_axis_angle = (angle, *axis)
        else:
            euler = q.to_euler(mode) if euler is None else q.to_euler(mode, euler)
            target.rotation_euler = euler
        target.keyframe_insert(rigs.rotation_prop(mode)[0], frame=f)
        target.keyframe_insert("location", frame=f)
    return target


def rotation_keys(obj: bpy.types.Object) -> np.ndarray:
    """The rotation keyed on every keyed frame (FRAMES), one row per frame. Fix Target Space may key more
    frames (every frame of the scene range where the target moves): those must be continuous too, so the
    values are evaluated on every frame from the first key to the last."""
    prop, size = rigs.rotation_prop(obj.rotation_mode)
    curves = [rigs.fcurve(obj, prop, i) for i in range(size)]
    assert all(fc is not None for fc in curves)
    keys = [rigs.key_frames(fc) for fc in curves]  # type: ignore[arg-type]
    for k in keys:
        assert set(FRAMES) <= set(k[:, 0].tolist()), "a keyed frame lost its key"
    return np.array([[fc.evaluate(f) for fc in curves] for f in FRAMES])  # type: ignore[union-attr]


def discontinuities(mode: str, values: np.ndarray) -> list[int]:
    """Frames after which the keyed rotation jumps (Blender would interpolate it the long way round)."""
    if mode == "QUATERNION":
        bad = np.sum(values[1:] * values[:-1], axis=1) <= 0
    elif mode == "AXIS_ANGLE":
        bad = (np.abs(np.diff(values[:, 0])) > math.pi / 2) | (np.sum(values[1:, 1:] * values[:-1, 1:], axis=1) <= 0)
    else:
        bad = np.abs(np.diff(values, axis=0)).max(axis=1) > math.pi / 2
    return [FRAMES[i] for i in np.flatnonzero(bad)]


def fix_space(rig: rigs.ArmRig, target: bpy.types.Object, bone: str = "") -> None:
    """Fix Target Space on a new chain of ``target`` whose space is the rig's CHARACTER (``bone``: its space bone)."""
    chain = rigs.add_chain(rig, target)
    chain.target_space, chain.space_bone = "CHARACTER", bone
    assert bpy.ops.pose.soft_ik_fix_target_space() == {"FINISHED"}
    assert target.parent == rig.armature


@pytest.mark.parametrize("bone", ["", "Root"])
@pytest.mark.parametrize("mode", ["QUATERNION", "AXIS_ANGLE", "XYZ", "ZXY"])
def test_target_turning_past_half_a_turn_keeps_continuous_keys_and_motion(empty_file: bpy.types.Scene, mode: str,
                                                                          bone: str) -> None:
    rig = moving_rig()
    target = turning_target(rig, mode)
    assert not discontinuities(mode, rotation_keys(target))
    before = rigs.world_matrices(target, FRAMES)

    fix_space(rig, target, bone)
    assert target.rotation_mode == mode
    assert (target.parent_bone if target.parent_type == "BONE" else "") == bone

    jumps = discontinuities(mode, rotation_keys(target))
    assert not jumps, f"{mode} keys jump after frames {jumps}"
    after = rigs.world_matrices(target, FRAMES)
    np.testing.assert_allclose(after, before, atol=1e-5)


def fix_unanimated_target(rig: rigs.ArmRig, mode: str) -> tuple[bpy.types.Object, np.ndarray]:
    """An unanimated, turned target in rotation ``mode``, put into the rig's CHARACTER space by Fix Target Space;
    returns it and its world matrix before."""
    target = rigs.new_empty("Target")
    target.rotation_mode = mode
    target.location = rigs.circle_points(rig, [7], lambda f: 1.2, lambda f: 0.5)[0].tolist()
    if mode == "QUATERNION":
        target.rotation_quaternion = Quaternion(Vector((0.2, 0.9, -0.3)).normalized(), 2.5)
    else:
        target.rotation_euler = (0.4, -1.1, 2.8)
    bpy.context.scene.frame_set(7)
    before = np.array(target.matrix_world)
    fix_space(rig, target)
    return target, before


@pytest.mark.parametrize("mode", ["QUATERNION", "XYZ"])
def test_unanimated_target_keeps_its_place(empty_file: bpy.types.Scene, mode: str) -> None:
    target, before = fix_unanimated_target(moving_rig(), mode)
    # Under a moving parent an unanimated target needs keys to stay put: it must not move on any frame.
    for f in FRAMES:
        bpy.context.scene.frame_set(f)
        np.testing.assert_allclose(np.array(target.matrix_world), before, atol=1e-5)


def still_rig() -> rigs.ArmRig:
    """The arm's armature moved and scaled (uniformly) but never rotated or animated: a target's rotation in
    its space is its world rotation."""
    rig = rigs.build_arm()
    rigs.place_armature(rig, rotation=(0.0, 0.0, 0.0), scale=(1.3, 1.3, 1.3))
    return rig


def test_unanimated_target_under_a_still_parent_is_placed_once(empty_file: bpy.types.Scene) -> None:
    target, before = fix_unanimated_target(still_rig(), "XYZ")
    # Nothing moves the target in its new space: it is placed there, with no key for the user to clean up.
    assert target.animation_data is None or target.animation_data.action is None
    for f in (1, 7, 40):
        bpy.context.scene.frame_set(f)
        np.testing.assert_allclose(np.array(target.matrix_world), before, atol=1e-5)


def test_axis_angle_target_turning_past_a_full_turn_keeps_its_axis(empty_file: bpy.types.Scene) -> None:
    """Its rotation in the new space passes through a whole turn: the axis Blender's quaternion conversion
    gives flips there (the quaternion's vector part passes through zero). The keys keep one axis and let the
    angle grow past 2 pi, or Blender would interpolate a flip between two keys."""
    rig = still_rig()
    target = turning_target(rig, "AXIS_ANGLE")
    before = rigs.world_matrices(target, FRAMES)
    fix_space(rig, target)
    # The axis holds still, so its curves keep only the keys a linear curve needs: evaluated on every frame.
    curves = [rigs.fcurve(target, "rotation_axis_angle", i) for i in range(4)]
    values = np.array([[fc.evaluate(f) for fc in curves] for f in FRAMES])  # type: ignore[union-attr]
    # The target turns 1.6 turns in all (turning_target), the new space not at all: the keyed angle must too.
    assert abs(values[-1, 0]) == pytest.approx(1.6 * 2 * math.pi, abs=1e-4), "the keyed angle wraps or flips"
    assert not discontinuities("AXIS_ANGLE", values)
    # One axis on every frame: the first has no turn yet and takes the axis of the turn that follows, so
    # between the first two keys the target turns about it too, as before.
    axes = values[:, 1:]
    np.testing.assert_allclose(axes, np.broadcast_to(axes[1:2], axes.shape), atol=1e-5)
    np.testing.assert_allclose(rigs.world_matrices(target, FRAMES), before, atol=1e-5)
