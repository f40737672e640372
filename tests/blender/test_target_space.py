"""Target spaces: WORLD / CHARACTER (the armature or one of its bones) / OBJECT (another object or one of its
bones). The bake follows targets in every space; a declared space that does not match the Empty's parenting
is refused; Fix Target Space re-parents while keeping the world motion on every keyed frame.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 31))


def moving_rig() -> rigs.ArmRig:
    rig = rigs.build_arm()
    rigs.animate_parent(rig, FRAMES, lambda f: 0.5 * math.sin(f / 6.0), lambda f: (0.02 * f, 0.01 * f))
    rigs.place_armature(rig, scale=(-1.2, 1.2, 1.2), keyed_shift=lambda f: (0.04 * f, 0.0, 0.01 * f),
                        frames=FRAMES)
    return rig


def door() -> bpy.types.Object:
    """Another object moving on its own: translation, rotation and (uniform, so a child's world matrix stays
    a scaled rotation that loc/rot/scale channels can hold in any space) scale keys."""
    obj = rigs.new_empty("Door")
    obj.rotation_mode = "XYZ"
    for f in (FRAMES[0], 15, FRAMES[-1]):
        obj.location = (0.1 * f, -0.5, 0.02 * f)
        obj.rotation_euler = (0.03 * f, 0.1, -0.05 * f)
        obj.scale = [1.0 + 0.01 * f] * 3
        for path in ("location", "rotation_euler", "scale"):
            obj.keyframe_insert(path, frame=f)
    return obj


def prop_armature() -> bpy.types.Object:
    """A second armature with an animated bone 'Handle'."""
    data = bpy.data.armatures.new("Prop")
    obj = bpy.data.objects.new("Prop", data)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    bone = data.edit_bones.new("Handle")
    bone.head, bone.tail = (2.0, 0.0, 0.0), (2.0, 0.0, 0.7)
    bpy.ops.object.mode_set(mode="OBJECT")
    pb = obj.pose.bones["Handle"]
    pb.rotation_mode = "XYZ"
    for f in (FRAMES[0], FRAMES[-1]):
        pb.rotation_euler = (0.0, 0.02 * f, 0.01 * f)
        pb.keyframe_insert("rotation_euler", frame=f)
    return obj


def reachable_points(rig: rigs.ArmRig) -> np.ndarray:
    return rigs.circle_points(rig, FRAMES, lambda f: 1.0 + 0.5 * math.sin(f / 3.0), lambda f: 0.25 * f)


def assert_tip_on_target(rig: rigs.ArmRig, target: bpy.types.Object, frames: list[int]) -> None:
    ev = rigs.evaluate(rig, target, frames)
    miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
    assert miss.max() < 1e-4 * rig.length * rig.world_scale


@pytest.mark.parametrize(("space", "parent_kind", "bone"), [
    ("WORLD", None, ""),
    ("CHARACTER", "armature", ""),
    ("CHARACTER", "armature", "Root"),
    ("OBJECT", "door", ""),
    ("OBJECT", "prop", "Handle"),
])
def test_bake_follows_targets_in_every_space(empty_file: bpy.types.Scene, space: str, parent_kind: str | None,
                                             bone: str) -> None:
    rig = moving_rig()
    points = reachable_points(rig)
    target = rigs.new_empty("Target")
    parent = {"armature": rig.armature, "door": door() if parent_kind == "door" else None,
              "prop": prop_armature() if parent_kind == "prop" else None, None: None}[parent_kind]
    if parent is None:
        rigs.key_locations(target, FRAMES, points)
    else:
        rigs.key_in_parent_space(target, parent, bone, FRAMES, points)
    # The path really is where it was meant to be in the world (Blender's evaluation).
    np.testing.assert_allclose(rigs.world_matrices(target, FRAMES)[:, :3, 3], points, atol=1e-5)

    chain = rigs.add_chain(rig, target, target_space=space)
    if space == "OBJECT":  # taken from the selected target's parenting
        assert chain.space_object == parent and chain.space_bone == bone
    if space == "CHARACTER" and bone:
        chain.space_bone = bone  # the Add operator does not read it from the target (see the report)
    chain.softness = 0.0
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    assert_tip_on_target(rig, target, FRAMES)


def location_key_frames(obj: bpy.types.Object) -> list[float]:
    return sorted({f for i in range(3) for f in rigs.key_frames(rigs.fcurve(obj, "location", i))[:, 0]})


@pytest.mark.parametrize("case", ["world_to_character", "character_bone_to_object", "object_to_world"])
def test_mismatch_is_refused_then_fixed_keeping_world_motion(empty_file: bpy.types.Scene, case: str) -> None:
    rig = moving_rig()
    the_door = door()
    points = reachable_points(rig)
    target = rigs.new_empty("Target")
    target.rotation_mode = "XYZ"
    if case == "world_to_character":
        rigs.key_locations(target, FRAMES, points)
        declared, have = ("CHARACTER", None, ""), "not parented (world space)"
    elif case == "character_bone_to_object":
        rigs.key_in_parent_space(target, rig.armature, "Root", FRAMES, points)
        declared, have = ("OBJECT", the_door, ""), "parented to bone 'Root' of 'Rig'"
    else:
        rigs.key_in_parent_space(target, the_door, "", FRAMES, points)
        declared, have = ("WORLD", None, ""), "parented to 'Door'"
    # A rotation key on a frame of its own: the conversion must keep that frame too.
    target.rotation_euler = (0.2, 0.0, 0.4)
    target.keyframe_insert("rotation_euler", frame=12)
    for i in range(3):
        rigs.fcurve(target, "rotation_euler", i).keyframe_points.insert(25, 0.1 * i)
    keyed = location_key_frames(target)
    before_world = rigs.world_matrices(target, keyed)

    chain = rigs.add_chain(rig, target)
    chain.target_space, chain.space_object, chain.space_bone = declared
    snap = rigs.snapshot()
    with pytest.raises(RuntimeError) as info:
        rigs.bake(rig, FRAMES[0], FRAMES[-1])
    message = str(info.value)
    for words in ("Chain 'Lower'", f"target 'Target' is {have}", f"declares {declared[0]} space",
                  "Fix Target Space"):
        assert words in message, message
    rigs.assert_same_snapshot(snap, rigs.snapshot())

    assert bpy.ops.pose.soft_ik_fix_target_space() == {"FINISHED"}
    want_parent = rig.armature if declared[0] == "CHARACTER" else declared[1]
    assert target.parent == want_parent
    # Keys on every frame of the scene range where the motion needs them (the keyed frames included).
    assert set(keyed) <= set(location_key_frames(target)), "keyed frames were dropped"
    np.testing.assert_allclose(rigs.world_matrices(target, keyed), before_world, atol=1e-5)

    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    assert_tip_on_target(rig, target, [int(f) for f in keyed])
