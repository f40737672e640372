"""Live preview caches in real Blender: what a drag update reuses is read again when it may have changed.

A drag update of a target reuses what only the armature holds (the IK influence and FK keys, the settings, the
rest geometry); touching the armature (a setting, a key, a bone) reads them again. Truth is Blender's own pose:
the joint angles of the evaluated bones against the rest pose, the tip against the rest tip.
"""

from __future__ import annotations

import math

import bpy
import harness
import numpy as np
import promises
import pytest
import rigs


def live_preview():  # type: ignore[no-untyped-def]
    return harness.package("rigging.live_preview")


def target_at(rig: rigs.ArmRig, target: bpy.types.Object, radius: float, angle: float) -> None:
    """Put the (unparented) target ``radius`` armature units from the evaluated shoulder, in the plane."""
    u, v, _n = rigs.plane_axes(rig.plane)
    head = np.array(rig.armature.pose.bones[rig.upper].head)
    p = head + radius * (math.cos(angle) * u + math.sin(angle) * v)
    target.location = (np.array(rig.armature.matrix_world) @ np.append(p, 1.0))[:3].tolist()
    bpy.context.view_layer.update()


def wrap(x: np.ndarray) -> np.ndarray:
    return (x + np.pi) % (2 * np.pi) - np.pi


def joint_angles(rig: rigs.ArmRig) -> np.ndarray:
    """(shoulder turn from rest, elbow bend) of Blender's current pose, about the plane normal (armature space;
    the parent bone stays at rest)."""
    pb, bones = rig.armature.pose.bones, rig.armature.data.bones
    head, elbow, tail = (np.array(pb[rig.upper].head), np.array(pb[rig.lower].head), np.array(pb[rig.lower].tail))
    rest_dir = np.array(bones[rig.upper].matrix_local)[:3, 1]
    shoulder = promises.signed_angle(rest_dir, elbow - head, rig.normal)[0]
    bend = promises.signed_angle(elbow - head, tail - elbow, rig.normal)[0]
    return np.array([shoulder, bend])


def rest_angles(rig: rigs.ArmRig) -> np.ndarray:
    bones = rig.armature.data.bones
    up, low = bones[rig.upper], bones[rig.lower]
    return np.array([0.0, promises.signed_angle(np.array(up.tail_local) - np.array(up.head_local),
                                                np.array(low.tail_local) - np.array(low.head_local),
                                                rig.normal)[0]])


@pytest.fixture
def previewed(empty_file: bpy.types.Scene) -> tuple[rigs.ArmRig, bpy.types.Object, bpy.types.PropertyGroup]:
    rig = rigs.build_arm(rest_bend_deg=20.0)
    rigs.place_armature(rig, scale=(1.3, 1.3, 1.3))
    target = rigs.new_empty("Target")
    bpy.context.view_layer.update()
    target_at(rig, target, 1.2, 0.3)
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0  # in reach, the tip is on the target
    rig.armature.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()
    return rig, target, chain


def tip_miss(rig: rigs.ArmRig, bone: str, target: bpy.types.Object) -> float:
    """World distance of Blender's tip of ``bone`` from the target."""
    tail = np.array(rig.armature.matrix_world) @ np.append(np.array(rig.armature.pose.bones[bone].tail), 1.0)
    return float(np.linalg.norm(tail[:3] - np.array(target.matrix_world.translation)))


def ik_angles(rig: rigs.ArmRig, target: bpy.types.Object, spots: list[tuple[float, float]]) -> list[np.ndarray]:
    """The pose at influence 1 (the property, no keys yet) with the target at each spot."""
    angles = []
    for radius, angle in spots:
        target_at(rig, target, radius, angle)
        angles.append(joint_angles(rig))
    return angles


def blend(rig: rigs.ArmRig, ik: np.ndarray, weight: float) -> np.ndarray:
    """The joint angles influence ``weight`` gives: FK at rest (no bone keys) blended with ``ik``."""
    fk = rest_angles(rig)
    return fk + weight * wrap(ik - fk)


SPOTS = [(1.0, -0.5), (1.1, 0.9), (0.9, 0.2)]


