"""The live preview's fast one-frame solve (``rigging.live_solve``) and its caches.

- Same numbers as the bake: ``FrameSolver.solve`` against ``chain_solve.solve_chain`` (the bake's solve) on
  randomized rigs and inputs, every field of the solution; the float posing of ``posing`` against the bake's
  rotation channels.
- Same pose as the bake, judged by Blender: a dragged live pose against the baked pose played back at a frame
  where the target is keyed at the same place (tips and elbows from the evaluated pose bones).
- The caches a drag relies on are dropped when what they hold changes: the rest geometry (Edit Mode), a bone
  rename, a parent's scale, the chain's settings.
"""

from __future__ import annotations

import itertools
import math

import bpy
import harness
import numpy as np
import promises
import pytest
import rigs

SOFTNESS = 0.05


def pkg(name: str):  # type: ignore[no-untyped-def]
    return harness.package(name)


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    return q * np.sign(np.diag(r))


def random_affine(rng: np.random.Generator, *, scale: np.ndarray, shift: float) -> tuple[tuple[float, ...], ...]:
    m = np.eye(4)
    m[:3, :3] = random_rotation(rng) * scale
    m[:3, 3] = rng.uniform(-shift, shift, 3)
    # Blender's matrices are float32: so are the inputs the preview reads.
    return tuple(tuple(float(np.float32(v)) for v in row) for row in m)


def configure(chain: bpy.types.PropertyGroup, rng: np.random.Generator, case: int) -> None:
    chain.bend = 1 if case % 2 else -1
    chain.softness = float(rng.choice([0.0, 0.03, 0.2]))
    chain.inner_softness = float(rng.choice([0.0, 0.05]))
    chain.use_shoulder_limit = bool(case % 3 == 0)
    chain.shoulder_min, chain.shoulder_max = -0.8, 0.6
    chain.use_elbow_limit = bool(case % 4 < 2)
    chain.elbow_min, chain.elbow_max = -1.4, 1.2
    chain.limit_strategy = ("ACCEPT", "MOVE_ROOT", "STRETCH")[case % 3 if case % 5 else (case + 1) % 3]
    chain.max_root_offset = float(rng.uniform(0.05, 0.5))
    chain.stretch_min, chain.stretch_max = 0.7, 1.3


def assert_same_solution(fast, slow, scale: float, where: str) -> None:  # type: ignore[no-untyped-def]
    for name in ("frames", "valid", "flags"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name), err_msg=f"{name} {where}")
    for name, atol in (("deltas", 1e-7), ("stretch", 1e-9), ("sensitivity", 1e-6 / scale), ("root_offset", 1e-9),
                       ("error", 1e-9 * scale), ("tip_world", 1e-9 * scale), ("target_world", 0.0),
                       ("solved_target_world", 1e-9 * scale), ("base", 1e-9), ("armature_world", 0.0)):
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.shape == b.shape, (name, a.shape, b.shape, where)
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=atol, err_msg=f"{name} {where}")
    assert (fast.parent_frame is None) == (slow.parent_frame is None), where
    if slow.parent_frame is not None:
        np.testing.assert_allclose(fast.parent_frame, slow.parent_frame, atol=1e-9, err_msg=where)
    fs, ss = fast.state, slow.state
    np.testing.assert_allclose(fs.direction, ss.direction, atol=1e-9, err_msg=where)
    np.testing.assert_allclose(fs.root_offset, ss.root_offset, atol=1e-9, err_msg=where)
    assert fs.bend == ss.bend, where


