"""Bake into a take (issue 15, part 1): ``pose.soft_ik_bake(to_new_action=True)`` writes into a new action, a
copy of the current one, and the animator's action keeps every key bit for bit.

Snapshots read every F-curve of every action (and slot) key by key with every attribute; truth is Blender's
playback (``frame_set``, the evaluated tail against the target).
"""

from __future__ import annotations

import math
from pathlib import Path

import bpy
import numpy as np
import pytest
import rigs
import test_library_overrides as overrides
from test_actions_and_clear import LAYERED, action_curves, all_actions, assert_same, clear
from test_actions_and_clear import setup as chain_setup

FRAMES = list(range(1, 61))


def curves_of(action_name: str) -> dict[tuple[str, str, int], object]:
    """The full key snapshot of one action, keyed without its name (to compare a take with its source)."""
    return {k[1:]: v for k, v in all_actions().items() if k[0] == action_name}


def records_of(action: bpy.types.Action) -> object:
    records = action.get("_soft_ik_2d_bakes")
    return None if records is None else records.to_dict()


def assert_bakes_true(rig: rigs.ArmRig, target: bpy.types.Object, frames: list[int]) -> None:
    """Blender plays back the tip on the shoulder->target line at the soft-clamped distance (no limits)."""
    chain = rig.armature.soft_ik_2d.chains[0]
    ev = rigs.evaluate(rig, target, frames)
    miss = np.linalg.norm(ev.tip - rigs.expected_tip(ev, rig.length, chain.softness), axis=1)
    assert miss.max() < 1e-4 * rig.length


def test_take_leaves_the_original_identical_and_clear_touches_only_the_take(empty_file: bpy.types.Scene) -> None:
    rig, target, _chain = chain_setup()
    arm = rig.armature
    original = arm.animation_data.action
    before = all_actions()
    source_keys = curves_of(original.name)

    assert rigs.bake(rig, 1, 60, to_new_action=True, action_name="Take 1") == {"FINISHED"}
    take = arm.animation_data.action
    assert take is not None and take.name == "Take 1" and take != original
    assert_same(before, {k: v for k, v in all_actions().items() if k[0] != "Take 1"})
    assert records_of(original) is None, "no bake record was written into the original action"
    assert original.use_fake_user and original.users >= 1, "the original survives saving, to switch back to"
    if LAYERED:
        assert arm.animation_data.action_slot is not None and len(take.slots) == 1
    assert curves_of("Take 1") != source_keys
    assert_bakes_true(rig, target, FRAMES)

    assert clear() == {"FINISHED"}
    assert_same(before, {k: v for k, v in all_actions().items() if k[0] != "Take 1"})
    assert curves_of("Take 1") == source_keys, "Clear removes the bake's keys from the take and nothing else"
    assert arm.animation_data.action == take

    # The original plays again exactly as before the take.
    arm.animation_data.action = original
    assert_same(before, {k: v for k, v in all_actions().items() if k[0] != "Take 1"})


def test_switching_takes_and_baking_again_never_mixes_them(empty_file: bpy.types.Scene) -> None:
    rig, target, chain = chain_setup()
    arm = rig.armature
    original = arm.animation_data.action
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}  # a bake into the animator's action, before any take
    baked_original = curves_of(original.name)
    original_records = records_of(original)

    chain.softness = 0.12
    assert rigs.bake(rig, 1, 60, to_new_action=True) == {"FINISHED"}
    take = arm.animation_data.action
    assert take.name == f"{original.name} Take"
    assert curves_of(original.name) == baked_original and records_of(original) == original_records
    take_keys = curves_of(take.name)
    assert_bakes_true(rig, target, FRAMES)

    # Back to the original: bake again with other settings; the take keeps every key.
    arm.animation_data.action = original
    chain.softness = 0.0
    assert rigs.bake(rig, 20, 50) == {"FINISHED"}
    assert arm.animation_data.action == original
    assert curves_of(take.name) == take_keys
    assert_bakes_true(rig, target, list(range(20, 51)))

    # Clear on the original leaves the take alone (and says it kept its keys).
    assert clear() == {"FINISHED"}
    assert curves_of(take.name) == take_keys
    assert records_of(original) is None
    assert chain.has_bake, "the take still holds baked keys"
    cleared_original = curves_of(original.name)

    # On the take, Clear removes what the bakes wrote there (the copied earlier bake too), nothing else.
    arm.animation_data.action = take
    assert clear() == {"FINISHED"}
    assert curves_of(original.name) == cleared_original
    assert curves_of(take.name) == cleared_original, "the take is its source without the bakes' keys"
    assert not chain.has_bake


