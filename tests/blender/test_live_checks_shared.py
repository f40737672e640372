"""Live preview in real Blender: the IK constraints of an armature are read once per update for all its chains.

``chain_checks.ik_reach`` is shared by the chains of one armature within one depsgraph update
(``live_solve.ArmatureReads``) and read again at the next update that touches the armature. Truth is Blender's
own pose: the tip of each chain's lower bone against its target, and the refusal the preview reports.
"""

from __future__ import annotations

import dataclasses

import bpy
import harness
import numpy as np
import rigs


def live_preview():  # type: ignore[no-untyped-def]
    return harness.package("rigging.live_preview")


def tip_miss(rig: rigs.ArmRig, bone: str, target: bpy.types.Object) -> float:
    """World distance of Blender's evaluated tail of ``bone`` from the target."""
    tail = np.array(rig.armature.matrix_world) @ np.append(np.array(rig.armature.pose.bones[bone].tail), 1.0)
    return float(np.linalg.norm(tail[:3] - np.array(target.matrix_world.translation)))


def test_ik_constraint_of_another_bone_is_read_per_update(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm(rest_bend_deg=20.0)
    arm = rig.armature
    # A second arm beside the first, whose lower bone a Hand's IK (chain of 2: Hand, Lower2) moves.
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    eb = arm.data.edit_bones
    shift = np.array(rig.point(0.0, -1.2)) - np.array(rig.point(0.0, 0.0))
    up2, low2 = eb.new("Upper2"), eb.new("Lower2")
    up2.head, up2.tail, up2.roll = np.array(eb["Upper"].head) + shift, np.array(eb["Upper"].tail) + shift, 0.3
    low2.head, low2.tail, low2.roll = np.array(eb["Lower"].head) + shift, np.array(eb["Lower"].tail) + shift, -0.7
    up2.parent, low2.parent, low2.use_connect = eb["Root"], up2, True
    hand = eb.new("Hand")
    hand.head, hand.tail = np.array(low2.tail), np.array(low2.tail) + shift * 0.2
    hand.parent, hand.use_connect = low2, True
    bpy.ops.object.mode_set(mode="OBJECT")
    rigs.place_armature(rig)
    bpy.context.view_layer.update()  # the pose bones' heads and tails of the new bones
    rig2 = dataclasses.replace(rig, upper="Upper2", lower="Lower2")
    pb = arm.pose.bones
    targets = []
    for r in (rig, rig2):
        target = rigs.new_empty(f"Target_{r.upper}")
        head = np.array(pb[r.upper].head)
        target.location = (np.array(arm.matrix_world) @ np.append(head + 1.2 * (np.array(pb[r.lower].tail) - head)
                                                                  / np.linalg.norm(np.array(pb[r.lower].tail) - head)
                                                                  * 1.0, 1.0))[:3].tolist()
        chain = rigs.add_chain(r, target)
        chain.softness = 0.0
        targets.append(target)
    goal = rigs.new_empty("HandGoal")
    goal.location = (np.array(arm.matrix_world) @ np.append(np.array(pb["Hand"].tail) + 0.3 * shift, 1.0))[:3].tolist()
    ik = pb["Hand"].constraints.new("IK")
    ik.target, ik.chain_count = goal, 2
    arm.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()
    lp = live_preview()
    first, second = arm.soft_ik_2d.chains

    u, v, _n = rigs.plane_axes(rig.plane)
    step = np.array(arm.matrix_world)[:3, :3] @ (0.01 * u + 0.01 * v)  # in the chains' plane

    def drag() -> None:
        for t in targets:
            t.location = (np.array(t.location) + step).tolist()
        bpy.context.view_layer.update()

    drag()
    # The Hand's IK moves Lower2 only: the second chain is refused, the first is posed by Blender on its target.
    assert "Hand" in (lp.preview_of(arm, second).message or "")
    assert lp.preview_of(arm, first).message is None
    assert tip_miss(rig, "Lower", targets[0]) < 1e-4

    ik.mute = True  # on the armature: the next update reads the constraints again
    bpy.context.view_layer.update()
    drag()
    assert lp.preview_of(arm, second).message is None
    assert tip_miss(rig2, "Lower2", targets[1]) < 1e-4
    assert tip_miss(rig, "Lower", targets[0]) < 1e-4

    ik.mute = False
    bpy.context.view_layer.update()
    drag()
    assert "Hand" in (lp.preview_of(arm, second).message or "")
    assert lp.preview_of(arm, first).message is None
    assert tip_miss(rig, "Lower", targets[0]) < 1e-4


def test_a_pose_scale_off_rest_in_one_axis_is_refused(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm(rest_bend_deg=20.0)
    rigs.place_armature(rig)
    target = rigs.new_empty("Target")
    bpy.context.view_layer.update()
    chain = rigs.add_chain(rig, target)
    rig.armature.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()
    lp = live_preview()
    assert lp.preview_of(rig.armature, chain).message is None
    rig.armature.pose.bones[rig.lower].scale = (1.0, 1.0, 1.25)  # one axis only: the largest offset counts
    bpy.context.view_layer.update()
    message = lp.preview_of(rig.armature, chain).message or ""
    assert "Lower" in message and "1.25" in message
    rig.armature.pose.bones[rig.lower].scale = (1.0, 1.0, 1.0)
    bpy.context.view_layer.update()
    assert lp.preview_of(rig.armature, chain).message is None
