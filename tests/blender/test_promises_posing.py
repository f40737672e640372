"""Posing one frame (Solve, Live Preview) writes what the bake keys: Stretch's scale, the error property the panel
reads, and rotations that continue from the bone's current value (no 360 degree Euler jump, no quaternion sign
flip). Truth is Blender's evaluated pose: the bake's after ``frame_set``, the one-frame pose after an update.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs

FRAME = 5


def stretch_chain(stretch_min: float, mode: str = "QUATERNION") -> tuple[rigs.ArmRig, bpy.types.Object]:
    rig = rigs.build_arm(rest_bend_deg=30.0, modes=(mode, mode))
    rigs.place_armature(rig, scale=(1.5, 1.5, 1.5))
    target = rigs.new_empty("Target")
    target.location = rigs.circle_points(rig, [FRAME], lambda f: 1.1, lambda f: 0.4)[0].tolist()
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0
    # The elbow may not bend past 60 degrees: a target 1.1 away needs a 0.7 stretch to be reached.
    chain.use_elbow_limit, chain.elbow_max = True, math.radians(60.0)
    chain.limit_strategy, chain.stretch_min, chain.stretch_max = "STRETCH", stretch_min, 1.2
    return rig, target


def shown(rig: rigs.ArmRig, target: bpy.types.Object) -> dict[str, np.ndarray]:
    pb = rig.armature.pose.bones
    world = np.array(rig.armature.matrix_world)
    tip = (world @ np.append(np.array(pb[rig.lower].tail), 1.0))[:3]
    return {"scale": np.array(pb[rig.upper].scale), "tip": tip, "error": np.array(pb[rig.lower]["soft_ik_error"]),
            "flags": np.array(pb[rig.lower]["soft_ik_flags"]),
            "miss": np.array(np.linalg.norm(tip - np.array(target.matrix_world.translation)))}


@pytest.mark.parametrize("how", ["solve", "live_preview"])
@pytest.mark.parametrize("stretch_min", [0.5, 0.85])  # reaches; stops at the bound (and misses)
@pytest.mark.parametrize("mode", ["QUATERNION", "XYZ"])  # the float path and the channel path of posing
def test_one_frame_stretches_like_the_bake(empty_file: bpy.types.Scene, how: str, stretch_min: float,
                                           mode: str) -> None:
    rig, target = stretch_chain(stretch_min, mode)
    scene = bpy.context.scene
    assert rigs.bake(rig, 1, 10) == {"FINISHED"}
    scene.frame_set(FRAME)
    baked = shown(rig, target)
    assert baked["scale"].min() < 0.9  # the bake stretched (shrank) the chain
    if stretch_min == 0.5:
        assert baked["miss"] < 1e-5
    else:
        np.testing.assert_allclose(baked["scale"], stretch_min, atol=1e-6)
        assert baked["miss"] > 0.01
    assert baked["error"] == pytest.approx(baked["miss"], abs=1e-5)
    assert bpy.ops.pose.soft_ik_clear_bake() == {"FINISHED"}
    # Whatever was there: the pose must set them.
    rig.armature.pose.bones[rig.lower]["soft_ik_error"], rig.armature.pose.bones[rig.lower]["soft_ik_flags"] = -1.0, 0
    scene.frame_set(FRAME)
    np.testing.assert_array_equal(shown(rig, target)["scale"], 1.0)

    if how == "solve":
        assert bpy.ops.pose.soft_ik_solve() == {"FINISHED"}
    else:
        rig.armature.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()
    got = shown(rig, target)
    np.testing.assert_allclose(got["scale"], baked["scale"], atol=1e-6)
    np.testing.assert_allclose(got["tip"], baked["tip"], atol=1e-5)
    assert got["error"] == pytest.approx(float(got["miss"]), abs=1e-5)
    assert int(got["flags"]) == int(baked["flags"]) and int(got["flags"]) & 64  # STRETCHED, as the bake keyed


@pytest.mark.parametrize("mode", ["XYZ", "QUATERNION"])
def test_solve_continues_from_the_current_rotation(empty_file: bpy.types.Scene, mode: str) -> None:
    rig = rigs.build_arm(modes=(mode, mode))
    target = rigs.new_empty("Target")
    target.location = rigs.circle_points(rig, [1], lambda f: 1.2, lambda f: 2.5)[0].tolist()
    rigs.add_chain(rig, target).softness = 0.0
    assert bpy.ops.pose.soft_ik_solve() == {"FINISHED"}
    prop = "rotation_euler" if mode == "XYZ" else "rotation_quaternion"
    pose = rig.armature.pose.bones
    # The same pose written another way: every Euler angle one turn further, the quaternion negated.
    for name in (rig.upper, rig.lower):
        value = np.array(getattr(pose[name], prop))
        setattr(pose[name], prop, (value + 2 * math.pi if mode == "XYZ" else -value).tolist())
    current = {name: np.array(getattr(pose[name], prop)) for name in (rig.upper, rig.lower)}
    assert bpy.ops.pose.soft_ik_solve() == {"FINISHED"}
    for name in (rig.upper, rig.lower):
        np.testing.assert_allclose(np.array(getattr(pose[name], prop)), current[name], atol=1e-5, err_msg=name)
    bpy.context.view_layer.update()
    ev = rigs.evaluate(rig, target, [1])
    assert np.linalg.norm(ev.tip_world - ev.target_world) < 1e-4 * rig.length