def test_influence_set_during_a_drag_is_followed_by_the_next_drag_updates(previewed) -> None:  # type: ignore[no-untyped-def]
    rig, target, chain = previewed
    ik = ik_angles(rig, target, SPOTS)
    chain.ik_influence = 0.0
    bpy.context.view_layer.update()
    rest_tip = np.array(rig.armature.data.bones[rig.lower].tail_local)
    assert np.abs(np.array(rig.armature.pose.bones[rig.lower].tail) - rest_tip).max() < 1e-5
    target_at(rig, target, *SPOTS[0])  # a drag: the armature itself is not re-evaluated
    assert np.abs(np.array(rig.armature.pose.bones[rig.lower].tail) - rest_tip).max() < 1e-5
    chain.ik_influence = 0.5
    bpy.context.view_layer.update()
    target_at(rig, target, *SPOTS[1])
    half = joint_angles(rig)
    assert np.abs(wrap(half - rest_angles(rig))).max() > 0.05  # the IK acts
    assert np.abs(wrap(half - blend(rig, ik[1], 0.5))).max() < 2e-4
    chain.ik_influence = 1.0
    bpy.context.view_layer.update()
    target_at(rig, target, *SPOTS[2])
    assert np.abs(wrap(joint_angles(rig) - ik[2])).max() < 1e-6


def test_influence_keyed_during_the_preview_is_read_at_the_current_frame(previewed) -> None:  # type: ignore[no-untyped-def]
    rig, target, chain = previewed
    ik = ik_angles(rig, target, SPOTS)
    assert rig.armature.animation_data is None  # the preview read the property alone so far
    path = chain.path_from_id("ik_influence")
    for frame, weight in ((1, 0.0), (11, 1.0)):
        chain.ik_influence = weight
        rig.armature.keyframe_insert(path, frame=frame)
    fc = rigs.fcurve(rig.armature, path)
    assert fc is not None
    for fp in fc.keyframe_points:
        fp.interpolation = "LINEAR"
    bpy.context.scene.frame_set(6)
    assert abs(fc.evaluate(6) - 0.5) < 1e-6
    assert np.abs(wrap(joint_angles(rig) - blend(rig, ik[2], 0.5))).max() < 2e-4
    target_at(rig, target, *SPOTS[0])  # a drag at frame 6
    assert np.abs(wrap(joint_angles(rig) - blend(rig, ik[0], 0.5))).max() < 2e-4
    chain.ik_influence = 1.0  # not keyed: the curve still plays 0.5, and the preview shows what plays
    bpy.context.view_layer.update()
    assert np.abs(wrap(joint_angles(rig) - blend(rig, ik[0], 0.5))).max() < 2e-4
    bpy.context.scene.frame_set(11)
    target_at(rig, target, *SPOTS[1])
    assert np.abs(wrap(joint_angles(rig) - ik[1])).max() < 1e-6


def test_a_driver_added_on_the_influence_stops_the_preview_of_the_chain(previewed) -> None:  # type: ignore[no-untyped-def]
    rig, target, chain = previewed
    ik = ik_angles(rig, target, SPOTS)
    fc = rig.armature.driver_add(chain.path_from_id("ik_influence"))
    fc.driver.expression = "1.0"
    bpy.context.view_layer.update()
    entry = live_preview().preview_of(rig.armature, chain)
    assert entry is not None and entry.solution is None and "driv" in (entry.message or "").lower()
    target_at(rig, target, *SPOTS[1])  # the chain is refused, not posed: its bones stay where they were
    assert np.abs(wrap(joint_angles(rig) - ik[2])).max() < 1e-6


def test_a_renamed_bone_is_reported_then_followed_once_the_chain_names_it(previewed) -> None:  # type: ignore[no-untyped-def]
    rig, target, chain = previewed
    assert tip_miss(rig, rig.lower, target) < 1e-5
    rig.armature.data.bones[rig.lower].name = "Forearm"
    bpy.context.view_layer.update()
    entry = live_preview().preview_of(rig.armature, chain)
    assert entry is not None and entry.solution is None and "'Lower'" in (entry.message or "")
    chain.lower_bone = "Forearm"
    bpy.context.view_layer.update()
    target_at(rig, target, *SPOTS[0])
    assert tip_miss(rig, "Forearm", target) < 1e-5


def test_a_new_target_is_followed_and_the_old_one_no_longer_counts(previewed) -> None:  # type: ignore[no-untyped-def]
    rig, target, chain = previewed
    stats = live_preview().stats
    other = rigs.new_empty("Other")
    target_at(rig, other, *SPOTS[1])
    assert tip_miss(rig, rig.lower, target) < 1e-5  # still on the first target
    chain.target = other
    bpy.context.view_layer.update()
    assert tip_miss(rig, rig.lower, other) < 1e-5
    target_at(rig, other, *SPOTS[2])
    assert tip_miss(rig, rig.lower, other) < 1e-5
    solves = stats["solves"]
    target_at(rig, target, *SPOTS[0])
    assert stats["solves"] == solves and tip_miss(rig, rig.lower, other) < 1e-5


