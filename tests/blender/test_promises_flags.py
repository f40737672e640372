"""Flags: ``soft_ik_flags`` keys are constant-interpolated, so between frames (subframes, motion blur, a
retimed action) Blender evaluates an exact integer, the frame's own bit field, never a blend of two fields.
"""

from __future__ import annotations

import math

import bpy
import harness
import numpy as np
import rigs

FRAMES = list(range(1, 41))
SOFTNESS = 0.08


def test_flags_are_exact_integers_between_frames(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm(rest_bend_deg=25.0)
    rigs.place_armature(rig, scale=(1.4, 1.4, 1.4))
    # In and out of the soft band, and close enough on some frames for the elbow limit to act.
    target = rigs.circle_target(rig, FRAMES, lambda f: rig.length * (0.45 + 0.75 * (0.5 + 0.5 * math.sin(f / 2.5))),
                                lambda f: 0.1 * f)
    chain = rigs.add_chain(rig, target)
    chain.softness = SOFTNESS
    chain.use_elbow_limit, chain.elbow_min, chain.elbow_max = True, 0.0, math.radians(100.0)
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}

    path = rigs.bone_path(rig.lower, "soft_ik_flags")
    fc = rigs.fcurve(rig.armature, path)
    assert fc is not None
    assert {k.interpolation for k in fc.keyframe_points} == {"CONSTANT"}
    scene = bpy.context.scene
    pb = rig.armature.pose.bones[rig.lower]
    on_frames = []
    for f in FRAMES:
        scene.frame_set(f)
        on_frames.append(pb["soft_ik_flags"])
    on_frames_arr = np.array(on_frames, dtype=np.float64)
    assert len(set(on_frames)) >= 3, "the flags never changed: nothing to interpolate between"
    np.testing.assert_array_equal(on_frames_arr, np.round(on_frames_arr))
    # Played back between frames: the value of the frame before, exactly.
    for f, value in zip(FRAMES[:-1], on_frames[:-1], strict=True):
        for sub in (0.25, 0.5, 0.9):
            scene.frame_set(f, subframe=sub)
            assert pb["soft_ik_flags"] == value, (f, sub, pb["soft_ik_flags"], value)
            assert fc.evaluate(f + sub) == value
    # And the bits say what happened (plain geometry): softened exactly where the target is in the soft band.
    flag = harness.package("solver").IKFlag
    ev = rigs.evaluate(rig, target, FRAMES)
    reach = np.linalg.norm(ev.target_arm - ev.shoulder, axis=1)
    softened = (on_frames_arr.astype(int) & int(flag.SOFTENED)) != 0
    far = reach > rig.length * (1 - SOFTNESS) + 1e-6
    near = reach < rig.length * (1 - SOFTNESS) - 1e-6
    assert far.any() and near.any()
    assert softened[far].all() and not softened[near].any()
