"""The sidebar's "To New Action" toggle (``soft_ik_2d.bake_to_new_action``) is the Bake button's default: on, a
plain ``pose.soft_ik_bake()`` writes a take and leaves the animator's action bit for bit; an explicit
``to_new_action=False`` (the redo panel) still wins. Truth is Blender's playback of the take."""

from __future__ import annotations

import bpy
import rigs
from test_actions_and_clear import all_actions, assert_same
from test_actions_and_clear import setup as chain_setup
from test_takes import FRAMES, assert_bakes_true


def test_sidebar_toggle_bakes_into_a_take(empty_file: bpy.types.Scene) -> None:
    rig, target, _chain = chain_setup()
    arm = rig.armature
    original = arm.animation_data.action
    before = all_actions()
    arm.soft_ik_2d.bake_to_new_action = True
    assert rigs.bake(rig, 1, 60) == {"FINISHED"}
    take = arm.animation_data.action
    assert take is not None and take != original
    assert_same(before, {k: v for k, v in all_actions().items() if k[0] != take.name})
    assert_bakes_true(rig, target, FRAMES)


def test_explicit_option_wins_over_the_sidebar_toggle(empty_file: bpy.types.Scene) -> None:
    rig, target, _chain = chain_setup()
    arm = rig.armature
    original = arm.animation_data.action
    arm.soft_ik_2d.bake_to_new_action = True
    names = {a.name for a in bpy.data.actions}
    assert rigs.bake(rig, 1, 60, to_new_action=False) == {"FINISHED"}
    assert arm.animation_data.action == original and {a.name for a in bpy.data.actions} == names
    assert_bakes_true(rig, target, FRAMES)


def test_toggle_off_by_default_bakes_in_place(empty_file: bpy.types.Scene) -> None:
    rig, target, _chain = chain_setup()
    arm = rig.armature
    original = arm.animation_data.action
    assert not arm.soft_ik_2d.bake_to_new_action
    names = {a.name for a in bpy.data.actions}
    assert rigs.bake(rig, 1, 60) == {"FINISHED"}
    assert arm.animation_data.action == original and {a.name for a in bpy.data.actions} == names
    assert_bakes_true(rig, target, FRAMES)