def test_chains_added_and_removed_during_the_preview(previewed) -> None:  # type: ignore[no-untyped-def]
    rig, target, _chain = previewed
    # A second armature previews its own chain throughout: removing and adding the first one's chain must
    # neither disturb it nor leave the first armature posed by a chain that is gone.
    twin = rigs.build_arm("Twin", rest_bend_deg=20.0)
    rigs.place_armature(twin, scale=(1.3, 1.3, 1.3))
    other = rigs.new_empty("Other")
    bpy.context.view_layer.update()
    target_at(twin, other, *SPOTS[1])
    twin_chain = rigs.add_chain(twin, other)
    twin_chain.softness = 0.0
    twin.armature.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()
    assert tip_miss(twin, twin.lower, other) < 1e-5
    settings = rig.armature.soft_ik_2d
    settings.chains.remove(0)
    bpy.context.view_layer.update()
    held = joint_angles(rig)
    target_at(rig, target, *SPOTS[2])  # no chain any more: the bones stay as they were
    assert np.abs(wrap(joint_angles(rig) - held)).max() < 1e-9
    target_at(twin, other, *SPOTS[0])
    assert tip_miss(twin, twin.lower, other) < 1e-5
    again = rigs.add_chain(rig, target)
    again.softness = 0.0
    bpy.context.view_layer.update()
    assert tip_miss(rig, rig.lower, target) < 1e-5


def test_undo_of_a_setting_change_poses_the_setting_undone(previewed) -> None:  # type: ignore[no-untyped-def]
    rig, target, chain = previewed
    ik = ik_angles(rig, target, SPOTS)  # bend as set
    assert bpy.ops.ed.undo_push(message="before the bend flip") == {"FINISHED"}
    chain.bend = -chain.bend
    bpy.context.view_layer.update()
    target_at(rig, target, *SPOTS[1])
    assert abs(joint_angles(rig)[1] - ik[1][1]) > 0.1  # the elbow went to the other side
    assert bpy.ops.ed.undo_push(message="after the bend flip") == {"FINISHED"}
    assert bpy.ops.ed.undo() == {"FINISHED"}
    arm, target = bpy.data.objects["Rig"], bpy.data.objects["Target"]
    again = rigs.ArmRig(arm, rig.plane, rig.upper, rig.lower, rig.parent, rig.a, rig.b, rig.offset)
    target_at(again, target, *SPOTS[1])  # the first update after the undo is a drag
    assert np.abs(wrap(joint_angles(again) - ik[1])).max() < 1e-5
    target_at(again, target, *SPOTS[0])
    assert np.abs(wrap(joint_angles(again) - ik[0])).max() < 1e-5


def test_bones_edited_in_edit_mode_are_read_again(previewed) -> None:  # type: ignore[no-untyped-def]
    rig, target, _chain = previewed
    rigs.enter_pose_mode(rig)
    bpy.ops.object.mode_set(mode="EDIT")
    lower = rig.armature.data.edit_bones[rig.lower]
    lower.tail = lower.head + (lower.tail - lower.head) * 1.25  # the chain is longer now
    bpy.ops.object.mode_set(mode="POSE")
    bpy.context.view_layer.update()
    target_at(rig, target, 1.9, 0.4)  # out of the old reach (1.8), within the new one (2.0)
    assert tip_miss(rig, rig.lower, target) < 1e-5


def test_the_updates_after_a_bake_solve_nothing_again_and_a_setting_still_does(previewed) -> None:  # type: ignore[no-untyped-def]
    # A bake writes the chain's record of baked channels; it is not a setting of the solve, so the updates after
    # the bake (the same target, parent and settings) must reuse the solve, while a real setting still solves.
    rig, target, chain = previewed
    target_at(rig, target, *SPOTS[1])
    stats = live_preview().stats
    solves = stats["solves"]
    assert rigs.bake(rig, 1, 5) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert chain.baked_channels  # the record the bake writes changed
    assert stats["solves"] == solves
    assert tip_miss(rig, rig.lower, target) < 1e-5  # Blender's pose: the preview (and the keys) on the target
    chain.softness = 0.2
    bpy.context.view_layer.update()
    assert stats["solves"] > solves
