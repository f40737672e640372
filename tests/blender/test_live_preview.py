"""Live preview in real Blender: moving a target, scrubbing and changing settings re-pose the chain.

Truth is Blender's own evaluated pose compared with plain geometry (``rigs.expected_tip``: on the
shoulder->target line at the soft-clamped distance), never the extension's solver; "no keys" is checked on the
armature's animation data; handlers are counted in ``bpy.app.handlers``.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import bpy
import harness
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 21))
SOFTNESS = 0.08
HANDLER_LISTS = ("depsgraph_update_post", "frame_change_post", "undo_post", "redo_post", "load_pre", "load_post")


def live_preview():  # type: ignore[no-untyped-def]
    return harness.package("rigging.live_preview")


def current_state(rig: rigs.ArmRig, target: bpy.types.Object) -> rigs.Evaluated:
    """Blender's pose as it is now (no frame change), in the layout of ``rigs.evaluate``."""
    arm = rig.armature
    pb = arm.pose.bones
    return rigs.Evaluated(
        shoulder=np.array([pb[rig.upper].head]), elbow=np.array([pb[rig.lower].head]),
        tip=np.array([pb[rig.lower].tail]), world=np.array([np.array(arm.matrix_world)]),
        target_world=np.array([np.array(target.matrix_world.translation)]), normal_axes=np.zeros((1, 2, 3)))


def tip_miss(rig: rigs.ArmRig, ev: rigs.Evaluated, softness: float = SOFTNESS) -> float:
    """Distance (armature units) of Blender's tip from where the soft IK must put it."""
    return float(np.linalg.norm(ev.tip - rigs.expected_tip(ev, rig.length, softness), axis=1).max())


def key_count(obj: bpy.types.Object) -> int:
    return sum(len(fc.keyframe_points) for fc in harness.package("rigging.anim_keys").iter_fcurves(obj))


def our_handlers() -> list[str]:
    names = []
    for list_name in HANDLER_LISTS:
        for h in getattr(bpy.app.handlers, list_name):
            if getattr(h, "__module__", "").endswith(".live_preview"):
                names.append(f"{list_name}:{h.__name__}")
    return names


def transformed_rig() -> rigs.ArmRig:
    rig = rigs.build_arm(rest_bend_deg=20.0)
    rigs.place_armature(rig, scale=(-1.3, 1.3, 1.3))
    return rig


def target_at(rig: rigs.ArmRig, target: bpy.types.Object, radius: float, angle: float) -> None:
    """Put the (unparented) target ``radius`` armature units from the evaluated shoulder, in the plane."""
    u, v, _n = rigs.plane_axes(rig.plane)
    head = np.array(rig.armature.pose.bones[rig.upper].head)
    p = head + radius * (math.cos(angle) * u + math.sin(angle) * v)
    target.location = (np.array(rig.armature.matrix_world) @ np.append(p, 1.0))[:3].tolist()


@pytest.fixture
def arm_with_target(empty_file: bpy.types.Scene) -> tuple[rigs.ArmRig, bpy.types.Object]:
    rig = transformed_rig()
    target = rigs.new_empty("Target")
    bpy.context.view_layer.update()
    target_at(rig, target, 1.2, 0.3)
    chain = rigs.add_chain(rig, target)
    chain.softness = SOFTNESS
    bpy.context.view_layer.update()
    return rig, target


def test_moving_the_target_reposes_to_the_solvers_answer_without_keys(arm_with_target) -> None:  # type: ignore[no-untyped-def]
    rig, target = arm_with_target
    view_layer = bpy.context.view_layer
    rest_tip = np.array(rig.armature.pose.bones[rig.lower].tail)
    assert tip_miss(rig, current_state(rig, target)) > 0.05 * rig.length  # not solved yet: nothing moved

    rig.armature.soft_ik_2d.live_preview = True
    view_layer.update()
    assert tip_miss(rig, current_state(rig, target)) < 1e-4 * rig.length
    assert not np.allclose(np.array(rig.armature.pose.bones[rig.lower].tail), rest_tip)

    # Drag the target around, also beyond the reach (the soft band) and close to the shoulder.
    for radius, angle in ((0.6, -1.0), (1.75, 2.0), (2.5, 0.7), (0.4, -2.5)):
        target_at(rig, target, radius, angle)
        view_layer.update()
        assert tip_miss(rig, current_state(rig, target)) < 1e-4 * rig.length, (radius, angle)
    assert rig.armature.animation_data is None or key_count(rig.armature) == 0


