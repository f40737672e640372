"""What the operators promise beyond one chain's bake: Add Soft IK Chain creates its Empty at the current tip
(in any space, on a transformed armature) and takes a CHARACTER target's bone as the space bone; Bake and
Clear with "Only Active Chain" touch only that chain. Truth: Blender's evaluated tip and the F-curves present.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 21))


def posed_rig() -> rigs.ArmRig:
    rig = rigs.build_arm(rest_bend_deg=25.0)
    rigs.place_armature(rig, location=(0.7, -0.4, 0.3), rotation=(0.4, -0.3, 0.9), scale=(1.3, 1.3, 1.3))
    rigs.animate_parent(rig, [1], lambda f: 0.3, lambda f: (0.05, -0.02))  # one key: a posed parent, in the plane
    bpy.context.scene.frame_set(1)
    return rig


@pytest.mark.parametrize("space", ["WORLD", "CHARACTER"])
def test_new_target_is_created_at_the_current_tip(empty_file: bpy.types.Scene, space: str) -> None:
    rig = posed_rig()
    tip = np.array(rig.armature.matrix_world @ rig.armature.pose.bones[rig.lower].tail)
    chain = rigs.add_chain(rig, None, target_space=space)
    target = chain.target
    assert target is not None and target != rig.armature
    assert target.parent == (rig.armature if space == "CHARACTER" else None)
    bpy.context.view_layer.update()
    np.testing.assert_allclose(np.array(target.matrix_world.translation), tip, atol=1e-5)
    # It is where the chain already reaches: a bake leaves the pose as it is, with no error.
    chain.softness = 0.0
    assert rigs.bake(rig, 1, 3) == {"FINISHED"}
    assert chain.error_max < 1e-5


def test_character_target_on_a_bone_gives_the_space_bone(empty_file: bpy.types.Scene) -> None:
    rig = posed_rig()
    target = rigs.new_empty("Target")
    rigs.key_in_parent_space(target, rig.armature, "Root", FRAMES,
                             rigs.circle_points(rig, FRAMES, lambda f: 1.2, lambda f: 0.1 * f))
    chain = rigs.add_chain(rig, target, target_space="CHARACTER")
    assert chain.space_bone == "Root"
    chain.softness = 0.0
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}  # no space mismatch to fix first
    ev = rigs.evaluate(rig, target, FRAMES)
    assert np.linalg.norm(ev.tip_world - ev.target_world, axis=1).max() < 1e-4 * rig.length * rig.world_scale


def two_arm_rig() -> tuple[rigs.ArmRig, list[tuple[str, str]]]:
    """One armature with two arms under 'Root': ('Upper', 'Lower') and ('Upper2', 'Lower2')."""
    rig = rigs.build_arm()
    rigs.enter_pose_mode(rig)
    bpy.ops.object.mode_set(mode="EDIT")
    eb = rig.armature.data.edit_bones
    upper2, lower2 = eb.new("Upper2"), eb.new("Lower2")
    upper2.head, upper2.tail = rig.point(0.4, 1.5).tolist(), rig.point(-0.5, 1.2).tolist()
    lower2.head, lower2.tail = upper2.tail.copy(), rig.point(-1.1, 0.7).tolist()
    upper2.parent, lower2.parent, lower2.use_connect = eb["Root"], upper2, True
    bpy.ops.object.mode_set(mode="POSE")
    return rig, [("Upper", "Lower"), ("Upper2", "Lower2")]


def rotation_curves(rig: rigs.ArmRig, bones: tuple[str, str]) -> list[object]:
    return [rigs.fcurve(rig.armature, rigs.bone_path(b, "rotation_quaternion"), i) for b in bones for i in range(4)]


def test_only_active_chain_bakes_and_clears_only_that_chain(empty_file: bpy.types.Scene) -> None:
    rig, arms = two_arm_rig()
    for i, (_upper, lower) in enumerate(arms):
        target = rigs.new_empty(f"Target{i}")
        target.location = (np.array(rig.armature.matrix_world) @ np.append(
            rig.point(0.4 + (0.9 if i == 0 else -0.9), 1.2), 1.0))[:3].tolist()
        rigs.enter_pose_mode(rig, lower)
        target.select_set(True)
        assert bpy.ops.pose.soft_ik_add_chain(target_space="WORLD") == {"FINISHED"}
        target.select_set(False)
    settings = rig.armature.soft_ik_2d
    assert len(settings.chains) == 2 and settings.active_chain_index == 1
    first, second = settings.chains

    assert bpy.ops.pose.soft_ik_bake(frame_start=1, frame_end=5, only_active_chain=True) == {"FINISHED"}
    assert all(fc is None for fc in rotation_curves(rig, arms[0])), "the inactive chain was baked"
    assert all(fc is not None for fc in rotation_curves(rig, arms[1]))
    assert second.has_bake and not first.has_bake

    assert bpy.ops.pose.soft_ik_bake(frame_start=1, frame_end=5) == {"FINISHED"}
    settings.active_chain_index = 0
    assert bpy.ops.pose.soft_ik_clear_bake(only_active_chain=True) == {"FINISHED"}
    assert all(fc is None for fc in rotation_curves(rig, arms[0]))
    assert all(fc is not None for fc in rotation_curves(rig, arms[1])), "the inactive chain was cleared"
    assert second.has_bake and not first.has_bake
    assert math.isfinite(second.error_max)
