"""Which action a bake writes into and what Clear removes (issue 9, setups 4, 8 and 9).

Snapshots read every F-curve of every action (and slot) in the file, key by key with every attribute; truth
for NLA is Blender's playback: ``frame_set``, the evaluated tail against the target, and the ``soft_ik_error``
Blender evaluates from the keys at that frame.
"""

from __future__ import annotations

import math

import bpy
import harness
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 61))
LAYERED = "layers" in bpy.types.Action.bl_rna.properties


def action_curves(action: bpy.types.Action) -> list[tuple[str, bpy.types.FCurve]]:
    """Every F-curve of ``action`` with the slot it animates ('' for legacy actions)."""
    if not LAYERED:
        return [("", fc) for fc in action.fcurves]
    out = []
    for layer in action.layers:
        for strip in layer.strips:
            for bag in strip.channelbags:
                out += [(bag.slot.identifier, fc) for fc in bag.fcurves]
    return out


def all_actions() -> dict[tuple[str, str, str, int], dict[str, list[object]]]:
    anim_keys = harness.package("rigging.anim_keys")
    return {(action.name, slot, fc.data_path, fc.array_index):
            {k: v.tolist() for k, v in anim_keys.read_keys(fc).items()}
            for action in bpy.data.actions for slot, fc in action_curves(action)}


Curves = dict[tuple[str, str, str, int], object]


def assert_same(before: Curves, after: Curves) -> None:
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"{len(changed)} curve(s) differ, e.g. {changed[:4]}"


def moving_rig(name: str = "Rig") -> rigs.ArmRig:
    rig = rigs.build_arm(name)
    rigs.animate_parent(rig, FRAMES, lambda f: 0.5 * math.sin(f / 6.0), lambda f: (0.01 * f, -0.01 * f))
    return rig


def user_key(rig: rigs.ArmRig, frame: int, angle: float = 0.3) -> None:
    """A key of the user's on a channel the bake owns, outside the baked ranges, with a styled handle."""
    pb = rig.armature.pose.bones[rig.upper]
    pb.rotation_quaternion = (math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0)
    pb.keyframe_insert("rotation_quaternion", frame=frame)
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "rotation_quaternion"), 2)
    fc.keyframe_points[-1].interpolation = "BOUNCE"
    fc.keyframe_points[-1].handle_left_type = "VECTOR"


def setup(name: str = "Rig") -> tuple[rigs.ArmRig, bpy.types.Object, bpy.types.PropertyGroup]:
    rig = moving_rig(name)
    user_key(rig, 200)
    target = rigs.circle_target(rig, FRAMES, lambda f: 0.6 + 1.4 * (0.5 + 0.5 * math.sin(f / 4.0)),
                                lambda f: 0.2 * f, name=f"{name}Target")
    chain = rigs.add_chain(rig, target)
    return rig, target, chain


def clear(**props: object) -> set[str]:
    return bpy.ops.pose.soft_ik_clear_bake(**props)


def save_and_reopen(path: str, armature: str = "Rig") -> bpy.types.Object:
    """Save the file to ``path``, open it again (the add-on still enabled) and make ``armature`` active and
    selected; returns it."""
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.wm.open_mainfile(filepath=path) == {"FINISHED"}
    assert harness.is_enabled()
    arm = bpy.data.objects[armature]
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    return arm


def assert_refused(words: list[str], start: int, end: int, rig: rigs.ArmRig) -> None:
    """The bake raises (an ERROR report) naming every word, and nothing in the file changes."""
    scene = bpy.context.scene
    scene.frame_set(scene.frame_current)  # the snapshot reads the pose Blender shows after a change
    before = rigs.snapshot()
    with pytest.raises(RuntimeError) as info:
        rigs.bake(rig, start, end)
    for word in words:
        assert word in str(info.value)
    rigs.assert_same_snapshot(before, rigs.snapshot())