@pytest.mark.parametrize("plane", ["XZ", "XY", "YZ"])
@pytest.mark.parametrize("with_parent", [True, False])
def test_fast_solve_equals_the_bakes_solve(empty_file: bpy.types.Scene, plane: str, with_parent: bool) -> None:
    live_solve, chain_solve, read = pkg("rigging.live_solve"), pkg("rigging.chain_solve"), pkg("rigging.rig")
    rig_obj = promises.bent_arm(plane=plane, with_parent=with_parent)
    chain = rigs.add_chain(rig_obj, rigs.new_empty("Target"))
    pole_obj = rigs.new_empty("Pole")
    rng = np.random.default_rng(17 + 2 * len(plane) + with_parent)
    checked = 0
    for case in range(60):
        configure(chain, rng, case)
        chain.pole = pole_obj if case % 4 == 1 else None
        rig = read.read_chain(rig_obj.armature, chain)
        fast_solver = live_solve.FrameSolver(rig)
        pole = tuple(rng.uniform(-3, 3, 3).tolist()) if chain.pole is not None else None
        location = tuple(rng.uniform(-0.2, 0.2, 3).tolist()) if case % 3 == 1 else None
        previous = None
        # Three solves on one FrameSolver, as in a drag: a first frame, the target moved (the cached shoulder
        # frame is reused), then the armature and the parent moved too (it must not be).
        for step in range(3):
            if step != 1:
                # Mirrored and non-uniformly scaled armatures and parents: the glue is general affine algebra.
                arm = random_affine(rng, scale=rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 2.0, 3), shift=3.0)
                parent = random_affine(rng, scale=rng.uniform(0.6, 1.6, 3), shift=1.0) if with_parent else None
            head = np.array(rig_obj.armature.data.bones[rig_obj.upper].head_local)
            world = np.array(arm)
            reach = rig_obj.length * rng.choice([0.05, 0.5, 0.9, 0.99, 1.2, 3.0])
            target = world[:3, :3] @ (head + reach * rng.normal(size=3) / math.sqrt(3)) + world[:3, 3]
            inputs = live_solve.FrameInputs(float(case), arm, tuple(target.tolist()), parent, pole, location)
            slow = chain_solve.solve_chain(rig, np.array([inputs.frame]), inputs.samples(), fps=24.0,
                                           previous=previous, smooth_root=False)
            fast = fast_solver.solve(rig, inputs, fps=24.0, previous=previous)
            assert_same_solution(fast, slow, float(np.abs(np.linalg.det(world[:3, :3]))) ** (1 / 3),
                                 f"case {case} step {step}")
            previous = slow.state
            checked += 1
    assert checked == 180


def test_fast_posing_equals_the_bakes_rotation_channels(empty_file: bpy.types.Scene) -> None:
    posing, rotations = pkg("rigging.posing"), pkg("solver.rotations")
    rng = np.random.default_rng(5)
    for _ in range(300):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        delta = float(rng.uniform(-12.0, 12.0))
        current = tuple(rng.normal(size=4).tolist())
        current_aa = (float(rng.uniform(-20, 20)), *current[1:])
        np.testing.assert_allclose(posing._quaternion(axis, delta, current),
                                   rotations.quaternions_about_axis(axis, [delta], previous=current)[0], atol=1e-12)
        np.testing.assert_allclose(posing._axis_angle(axis, delta, current_aa),
                                   rotations.axis_angles_about_axis(axis, [delta], previous=current_aa)[0],
                                   atol=1e-12)


def joints_world(rig: rigs.ArmRig) -> np.ndarray:
    """Blender's evaluated elbow and tip, world space."""
    pb = rig.armature.pose.bones
    world = np.array(rig.armature.matrix_world)
    return np.array([(world @ np.append(np.array(p), 1.0))[:3] for p in (pb[rig.lower].head, pb[rig.lower].tail)])


PLACES = ((0.6, -1.0), (1.75, 2.0), (2.4, 0.7), (0.3, -2.5), (1.2, 0.2), (1.5, -0.3))


