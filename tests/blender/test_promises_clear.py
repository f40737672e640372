"""Clear restores the channel set: after bakes (one strategy, then another) and Clear, the full snapshot of every
F-curve of every object (each key with all its attributes) is the one before the first bake: curves that existed
keep all their keys, curves a bake created are gone. And playback is as before, on every frame, in and outside
the baked range: emptied channels are back at rest, not at the last baked value.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 61))
START, END = 10, 40


def curves(snapshot: dict[str, object]) -> dict[str, object]:
    """The F-curve entries of :func:`rigs.snapshot` ("object:path[index]" -> every key attribute)."""
    return {k: v for k, v in snapshot.items() if ":" in k}


def pose_playback(rig: rigs.ArmRig) -> np.ndarray:
    """Every pose bone's channels and evaluated matrix, on every frame."""
    scene = bpy.context.scene
    rows = []
    for f in FRAMES:
        scene.frame_set(f)
        row = []
        for pb in rig.armature.pose.bones:
            row += [*pb.location, *pb.rotation_quaternion, *pb.rotation_euler, *pb.rotation_axis_angle, *pb.scale]
            row += list(np.array(pb.matrix).ravel())
        rows.append(row)
    return np.array(rows)


def user_keys(rig: rigs.ArmRig) -> None:
    """Keys the user made before baking: on channels the bakes own but outside their range, and elsewhere."""
    pose = rig.armature.pose.bones
    upper, lower = pose[rig.upper], pose[rig.lower]
    for f, angle in ((-5, 0.3), (3, -0.2), (55, 0.8)):
        upper.rotation_quaternion = (math.cos(angle), 0.0, math.sin(angle), 0.0)
        upper.keyframe_insert("rotation_quaternion", frame=f)
    upper.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
    for f in (2, 50):  # zero: the shoulder stays, but the channel has a curve Move Root writes into
        upper.keyframe_insert("location", frame=f)
    lower["my_prop"] = 1.0
    lower.keyframe_insert('["my_prop"]', frame=15)
    lower["my_prop"] = 4.0
    lower.keyframe_insert('["my_prop"]', frame=30)
    for f, x in ((1, 0.0), (60, 0.5)):
        rig.armature.location = (x, 0.0, 0.0)
        rig.armature.keyframe_insert("location", frame=f)
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "rotation_quaternion"), 2)
    fc.keyframe_points[-1].interpolation = "BOUNCE"  # user styling must survive too
    fc.keyframe_points[0].handle_right_type = "VECTOR"


PAIRS = [("STRETCH", "MOVE_ROOT"), ("MOVE_ROOT", "ACCEPT"), ("ACCEPT", "STRETCH")]


@pytest.mark.parametrize("strategies", PAIRS, ids=["-".join(p) for p in PAIRS])
def test_clear_restores_every_curve_and_the_playback(empty_file: bpy.types.Scene,
                                                      strategies: tuple[str, str]) -> None:
    rig = rigs.build_arm(rest_bend_deg=30.0)
    user_keys(rig)
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.1, lambda f: 0.1 * f)
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0
    chain.use_elbow_limit, chain.elbow_max = True, math.radians(60.0)  # the strategies act
    chain.stretch_min, chain.max_root_offset = 0.5, 0.3
    before = curves(rigs.snapshot())
    playback = pose_playback(rig)

    owned = {"MOVE_ROOT": "location", "STRETCH": "scale"}
    for strategy in strategies:
        chain.limit_strategy = strategy
        assert rigs.bake(rig, START, END) == {"FINISHED"}
        baked = curves(rigs.snapshot())
        if strategy in owned:  # the strategy's channel was really written
            key = f"{rig.armature.name}:{rigs.bone_path(rig.upper, owned[strategy])}[0]"
            assert key in baked and baked[key] != before.get(key), key
    created = sorted(baked.keys() - before.keys())
    assert any("rotation_quaternion" in k and rig.lower in k for k in created)  # the bakes did create curves

    assert bpy.ops.pose.soft_ik_clear_bake() == {"FINISHED"}
    after = curves(rigs.snapshot())
    left = sorted(after.keys() - before.keys())
    assert not left, f"curves the bake created are still there: {left}"
    lost = sorted(before.keys() - after.keys())
    assert not lost, f"curves that existed before the bake are gone: {lost}"
    changed = sorted(k for k in before if before[k] != after[k])
    assert not changed, f"curves whose keys changed: {changed}"
    np.testing.assert_allclose(pose_playback(rig), playback, atol=1e-6)


def test_a_second_clear_leaves_keys_made_after_the_first(empty_file: bpy.types.Scene) -> None:
    """Clear forgets the bake it removed: keys the user sets afterwards on the same channels, inside the old
    range, are the user's, and a second Clear must leave them (and say there is nothing to clear)."""
    rig = rigs.build_arm()
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.2, lambda f: 0.1 * f)
    chain = rigs.add_chain(rig, target)
    assert rigs.bake(rig, START, END) == {"FINISHED"}
    assert chain.has_bake and len(chain.worst_frames) > 0
    assert bpy.ops.pose.soft_ik_clear_bake() == {"FINISHED"}
    assert not chain.has_bake and len(chain.worst_frames) == 0  # the panel shows no bake report
    upper = rig.armature.pose.bones[rig.upper]
    for f, angle in ((20, 0.4), (30, -0.3)):
        upper.rotation_quaternion = (math.cos(angle), 0.0, math.sin(angle), 0.0)
        upper.keyframe_insert("rotation_quaternion", frame=f)
    before = curves(rigs.snapshot())
    assert bpy.ops.pose.soft_ik_clear_bake() == {"CANCELLED"}
    assert curves(rigs.snapshot()) == before