def test_overlapping_and_adjacent_bakes_then_clear_restore_every_action(empty_file: bpy.types.Scene) -> None:
    rig, _target, chain = setup()
    other = bpy.data.actions.new("Unrelated")
    other.use_fake_user = True
    before = all_actions()

    assert rigs.bake(rig, 1, 20) == {"FINISHED"}
    chain.limit_strategy = "STRETCH"  # a second set of channels (scale) on part of the frames
    chain.use_elbow_limit, chain.elbow_max = True, math.radians(60.0)
    assert rigs.bake(rig, 15, 30) == {"FINISHED"}
    chain.limit_strategy = "ACCEPT"
    assert rigs.bake(rig, 31, 40) == {"FINISHED"}
    assert rigs.bake(rig, 50, 55) == {"FINISHED"}
    baked = all_actions()
    scale = rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "scale"), 0)
    assert scale is not None
    keys = rigs.key_frames(scale)
    stretched = keys[(keys[:, 0] >= 15) & (keys[:, 0] <= 30)]
    assert (stretched[:, 1] != 1.0).any(), "the Stretch bake stretched"
    # Outside its range the scale stays at rest: pinned on frame 14 (the first bake's frames keep their pose) and
    # held at rest by the later Accept bakes (the channel a bake of the chain once wrote; the last one pins the
    # frame before its range, which the earlier bakes' frames play through).
    assert set(keys[:, 0]) - set(range(15, 31)) <= {14.0, 31.0, 40.0, 49.0, 50.0, 55.0}
    assert all(scale.evaluate(f) == 1.0 for f in [*range(1, 15), *range(31, 56)])
    quat = rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, "rotation_quaternion"), 0)
    frames = set(rigs.key_frames(quat)[:, 0])
    # Range ends are always keyed: the first bake keeps its keys before the second's range.
    assert {1, 15, 30, 31, 40, 50, 55} <= frames, "every bake keeps its keys, not only the last range"
    assert baked != before

    assert clear() == {"FINISHED"}
    assert_same(before, all_actions())
    assert not chain.has_bake
    assert clear() == {"CANCELLED"}


def test_keys_inserted_by_solve_are_cleared_with_the_bakes(empty_file: bpy.types.Scene) -> None:
    rig, _target, _chain = setup()
    before = all_actions()
    assert rigs.bake(rig, 1, 10) == {"FINISHED"}
    bpy.context.scene.frame_set(25)
    assert bpy.ops.pose.soft_ik_solve(insert_keys=True) == {"FINISHED"}
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, "rotation_quaternion"), 0)
    assert 25.0 in set(rigs.key_frames(fc)[:, 0])
    assert clear() == {"FINISHED"}
    assert_same(before, all_actions())


def test_clear_keeps_a_key_the_user_edited(empty_file: bpy.types.Scene) -> None:
    rig, _target, _chain = setup()
    before = all_actions()
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, "rotation_quaternion"), 0)
    edited = next(k for k in fc.keyframe_points if k.co[0] == 10)
    edited.co[1] += 0.25
    edited.handle_left[1] += 0.25
    edited.handle_right[1] += 0.25
    edited_co = tuple(edited.co)

    assert clear() == {"FINISHED"}
    after = all_actions()
    path = rigs.bone_path(rig.lower, "rotation_quaternion")
    key = next(k for k in after if k[2] == path and k[3] == 0)
    assert after.pop(key)["co"] == [list(np.float32(edited_co))], "only the user's edited key stays"
    assert_same(before, after)


def test_keys_rewritten_after_the_bake_are_cleared_too(empty_file: bpy.types.Scene) -> None:
    """A pass after write_solution (e.g. re-keying the measured error) goes through bake.rekey_channel."""
    rig, _target, chain = setup()
    before = all_actions()
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    bake = harness.package("rigging.bake")
    (prepared,) = bake.prepare(rig.armature, [chain])
    frames = np.arange(5, 16, dtype=np.float64)
    bake.rekey_channel(prepared, rig.lower, "soft_ik_error", 0, frames, 0.01 * frames, 5, 15)
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, "soft_ik_error"))
    assert fc.evaluate(10.0) == pytest.approx(0.1)
    assert clear() == {"FINISHED"}
    assert_same(before, all_actions())


