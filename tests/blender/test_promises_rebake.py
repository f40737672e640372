"""Baking twice gives the same keys with every strategy: a bake must not read back what an earlier bake wrote
(Move Root's location keys are the bake's, not a user's shoulder offset), so the second bake's full F-curve
snapshot and playback equal the first's.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 41))


def curves() -> dict[str, object]:
    return {k: v for k, v in rigs.snapshot().items() if ":" in k}


def tips(rig: rigs.ArmRig, target: bpy.types.Object) -> np.ndarray:
    ev = rigs.evaluate(rig, target, FRAMES)
    return np.concatenate([ev.shoulder, ev.elbow, ev.tip], axis=1)


@pytest.mark.parametrize("strategy", ["ACCEPT", "MOVE_ROOT", "STRETCH"])
def test_second_bake_is_identical(empty_file: bpy.types.Scene, strategy: str) -> None:
    rig = rigs.build_arm(rest_bend_deg=30.0)
    rigs.animate_parent(rig, FRAMES, lambda f: 0.3 * math.sin(f / 6.0), lambda f: (0.01 * f, 0.0))
    rigs.place_armature(rig, scale=(1.2, 1.2, 1.2))
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.1 + 0.5 * math.sin(f / 5.0), lambda f: 0.1 * f)
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0
    chain.use_elbow_limit, chain.elbow_min, chain.elbow_max = True, math.radians(50.0), math.radians(80.0)
    chain.limit_strategy = strategy
    chain.max_root_offset, chain.stretch_min, chain.stretch_max = 0.3, 0.6, 1.3
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    assert chain.limited_frames > 5
    first, first_pose = curves(), tips(rig, target)
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    second = curves()
    changed = sorted(k for k in first.keys() | second.keys() if first.get(k) != second.get(k))
    assert not changed, f"the second bake changed {changed}"
    np.testing.assert_array_equal(tips(rig, target), first_pose)