def test_scrubbing_follows_a_keyed_target_and_creates_no_keys(arm_with_target) -> None:  # type: ignore[no-untyped-def]
    rig, target = arm_with_target
    scene = bpy.context.scene
    for f in FRAMES:
        target_at(rig, target, 0.5 + 1.6 * f / FRAMES[-1], 0.3 * f)
        target.keyframe_insert("location", frame=f)
    target_keys = key_count(target)
    rig.armature.soft_ik_2d.live_preview = True
    for f in (3, 11, 20, 7):
        scene.frame_set(f)
        assert tip_miss(rig, current_state(rig, target)) < 1e-4 * rig.length, f
    assert rig.armature.animation_data is None or key_count(rig.armature) == 0
    assert key_count(target) == target_keys


def test_changing_softness_and_bend_reposes(arm_with_target) -> None:  # type: ignore[no-untyped-def]
    rig, target = arm_with_target
    view_layer = bpy.context.view_layer
    target_at(rig, target, 1.7, 0.5)
    arm = rig.armature
    arm.soft_ik_2d.live_preview = True
    view_layer.update()
    chain = arm.soft_ik_2d.chains[0]
    for softness in (0.0, 0.2, 0.35):
        chain.softness = softness
        view_layer.update()
        assert tip_miss(rig, current_state(rig, target), softness) < 1e-4 * rig.length, softness

    def elbow_side() -> float:
        ev = current_state(rig, target)
        return float(np.cross(ev.target_arm[0] - ev.shoulder[0], ev.elbow[0] - ev.shoulder[0]) @ rig.normal)

    # The armature is mirrored (negative x scale) but the side is judged in armature space, where bend +1
    # puts the elbow clockwise of the shoulder->target line (docs/design.md).
    assert chain.bend == 1 and elbow_side() < 0
    chain.bend = -1
    view_layer.update()
    assert elbow_side() > 0
    assert tip_miss(rig, current_state(rig, target), 0.35) < 1e-4 * rig.length


def test_live_pose_wins_over_baked_keys_and_off_gives_them_back(empty_file: bpy.types.Scene) -> None:
    rig = transformed_rig()
    scene = bpy.context.scene
    target = rigs.circle_target(rig, FRAMES, lambda f: 0.5 + 1.4 * f / FRAMES[-1], lambda f: 0.3 * f)
    chain = rigs.add_chain(rig, target)
    chain.softness = SOFTNESS
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    keys = key_count(rig.armature)
    baked = rigs.evaluate(rig, target, FRAMES)

    # A wider soft band makes the live pose differ from the keys where the target is beyond its knee
    # (0.7 of the reach: radius 1.26 and up, frames 14 and later).
    chain.softness = 0.3
    rig.armature.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()
    for f in (14, 20, 17):
        scene.frame_set(f)
        ev = current_state(rig, target)
        assert tip_miss(rig, ev, 0.3) < 1e-4 * rig.length, f
        assert np.linalg.norm(ev.tip[0] - baked.tip[f - 1]) > 1e-3 * rig.length, f
    assert key_count(rig.armature) == keys

    rig.armature.soft_ik_2d.live_preview = False
    bpy.context.view_layer.update()  # "the next evaluation"
    np.testing.assert_allclose(current_state(rig, target).tip[0], baked.tip[17 - 1], atol=1e-5 * rig.length)
    scene.frame_set(14)
    np.testing.assert_allclose(current_state(rig, target).tip[0], baked.tip[14 - 1], atol=1e-5 * rig.length)
    assert key_count(rig.armature) == keys


def test_own_pose_writes_do_not_loop(arm_with_target) -> None:  # type: ignore[no-untyped-def]
    rig, target = arm_with_target
    stats = live_preview().stats
    rig.armature.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()
    target_at(rig, target, 1.1, 1.0)
    solves = stats["solves"]
    bpy.context.view_layer.update()
    assert stats["solves"] == solves + 1
    # Nothing changed since: further evaluations (which see the armature tagged by the pose write) do not
    # solve or pose again.
    poses = stats["poses"]
    for _ in range(3):
        rig.armature.update_tag()
        bpy.context.view_layer.update()
    assert (stats["solves"], stats["poses"]) == (solves + 1, poses)


