"""Pin Target (issue 15, part 2): the chain's target holds still in world space over a range while the character
moves, moves with its declared space again outside it, and eases back over the blend frames without a jump.
Truth is Blender's playback (``frame_set``, ``matrix_world``); Unpin gives back every key bit for bit.
"""

from __future__ import annotations

import math

import bpy
import harness
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 61))
START, END, BLEND = 18, 30, 5
TOL = 1e-6


def walking_rig(parent_kind: str, mode: str) -> tuple[rigs.ArmRig, bpy.types.Object]:
    """An arm whose armature walks and turns (keys every 4 frames, Bezier), with a CHARACTER target parented to
    the armature object or to its root bone, keyed sparsely (Bezier keys at 1, 14, 40, 57: the pin lands between
    keys, so the keys either side must keep their curve)."""
    rig = rigs.build_arm()
    obj = rig.armature
    obj.rotation_mode = "XYZ"
    for f in FRAMES[::4]:
        obj.location = (0.05 * f, 0.0, 0.01 * math.sin(f / 5.0))
        obj.rotation_euler = (0.0, 0.02 * math.sin(f / 7.0), 0.0)
        obj.keyframe_insert("location", frame=f)
        obj.keyframe_insert("rotation_euler", frame=f)
    bone = rig.parent if parent_kind == "BONE" else ""
    if bone:
        rigs.animate_parent(rig, FRAMES[::6], lambda f: 0.2 * math.sin(f / 9.0), lambda f: (0.01 * f, 0.0))
    target = rigs.new_empty("Foot", None if parent_kind == "NONE" else obj, bone or "")
    target.rotation_mode = mode
    for f, x in ((1, 0.9), (14, 1.3), (40, 0.7), (57, 1.1)):
        target.location = (x, 0.1 * x, 0.4 - 0.2 * x)
        target.rotation_euler = (0.1 * x, 0.3 * x, -0.2 * x)
        target.rotation_quaternion = (math.cos(0.3 * x), 0.0, math.sin(0.3 * x), 0.0)
        target.rotation_axis_angle = (0.6 * x, 0.0, 0.6, 0.8)
        target.keyframe_insert("location", frame=f)
        target.keyframe_insert(rigs.rotation_prop(mode)[0], frame=f)
    return rig, target


def world(target: bpy.types.Object, frames: list[int]) -> np.ndarray:
    return rigs.world_matrices(target, frames)


def all_keys(obj: bpy.types.Object) -> dict[tuple[str, int], dict[str, list[object]]]:
    read = harness.package("rigging.anim_keys").read_keys
    return {(fc.data_path, fc.array_index): {k: v.tolist() for k, v in read(fc).items()}
            for fc in harness.package("rigging.anim_keys").iter_fcurves(obj)}


def pin(rig: rigs.ArmRig, start: int = START, end: int = END, blend: int = BLEND) -> set[str]:
    rigs.enter_pose_mode(rig)
    return bpy.ops.pose.soft_ik_pin_target(frame_start=start, frame_end=end, blend_frames=blend)


@pytest.mark.parametrize(("parent_kind", "mode"), [("OBJECT", "QUATERNION"), ("BONE", "XYZ"), ("BONE", "QUATERNION"),
                                                   ("NONE", "AXIS_ANGLE")])
