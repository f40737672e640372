"""Bake records of several characters baked together (issue 17's crowd bake): each chain keeps its own.

Truth is every key of every action in the file (``test_actions_and_clear.all_actions``) before the first bake and
after Clear.
"""

from __future__ import annotations

import bpy
import rigs
from test_actions_and_clear import all_actions, assert_same, clear, setup

FRAME = 25  # baked by both bakes


def _key_at(rig: rigs.ArmRig, frame: int) -> bpy.types.Keyframe:
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "rotation_quaternion"), 0)
    assert fc is not None
    return next(kp for kp in fc.keyframe_points if kp.co[0] == frame)


def test_characters_whose_chains_lost_their_uids_each_find_their_records(empty_file: bpy.types.Scene) -> None:
    """Two characters with chains of the same name lose their hidden uids (an override reopened) and are
    re-baked together over part of the first bake's range with moved targets. Each chain must find its own
    records (by armature and chain name, one pass over the actions for the whole bake) so the re-bake replaces
    the first bake's keys in its range: a key the user then sets back to the first bake's value is not the
    bake's any more and survives Clear, which removes everything else both bakes wrote."""
    (rig_a, target_a, chain_a), (rig_b, target_b, chain_b) = setup("RigA"), setup("RigB")
    assert chain_a.name == chain_b.name  # only the armature tells their records apart
    armatures = [rig_a.armature, rig_b.armature]
    before = all_actions()
    rigs.pose_mode_together(armatures)
    assert bpy.ops.pose.soft_ik_bake(frame_start=1, frame_end=30) == {"FINISHED"}
    first = {rig.armature.name: float(_key_at(rig, FRAME).co[1]) for rig in (rig_a, rig_b)}
    for chain in (chain_a, chain_b):
        del chain["_soft_ik_2d_uid"]  # the bone tags stay: the records' channels are the same ones
    for target in (target_a, target_b):  # the re-bake writes other values in the overlap
        for fc in rigs.fcurve(target, "location", 0), rigs.fcurve(target, "location", 2):
            for kp in fc.keyframe_points:
                kp.co[1] *= 0.9
                kp.handle_left[1] *= 0.9
                kp.handle_right[1] *= 0.9
            fc.update()
    rigs.pose_mode_together(armatures)
    assert bpy.ops.pose.soft_ik_bake(frame_start=20, frame_end=40) == {"FINISHED"}
    for rig in (rig_a, rig_b):
        key = _key_at(rig, FRAME)
        assert key.co[1] != first[rig.armature.name]
        key.co[1] = first[rig.armature.name]  # the user's key now, though it has the first bake's value
    rigs.pose_mode_together(armatures)
    assert clear() == {"FINISHED"}
    after = all_actions()
    for rig in (rig_a, rig_b):
        kept = _key_at(rig, FRAME)
        assert kept.co[1] == first[rig.armature.name]
        fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "rotation_quaternion"), 0)
        fc.keyframe_points.remove(kept)
    def rigs_only(curves: dict) -> dict:  # the targets' curves were moved on purpose
        return {k: v for k, v in curves.items() if not k[0].endswith("TargetAction")}

    assert_same(rigs_only(before), rigs_only(all_actions()))
    assert rigs_only(after) != rigs_only(before)
