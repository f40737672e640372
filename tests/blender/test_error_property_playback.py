"""The error and flags properties play back, not only their curves: after ``frame_set`` the lower bone's
``soft_ik_error`` (what the N panel and drivers read) is the distance Blender plays between tip and target,
also on an armature whose action was keyed before the bake (its evaluated copy predates the properties)."""

from __future__ import annotations

import bpy
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 11))


@pytest.mark.parametrize("before", ["nothing", "fk_keys", "solve_then_keys"])
def test_played_back_error_property_is_the_played_back_distance(empty_file: bpy.types.Scene, before: str) -> None:
    rig = rigs.build_arm()
    arm = rig.armature
    target = rigs.new_empty("Target")
    # Beyond reach on every frame: the error is large and varies, so a property stuck at 0 or stale shows.
    for f, p in zip(FRAMES, rigs.circle_points(rig, FRAMES, lambda f: 2.2 + 0.05 * f, lambda f: 0.1 * f),
                    strict=True):
        target.location = p.tolist()
        target.keyframe_insert("location", frame=f)
    chain = rigs.add_chain(rig, target)
    if before == "solve_then_keys":
        bpy.context.scene.frame_set(1)
        assert bpy.ops.pose.soft_ik_solve() == {"FINISHED"}  # creates the properties on the original only
    if before != "nothing":
        pb = arm.pose.bones[rig.upper]
        for f in (1, 10):
            pb.keyframe_insert("rotation_quaternion", frame=f)
        bpy.context.scene.frame_set(3)  # the action has played: its evaluated copy exists
    assert chain is not None and rigs.bake(rig, 1, 10) == {"FINISHED"}
    shown, played = [], []
    for f in FRAMES:
        bpy.context.scene.frame_set(f)
        tip = np.array(arm.matrix_world @ arm.pose.bones[rig.lower].tail)
        played.append(float(np.linalg.norm(tip - np.array(target.matrix_world.translation))))
        shown.append(float(arm.pose.bones[rig.lower]["soft_ik_error"]))
    assert min(played) > 0.1
    np.testing.assert_allclose(shown, played, atol=1e-4 * rig.length)