def test_pin_holds_world_and_keeps_everything_else(empty_file: bpy.types.Scene, parent_kind: str, mode: str) -> None:
    rig, target = walking_rig(parent_kind, mode)
    chain = rigs.add_chain(rig, target, target_space="WORLD" if parent_kind == "NONE" else "CHARACTER")
    if parent_kind == "BONE":
        chain.space_bone = rig.parent
    before = world(target, FRAMES)
    keys_before = all_keys(target)
    assert pin(rig) == {"FINISHED"}
    after = world(target, FRAMES)
    f = np.array(FRAMES)
    held = (f >= START) & (f <= END)
    # Held: the world transform of the first pinned frame, on every pinned frame (location and axes).
    assert np.abs(after[held] - before[FRAMES.index(START)]).max() <= TOL
    # The character did move there: without the pin the target would have travelled.
    assert np.linalg.norm(before[held][-1, :3, 3] - before[held][0, :3, 3]) > 0.1
    # Outside the range and its blend frames: exactly the old motion.
    free = (f < START) | (f > END + BLEND)
    assert np.abs(after[free] - before[free]).max() <= TOL
    # No jump at the start (the frame before moves to the first pinned frame as before) nor at the end: in the
    # blend the target eases from the held place to its own path, no step larger than the smooth blend gives.
    steps = np.linalg.norm(np.diff(after[:, :3, 3], axis=0), axis=1)
    own_steps = np.linalg.norm(np.diff(before[:, :3, 3], axis=0), axis=1)
    gap = np.linalg.norm(before[FRAMES.index(END + BLEND + 1), :3, 3] - before[FRAMES.index(START), :3, 3])
    blend_steps = steps[FRAMES.index(END):FRAMES.index(END + BLEND + 1)]
    assert blend_steps.max() <= 1.5 * gap / (BLEND + 1) + own_steps.max() + TOL
    assert steps[FRAMES.index(START) - 1] == pytest.approx(own_steps[FRAMES.index(START) - 1], abs=TOL)
    # Keys far from the pin are the user's, bit for bit (only frames between the neighbouring keys changed).
    span = (chain.pins[0].span_start, chain.pins[0].span_end)
    assert span[0] >= 14 and span[1] <= 40
    after_keys = all_keys(target)
    for channel, keys in keys_before.items():
        co = np.array(keys["co"])
        kept = (co[:, 0] < span[0]) | (co[:, 0] > span[1])
        new_co = np.array(after_keys[channel]["co"])
        assert np.array_equal(co[kept], new_co[(new_co[:, 0] < span[0]) | (new_co[:, 0] > span[1])]), channel
    # Unpin: every key back as it was, the motion too.
    assert bpy.ops.pose.soft_ik_unpin_target() == {"FINISHED"}
    assert all_keys(target) == keys_before
    assert np.abs(world(target, FRAMES) - before).max() == 0.0
    assert len(chain.pins) == 0


def test_pin_without_blend_jumps_back(empty_file: bpy.types.Scene) -> None:
    """The end of a pin with 0 blend frames is a jump (the check above would catch a missing blend)."""
    rig, target = walking_rig("OBJECT", "QUATERNION")
    rigs.add_chain(rig, target, target_space="CHARACTER")
    before = world(target, FRAMES)
    assert pin(rig, blend=0) == {"FINISHED"}
    after = world(target, FRAMES)
    i = FRAMES.index(END)
    gap = np.linalg.norm(before[i + 1, :3, 3] - before[FRAMES.index(START), :3, 3])
    assert np.linalg.norm(after[i + 1, :3, 3] - after[i, :3, 3]) == pytest.approx(gap, abs=1e-5)
    assert np.abs(after[i + 1:] - before[i + 1:]).max() <= TOL


def test_unkeyed_world_target_and_baked_tip(empty_file: bpy.types.Scene) -> None:
    """A target without keys, parented to the walking armature, pinned: F-curves are created only for the pin,
    the baked tip stays put on the pinned frames (played back), and Unpin removes every curve it made."""
    rig, _ = walking_rig("OBJECT", "QUATERNION")
    target = rigs.new_empty("Hand", rig.armature)
    target.location = (1.0, 0.0, 0.8)
    rigs.add_chain(rig, target, target_space="CHARACTER")
    before = world(target, FRAMES)
    assert pin(rig) == {"FINISHED"}
    assert rigs.bake(rig, 1, 60) == {"FINISHED"}
    ev = rigs.evaluate(rig, target, FRAMES)
    f = np.array(FRAMES)
    held = (f >= START) & (f <= END)
    tips = ev.tip_world[held]
    assert np.abs(tips - tips[0]).max() <= 1e-5
    assert np.abs(ev.target_world[held] - before[FRAMES.index(START), :3, 3]).max() <= TOL
    assert bpy.ops.pose.soft_ik_unpin_target() == {"FINISHED"}
    assert list(harness.package("rigging.anim_keys").iter_fcurves(target)) == []
    assert np.abs(world(target, FRAMES) - before).max() <= TOL


def test_refusals_leave_the_file_unchanged(empty_file: bpy.types.Scene) -> None:
    rig, target = walking_rig("OBJECT", "QUATERNION")
    rigs.add_chain(rig, target, target_space="CHARACTER")
    assert pin(rig) == {"FINISHED"}
    keys = all_keys(target)
    with pytest.raises(RuntimeError, match="already pinned"):
        pin(rig, start=END + 2, end=END + 8)  # inside the first pin's blend frames
    assert all_keys(target) == keys
    con = target.constraints.new("COPY_LOCATION")
    con.target = rig.armature
    with pytest.raises(RuntimeError, match="constraint"):
        pin(rig, start=45, end=50)
    assert all_keys(target) == keys
    target.constraints.remove(con)
    twin = rigs.new_empty("Twin")  # plays the target's action: pinning would move it too
    twin.animation_data_create()
    twin.animation_data.action = target.animation_data.action
    if harness.package("rigging.anim_keys").LAYERED_ACTIONS:
        twin.animation_data.action_slot = target.animation_data.action_slot
    with pytest.raises(RuntimeError, match="also played by 'Twin'"):
        pin(rig, start=45, end=50)
    assert all_keys(target) == keys
    assert len(rig.armature.soft_ik_2d.chains[0].pins) == 1