def forget_hidden_properties(rig: rigs.ArmRig, chain: bpy.types.PropertyGroup) -> None:
    """What reopening a library override does: the chain's uid and the bones' tags are gone."""
    for key in [k for k in chain.keys() if k.startswith("_soft_ik_2d")]:
        del chain[key]
    for pb in rig.armature.pose.bones:
        if "_soft_ik_2d_bone" in pb:
            del pb["_soft_ik_2d_bone"]


def test_a_chain_that_lost_its_hidden_properties_still_clears(empty_file: bpy.types.Scene) -> None:
    """Blender drops add-on ID properties of a library override on reopening (the chain's uid, the bone tags);
    the records on the action are found by chain and armature name, and a re-bake adds to them."""
    rig, _target, chain = setup()
    before = all_actions()
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    forget_hidden_properties(rig, chain)
    assert rigs.bake(rig, 20, 40) == {"FINISHED"}
    assert clear() == {"FINISHED"}
    assert_same(before, all_actions())


def test_clear_leaves_another_assigned_action_alone(empty_file: bpy.types.Scene) -> None:
    rig, _target, chain = setup()
    arm = rig.armature
    before = all_actions()
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    baked_action = arm.animation_data.action
    baked = all_actions()

    # The animator switches to another action with keys of its own on the chain's channels.
    arm.animation_data.action = None
    pb = arm.pose.bones[rig.upper]
    for f in (1, 10, 30):
        pb.rotation_quaternion = (math.cos(0.05 * f), math.sin(0.05 * f), 0.0, 0.0)
        pb.keyframe_insert("rotation_quaternion", frame=f)
    other = arm.animation_data.action
    assert other is not None and other != baked_action
    switched = all_actions()

    rigs.enter_pose_mode(rig)
    assert clear() == {"CANCELLED"}  # the bake's action is not assigned: nothing changes anywhere
    assert_same(switched, all_actions())
    assert chain.has_bake, "the bake record is kept while its keys remain"

    arm.animation_data.action = baked_action
    if LAYERED:
        arm.animation_data.action_slot = baked_action.slots[0]
    assert clear() == {"FINISHED"}
    after = all_actions()
    assert {k: v for k, v in after.items() if k[0] == other.name} == \
        {k: v for k, v in switched.items() if k[0] == other.name}
    assert_same(before, {k: v for k, v in after.items() if k[0] != other.name})
    assert baked != before


@pytest.mark.parametrize("rebake", [False, True])
def test_clear_follows_renamed_bones(empty_file: bpy.types.Scene, rebake: bool) -> None:
    rig, _target, chain = setup()
    before = all_actions()
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    bones = rig.armature.data.bones
    bones[rig.upper].name, bones[rig.lower].name = "Arm.Up", "Arm.Lo"
    if rebake:
        # The chain follows the rename: a second bake writes on the renamed bones and overlaps the first.
        assert rigs.bake(rig, 20, 40) == {"FINISHED"}
        assert (chain.upper_bone, chain.lower_bone) == ("Arm.Up", "Arm.Lo")
    assert clear() == {"FINISHED"}
    assert (chain.upper_bone, chain.lower_bone) == ("Arm.Up", "Arm.Lo")
    bones["Arm.Up"].name, bones["Arm.Lo"].name = rig.upper, rig.lower  # Blender renames the paths back
    assert_same(before, all_actions())


