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


def _tag(rig: rigs.ArmRig, bone: str, tag: str, duplicate: str | None = None) -> None:
    """Give ``bone`` the hidden ``tag`` (as a rig copied after a bake keeps it) and, with ``duplicate``, add a bone
    of that name carrying the same tag (Blender's bone duplication copies it with the custom properties)."""
    arm = rig.armature
    if duplicate is not None:
        if bpy.context.object is not None and bpy.context.object.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        bpy.context.view_layer.objects.active = arm
        bpy.ops.object.mode_set(mode="EDIT")
        source = arm.data.edit_bones[bone]
        copy = arm.data.edit_bones.new(duplicate)
        copy.head, copy.tail = source.head.copy(), source.tail.copy()
        bpy.ops.object.mode_set(mode="OBJECT")
        arm.pose.bones[duplicate]["_soft_ik_2d_bone"] = tag
    arm.pose.bones[bone]["_soft_ik_2d_bone"] = tag


def test_each_character_gets_tags_of_its_own_bones_when_they_share_tags_with_another(
        empty_file: bpy.types.Scene) -> None:
    """Two characters, one copied from the other after a bake (the copy keeps the bones' hidden tags), one with a
    duplicate of its lower arm and the other of its upper arm (a duplicate keeps the tag too), baked together. A
    tag must name one bone of its armature (records follow a renamed bone by it): in each character the chain's
    bones and the duplicate end with different tags, whichever character the bake records first (each is read
    for itself: the other's bones say nothing of its own), and Clear then finds every key the bake wrote after
    the upper bones are renamed."""
    (rig_a, _target_a, _chain_a), (rig_b, _target_b, _chain_b) = setup("RigA"), setup("RigB")
    for rig, duplicated in ((rig_a, rig_a.lower), (rig_b, rig_b.upper)):
        for bone in (rig.upper, rig.lower):
            _tag(rig, bone, f"copied-{bone}", "twist" if bone == duplicated else None)
    armatures = [rig_a.armature, rig_b.armature]
    before = all_actions()
    rigs.pose_mode_together(armatures)
    assert bpy.ops.pose.soft_ik_bake(frame_start=1, frame_end=30) == {"FINISHED"}
    for arm in armatures:
        tags = [str(pb.get("_soft_ik_2d_bone", "")) for pb in arm.pose.bones if pb.get("_soft_ik_2d_bone")]
        assert len(tags) == len(set(tags)), (arm.name, tags)
    for rig in (rig_a, rig_b):
        bpy.ops.object.mode_set(mode="OBJECT")
        rig.armature.data.bones[rig.upper].name = "Renamed"
    rigs.pose_mode_together(armatures)
    assert clear() == {"FINISHED"}
    bpy.ops.object.mode_set(mode="OBJECT")
    for rig in (rig_a, rig_b):
        rig.armature.data.bones["Renamed"].name = rig.upper  # Blender renames the curves' paths back
    assert_same(before, all_actions())
