"""Scenes the GUI tests share: the test arm (tests/blender/rigs.py) in front view with a chain."""

from __future__ import annotations

import bpy
import harness
import numpy as np
import rigs
from mathutils import Vector


def world(rig: rigs.ArmRig, x: float, y: float) -> Vector:
    """World point of the rig's drawing plane at screen coordinates (x, y)."""
    return rig.armature.matrix_world @ Vector(rig.point(x, y))


def arm_with_chain(g, target_at: tuple[float, float] = (1.6, 0.9), **chain_props: object):  # type: ignore[no-untyped-def]
    """An empty scene with the two-bone arm (front view, XZ plane) and a chain reaching for an Empty; the
    viewport looks at the arm's reach. Returns (rig, target, chain)."""
    g.reset_scene()
    with g.override():
        rig = rigs.build_arm()
        target = rigs.new_empty("Target")
        target.empty_display_size = 0.15
        target.location = world(rig, *target_at)
        chain = rigs.add_chain(rig, target, **chain_props)
    shoulder = world(rig, 0.4, 1.5)
    g.front_view(tuple(shoulder), distance=5.0)
    return rig, target, chain


def tip_world(rig: rigs.ArmRig) -> np.ndarray:
    """The lower bone's tail in world space, from the pose Blender evaluated."""
    return np.array(rig.armature.matrix_world @ rig.armature.pose.bones[rig.lower].tail)


def joint_world(rig: rigs.ArmRig, bone: str, end: str = "head") -> np.ndarray:
    return np.array(rig.armature.matrix_world @ getattr(rig.armature.pose.bones[bone], end))


def fcurve_keys() -> dict[tuple[str, str, int], list[tuple[float, ...]]]:
    """Every key of every object's action: (object, data path, index) -> [(frame, value, handles...)]."""
    anim_keys = harness.package("rigging.anim_keys")
    out: dict[tuple[str, str, int], list[tuple[float, ...]]] = {}
    for obj in bpy.data.objects:
        for fc in anim_keys.iter_fcurves(obj):
            out[(obj.name, fc.data_path, fc.array_index)] = [
                (*kp.co, *kp.handle_left, *kp.handle_right) for kp in fc.keyframe_points]
    return out
