"""The whole workflow, headless, through the operators only: build two characters, add chains (one with a
selected Empty, one creating its own Empty at the tip), solve a frame, bake the preview and then the scene
range, save the .blend, reload it and check that chains, keys and the evaluated pose came back.
"""

from __future__ import annotations

import math
from pathlib import Path

import bpy
import harness
import numpy as np
import rigs

FRAMES = list(range(1, 31))


def every_key(obj: bpy.types.Object) -> dict[tuple[str, int], list]:
    anim_keys = harness.package("rigging.anim_keys")
    return {(fc.data_path, fc.array_index): anim_keys.read_keys(fc)["co"].tolist()
            for fc in anim_keys.iter_fcurves(obj)}


def chain_settings(obj: bpy.types.Object) -> list[tuple]:
    return [(c.name, c.upper_bone, c.lower_bone, c.target.name, c.target_space, c.bend, round(c.softness, 6),
             c.bake_start, c.bake_end) for c in obj.soft_ik_2d.chains]


def select_armatures(*arms: rigs.ArmRig) -> None:
    bpy.ops.object.mode_set(mode="OBJECT")
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in {r.armature for r in arms})
    bpy.context.view_layer.objects.active = arms[0].armature


def tip_world(rig: rigs.ArmRig) -> np.ndarray:
    return np.array(rig.armature.matrix_world @ rig.armature.pose.bones[rig.lower].tail)


def test_build_add_solve_bake_save_reload(empty_file: bpy.types.Scene, tmp_path: Path) -> None:
    scene = empty_file
    scene.frame_start, scene.frame_end = FRAMES[0], FRAMES[-1]
    hero = rigs.build_arm("Hero", rest_bend_deg=15.0)
    rigs.place_armature(hero, scale=(-1.0, 1.0, 1.0))
    hand = rigs.circle_target(hero, FRAMES, lambda f: 1.1 + 0.3 * math.sin(f / 5.0), lambda f: 0.2 * f,
                              name="Hand")
    sidekick = rigs.build_arm("Sidekick", plane="XY", rest_bend_deg=-20.0, with_parent=False)
    rigs.place_armature(sidekick, location=(3.0, 0.0, 0.0), rotation=(0.0, 0.0, 0.5), scale=(0.8, 0.8, 0.8))

    chain = rigs.add_chain(hero, hand)
    assert (chain.name, chain.upper_bone, chain.lower_bone, chain.target) == ("Lower", "Upper", "Lower", hand)
    assert chain.bend == 1
    bpy.ops.object.mode_set(mode="OBJECT")
    rest_tip = tip_world(sidekick)
    side_chain = rigs.add_chain(sidekick)  # nothing selected: a new Empty at the current tip
    foot = side_chain.target
    assert foot is not None and foot.type == "EMPTY" and foot.name in scene.objects
    np.testing.assert_allclose(np.array(foot.matrix_world.translation), rest_tip, atol=1e-6)
    assert side_chain.bend == -1  # drawn bent clockwise
    # The user animates the new Empty.
    points = rigs.circle_points(sidekick, FRAMES, lambda f: 1.0 + 0.2 * math.cos(f / 4.0), lambda f: -0.15 * f)
    rigs.key_locations(foot, FRAMES, points)
    for c in (chain, side_chain):
        c.softness = 0.0

    # Solve one frame for every chain of both selected armatures, without keys.
    select_armatures(hero, sidekick)
    scene.frame_set(7)
    assert bpy.ops.pose.soft_ik_solve() == {"FINISHED"}
    bpy.context.view_layer.update()
    for rig, target in ((hero, hand), (sidekick, foot)):
        miss = np.linalg.norm(tip_world(rig) - np.array(target.matrix_world.translation))
        assert miss < 1e-4 * rig.length * rig.world_scale
        assert rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "rotation_quaternion")) is None

    # Bake with the preview range on: only those frames get keys; then the scene range.
    scene.use_preview_range, scene.frame_preview_start, scene.frame_preview_end = True, 5, 12
    assert bpy.ops.pose.soft_ik_bake() == {"FINISHED"}
    rot = rigs.key_frames(rigs.fcurve(hero.armature, rigs.bone_path("Upper", "rotation_quaternion")))
    assert rot[:, 0].tolist() == list(range(5, 13))
    scene.use_preview_range = False
    assert bpy.ops.pose.soft_ik_bake() == {"FINISHED"}
    for rig, target in ((hero, hand), (sidekick, foot)):
        assert (rig.armature.soft_ik_2d.chains[0].bake_start, rig.armature.soft_ik_2d.chains[0].bake_end) == (1, 30)
        ev = rigs.evaluate(rig, target, FRAMES)
        assert np.linalg.norm(ev.tip_world - ev.target_world, axis=1).max() < 1e-4 * rig.length * rig.world_scale

    saved = {rig.armature.name: (every_key(rig.armature), chain_settings(rig.armature),
                                 rigs.evaluate(rig, target, FRAMES).tip_world, rig.armature.soft_ik_2d.plane)
             for rig, target in ((hero, hand), (sidekick, foot))}
    path = tmp_path / "workflow.blend"
    assert bpy.ops.wm.save_as_mainfile(filepath=str(path)) == {"FINISHED"}

    bpy.ops.wm.read_homefile(use_empty=True)
    assert "Hero" not in bpy.data.objects
    assert bpy.ops.wm.open_mainfile(filepath=str(path)) == {"FINISHED"}
    assert harness.is_enabled()
    for name, (keys, settings, tips, plane) in saved.items():
        arm = bpy.data.objects[name]
        assert chain_settings(arm) == settings
        assert arm.soft_ik_2d.plane == plane
        assert every_key(arm) == keys
        rig = rigs.ArmRig(arm, plane, "Upper", "Lower", None, 1.0, 0.8, 0.25)
        reloaded = rigs.evaluate(rig, arm.soft_ik_2d.chains[0].target, FRAMES)
        np.testing.assert_allclose(reloaded.tip_world, tips, atol=1e-6)

    # The reloaded file keeps working: a re-bake gives the same keys, and Clear removes them.
    hero_arm = bpy.data.objects["Hero"]
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj.type == "ARMATURE")
    bpy.context.view_layer.objects.active = hero_arm
    assert bpy.ops.pose.soft_ik_bake() == {"FINISHED"}
    assert every_key(hero_arm) == saved["Hero"][0]
    assert bpy.ops.pose.soft_ik_clear_bake() == {"FINISHED"}
    quat = rigs.fcurve(hero_arm, rigs.bone_path("Upper", "rotation_quaternion"))
    assert quat is None or len(quat.keyframe_points) == 0