@pytest.mark.parametrize("strategy", ["ACCEPT", "MOVE_ROOT", "STRETCH"])
@pytest.mark.parametrize("modes", [("QUATERNION", "AXIS_ANGLE"), ("XZY", "QUATERNION")])
def test_dragged_pose_is_the_baked_pose(empty_file: bpy.types.Scene, strategy: str,
                                        modes: tuple[str, str]) -> None:
    rig = promises.bent_arm(modes=modes)
    rigs.place_armature(rig, scale=(-1.2, 1.2, 1.2))
    root = rig.armature.pose.bones[rig.parent]
    root.rotation_mode, root.rotation_euler, root.location = "XYZ", (0.1, 0.2, 0.3), (0.05, 0.1, -0.02)
    target, pole = rigs.new_empty("Target"), rigs.new_empty("Pole")
    chain = rigs.add_chain(rig, target)
    chain.softness, chain.pole, chain.root_smoothing = SOFTNESS, pole, 0
    chain.use_elbow_limit, chain.elbow_min, chain.elbow_max = True, -1.0, 1.0
    chain.limit_strategy, chain.stretch_min, chain.stretch_max = strategy, 0.6, 1.4
    scene, view_layer = bpy.context.scene, bpy.context.view_layer
    scene.frame_set(1)
    rig.armature.soft_ik_2d.live_preview = True
    shoulder = np.array(rig.armature.matrix_world) @ np.append(np.array(rig.armature.pose.bones[rig.upper].head), 1)
    u, v, _n = rigs.plane_axes(rig.plane)
    places, live = [], []
    for k, (radius, angle) in enumerate(PLACES):
        p = shoulder[:3] + 1.2 * radius * (math.cos(angle) * u + math.sin(angle) * v)
        target.location = p.tolist()
        pole.location = (shoulder[:3] + 2.0 * (math.cos(angle + (1 if k % 2 else -1)) * u)).tolist()
        view_layer.update()
        places.append((p, np.array(pole.location)))
        live.append(joints_world(rig))
    # The same places keyed on frames 1..6 and baked: Blender plays the bake back.
    rig.armature.soft_ik_2d.live_preview = False
    for f, (p, q) in enumerate(places, start=1):
        target.location, pole.location = p.tolist(), q.tolist()
        target.keyframe_insert("location", frame=f)
        pole.keyframe_insert("location", frame=f)
    assert rigs.bake(rig, 1, len(places)) == {"FINISHED"}
    for f in range(1, len(places) + 1):
        scene.frame_set(f)
        np.testing.assert_allclose(live[f - 1], joints_world(rig), atol=2e-5 * rig.length, err_msg=f"frame {f}")
    assert max(np.linalg.norm(a[1] - b[1]) for a, b in itertools.pairwise(live)) > 0.1  # it moved


@pytest.fixture
def live_arm(empty_file: bpy.types.Scene) -> tuple[rigs.ArmRig, bpy.types.Object]:
    rig = rigs.build_arm(rest_bend_deg=20.0)
    rigs.place_armature(rig, scale=(1.3, 1.3, 1.3))
    target = rigs.new_empty("Target")
    chain = rigs.add_chain(rig, target)
    chain.softness = SOFTNESS
    rig.armature.soft_ik_2d.live_preview = True
    return rig, target


def place_target(rig: rigs.ArmRig, target: bpy.types.Object, radius: float, angle: float) -> None:
    u, v, _n = rigs.plane_axes(rig.plane)
    head = np.array(rig.armature.pose.bones[rig.upper].head)
    p = head + radius * (math.cos(angle) * u + math.sin(angle) * v)
    target.location = (np.array(rig.armature.matrix_world) @ np.append(p, 1.0))[:3].tolist()
    bpy.context.view_layer.update()