def test_unpin_order_and_pin_at_frame(empty_file: bpy.types.Scene) -> None:
    """Two pins between the same keys: the later one saved keys the first wrote, so the first cannot be unpinned
    before it; unpinning both in order restores the keys."""
    rig, target = walking_rig("OBJECT", "XYZ")
    rigs.add_chain(rig, target, target_space="CHARACTER")
    keys = all_keys(target)
    assert pin(rig, 16, 20, 2) == {"FINISHED"}
    assert pin(rig, 26, 32, 3) == {"FINISHED"}
    with pytest.raises(RuntimeError, match="unpin it first"):
        bpy.ops.pose.soft_ik_unpin_target(index=0)
    bpy.context.scene.frame_set(28)
    assert bpy.ops.pose.soft_ik_unpin_target() == {"FINISHED"}  # the pin under the current frame
    assert bpy.ops.pose.soft_ik_unpin_target(index=0) == {"FINISHED"}
    assert all_keys(target) == keys


def test_pure_pin_ranges() -> None:
    pinning = harness.package("solver.pinning")
    w = pinning.blend_weights(3)
    assert np.all(np.diff(w) > 0) and 0 < w[0] < 0.5 < w[-1] < 1
    frames, weights = pinning.held_weights(5, 7, 2)
    assert frames.tolist() == [5, 6, 7, 8, 9] and weights[:3].tolist() == [0, 0, 0]
    assert pinning.overlapping([(1, 4, 2)], (6, 9, 0)) == 0 and pinning.overlapping([(1, 4, 2)], (7, 9, 0)) is None
    assert pinning.pin_at([(1, 4, 2), (10, 12, 0)], 11) == 1 and pinning.pin_at([(1, 4, 2)], 7) is None
    bands = pinning.timeline_bands([(10, 12, 0)], np.array([2.0, 100.0]), 0.0, 5.0)
    assert bands.shape == (2, 3, 2) and bands[:, :, 0].min() == 119.0 and bands[:, :, 0].max() == 125.0


def test_pin_under_a_mirrored_character(empty_file: bpy.types.Scene) -> None:
    """A character turned round with a negative object scale: the pin still holds the world transform and
    leaves the rest of the motion alone (the blend interpolates mirrored matrices)."""
    rig, target = walking_rig("BONE", "QUATERNION")
    rig.armature.scale = (-1.2, 1.2, 1.2)
    chain = rigs.add_chain(rig, target, target_space="CHARACTER")
    chain.space_bone = rig.parent
    before = world(target, FRAMES)
    assert pin(rig) == {"FINISHED"}
    after = world(target, FRAMES)
    f = np.array(FRAMES)
    held = (f >= START) & (f <= END)
    assert np.abs(after[held] - before[FRAMES.index(START)]).max() <= TOL
    free = (f < START) | (f > END + BLEND)
    assert np.abs(after[free] - before[free]).max() <= TOL
    # In the blend the target keeps a proper mirrored frame (no flip of its axes half way).
    dets = np.linalg.det(after[:, :3, :3])
    assert np.all(np.sign(dets) == np.sign(np.linalg.det(before[:, :3, :3])))


def test_unpin_refused_after_reparenting(empty_file: bpy.types.Scene) -> None:
    """Fix Target Space (or any re-parenting) after a pin converts the keys to another parent: the saved keys
    would move the target elsewhere, so Unpin refuses by name and changes nothing."""
    rig, target = walking_rig("OBJECT", "QUATERNION")
    rigs.add_chain(rig, target, target_space="CHARACTER")
    assert pin(rig) == {"FINISHED"}
    chain = rig.armature.soft_ik_2d.chains[0]
    chain.target_space = "WORLD"
    assert bpy.ops.pose.soft_ik_fix_target_space() == {"FINISHED"}
    keys = all_keys(target)
    with pytest.raises(RuntimeError, match="re-parented"):
        bpy.ops.pose.soft_ik_unpin_target()
    assert all_keys(target) == keys and len(chain.pins) == 1


def test_pin_panel_icons_exist_in_this_blender() -> None:
    """draw() cannot run headless; a wrong icon name would raise there, so check the names here."""
    import re
    from pathlib import Path

    icons = set(bpy.types.UILayout.bl_rna.functions["label"].parameters["icon"].enum_items.keys())
    path = Path(harness.package("panels").__file__).parent / "pin_panel.py"
    used = set(re.findall(r'icon="([A-Z_0-9]+)"', path.read_text(encoding="utf-8")))
    assert used == {"PINNED", "UNPINNED"} and used <= icons