def test_unsolvable_chain_reports_instead_of_raising(arm_with_target) -> None:  # type: ignore[no-untyped-def]
    rig, target = arm_with_target
    chain = rig.armature.soft_ik_2d.chains[0]
    rig.armature.soft_ik_2d.live_preview = True
    chain.target = None
    bpy.context.view_layer.update()
    cached = live_preview().preview_of(rig.armature, chain)
    assert cached is not None and cached.solution is None
    assert "no target" in cached.message
    chain.target = target
    bpy.context.view_layer.update()
    assert tip_miss(rig, current_state(rig, target)) < 1e-4 * rig.length


def test_preview_survives_file_reload(arm_with_target) -> None:  # type: ignore[no-untyped-def]
    rig, target = arm_with_target
    rig.armature.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()
    path = Path(tempfile.mkdtemp(prefix="soft_ik_live_")) / "live.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.open_mainfile(filepath=str(path))
    assert sorted(our_handlers()) == sorted(f"{n}:{f.__name__}" for n, f in live_preview()._HANDLERS)
    arm = bpy.data.objects["Rig"]
    reloaded = rigs.ArmRig(arm, rig.plane, rig.upper, rig.lower, rig.parent, rig.a, rig.b, rig.offset)
    target = bpy.data.objects["Target"]
    assert arm.soft_ik_2d.live_preview
    target_at(reloaded, target, 0.9, -0.8)
    bpy.context.view_layer.update()
    assert tip_miss(reloaded, current_state(reloaded, target)) < 1e-4 * reloaded.length


def test_enable_disable_leaves_no_handler_behind(arm_with_target) -> None:  # type: ignore[no-untyped-def]
    rig, _target = arm_with_target
    expected = sorted(f"{n}:{f.__name__}" for n, f in live_preview()._HANDLERS)
    assert sorted(our_handlers()) == expected
    rig.armature.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()
    try:
        for _ in range(3):
            harness.disable()  # with preview on
            assert our_handlers() == []
            harness.enable()
            assert sorted(our_handlers()) == expected
            # Toggling preview never adds handlers.
            arm = bpy.data.objects["Rig"]
            arm.soft_ik_2d.live_preview = False
            bpy.context.view_layer.update()
            arm.soft_ik_2d.live_preview = True
            bpy.context.view_layer.update()
            assert sorted(our_handlers()) == expected
    finally:
        if not harness.is_enabled():
            harness.enable()
    # Still working after the cycles.
    arm = bpy.data.objects["Rig"]
    again = rigs.ArmRig(arm, rig.plane, rig.upper, rig.lower, rig.parent, rig.a, rig.b, rig.offset)
    target_at(again, bpy.data.objects["Target"], 1.3, 2.2)
    bpy.context.view_layer.update()
    assert tip_miss(again, current_state(again, bpy.data.objects["Target"])) < 1e-4 * again.length


def test_unrelated_updates_skip_the_solve_but_the_targets_parent_counts(arm_with_target) -> None:  # type: ignore[no-untyped-def]
    rig, target = arm_with_target
    stats = live_preview().stats
    rig.armature.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()
    other = rigs.new_empty("Unrelated")
    carrier = rigs.new_empty("Carrier")
    bpy.context.view_layer.update()
    world = target.matrix_world.copy()
    target.parent = carrier
    target.matrix_world = world
    bpy.context.view_layer.update()
    solves = stats["solves"]
    other.location = (3.0, 1.0, 2.0)
    bpy.context.view_layer.update()
    assert stats["solves"] == solves
    u, v, _n = rigs.plane_axes(rig.plane)
    in_plane = np.array(rig.armature.matrix_world)[:3, :3] @ (0.2 * u - 0.3 * v)
    carrier.location = in_plane.tolist()  # moves the target through its parent, staying in the rig's plane
    bpy.context.view_layer.update()
    assert stats["solves"] == solves + 1
    assert tip_miss(rig, current_state(rig, target)) < 1e-4 * rig.length


def world_point(rig: rigs.ArmRig, p_arm: np.ndarray) -> np.ndarray:
    return (np.array(rig.armature.matrix_world) @ np.append(p_arm, 1.0))[:3]