def tip_miss(rig: rigs.ArmRig, target: bpy.types.Object, length: float) -> float:
    """Blender's tip against the soft-IK answer for a chain of ``length`` (armature units)."""
    pb = rig.armature.pose.bones
    world = np.array(rig.armature.matrix_world)
    ev = rigs.Evaluated(shoulder=np.array([pb[rig.upper].head]), elbow=np.array([pb[rig.lower].head]),
                        tip=np.array([pb[rig.lower].tail]), world=np.array([world]),
                        target_world=np.array([np.array(target.matrix_world.translation)]),
                        normal_axes=np.zeros((1, 2, 3)))
    return float(np.linalg.norm(ev.tip - rigs.expected_tip(ev, length, SOFTNESS), axis=1).max())


def test_rest_geometry_edited_in_edit_mode_is_read_again(live_arm) -> None:  # type: ignore[no-untyped-def]
    rig, target = live_arm
    place_target(rig, target, 1.6, 0.4)
    place_target(rig, target, 1.7, 0.5)
    assert tip_miss(rig, target, rig.length) < 1e-4 * rig.length
    rigs.enter_pose_mode(rig)
    bpy.ops.object.mode_set(mode="EDIT")
    lower = rig.armature.data.edit_bones[rig.lower]
    lower.tail = lower.head + (lower.tail - lower.head) * 1.5  # 0.8 -> 1.2
    bpy.ops.object.mode_set(mode="POSE")
    longer = rig.a + 1.5 * rig.b
    for radius, angle in ((1.9, 0.5), (2.1, -0.3), (1.0, 1.2)):  # beyond the old reach, then inside it
        place_target(rig, target, radius, angle)
        assert tip_miss(rig, target, longer) < 1e-4 * longer, (radius, angle)


def test_renamed_bone_reports_and_renaming_back_resumes(live_arm) -> None:  # type: ignore[no-untyped-def]
    rig, target = live_arm
    live_preview = pkg("rigging.live_preview")
    chain = rig.armature.soft_ik_2d.chains[0]
    place_target(rig, target, 1.2, 0.4)
    rig.armature.data.bones[rig.lower].name = "Forearm"
    bpy.context.view_layer.update()
    place_target(rig, target, 1.0, -0.4)  # a drag after the rename: no stale rig is solved
    entry = live_preview.preview_of(rig.armature, chain)
    if chain.lower_bone == "Forearm":  # the chain followed the rename: it keeps solving
        assert entry.solution is not None and tip_miss(rig, target, rig.length) < 1e-4 * rig.length
    else:
        assert entry.solution is None and rig.lower in entry.message
    rig.armature.data.bones["Forearm"].name = rig.lower
    chain.lower_bone = rig.lower
    bpy.context.view_layer.update()
    place_target(rig, target, 1.3, 0.9)
    assert live_preview.preview_of(rig.armature, chain).solution is not None
    assert tip_miss(rig, target, rig.length) < 1e-4 * rig.length


def test_parent_scale_refusal_is_not_skipped_while_dragging(live_arm) -> None:  # type: ignore[no-untyped-def]
    rig, target = live_arm
    live_preview = pkg("rigging.live_preview")
    chain = rig.armature.soft_ik_2d.chains[0]
    place_target(rig, target, 1.2, 0.4)
    rig.armature.data.bones[rig.upper].inherit_scale = "NONE"
    root = rig.armature.pose.bones[rig.parent]
    root.scale = (1.4, 1.4, 1.4)  # a scale the upper bone does not inherit: the solve does not model it
    bpy.context.view_layer.update()
    for radius, angle in ((1.0, -0.4), (1.4, 0.8)):  # drags touch only the target
        poses = live_preview.stats["poses"]
        place_target(rig, target, radius, angle)
        entry = live_preview.preview_of(rig.armature, chain)
        assert entry.solution is None and rig.parent in entry.message, entry.message
        assert live_preview.stats["poses"] == poses
    root.scale = (1.0, 1.0, 1.0)
    bpy.context.view_layer.update()
    place_target(rig, target, 1.1, 0.2)
    assert tip_miss(rig, target, rig.length) < 1e-4 * rig.length


