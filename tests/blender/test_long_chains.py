"""Long chains in real Blender: a 6-bone tail and a 12-bone tentacle baked with CCD and FABRIK follow an
animated target; the truth is Blender's evaluated pose after ``frame_set`` compared with the target itself
(reachable path) and with the keyed error curve."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
from mathutils import Vector

FRAMES = (1, 40)


def build_chain(n_bones: int, length: float) -> bpy.types.Object:
    """A chain in the XZ plane along +X with a slight zig-zag (so the rest pose is not perfectly straight)."""
    data = bpy.data.armatures.new(f"Chain{n_bones}")
    arm = bpy.data.objects.new(f"Chain{n_bones}", data)
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    arm.location = (0.3, 0.0, -0.2)
    bpy.ops.object.mode_set(mode="EDIT")
    seg = length / n_bones
    head = Vector((0.0, 0.0, 0.0))
    parent = None
    for i in range(n_bones):
        angle = 0.08 * (1 if i % 2 else -1)
        tail = head + Vector((seg * math.cos(angle), 0.0, seg * math.sin(angle)))
        eb = data.edit_bones.new(f"B{i:02d}")
        eb.head, eb.tail = head, tail
        eb.align_roll(Vector((0.0, -1.0, 0.0)))
        if parent is not None:
            eb.parent = parent
            eb.use_connect = True
        parent, head = eb, tail
    bpy.ops.object.mode_set(mode="POSE")
    return arm


def keyed_target(path: list[tuple[float, float]]) -> bpy.types.Object:
    target = bpy.data.objects.new("Target", None)
    bpy.context.scene.collection.objects.link(target)
    start, end = FRAMES
    for i, (x, z) in enumerate(path):
        frame = start + round(i * (end - start) / (len(path) - 1))
        target.location = (x, 0.0, z)
        target.keyframe_insert("location", frame=frame)
    return target


@pytest.mark.parametrize(("n_bones", "solver_name"), [(6, "CCD"), (6, "FABRIK"), (12, "CCD"), (12, "FABRIK")])
def test_long_chain_bake_reaches_animated_target(empty_file: bpy.types.Scene, n_bones: int,
                                                 solver_name: str) -> None:
    scene = empty_file
    scene.frame_start, scene.frame_end = FRAMES
    length = 2.0
    arm = build_chain(n_bones, length)
    # A sweeping arc well inside the reach (root at (0.3, -0.2) in world).
    path = [(0.3 + 1.3 * math.cos(t), -0.2 + 1.3 * math.sin(t)) for t in np.linspace(-0.6, 1.4, 6)]
    target = keyed_target(path)
    arm.data.bones.active = arm.data.bones[f"B{n_bones - 1:02d}"]
    target.select_set(True)
    assert bpy.ops.pose.soft_ik_add_chain(chain_length=n_bones, name="Tail") == {"FINISHED"}
    chain = arm.soft_ik_2d.chains["Tail"]
    assert chain.upper_bone == "B00"
    chain.solver = solver_name
    chain.softness = 0.0
    assert bpy.ops.pose.soft_ik_bake() == {"FINISHED"}

    tip_bone = arm.pose.bones[f"B{n_bones - 1:02d}"]
    errors = []
    for frame in range(FRAMES[0], FRAMES[1] + 1):
        scene.frame_set(frame)
        tip = arm.matrix_world @ tip_bone.tail
        goal = target.matrix_world.translation
        errors.append((tip - goal).length)
        # Every joint stays in the armature's XZ plane.
        for pb in arm.pose.bones:
            assert abs((arm.matrix_world @ pb.head).y) < 1e-6 and abs((arm.matrix_world @ pb.tail).y) < 1e-6
        assert tip_bone["soft_ik_error"] == pytest.approx((tip - goal).length, abs=1e-4 * length)
    assert max(errors) < 1e-4 * length, f"largest tip error {max(errors):.3g}"
    assert chain.error_max < 1e-4 * length
