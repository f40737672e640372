"""An armature that shows its Rest Position (Armature Properties > Skeleton) is refused by name.

Blender then plays no pose: the chain's animated parent stands at rest and keys do not act. Before this check a
bake there finished with keys solved against the rest-posed parent, and once Pose Position was back the keyed
error was off the played-back miss by more than the chain's length (measured 1.34 L on this rig). The Bake,
Solve, Snap and Live Preview now name the armature and the setting and leave the file as it was; the other
armatures of a batch are baked, and their keyed error is what Blender plays back. A target, pole or armature
object hanging from a bone of an armature at rest stands where the bone rests: Bake and Solve refuse it, and
Fix Target Space and Pin Target, which keep a world motion measured now, refuse it too.
"""

from __future__ import annotations

import math

import bpy
import harness
import pytest
import rigs
import test_production_truth as truth
from test_pin import walking_rig
from test_target_space import prop_armature

WORDS = ["'Rig'", "Rest Position", "Pose Position", "Armature Properties > Skeleton"]


def _rest(rig: rigs.ArmRig) -> None:
    rig.armature.data.pose_position = "REST"
    bpy.context.view_layer.update()  # the snapshots compare the pose bones' evaluated matrices: at rest already


def test_bake_and_solve_refuse_the_rest_position(empty_file: bpy.types.Scene) -> None:
    rig, _chain, _target = truth.chain_rig()
    assert rigs.bake(rig, 5, 12) == {"FINISHED"}  # an earlier bake is in the file: its keys must survive
    _rest(rig)
    rigs.enter_pose_mode(rig)
    truth.assert_refused(WORDS, lambda: bpy.ops.pose.soft_ik_bake(frame_start=truth.START, frame_end=truth.END))
    # Into a new action, pushed to the NLA: the take it started goes again (the snapshot lists the actions).
    truth.assert_refused(WORDS, lambda: bpy.ops.pose.soft_ik_bake(frame_start=truth.START, frame_end=truth.END,
                                                                   to_new_action=True, push_to_nla=True))
    bpy.context.scene.frame_set(20)
    truth.assert_refused(WORDS, lambda: bpy.ops.pose.soft_ik_solve())
    truth.assert_refused(WORDS, lambda: bpy.ops.pose.soft_ik_solve(insert_keys=True))


def test_a_batch_bakes_the_other_armature_true(empty_file: bpy.types.Scene,
                                               capfd: pytest.CaptureFixture[str]) -> None:
    resting, _chain, _target = truth.chain_rig()
    other = rigs.build_arm("Other", shoulder=(0.4, 4.0))
    target = rigs.circle_target(other, truth.FRAMES, lambda f: 0.6 + 0.9 * (0.5 + 0.5 * math.sin(f / 4.0)),
                                lambda f: 0.3 * f, name="Other Target")
    rigs.add_chain(other, target).softness = 0.0
    _rest(resting)
    rigs.pose_mode_together([other.armature, resting.armature])
    before = {k: v for k, v in rigs.snapshot().items() if k.startswith("Rig")}
    capfd.readouterr()
    assert bpy.ops.pose.soft_ik_bake(frame_start=truth.START, frame_end=truth.END) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "1 of 2" in out and all(word in out for word in WORDS), out
    rigs.assert_same_snapshot(before, {k: v for k, v in rigs.snapshot().items() if k.startswith("Rig")})
    truth.assert_true(other, target)


def test_snap_refuses_the_rest_position(empty_file: bpy.types.Scene) -> None:
    rig, _chain, _target = truth.chain_rig()
    _rest(rig)
    rigs.enter_pose_mode(rig)
    bpy.context.scene.frame_set(10)
    truth.assert_refused(WORDS, lambda: bpy.ops.pose.soft_ik_snap_target(insert_keys=True))


def test_live_preview_says_so_and_resumes_in_pose_position(empty_file: bpy.types.Scene) -> None:
    rig, chain, target = truth.chain_rig()
    rigs.enter_pose_mode(rig)
    bpy.context.scene.frame_set(10)
    live_preview = harness.package("rigging.live_preview")
    rig.armature.soft_ik_2d.live_preview = True
    try:
        bpy.context.view_layer.update()
        assert live_preview.preview_of(rig.armature, chain).solution is not None
        shoulder = rig.armature.matrix_world @ rig.armature.pose.bones[rig.upper].head
        _rest(rig)
        bpy.context.view_layer.update()
        before = rigs.snapshot()
        # A drag while the armature is at rest (toward the shoulder: within reach): nothing is posed.
        target.location = target.location.lerp(shoulder, 0.1)
        bpy.context.view_layer.update()
        cached = live_preview.preview_of(rig.armature, chain)
        assert cached is not None and cached.solution is None
        for word in WORDS:
            assert word in cached.message, f"{word!r} missing from {cached.message!r}"
        after = rigs.snapshot()
        before.pop(f"{target.name}.matrix_basis"), after.pop(f"{target.name}.matrix_basis")
        rigs.assert_same_snapshot(before, after)
        rig.armature.data.pose_position = "POSE"
        bpy.context.view_layer.update()  # solved and posed in the update's handler
        bpy.context.view_layer.update()  # the pose evaluated
        cached = live_preview.preview_of(rig.armature, chain)
        assert cached is not None and cached.solution is not None and cached.message is None
        world = rig.armature.matrix_world
        tail = world @ rig.armature.pose.bones[rig.lower].tail
        assert (tail - target.matrix_world.translation).length < 1e-4 * rig.length
    finally:
        rig.armature.soft_ik_2d.live_preview = False