def test_settings_changed_between_drags_are_used(live_arm) -> None:  # type: ignore[no-untyped-def]
    rig, target = live_arm
    chain = rig.armature.soft_ik_2d.chains[0]
    pb = rig.armature.pose.bones
    place_target(rig, target, 1.6, 0.4)
    chain.use_elbow_limit, chain.elbow_min, chain.elbow_max = True, -0.2, 0.2
    bpy.context.view_layer.update()
    place_target(rig, target, 1.0, -0.35)  # needs a bend of ~2 rad: the limit holds the elbow, the tip misses
    assert float(pb[rig.lower]["soft_ik_error"]) > 0.05
    chain.limit_strategy, chain.stretch_min, chain.stretch_max = "STRETCH", 0.5, 1.5
    bpy.context.view_layer.update()
    place_target(rig, target, 1.0, -0.3)  # the stretch reaches
    assert float(pb[rig.upper].scale[0]) < 0.95
    world = np.array(rig.armature.matrix_world)
    tip = (world @ np.append(np.array(pb[rig.lower].tail), 1.0))[:3]
    assert np.linalg.norm(tip - np.array(target.matrix_world.translation)) < 1e-4 * rig.length * 1.3


@pytest.mark.parametrize("owned", ["STRETCH", "MOVE_ROOT"])
def test_leaving_stretch_or_move_root_gives_the_channel_back(live_arm, owned: str) -> None:  # type: ignore[no-untyped-def]
    """Stretch wrote a scale, Move Root a location: switched to Accept, the chain neither refuses that scale as
    the user's nor reads that offset as the user's location; Blender's tip is where Accept puts it."""
    rig, target = live_arm
    chain = rig.armature.soft_ik_2d.chains[0]
    pb = rig.armature.pose.bones
    if owned == "MOVE_ROOT":  # Move Root needs an unconnected upper bone
        rigs.enter_pose_mode(rig)
        bpy.ops.object.mode_set(mode="EDIT")
        rig.armature.data.edit_bones[rig.upper].use_connect = False
        bpy.ops.object.mode_set(mode="POSE")
    chain.use_elbow_limit, chain.elbow_min, chain.elbow_max = True, -0.2, 0.2
    chain.limit_strategy, chain.stretch_min, chain.stretch_max, chain.max_root_offset = owned, 0.5, 1.5, 1.0
    bpy.context.view_layer.update()
    place_target(rig, target, 1.0, -0.35)
    if owned == "STRETCH":
        assert float(pb[rig.upper].scale[0]) < 0.95
    else:
        assert np.linalg.norm(np.array(pb[rig.upper].location)) > 0.05
    chain.limit_strategy = "ACCEPT"
    bpy.context.view_layer.update()
    first = joints_world(rig)
    rig.armature.update_tag()
    bpy.context.view_layer.update()
    # The first update after the switch already solved from the rest shoulder (not the offset still evaluated).
    np.testing.assert_allclose(joints_world(rig), first, atol=1e-6)
    place_target(rig, target, 1.0, -0.3)
    entry = pkg("rigging.live_preview").preview_of(rig.armature, chain)
    assert entry.solution is not None, entry.message
    np.testing.assert_allclose(np.array(pb[rig.upper].scale), 1.0, atol=1e-6)
    np.testing.assert_allclose(np.array(pb[rig.upper].location), 0.0, atol=1e-6)
    # Accept with the elbow held at 0.2 rad: the tip lies on the arm drawn from the rest shoulder.
    assert float(pb[rig.lower]["soft_ik_error"]) > 0.05
    world = np.array(rig.armature.matrix_world)
    shoulder = (world @ np.append(np.array(pb[rig.upper].head), 1.0))[:3]
    rest_head = (world @ np.append(np.array(rig.armature.data.bones[rig.upper].head_local), 1.0))[:3]
    np.testing.assert_allclose(shoulder, rest_head, atol=1e-6)
