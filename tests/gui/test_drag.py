"""Dragging the target with the mouse (G, mouse moves, click; Blender's event simulation) re-poses the arm
through Live Preview, and the final pose is the solver's: the tip on the target, bone lengths and bend side kept."""

from __future__ import annotations

import bpy
import numpy as np
import rigs
import scenes


def _bend_side(rig: rigs.ArmRig) -> float:
    s, e, t = (scenes.joint_world(rig, rig.upper), scenes.joint_world(rig, rig.lower), scenes.tip_world(rig))
    return float(np.sign(np.dot(np.cross(e - s, t - e), rig.armature.matrix_world.to_3x3() @ rigs.Vector(rig.normal))))


def _drag(g, target, dx: int, dy: int):  # type: ignore[no-untyped-def]
    """Grab ``target`` with G under the mouse, move it ``dx`` pixels left and ``dy`` up in ten steps, click.

    Returns (as the generator's value) the target's screen position before the drag."""
    region = g.region()
    x, y = g.project(target.matrix_world.translation)
    wx, wy = g.to_window(region, x, y)
    g.move(wx, wy)
    yield from g.wait(2)
    g.key("G")
    yield from g.wait(2)
    for i in range(1, 11):
        g.move(wx - dx * i // 10, wy + dy * i // 10)
        yield 0.05
    g.event("LEFTMOUSE", "PRESS")
    yield 0.05
    g.event("LEFTMOUSE", "RELEASE")
    yield from g.wait(6)  # the depsgraph re-evaluates a tick or two after the last event
    return x, y


def _solve_keeps_the_pose(g, rig: rigs.ArmRig):  # type: ignore[no-untyped-def]
    """The solver, asked directly at this frame, poses the armature exactly as the preview left it."""
    before = [np.array(pb.matrix) for pb in rig.armature.pose.bones]
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == rig.armature)
    bpy.context.view_layer.objects.active = rig.armature
    with g.override():
        assert bpy.ops.pose.soft_ik_solve() == {"FINISHED"}
    yield from g.wait(2)
    after = [np.array(pb.matrix) for pb in rig.armature.pose.bones]
    assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(before, after, strict=True))


def test_drag_target_reposes_arm(g):  # type: ignore[no-untyped-def]
    rig, target, chain = scenes.arm_with_chain(g, target_at=(1.4, 0.8))
    chain.softness = 0.0
    rig.armature.soft_ik_2d.live_preview = True
    with g.override():
        bpy.ops.object.mode_set(mode="OBJECT")
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == target)
    bpy.context.view_layer.objects.active = target
    yield from g.wait(4)
    side = _bend_side(rig)
    start_tip = scenes.tip_world(rig)
    assert np.allclose(start_tip, target.matrix_world.translation, atol=1e-4)
    lengths = [np.linalg.norm(scenes.joint_world(rig, b, "tail") - scenes.joint_world(rig, b))
               for b in (rig.upper, rig.lower)]

    dx, dy = 60, 45  # pixels: toward the shoulder and up, staying in reach
    x, y = yield from _drag(g, target, dx, dy)

    end = np.array(target.matrix_world.translation)
    moved_px = np.subtract(g.project(end), (x, y))
    assert np.allclose(moved_px, (-dx, dy), atol=3), f"the target moved {moved_px} px on screen, not {(-dx, dy)}"
    tip = scenes.tip_world(rig)
    assert np.linalg.norm(tip - start_tip) > 0.1, "the arm did not follow the target"
    assert np.allclose(tip, end, atol=1e-4), f"tip {tip} is not on the target {end}"
    new_lengths = [np.linalg.norm(scenes.joint_world(rig, b, "tail") - scenes.joint_world(rig, b))
                   for b in (rig.upper, rig.lower)]
    assert np.allclose(new_lengths, lengths, atol=1e-5)
    assert _bend_side(rig) == side, "the elbow flipped"
    yield from _solve_keeps_the_pose(g, rig)


def test_drag_reposes_a_hand_chain_under_the_arm(g):  # type: ignore[no-untyped-def]
    """A hand chain hangs from the arm's forearm: dragging the arm's target moves the hand with the arm, and
    the hand is solved on the arm's new pose within the same update (its panel error is the viewport's)."""
    rig, target, chain = scenes.arm_with_chain(g, target_at=(1.4, 0.8))
    chain.softness = 0.0
    with g.override():
        hand = rigs.add_hand(rig)
        hand_target = rigs.new_empty("HandTarget")
        hand_target.empty_display_size = 0.1
        hand_target.location = scenes.world(rig, 1.8, 0.3)
        rigs.add_chain(hand, hand_target).softness = 0.0
        bpy.ops.object.mode_set(mode="OBJECT")
    rig.armature.soft_ik_2d.live_preview = True
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == target)
    bpy.context.view_layer.objects.active = target
    yield from g.wait(4)

    def hand_miss() -> float:
        return float(np.linalg.norm(scenes.tip_world(hand) - np.array(hand_target.matrix_world.translation)))

    start_hand = scenes.tip_world(hand)
    yield from _drag(g, target, 50, 30)

    assert np.allclose(scenes.tip_world(rig), target.matrix_world.translation, atol=1e-4)
    assert np.linalg.norm(scenes.tip_world(hand) - start_hand) > 0.05, "the hand did not move with the arm"
    shown = float(rig.armature.pose.bones[hand.lower]["soft_ik_error"])
    assert abs(shown - hand_miss()) < 1e-4, (shown, hand_miss())
    yield from _solve_keeps_the_pose(g, rig)  # the hand too
