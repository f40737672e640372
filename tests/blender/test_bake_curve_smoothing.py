"""The Auto Handle Smoothing of the curves a bake writes: a range bake's new curves of linear or constant keys
smooth no handles (they play none, and the smoothing was much of Blender's update of a long curve), a reduced
Bezier bake's and Solve's single key get the preference for new curves, and a curve the bake did not create
keeps its own. Read from the curves Blender holds after the operator.
"""

from __future__ import annotations

import math

import bpy
import pytest
import rigs

FRAMES = list(range(1, 121))


def arm_and_target() -> tuple[rigs.ArmRig, bpy.types.Object]:
    """An arm reaching for a target on a loop, partly out of reach, keyed every frame."""
    rig = rigs.build_arm()
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.2 + 0.55 * math.sin(f / 17.0), lambda f: -0.4 + f / 30.0)
    return rig, target


def smoothing(rig: rigs.ArmRig) -> dict[str, set[str]]:
    """Auto Handle Smoothing of the chain's curves: rotation (both bones) and the error and flags curves."""
    out: dict[str, set[str]] = {"rotation": set(), "error": set()}
    for bone in (rig.upper, rig.lower):
        prop, size = rigs.rotation_prop(rig.armature.pose.bones[bone].rotation_mode)
        for i in range(size):
            fc = rigs.fcurve(rig.armature, rigs.bone_path(bone, prop), i)
            assert fc is not None
            out["rotation"].add(fc.auto_smoothing)
    for prop in ("soft_ik_error", "soft_ik_flags"):
        fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, prop))
        assert fc is not None
        out["error"].add(fc.auto_smoothing)
    return out


@pytest.mark.parametrize(("reduction", "shape", "rotation"), [
    ("NONE", "LINEAR", "NONE"), ("FIT", "LINEAR", "NONE"), ("FIT", "BEZIER", "PREFERENCE")])
def test_new_curves_of_linear_keys_smooth_no_handles_bezier_ones_keep_the_preference(
        empty_file: bpy.types.Scene, reduction: str, shape: str, rotation: str) -> None:
    # Linear and constant keys play no handle; a reduced Bezier bake's handles shape what plays, as the
    # preference for new curves smooths them.
    preference = bpy.context.preferences.edit.fcurve_new_auto_smoothing
    assert preference == "CONT_ACCEL"  # Blender's default, so the two cases differ
    rig, target = arm_and_target()
    rigs.add_chain(rig, target)
    assert rigs.bake(rig, 1, 120, key_reduction=reduction, reduction_shape=shape) == {"FINISHED"}
    assert smoothing(rig) == {"rotation": {preference if rotation == "PREFERENCE" else rotation}, "error": {"NONE"}}


def test_solve_keys_new_curves_with_the_preference(empty_file: bpy.types.Scene) -> None:
    # A single key: the user's own keys come next on its curves.
    rig, target = arm_and_target()
    rigs.add_chain(rig, target)
    empty_file.frame_set(30)
    rigs.enter_pose_mode(rig)
    assert bpy.ops.pose.soft_ik_solve(insert_keys=True) == {"FINISHED"}
    preference = bpy.context.preferences.edit.fcurve_new_auto_smoothing
    assert smoothing(rig) == {"rotation": {preference}, "error": {preference}}


def test_a_curve_the_bake_did_not_create_keeps_its_smoothing(empty_file: bpy.types.Scene) -> None:
    rig, target = arm_and_target()
    rigs.add_chain(rig, target)
    rigs.enter_pose_mode(rig, rig.upper)
    pose = rig.armature.pose.bones[rig.upper]
    prop, _size = rigs.rotation_prop(pose.rotation_mode)
    pose.keyframe_insert(prop, frame=200)  # the user's key, outside the baked range
    mine = rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, prop), 0)
    assert mine is not None
    mine.auto_smoothing = "CONT_ACCEL"
    assert rigs.bake(rig, 1, 120) == {"FINISHED"}
    assert mine.auto_smoothing == "CONT_ACCEL" and len(mine.keyframe_points) == 121
    other = rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, prop), 0)
    assert other is not None and other.auto_smoothing == "NONE"