@pytest.mark.parametrize("live", [False, True])
def test_overlay_of_the_active_chain_sits_on_the_transformed_rig(arm_with_target, live: bool) -> None:  # type: ignore[no-untyped-def]
    rig, target = arm_with_target
    draw = harness.package("panels.overlay")  # imports in background; only drawing itself needs a GPU
    arm = rig.armature
    arm.soft_ik_2d.live_preview = live
    for location, rotation in (((0.7, -0.4, 0.3), (0.4, -0.3, 0.9)), ((-1.0, 2.0, 0.5), (1.2, 0.3, -0.4))):
        rigs.place_armature(rig, location=location, rotation=rotation, scale=(-1.3, 1.3, 1.3))
        bpy.context.view_layer.update()
        target_at(rig, target, 1.7, 0.4)  # in the soft band: solved target, tip and target all differ
        bpy.context.view_layer.update()
        ov = draw.current_overlay(bpy.context)
        assert ov is not None
        ev = current_state(rig, target)
        shoulder = world_point(rig, ev.shoulder[0])
        scale = 1.3
        np.testing.assert_allclose(np.linalg.norm(ov.outer_ring - shoulder, axis=1), rig.length * scale, rtol=1e-5)
        np.testing.assert_allclose(np.linalg.norm(ov.inner_ring - shoulder, axis=1), (rig.a - rig.b) * scale,
                                   rtol=1e-5)
        normal = np.array(arm.matrix_world)[:3, :3] @ rig.normal
        normal /= np.linalg.norm(normal)
        assert np.abs((ov.outer_ring - shoulder) @ normal).max() < 1e-5 * rig.length
        target_world = np.array(target.matrix_world.translation)
        np.testing.assert_allclose(ov.target_marker.reshape(2, 2, 3).mean(axis=1), [target_world] * 2, atol=1e-6)
        tip = world_point(rig, rigs.expected_tip(ev, rig.length, SOFTNESS)[0])
        np.testing.assert_allclose(ov.error_segment, [tip, target_world], atol=1e-5 * rig.length)
        if live:  # the pose is the solve: Blender's own tip is where the overlay says
            np.testing.assert_allclose(ov.error_segment[0], world_point(rig, ev.tip[0]), atol=1e-5 * rig.length)
        # The soft band ends at the reach: its outer edge is the outer ring's radius.
        assert np.linalg.norm(ov.soft_band - shoulder, axis=1).max() == pytest.approx(rig.length * scale, rel=1e-5)
    arm.soft_ik_2d.show_overlay = False
    assert draw.current_overlay(bpy.context) is None


def test_preview_survives_undo(arm_with_target) -> None:  # type: ignore[no-untyped-def]
    rig, target = arm_with_target
    rig.armature.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()
    assert bpy.ops.ed.undo_push(message="before the drag") == {"FINISHED"}
    target_at(rig, target, 1.0, -0.6)
    bpy.context.view_layer.update()
    assert bpy.ops.ed.undo_push(message="after the drag") == {"FINISHED"}
    assert bpy.ops.ed.undo() == {"FINISHED"}
    # Undo replaced the datablocks: look them up again, then keep dragging.
    arm, target = bpy.data.objects["Rig"], bpy.data.objects["Target"]
    again = rigs.ArmRig(arm, rig.plane, rig.upper, rig.lower, rig.parent, rig.a, rig.b, rig.offset)
    bpy.context.view_layer.update()
    assert tip_miss(again, current_state(again, target)) < 1e-4 * again.length
    target_at(again, target, 1.5, 1.9)
    bpy.context.view_layer.update()
    assert tip_miss(again, current_state(again, target)) < 1e-4 * again.length
    assert sorted(our_handlers()) == sorted(f"{n}:{f.__name__}" for n, f in live_preview()._HANDLERS)


def test_the_upper_bones_own_location_moves_the_shoulder(arm_with_target) -> None:  # type: ignore[no-untyped-def]
    rig, target = arm_with_target
    rig.armature.soft_ik_2d.live_preview = True
    u, v, _n = rigs.plane_axes(rig.plane)
    rest = np.array(rig.armature.data.bones[rig.upper].matrix_local)[:3, :3]
    rig.armature.pose.bones[rig.upper].location = (rest.T @ (0.15 * u - 0.1 * v)).tolist()  # in the plane
    bpy.context.view_layer.update()
    target_at(rig, target, 1.3, -0.4)
    bpy.context.view_layer.update()
    assert tip_miss(rig, current_state(rig, target)) < 1e-4 * rig.length
