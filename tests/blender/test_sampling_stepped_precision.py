"""The stepped path reads Blender's stored float32 matrices exactly and multiplies a bone's world matrix in float64
on every version (5.x's mathutils hands numpy float32 arrays: a product of those rounds to float32)."""

from __future__ import annotations

import bpy
import harness
import numpy as np
import rigs
from test_sampling import FRAMES

sampling = harness.package("rigging.sampling")


def test_stepped_bone_world_is_the_float64_product_of_the_stored_matrices(empty_file: bpy.types.Scene) -> None:
    empty_file.frame_start, empty_file.frame_end = 1, 40
    rig = rigs.build_arm(rest_bend_deg=20.0)
    rigs.place_armature(rig, scale=(1.5, 0.7, 1.2))
    arm = rig.armature
    arm.rotation_euler = (0.3, 0.1, 0.2)
    arm.keyframe_insert("location", frame=1)
    arm.location.x += 2.3
    arm.keyframe_insert("location", frame=40)
    bone = arm.pose.bones[-1]
    bone.rotation_mode = "XYZ"
    bone.keyframe_insert("rotation_euler", frame=1)
    bone.rotation_euler.y = 1.1
    bone.keyframe_insert("rotation_euler", frame=40)
    requests = [(arm, bone.name), (arm, bone.name, "ARMATURE"), (arm, None)]
    got = sampling.sample_world_matrices(bpy.context, requests, FRAMES, method="SCENE")
    for f_i, frame in enumerate(FRAMES.tolist()):
        empty_file.frame_set(int(frame))
        world = np.array(arm.matrix_world, dtype=np.float64)
        pose = np.array(bone.matrix, dtype=np.float64)
        assert np.array_equal(got[2, f_i], world), frame
        assert np.array_equal(got[1, f_i], pose), frame
        assert np.array_equal(got[0, f_i], world @ pose), frame