# --- another armature at rest: what hangs from its bones stands where they rest, not where they play ----------------


def _hang_from_handle(obj: bpy.types.Object, prop: bpy.types.Object) -> None:
    """``obj`` parented to bone 'Handle' of ``prop`` where it stands now (its world place kept)."""
    world = obj.matrix_world.copy()
    obj.parent, obj.parent_type, obj.parent_bone = prop, "BONE", "Handle"
    obj.matrix_world = world


@pytest.mark.parametrize("role", ["target", "pole"])
def test_a_target_or_pole_on_a_bone_at_rest_is_refused(empty_file: bpy.types.Scene, role: str) -> None:
    rig, chain, target = truth.chain_rig()
    prop = prop_armature()
    if role == "pole":
        chain.pole = rigs.new_empty("Pole")
        chain.pole.location = (0.5, -0.25, 4.0)
    hanging = target if role == "target" else chain.pole
    hanging.animation_data_clear()  # a parent's space: its world place is kept, not its world keys
    _hang_from_handle(hanging, prop)
    if role == "target":
        chain.target_space, chain.space_object, chain.space_bone = "OBJECT", prop, "Handle"
    prop.data.pose_position = "REST"
    bpy.context.view_layer.update()
    rigs.enter_pose_mode(rig)
    words = ["Chain 'Lower' of 'Rig'", f"{role} '{hanging.name}'", "bone 'Handle' of 'Prop'", "Rest Position",
             "set Pose Position on 'Prop'"]
    truth.assert_refused(words, lambda: bpy.ops.pose.soft_ik_bake(frame_start=truth.START, frame_end=truth.END))
    truth.assert_refused(words, lambda: bpy.ops.pose.soft_ik_solve())
    prop.data.pose_position = "POSE"  # the same setup in Pose Position bakes
    assert rigs.bake(rig, truth.START, truth.END) == {"FINISHED"}


def test_an_armature_on_a_bone_at_rest_is_refused(empty_file: bpy.types.Scene) -> None:
    rig, _chain, _target = truth.chain_rig()
    prop = prop_armature()
    _hang_from_handle(rig.armature, prop)
    prop.data.pose_position = "REST"
    bpy.context.view_layer.update()
    rigs.enter_pose_mode(rig)
    words = ["'Rig' follows bone 'Handle' of 'Prop'", "Rest Position", "set Pose Position on 'Prop'"]
    truth.assert_refused(words, lambda: bpy.ops.pose.soft_ik_bake(frame_start=truth.START, frame_end=truth.END))


def test_fix_target_space_refuses_a_space_bone_at_rest(empty_file: bpy.types.Scene) -> None:
    rig, chain, _target = truth.chain_rig()
    prop = prop_armature()
    chain.target_space, chain.space_object, chain.space_bone = "OBJECT", prop, "Handle"
    prop.data.pose_position = "REST"
    bpy.context.view_layer.update()
    rigs.enter_pose_mode(rig)
    words = ["Chain 'Lower' of 'Rig'", "space 'Prop'", "bone 'Handle' of 'Prop'", "Rest Position"]
    truth.assert_refused(words, lambda: bpy.ops.pose.soft_ik_fix_target_space())
    prop.data.pose_position = "POSE"
    assert bpy.ops.pose.soft_ik_fix_target_space() == {"FINISHED"}


def test_pin_refuses_a_target_on_a_bone_at_rest(empty_file: bpy.types.Scene) -> None:
    rig, target = walking_rig("BONE", "XYZ")  # the target hangs from the arm's root bone
    rigs.add_chain(rig, target, target_space="CHARACTER").space_bone = rig.parent
    _rest(rig)
    rigs.enter_pose_mode(rig)
    words = ["'Foot' follows bone 'Root' of 'Rig'", "Rest Position", "set Pose Position on 'Rig'"]
    truth.assert_refused(words, lambda: bpy.ops.pose.soft_ik_pin_target(frame_start=20, frame_end=30))
    rig.armature.data.pose_position = "POSE"
    assert bpy.ops.pose.soft_ik_pin_target(frame_start=20, frame_end=30) == {"FINISHED"}


def test_live_preview_poses_to_a_target_on_a_bone_at_rest_as_shown(empty_file: bpy.types.Scene) -> None:
    """No key is written, so the preview reaches the target where it stands (the bake refuses it)."""
    rig, chain, target = truth.chain_rig()
    prop = prop_armature()
    target.animation_data_clear()
    target.location = (0.9, -0.25, 2.6)
    _hang_from_handle(target, prop)
    chain.target_space, chain.space_object, chain.space_bone = "OBJECT", prop, "Handle"
    prop.data.pose_position = "REST"
    rigs.enter_pose_mode(rig)
    bpy.context.scene.frame_set(10)
    before = {k: v for k, v in rigs.snapshot().items() if ":" in k}  # every key
    rig.armature.soft_ik_2d.live_preview = True
    try:
        bpy.context.view_layer.update()
        bpy.context.view_layer.update()
        cached = harness.package("rigging.live_preview").preview_of(rig.armature, chain)
        assert cached is not None and cached.message is None and cached.solution is not None
        tail = rig.armature.matrix_world @ rig.armature.pose.bones[rig.lower].tail
        assert (tail - target.matrix_world.translation).length == pytest.approx(float(cached.solution.error[0]),
                                                                                abs=1e-4 * rig.length)
    finally:
        rig.armature.soft_ik_2d.live_preview = False
    assert {k: v for k, v in rigs.snapshot().items() if ":" in k} == before