def test_duplicated_bones_do_not_take_the_chain_s_keys(empty_file: bpy.types.Scene) -> None:
    """Duplicating bones copies their hidden tags; the chain keeps its own bones through a re-bake and a rename."""
    rig, _target, chain = setup()
    before = all_actions()
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    bpy.ops.object.mode_set(mode="EDIT")
    for eb in rig.armature.data.edit_bones:
        eb.select = eb.select_head = eb.select_tail = eb.name in (rig.upper, rig.lower)
    bpy.ops.armature.duplicate()
    bpy.ops.object.mode_set(mode="POSE")
    assert {f"{rig.upper}.001", f"{rig.lower}.001"} <= set(rig.armature.pose.bones.keys())
    assert rigs.bake(rig, 20, 40) == {"FINISHED"}
    bones = rig.armature.data.bones
    bones[rig.upper].name, bones[rig.lower].name = "Arm.Up", "Arm.Lo"
    assert clear() == {"FINISHED"}
    assert (chain.upper_bone, chain.lower_bone) == ("Arm.Up", "Arm.Lo")
    bones["Arm.Up"].name, bones["Arm.Lo"].name = rig.upper, rig.lower
    assert_same(before, all_actions())


def test_shared_action_is_refused_and_the_other_rig_keeps_its_animation(empty_file: bpy.types.Scene) -> None:
    rig, target, _chain = setup()
    twin = rigs.build_arm("Twin")
    action = rig.armature.animation_data.action
    twin.armature.animation_data_create().action = action
    if LAYERED:
        twin.armature.animation_data.action_slot = rig.armature.animation_data.action_slot
    frames = [1, 10, 20, 30]
    twin_before = rigs.evaluate(twin, target, frames)
    assert_refused([f"'{action.name}'", "'Twin'", "own copy"], 1, 30, rig)
    twin_after = rigs.evaluate(twin, target, frames)
    np.testing.assert_array_equal(twin_after.tip, twin_before.tip)
    np.testing.assert_array_equal(twin_after.elbow, twin_before.elbow)

    # A fake user alone is not sharing.
    twin.armature.animation_data.action = None
    action.use_fake_user = True
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}


@pytest.mark.skipif(not LAYERED, reason="slots exist on 4.4+ only")
def test_another_slot_of_the_same_action_is_not_shared(empty_file: bpy.types.Scene) -> None:
    rig, target, _chain = setup()
    twin = rigs.build_arm("Twin")
    action = rig.armature.animation_data.action
    anim = twin.armature.animation_data_create()
    anim.action = action
    if anim.action_slot is None:
        anim.action_slot = action.slots.new("OBJECT", "Twin")
    assert anim.action_slot != rig.armature.animation_data.action_slot
    pb = twin.armature.pose.bones["Upper"]
    for f, angle in ((1, 0.0), (30, 0.8)):
        pb.rotation_quaternion = (math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0)
        pb.keyframe_insert("rotation_quaternion", frame=f)
    frames = [1, 10, 20, 30]
    twin_before = rigs.evaluate(twin, target, frames)
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    twin_after = rigs.evaluate(twin, target, frames)
    np.testing.assert_array_equal(twin_after.tip, twin_before.tip)


def test_time_remapping_is_refused(empty_file: bpy.types.Scene) -> None:
    rig, _target, _chain = setup()
    empty_file.render.frame_map_old, empty_file.render.frame_map_new = 100, 200
    assert_refused(["'Scene'", "Time Stretching", "Old 100, New 200"], 1, 30, rig)


# --- NLA ------------------------------------------------------------------------------------------------------

STRIP_START, SCALE, REPEAT = 12.0, 1.5, 2.0
ACTION_RANGE = (1.0, 21.0)  # 20 action frames -> one repeat is 30 scene frames: 12-41, then 42-71
REPEAT_FRAMES = list(range(12, 42))