def test_take_pushed_to_nla_plays_true_and_clears(empty_file: bpy.types.Scene) -> None:
    rig, target, _chain = chain_setup()
    arm = rig.armature
    original = arm.animation_data.action
    before = all_actions()
    assert rigs.bake(rig, 1, 60, to_new_action=True, action_name="Pushed", push_to_nla=True) == {"FINISHED"}
    anim = arm.animation_data
    assert anim.action is None
    track = anim.nla_tracks["Pushed"]
    strip = track.strips[0]
    assert strip.action == bpy.data.actions["Pushed"]
    if LAYERED:
        assert strip.action_slot is not None
    assert original.users >= 1
    assert_bakes_true(rig, target, FRAMES)
    assert_same(before, {k: v for k, v in all_actions().items() if k[0] != "Pushed"})

    assert clear() == {"FINISHED"}
    assert_same(before, {k: v for k, v in all_actions().items() if k[0] != "Pushed"})
    assert curves_of("Pushed") == {k[1:]: v for k, v in before.items() if k[0] == original.name}


def test_take_without_an_action_starts_empty(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm()
    target = rigs.circle_target(rig, FRAMES, lambda f: 0.6 + 1.2 * (0.5 + 0.5 * math.sin(f / 4.0)),
                                lambda f: 0.2 * f)
    rigs.add_chain(rig, target)
    assert rigs.bake(rig, 1, 60, to_new_action=True) == {"FINISHED"}
    take = rig.armature.animation_data.action
    assert take.name == f"{rig.armature.name} Take"
    assert_bakes_true(rig, target, FRAMES)
    assert clear() == {"FINISHED"}
    assert not action_curves(take)


@pytest.mark.skipif(not LAYERED, reason="slots exist on 4.4+")
def test_take_keeps_only_the_armature_s_slot(empty_file: bpy.types.Scene) -> None:
    rig, target, _chain = chain_setup()
    arm = rig.armature
    original = arm.animation_data.action
    other = rigs.new_empty("Prop")
    other.animation_data_create()
    other.animation_data.action = original
    other.animation_data.action_slot = original.slots.new("OBJECT", "Prop")
    other.location = (1.0, 2.0, 3.0)
    other.keyframe_insert("location", frame=5)
    before = all_actions()

    assert rigs.bake(rig, 1, 60, to_new_action=True, action_name="Own") == {"FINISHED"}
    take = bpy.data.actions["Own"]
    assert [s.identifier for s in take.slots] == [arm.animation_data.action_slot.identifier]
    assert other.animation_data.action == original
    assert_same(before, {k: v for k, v in all_actions().items() if k[0] != "Own"})
    assert_bakes_true(rig, target, FRAMES)


def test_a_shared_action_bakes_into_a_take_and_the_other_rig_keeps_its_animation(empty_file: bpy.types.Scene) -> None:
    """The take is the armature's own copy: the shared original is never written, so it is no reason to refuse."""
    rig, target, _chain = chain_setup()
    twin = rigs.build_arm("Twin")
    action = rig.armature.animation_data.action
    twin.armature.animation_data_create().action = action
    if LAYERED:
        twin.armature.animation_data.action_slot = rig.armature.animation_data.action_slot
    twin_before = rigs.evaluate(twin, target, FRAMES)
    before = all_actions()
    with pytest.raises(RuntimeError, match="also played by 'Twin'"):
        rigs.bake(rig, 1, 60)  # into the shared action: refused as before
    assert rigs.bake(rig, 1, 60, to_new_action=True) == {"FINISHED"}
    take = rig.armature.animation_data.action
    assert take != action and twin.armature.animation_data.action == action
    assert_same(before, {k: v for k, v in all_actions().items() if k[0] != take.name})
    twin_after = rigs.evaluate(twin, target, FRAMES)
    np.testing.assert_array_equal(twin_after.tip, twin_before.tip)
    assert_bakes_true(rig, target, FRAMES)


def test_a_refused_bake_leaves_no_take_behind(empty_file: bpy.types.Scene) -> None:
    rig, _target, chain = chain_setup()
    good = rigs.build_arm("Good")
    good_target = rigs.circle_target(good, FRAMES, lambda f: 1.0 + 0.5 * math.sin(f / 3.0), lambda f: 0.1 * f,
                                     name="GoodTarget")
    rigs.add_chain(good, good_target)
    chain.target = None  # the first rig's only chain cannot be baked
    scene = bpy.context.scene
    scene.frame_set(1)
    rigs.enter_pose_mode(rig)
    before = rigs.snapshot()
    with pytest.raises(RuntimeError, match="no target"):
        bpy.ops.pose.soft_ik_bake(frame_start=1, frame_end=30, to_new_action=True)
    rigs.assert_same_snapshot(before, rigs.snapshot())
    assert rig.armature.animation_data.action.name == "RigAction"

    # With a second armature that can bake, only that one gets a take.
    good.armature.select_set(True)
    assert bpy.ops.pose.soft_ik_bake(frame_start=1, frame_end=30, to_new_action=True) == {"FINISHED"}
    assert rig.armature.animation_data.action.name == "RigAction"
    assert good.armature.animation_data.action.name == "Good Take"
    assert sorted(a.name for a in bpy.data.actions) == sorted([*before["actions"], "Good Take"])
    assert_bakes_true(good, good_target, list(range(1, 31)))


def test_a_taken_name_or_tweak_mode_is_refused_and_nothing_changes(empty_file: bpy.types.Scene) -> None:
    rig, _target, _chain = chain_setup()
    bpy.data.actions.new("Taken").use_fake_user = True
    bpy.context.scene.frame_set(1)
    before = rigs.snapshot()
    with pytest.raises(RuntimeError, match="'Taken' already exists"):
        rigs.bake(rig, 1, 30, to_new_action=True, action_name="Taken")
    rigs.assert_same_snapshot(before, rigs.snapshot())

    anim = rig.armature.animation_data
    action = anim.action
    anim.action = None
    track = anim.nla_tracks.new()
    track.strips.new("Arm", 1, action)
    track.select = True
    anim.nla_tracks.active = track
    anim.use_tweak_mode = True
    assert anim.use_tweak_mode
    before = rigs.snapshot()
    with pytest.raises(RuntimeError, match="tweaking an NLA strip"):
        rigs.bake(rig, 1, 30, to_new_action=True)
    rigs.assert_same_snapshot(before, rigs.snapshot())

    # In a batch, the tweaking armature is left out by name and the other one bakes into its take (found by the
    # fuzz: the whole batch was refused).
    good = rigs.build_arm("Good")
    good_target = rigs.circle_target(good, FRAMES, lambda f: 1.0 + 0.5 * math.sin(f / 3.0), lambda f: 0.1 * f,
                                     name="GoodTarget")
    rigs.add_chain(good, good_target)
    rigs.pose_mode_together([good.armature, rig.armature])
    before = rigs.snapshot()
    assert bpy.ops.pose.soft_ik_bake(frame_start=1, frame_end=30, to_new_action=True) == {"FINISHED"}
    assert good.armature.animation_data.action.name == "Good Take"
    assert_bakes_true(good, good_target, list(range(1, 31)))
    after = rigs.snapshot()

    def rigs_keys_and_chains(state: dict[str, object]) -> dict[str, object]:
        return {k: v for k, v in state.items() if k.startswith(("Rig:", "Rig.chains", "Rig.soft_ik_2d"))}

    assert rigs_keys_and_chains(before) == rigs_keys_and_chains(after)
    assert anim.use_tweak_mode and anim.action == action


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("take_library") / "rig_library.blend"
    overrides.build_library(path)
    return path


@pytest.mark.parametrize("variant", overrides.VARIANTS)
def test_take_of_a_library_override_is_local_and_the_library_s_action_stays(library: Path, variant: str) -> None:
    shot = overrides.override_shot(library, variant)
    linked = shot.arm.animation_data.action
    assert linked.library is not None
    linked_before = overrides.linked_actions()
    body_before = overrides.played_curves(shot.arm)

    assert overrides.bake(shot, to_new_action=True, action_name="Shot Take") == {"FINISHED"}
    take = shot.arm.animation_data.action
    assert take.name == "Shot Take" and take.library is None
    assert overrides.linked_actions() == linked_before
    after = overrides.played_curves(shot.arm)
    for key, co in body_before.items():
        assert after[key] == co, f"the body animation {key} changed"
    overrides.assert_true_bake(shot)

    assert clear() == {"FINISHED"}
    assert overrides.played_curves(shot.arm) == body_before
    assert overrides.linked_actions() == linked_before
    shot.arm.animation_data.action = linked  # the library's action can be switched back to
    assert overrides.played_curves(shot.arm) == body_before
