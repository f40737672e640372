"""Joint limits on long chains (CCD, FABRIK) in a real bake, on a rest pose that is not straight: the first
bone turns within [Upper Min, Upper Max] of its rest direction, and every other joint's relative angle (segment
from the previous one, 0 = straight) stays within [Lower Min, Lower Max], on every frame Blender plays back.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import promises
import pytest
import rigs

FRAMES = list(range(1, 41))
N_BONES = 4
NORMAL = np.array([0.0, -1.0, 0.0])  # the XZ plane's normal (docs/design.md)
TOL = 2e-4
FIRST = (math.radians(-30.0), math.radians(25.0))
OTHERS = (math.radians(0.0), math.radians(30.0))


def bent_chain() -> bpy.types.Object:
    """Four bones in the XZ plane curling counter-clockwise, each disconnected with its head 0.08 off the
    previous bone's axis: the first segment (head to head) is not along the first bone."""
    data = bpy.data.armatures.new("Tail")
    arm = bpy.data.objects.new("Tail", data)
    bpy.context.scene.collection.objects.link(arm)
    rigs._select_only(arm)
    bpy.ops.object.mode_set(mode="EDIT")
    head = np.array([0.0, 0.0, 0.0])
    parent = None
    for i in range(N_BONES):
        angle = math.radians(-20.0 + 12.0 * i)
        direction = np.array([math.cos(angle), 0.0, math.sin(angle)])
        eb = data.edit_bones.new(f"B{i}")
        eb.head, eb.tail = head.tolist(), (head + 0.5 * direction).tolist()
        eb.roll = 0.2 * i
        eb.parent = parent
        side = np.cross(NORMAL, direction)
        parent, head = eb, head + 0.5 * direction + 0.08 * side
    bpy.ops.object.mode_set(mode="POSE")
    arm.soft_ik_2d.plane = "XZ"
    return arm


def played_back(arm: bpy.types.Object) -> tuple[np.ndarray, np.ndarray]:
    """(first bone's turn from rest, (N, n-1) relative joint angles) per frame, from the evaluated pose."""
    scene = bpy.context.scene
    rest_y = np.array(arm.data.bones["B0"].matrix_local)[:3, 1]
    first, others = [], []
    for f in FRAMES:
        scene.frame_set(f)
        pb = arm.pose.bones
        points = [np.array(pb[f"B{i}"].head) for i in range(N_BONES)] + [np.array(pb[f"B{N_BONES - 1}"].tail)]
        seg = np.diff(np.array(points), axis=0)
        first.append(promises.signed_angle(rest_y, np.array(pb["B0"].matrix)[:3, 1], NORMAL)[0])
        others.append(promises.signed_angle(seg[:-1], seg[1:], NORMAL))
    return np.array(first), np.array(others)


@pytest.mark.parametrize("strategy", ["ACCEPT", "MOVE_ROOT", "STRETCH"])
@pytest.mark.parametrize("solver_name", ["CCD", "FABRIK"])
def test_long_chain_angles_stay_within_the_limits(empty_file: bpy.types.Scene, solver_name: str,
                                                  strategy: str) -> None:
    arm = bent_chain()
    first_rest = promises.signed_angle(np.array(arm.data.bones["B0"].matrix_local)[:3, 1],
                                       np.array(arm.data.bones["B1"].head_local), NORMAL)[0]
    assert abs(first_rest) > math.radians(5.0)  # the first segment is not along the first bone
    target = rigs.new_empty("Target")
    for f in FRAMES:  # sweeping around the root, near and far
        t = -1.8 + 3.6 * (f - 1) / (len(FRAMES) - 1)
        r = 0.8 + 0.9 * (0.5 + 0.5 * math.sin(f / 2.0))
        target.location = (r * math.cos(t), 0.0, r * math.sin(t))
        target.keyframe_insert("location", frame=f)
    arm.data.bones.active = arm.data.bones[f"B{N_BONES - 1}"]
    target.select_set(True)
    assert bpy.ops.pose.soft_ik_add_chain(chain_length=N_BONES, name="Tail") == {"FINISHED"}
    chain = arm.soft_ik_2d.chains["Tail"]
    chain.solver, chain.softness = solver_name, 0.0
    chain.use_shoulder_limit, chain.shoulder_min, chain.shoulder_max = True, *FIRST
    chain.use_elbow_limit, chain.elbow_min, chain.elbow_max = True, *OTHERS
    chain.limit_strategy, chain.max_root_offset, chain.stretch_min, chain.stretch_max = strategy, 0.2, 0.8, 1.2
    assert bpy.ops.pose.soft_ik_bake(frame_start=FRAMES[0], frame_end=FRAMES[-1]) == {"FINISHED"}

    first, others = played_back(arm)
    bad = [(f, round(math.degrees(x), 2)) for f, x in zip(FRAMES, first, strict=True)
           if not FIRST[0] - TOL <= x <= FIRST[1] + TOL]
    assert not bad, f"first bone outside {FIRST} of its rest direction (frame, degrees): {bad[:6]}"
    for j in range(N_BONES - 1):
        bad = [(f, round(math.degrees(x), 2)) for f, x in zip(FRAMES, others[:, j], strict=True)
               if not OTHERS[0] - TOL <= x <= OTHERS[1] + TOL]
        assert not bad, f"joint {j + 1} outside {OTHERS} (frame, degrees): {bad[:6]}"
    if strategy != "ACCEPT":  # the strategy really acted (and the limits above held anyway)
        prop, rest = ("location", 0.0) if strategy == "MOVE_ROOT" else ("scale", 1.0)
        curves = [rigs.fcurve(arm, f'pose.bones["B0"].{prop}', i) for i in range(3)]
        assert all(fc is not None for fc in curves), f"{strategy} keyed no {prop}"
        assert max(abs(fc.evaluate(f) - rest) for fc in curves for f in FRAMES) > 1e-3  # type: ignore[union-attr]
    # The limits acted: the first joint reaches both of its bounds, and some later joints sit on a bound.
    assert (np.abs(first - FIRST[0]) < 1e-3).any() and (np.abs(first - FIRST[1]) < 1e-3).any()
    assert (np.abs(others[:, 1:] - OTHERS[1]) < 1e-3).any() or (np.abs(others[:, 1:] - OTHERS[0]) < 1e-3).any()