def nla_rig() -> tuple[rigs.ArmRig, bpy.types.Object, bpy.types.NlaStrip]:
    """Body motion in a strip on the lower track, the arm's action in a strip above (offset, scale, repeat),
    tweaked. The target moves in scene time, unreachable on some frames so the error is not always 0."""
    rig = rigs.build_arm()
    arm = rig.armature
    rigs.animate_parent(rig, range(1, 101, 3), lambda f: 0.4 * math.sin(f / 9.0), lambda f: (0.004 * f, 0.0))
    body = arm.animation_data.action
    arm.animation_data.action = None
    pb = arm.pose.bones[rig.upper]
    for f in ACTION_RANGE:
        pb.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
        pb.keyframe_insert("rotation_quaternion", frame=f)
    arm_action = arm.animation_data.action
    arm.animation_data.action = None
    anim = arm.animation_data
    low = anim.nla_tracks.new()
    low.strips.new("Body", 1, body)
    high = anim.nla_tracks.new()
    strip = high.strips.new("Arm", int(STRIP_START), arm_action)
    strip.name = "Arm"  # 4.5 names a new strip after its action
    strip.action_frame_start, strip.action_frame_end = ACTION_RANGE
    strip.scale, strip.repeat = SCALE, REPEAT
    strip.frame_start = STRIP_START
    target = rigs.circle_target(rig, list(range(1, 101)), lambda f: 0.8 + 1.2 * (0.5 + 0.5 * math.sin(f / 5.0)),
                                lambda f: 0.15 * f)
    rigs.add_chain(rig, target)
    rigs.tweak(anim, high, strip)
    return rig, target, strip


@pytest.mark.parametrize("repeat", [0, 1], ids=["first repeat", "second repeat"])
def test_nla_tweak_mode_keys_land_in_strip_time(empty_file: bpy.types.Scene, repeat: int) -> None:
    """One repeat of the strip is baked (the keys then play in every repeat); truth is the playback of it."""
    rig, target, strip = nla_rig()
    assert (strip.frame_start, strip.frame_end) == (STRIP_START, STRIP_START + 20 * SCALE * REPEAT)
    baked = [f + 30 * repeat for f in REPEAT_FRAMES]
    assert rigs.bake(rig, baked[0], baked[-1]) == {"FINISHED"}

    scene = bpy.context.scene
    world_length = rig.length * rig.world_scale
    lower = rig.armature.pose.bones[rig.lower]
    ev = rigs.evaluate(rig, target, baked)
    miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
    # In tweak mode Blender does not write animated custom properties back to the pose bone: the error curve
    # is read at the strip time Blender maps each scene frame to.
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, "soft_ik_error"))
    anim = rig.armature.animation_data
    # (Blender's own inverse mapping does not wrap repeats: map the frame's place in the first repeat.)
    keyed = [fc.evaluate(anim.nla_tweak_strip_time_to_scene(f - 30 * repeat, invert=True)) for f in baked]
    np.testing.assert_allclose(keyed, miss, atol=1e-4 * world_length)
    assert miss.max() > 0.05 * world_length, "the test needs unreachable frames"
    # Reachable frames are reached: the pose is the solver's, not the rest pose the strip held before.
    d = np.linalg.norm(ev.target_world - np.einsum("nij,nj->ni", ev.world[:, :3, :3], ev.shoulder)
                       - ev.world[:, :3, 3], axis=1)
    reachable = d < 0.9 * world_length
    assert reachable.sum() > 5 and miss[reachable].max() < 1e-4 * world_length
    # The keys are in the action's own time, inside the action's range.
    frames = rigs.key_frames(fc)[:, 0]
    assert frames.min() >= ACTION_RANGE[0] and frames.max() <= ACTION_RANGE[1]

    # Out of tweak mode the strip plays the same keys in every repeat.
    anim.use_tweak_mode = False
    after = rigs.evaluate(rig, target, baked)
    np.testing.assert_allclose(after.tip_world, ev.tip_world, atol=1e-6 * world_length)
    played = []
    for f in baked:
        scene.frame_set(f)
        played.append(float(lower["soft_ik_error"]))
    np.testing.assert_allclose(played, miss, atol=1e-4 * world_length)
    def rotations(frames: list[int]) -> np.ndarray:
        out = []
        for f in frames:
            scene.frame_set(f)
            out.append([tuple(rig.armature.pose.bones[b].rotation_quaternion) for b in (rig.upper, rig.lower)])
        return np.array(out)

    np.testing.assert_allclose(rotations([f + 30 for f in REPEAT_FRAMES]), rotations(REPEAT_FRAMES), atol=1e-6)


