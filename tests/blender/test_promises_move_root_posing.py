"""Move Root outside the bake: Solve (one frame) and Live Preview move the upper bone by the root offset, as the
bake does (on the one-frame two-bone path and on the general one, which Stretch to Reach takes), for a target
the elbow limit keeps out of reach (offset below the cap: the tip reaches; beyond it: the offset is the cap).

Truth is playback: the bake's pose is read with ``scene.frame_set``; the Solve / Live Preview pose from the
evaluated pose bones after a depsgraph update.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs

SCALE = 1.6
CAP = 0.1 * SCALE  # world units
FRAME = 5


def limited_chain(radius: float, mode: str = "QUATERNION",
                  ) -> tuple[rigs.ArmRig, bpy.types.Object, bpy.types.PropertyGroup]:
    rig = rigs.build_arm(rest_bend_deg=30.0, modes=(mode, mode))
    rigs.place_armature(rig, scale=(SCALE, SCALE, SCALE))
    # A still target and rig: the bake's root smoothing (default) then keeps the offset each frame gets alone.
    target = rigs.new_empty("Target")
    bpy.context.scene.frame_set(FRAME)
    target.location = rigs.circle_points(rig, [FRAME], lambda f: radius, lambda f: 0.3)[0].tolist()
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0
    # At 60 degrees the tip reaches 1.56 from the shoulder: 1.6 needs 0.04 (under the cap), 1.75 needs 0.19.
    chain.use_elbow_limit, chain.elbow_min, chain.elbow_max = True, math.radians(60.0), math.radians(170.0)
    chain.limit_strategy = "MOVE_ROOT"
    chain.max_root_offset = CAP
    return rig, target, chain


def pose_now(rig: rigs.ArmRig, target: bpy.types.Object) -> dict[str, np.ndarray]:
    """The pose Blender shows now: the upper bone's location channel, world shoulder and tip, and the miss."""
    pb = rig.armature.pose.bones
    world = np.array(rig.armature.matrix_world)

    def w(p: object) -> np.ndarray:
        return (world @ np.append(np.array(p), 1.0))[:3]

    tip = w(pb[rig.lower].tail)
    return {"location": np.array(pb[rig.upper].location), "shoulder": w(pb[rig.upper].head), "tip": tip,
            "miss": np.array(np.linalg.norm(tip - np.array(target.matrix_world.translation)))}


@pytest.mark.parametrize("how", ["solve", "live_preview"])
@pytest.mark.parametrize("radius", [1.6, 1.75])
@pytest.mark.parametrize("mode", ["QUATERNION", "XYZ"])  # the float path and the channel path of posing
@pytest.mark.parametrize("general", [False, True], ids=["two_bone_path", "general_path"])
def test_one_frame_moves_the_root_like_the_bake(empty_file: bpy.types.Scene, how: str, radius: float,
                                                mode: str, general: bool) -> None:
    rig, target, chain = limited_chain(radius, mode)
    if general:
        # Stretch to Reach (here with no room to stretch) is solved by the general chain step, not the
        # one-frame two-bone path: it must move the root the same way.
        chain.stretch_to_reach, chain.max_stretch = True, 1.0
    scene = bpy.context.scene
    rest = pose_now(rig, target)
    assert np.abs(rest["location"]).max() == 0.0

    assert rigs.bake(rig, 1, 10) == {"FINISHED"}
    scene.frame_set(FRAME)
    baked = pose_now(rig, target)
    offset = float(np.linalg.norm(baked["shoulder"] - rest["shoulder"]))
    assert 0.2 * CAP < offset <= CAP + 1e-6, offset  # the bake moved the root, within the cap
    if radius == 1.6:
        assert baked["miss"] < 1e-5 * SCALE
    else:
        assert offset == pytest.approx(CAP, abs=1e-6) and baked["miss"] > 0.01 * SCALE
    assert bpy.ops.pose.soft_ik_clear_bake() == {"FINISHED"}
    scene.frame_set(FRAME)
    np.testing.assert_allclose(pose_now(rig, target)["shoulder"], rest["shoulder"], atol=1e-7)

    if how == "solve":
        assert bpy.ops.pose.soft_ik_solve() == {"FINISHED"}
        bpy.context.view_layer.update()
    else:
        rig.armature.soft_ik_2d.live_preview = True
        bpy.context.view_layer.update()
        # Another update (the target nudged and put back): the preview must not add its own offset twice.
        start = target.location.copy()
        target.location.x += 0.01
        bpy.context.view_layer.update()
        target.location = start
        bpy.context.view_layer.update()
        scene.frame_set(FRAME + 1)  # scrubbing away and back re-solves too
        scene.frame_set(FRAME)
    got = pose_now(rig, target)
    np.testing.assert_allclose(got["location"], baked["location"], atol=1e-6)
    np.testing.assert_allclose(got["shoulder"], baked["shoulder"], atol=1e-6 * SCALE)
    np.testing.assert_allclose(got["tip"], baked["tip"], atol=1e-5 * SCALE)
