"""The stepped sampler's frame loop (``rigging/sampling/stepping.py``) against playback, bit for bit: whole
frames, subframes, negative and unordered frames, non-finite frames in between, several matrices read a frame
(an object, a bone in world and armature space), in the temporary scene (``SCENE``) and the user's (``USER``)."""

from __future__ import annotations

import math

import bpy
import harness
import numpy as np
import pytest
import rigs

sampling = harness.package("rigging.sampling")

WHOLE = np.array([5.0, 1.0, -2.0, 17.0, 17.0, 40.0, 3.0])
MIXED = np.array([2.25, 10.5, math.nan, -3.75, 11.0, math.inf, 39.125, 7.0, -math.inf, 0.5])


def _driven_rig(scene: bpy.types.Scene) -> tuple[bpy.types.Object, str, bpy.types.Object]:
    """An armature keyed in location with a keyed bone, and an Empty turned by a driver reading another Empty's
    location in its own axes (Local Space: only Blender evaluates it, so every method steps it)."""
    scene.frame_start, scene.frame_end = 1, 40
    rig = rigs.build_arm(rest_bend_deg=20.0)
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
    source = bpy.data.objects.new("source", None)
    scene.collection.objects.link(source)
    source.keyframe_insert("location", frame=1)
    source.location.x = 0.8
    source.keyframe_insert("location", frame=40)
    carrier = bpy.data.objects.new("carrier", None)
    scene.collection.objects.link(carrier)
    driver = carrier.driver_add("rotation_euler", 1).driver
    var = driver.variables.new()
    var.type = "TRANSFORMS"
    var.targets[0].id = source
    var.targets[0].transform_type = "LOC_X"
    var.targets[0].transform_space = "LOCAL_SPACE"  # in its own axes: only Blender evaluates it
    driver.expression = f"0.05 * frame + {var.name}"
    return arm, bone.name, carrier


def _playback(scene: bpy.types.Scene, arm: bpy.types.Object, bone: str, carrier: bpy.types.Object,
              frames: np.ndarray) -> np.ndarray:
    """What Blender plays at each frame: the carrier's and the armature's world matrices, the bone's armature
    matrix and its world matrix (the float64 product of the two stored float32 matrices)."""
    truth = np.full((4, frames.size, 4, 4), np.nan)
    for f_i, frame in enumerate(frames.tolist()):
        if not math.isfinite(frame):
            continue
        whole = math.floor(frame)
        scene.frame_set(whole, subframe=frame - whole)
        world = np.array(arm.matrix_world, dtype=np.float64)
        pose = np.array(arm.pose.bones[bone].matrix, dtype=np.float64)
        truth[:, f_i] = np.array(carrier.matrix_world, dtype=np.float64), world @ pose, pose, world
    return truth


@pytest.mark.parametrize("frames", [WHOLE, MIXED], ids=["whole", "mixed"])
@pytest.mark.parametrize("method", ["SCENE", "USER", "AUTO"])
def test_stepped_frames_are_what_blender_plays(empty_file: bpy.types.Scene, frames: np.ndarray,
                                               method: str) -> None:
    arm, bone, carrier = _driven_rig(empty_file)
    assert "carrier" in sampling.stepped_objects(bpy.context, [(carrier, None)])
    requests = [(carrier, None), (arm, bone), (arm, bone, "ARMATURE"), (arm, None)]
    truth = _playback(empty_file, arm, bone, carrier, frames)
    empty_file.frame_set(9)
    got = sampling.sample_world_matrices(bpy.context, requests, frames, method=method)
    assert empty_file.frame_current == 9 and empty_file.frame_subframe == 0.0
    finite = np.isfinite(frames)
    # Stepped requests are Blender's stored values exactly, NaN where the frame is not finite; AUTO composes the
    # armature from its F-curves (only its keyed channels are NaN there, see test_sampling).
    stepped = slice(None) if method != "AUTO" else slice(0, 1)
    assert np.all(np.isnan(got[stepped][:, ~finite]))
    assert np.array_equal(got[stepped][:, finite], truth[stepped][:, finite])
    np.testing.assert_allclose(got[:, finite], truth[:, finite], atol=1e-5)


@pytest.mark.parametrize("method", ["SCENE", "USER"])
def test_several_stepped_bones_are_what_blender_plays(empty_file: bpy.types.Scene, method: str) -> None:
    """Several bones of one armature (read with one foreach_get of every bone a frame) in both spaces."""
    arm, _bone, carrier = _driven_rig(empty_file)
    names = [bone.name for bone in arm.pose.bones]
    assert len(names) >= 2
    requests = [(arm, name, kind) for name in reversed(names) for kind in ("WORLD", "ARMATURE")] + [(carrier, None)]
    got = sampling.sample_world_matrices(bpy.context, requests, MIXED, method=method)
    for f_i, frame in enumerate(MIXED.tolist()):
        if not math.isfinite(frame):
            assert np.all(np.isnan(got[:, f_i]))
            continue
        whole = math.floor(frame)
        empty_file.frame_set(whole, subframe=frame - whole)
        world = np.array(arm.matrix_world, dtype=np.float64)
        for r_i, (obj, name, kind) in enumerate(requests[:-1]):
            pose = np.array(obj.pose.bones[name].matrix, dtype=np.float64)
            assert np.array_equal(got[r_i, f_i], world @ pose if kind == "WORLD" else pose), (frame, name, kind)
        assert np.array_equal(got[-1, f_i], np.array(carrier.matrix_world, dtype=np.float64)), frame


def test_a_python_driver_reading_original_data_sees_the_stepped_frame(trusted_file: bpy.types.Scene) -> None:
    """A Python driver reading the original datablock (``bpy.data``) sees each frame's values only when the
    stepping depsgraph writes them back, as playback's active one does: such scenes keep the active depsgraph."""
    scene = trusted_file
    assert not bpy.app.autoexec_fail
    scene.frame_start, scene.frame_end = 1, 40
    carrier = bpy.data.objects.new("carrier", None)
    scene.collection.objects.link(carrier)
    carrier.keyframe_insert("location", index=0, frame=1)
    carrier.location.x = 4.0
    carrier.keyframe_insert("location", index=0, frame=40)
    driver = carrier.driver_add("rotation_euler", 1).driver
    driver.expression = 'bpy.data.objects["carrier"].location.x * 0.3'
    assert not driver.is_simple_expression
    truth = np.empty((WHOLE.size, 4, 4))
    for f_i, frame in enumerate(WHOLE.tolist()):
        scene.frame_set(int(frame))
        truth[f_i] = np.array(carrier.matrix_world, dtype=np.float64)
    assert driver.is_valid and np.ptp(np.arctan2(truth[:, 0, 2], truth[:, 0, 0])) > 0.5
    scene.frame_set(9)
    got = sampling.sample_world_matrices(bpy.context, [(carrier, None)], WHOLE, method="SCENE")[0]
    assert np.array_equal(got, truth)
