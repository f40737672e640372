"""A chain whose bones do not inherit their parent's rotation (or scale) cannot be posed by rotating them in turn:
Bake and Solve refuse it naming the bone, leave the file unchanged, and the chain works again once the default
inheritance is back. Live Preview leaves the armature alone in Edit Mode and re-poses after it.
"""

from __future__ import annotations

import bpy
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 11))


@pytest.mark.parametrize(("bone", "setting", "words"), [
    ("Lower", "use_inherit_rotation", "bone 'Lower' does not inherit rotation and scale from its parent"),
    ("Lower", "inherit_scale", "bone 'Lower' does not inherit rotation and scale from its parent"),
    ("Upper", "use_inherit_rotation", "upper bone 'Upper' does not inherit rotation from its parent 'Root'"),
], ids=["lower-rotation", "lower-scale", "upper-rotation"])
def test_bones_that_do_not_inherit_are_refused_by_name(empty_file: bpy.types.Scene, bone: str, setting: str,
                                                       words: str) -> None:
    rig = rigs.build_arm()
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.2, lambda f: 0.2 * f)
    rigs.add_chain(rig, target).softness = 0.0
    data_bone = rig.armature.data.bones[bone]
    default = getattr(data_bone, setting)
    setattr(data_bone, setting, False if setting == "use_inherit_rotation" else "NONE")
    bpy.context.view_layer.update()  # Blender's own re-evaluation of the pose is not a change by the add-on
    for call in (lambda: rigs.bake(rig, FRAMES[0], FRAMES[-1]), lambda: bpy.ops.pose.soft_ik_solve()):
        before = rigs.snapshot()
        with pytest.raises(RuntimeError) as info:
            call()
        assert words in str(info.value), str(info.value)
        rigs.assert_same_snapshot(before, rigs.snapshot())
    setattr(data_bone, setting, default)
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    ev = rigs.evaluate(rig, target, FRAMES)
    assert np.linalg.norm(ev.tip_world - ev.target_world, axis=1).max() < 1e-4 * rig.length


def test_live_preview_leaves_the_pose_alone_in_edit_mode(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm(rest_bend_deg=20.0)
    target = rigs.new_empty("Target")
    target.location = rigs.circle_points(rig, [1], lambda f: 1.2, lambda f: 0.3)[0].tolist()
    rigs.add_chain(rig, target).softness = 0.0
    rig.armature.soft_ik_2d.live_preview = True
    view_layer = bpy.context.view_layer
    view_layer.update()
    pose = rig.armature.pose.bones

    def channels() -> np.ndarray:
        return np.array([v for name in (rig.upper, rig.lower) for v in pose[name].rotation_quaternion])

    posed = channels()
    assert np.abs(posed - [1, 0, 0, 0, 1, 0, 0, 0]).max() > 1e-3  # the preview posed the chain
    bpy.ops.object.mode_set(mode="EDIT")
    target.location = rigs.circle_points(rig, [1], lambda f: 1.0, lambda f: 1.0)[0].tolist()
    view_layer.update()
    np.testing.assert_array_equal(channels(), posed)  # the rest bones are being edited: no pose writes
    bpy.ops.object.mode_set(mode="POSE")
    view_layer.update()
    assert np.abs(channels() - posed).max() > 1e-3  # back in Pose Mode: re-posed for the moved target
    tip = np.array(rig.armature.matrix_world @ pose[rig.lower].tail)
    assert np.linalg.norm(tip - np.array(target.matrix_world.translation)) < 1e-4 * rig.length
