"""The upper bone's own location moves the shoulder however Blender animates it (issue 11, "one home for animation
paths"): the bake samples it through :mod:`rigging.sampling` as Blender evaluates it, so an NLA strip below the
active action (or a driver, ``test_production_truth``) is followed. Truth by playback only.
"""

from __future__ import annotations

import bpy
import pytest
import rigs
from test_production_truth import MISMATCH, TOLERANCE, _key_location, assert_true, bake_output, chain_rig


def test_upper_location_from_an_nla_strip_below_the_active_action(empty_file: bpy.types.Scene,
                                                                  capfd: pytest.CaptureFixture[str]) -> None:
    rig, _chain, target = chain_rig()
    anim = rig.armature.animation_data
    body = anim.action  # the parent bone's and the armature's motion stays the active action
    anim.action = None
    _key_location(rig.upper, {1: (0.0, 0.0), 15: (0.08, -0.05), 30: (-0.04, 0.07)})(rig)
    shift = anim.action
    anim.action = None
    anim.nla_tracks.new().strips.new("Upper Shift", 1, shift)
    anim.action = body
    bpy.context.scene.frame_set(1)  # where the strip holds the location at rest: only the NLA says it moves
    out = bake_output(rig, capfd)
    assert MISMATCH not in out, out
    assert rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "location"), 0) is None  # not keyed by the bake
    miss = assert_true(rig, target)
    assert miss.max() < TOLERANCE, f"tip misses a reachable target by {miss.max():.3g} L"