@pytest.mark.parametrize("start, end, words", [(12, 50, ["more than one repeat", "12-41"]),
                                              (1, 30, ["beyond NLA strip", "12-72"])],
                         ids=["two repeats", "before the strip"])
def test_nla_tweak_mode_refuses_frames_it_cannot_key(empty_file: bpy.types.Scene, start: int, end: int,
                                                     words: list[str]) -> None:
    rig, _target, _strip = nla_rig()
    assert_refused(["'Arm'", "'Rig'", *words], start, end, rig)


def test_nla_tweak_mode_refuses_a_blending_strip(empty_file: bpy.types.Scene) -> None:
    rig, _target, strip = nla_rig()
    strip.blend_type = "ADD"
    assert_refused(["'Arm'", "'Rig'", "Replace"], 12, 41, rig)


def test_a_blended_active_action_is_refused(empty_file: bpy.types.Scene) -> None:
    rig, _target, _chain = setup()
    rig.armature.animation_data.action_influence = 0.5
    assert_refused(["'RigAction'", "'Rig'", "Influence 0.5"], 1, 30, rig)


def test_clear_keeps_the_keys_of_an_action_that_became_shared(empty_file: bpy.types.Scene) -> None:
    rig, target, _chain = setup()
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    twin = rigs.build_arm("Twin")
    anim = twin.armature.animation_data_create()
    anim.action = rig.armature.animation_data.action
    if LAYERED:
        anim.action_slot = rig.armature.animation_data.action_slot
    baked = all_actions()
    frames = [1, 15, 30]
    twin_before = rigs.evaluate(twin, target, frames)
    rigs.enter_pose_mode(rig)
    assert clear() == {"CANCELLED"}
    assert_same(baked, all_actions())
    np.testing.assert_array_equal(rigs.evaluate(twin, target, frames).tip, twin_before.tip)


def test_active_action_over_nla_strips_bakes_and_clears(empty_file: bpy.types.Scene) -> None:
    """Strips below the active action keep animating the body; the bake is true on playback."""
    rig, target, _strip = nla_rig()
    anim = rig.armature.animation_data
    anim.use_tweak_mode = False
    anim.nla_tracks.remove(anim.nla_tracks[-1])  # keep the body strip only
    before = all_actions()
    rigs.enter_pose_mode(rig)
    assert rigs.bake(rig, 1, 40) == {"FINISHED"}
    assert anim.action is not None
    frames = list(range(1, 41))
    ev = rigs.evaluate(rig, target, frames)
    miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
    lower = rig.armature.pose.bones[rig.lower]
    played = []
    for f in frames:
        bpy.context.scene.frame_set(f)
        played.append(float(lower["soft_ik_error"]))
    np.testing.assert_allclose(played, miss, atol=1e-4 * rig.length * rig.world_scale)
    assert clear() == {"FINISHED"}
    assert_same(before, {k: v for k, v in all_actions().items() if k[0] != anim.action.name})



def test_records_survive_save_and_reopen(empty_file: bpy.types.Scene, tmp_path: object) -> None:
    rig, _target, _chain = setup()
    before = all_actions()
    assert rigs.bake(rig, 1, 20) == {"FINISHED"}
    assert rigs.bake(rig, 10, 30) == {"FINISHED"}
    arm = save_and_reopen(str(tmp_path / "records.blend"))  # type: ignore[operator]
    arm.data.bones["Upper"].name = "Arm.Up"  # and a rename after reopening
    assert clear() == {"FINISHED"}
    arm.data.bones["Arm.Up"].name = "Upper"
    assert_same(before, all_actions())
