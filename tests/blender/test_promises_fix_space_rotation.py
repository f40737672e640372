"""Fix Target Space with rotation: a quaternion-mode target turning well past 180 degrees, re-parented to a
moving, rotated, mirrored armature, keeps continuous keys (consecutive quaternions have a positive dot product:
no sign flip, which Blender would interpolate as a turn the long way round) and moves in the world exactly as
before on every frame (Blender's ``matrix_world`` after ``frame_set``).
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


def turning_target(rig: rigs.ArmRig) -> bpy.types.Object:
    """An unparented quaternion Empty on a reachable path, turning 1.6 turns about a tilted axis (keys every
    frame, continuous in sign)."""
    target = rigs.new_empty("Target")
    target.rotation_mode = "QUATERNION"
    points = rigs.circle_points(rig, FRAMES, lambda f: 1.0 + 0.4 * math.sin(f / 3.0), lambda f: 0.2 * f)
    axis = Vector((0.3, -0.5, 0.8)).normalized()
    for f, p in zip(FRAMES, points, strict=True):
        target.location = p.tolist()
        half = 0.5 * 1.6 * 2 * math.pi * (f - 1) / (len(FRAMES) - 1)
        target.rotation_quaternion = Quaternion((math.cos(half), *(math.sin(half) * axis)))
        target.keyframe_insert("location", frame=f)
        target.keyframe_insert("rotation_quaternion", frame=f)
    return target


def quaternion_keys(obj: bpy.types.Object) -> np.ndarray:
    curves = [rigs.fcurve(obj, "rotation_quaternion", i) for i in range(4)]
    assert all(fc is not None for fc in curves)
    keys = [rigs.key_frames(fc) for fc in curves]  # type: ignore[arg-type]
    for k in keys:
        np.testing.assert_array_equal(k[:, 0], FRAMES)
    return np.stack([k[:, 1] for k in keys], axis=1)


@pytest.mark.parametrize("bone", ["", "Root"])
def test_quaternion_target_past_half_a_turn_keeps_continuous_keys_and_motion(empty_file: bpy.types.Scene,
                                                                             bone: str) -> None:
    rig = moving_rig()
    target = turning_target(rig)
    q0 = quaternion_keys(target)
    assert (np.sum(q0[1:] * q0[:-1], axis=1) > 0).all()
    assert (q0[:, 0] < 0).any(), "the target never turned past 180 degrees"
    before = rigs.world_matrices(target, FRAMES)

    chain = rigs.add_chain(rig, target)
    chain.target_space, chain.space_bone = "CHARACTER", bone
    assert bpy.ops.pose.soft_ik_fix_target_space() == {"FINISHED"}
    assert target.parent == rig.armature and target.rotation_mode == "QUATERNION"
    assert (target.parent_bone if target.parent_type == "BONE" else "") == bone

    q = quaternion_keys(target)
    dots = np.sum(q[1:] * q[:-1], axis=1)
    assert (dots > 0).all(), f"quaternion sign flips after frames {[FRAMES[i] for i in np.flatnonzero(dots <= 0)]}"
    after = rigs.world_matrices(target, FRAMES)
    np.testing.assert_allclose(after, before, atol=1e-5)
