"""The bake, checked against Blender's own evaluation of the baked keys (``scene.frame_set`` + pose bone tail).

Truth is independent of the solver: for a target between the inner and outer reach the tip must lie on the
shoulder->target line at the soft-clamped distance (``rigs.expected_tip``), the keyed error must be the world
distance Blender shows between tip and target, and every joint must stay in the declared plane.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 41))
START, END = FRAMES[0], FRAMES[-1]


def moving_rig(plane: str = "XZ", modes: tuple[str, str] = ("QUATERNION", "QUATERNION"), *,
               mirrored: bool = True, rest_bend_deg: float = 0.0) -> rigs.ArmRig:
    """An arm whose parent bone rotates and shifts, on a moved, rotated, (mirrored) and travelling object."""
    rig = rigs.build_arm(plane=plane, modes=modes, rest_bend_deg=rest_bend_deg)
    rigs.animate_parent(rig, FRAMES, lambda f: 0.6 * math.sin(f / 7.0), lambda f: (0.02 * f, -0.01 * f))
    scale = (-1.3, 1.3, 1.3) if mirrored else (1.3, 1.3, 1.3)
    rigs.place_armature(rig, scale=scale, keyed_shift=lambda f: (0.03 * f, 0.0, -0.02 * f), frames=FRAMES)
    return rig


def keyed_error(rig: rigs.ArmRig, frames: list[int]) -> np.ndarray:
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, "soft_ik_error"))
    assert fc is not None, "the bake keyed no soft_ik_error"
    return np.array([fc.evaluate(f) for f in frames])


def assert_in_plane(rig: rigs.ArmRig, ev: rigs.Evaluated) -> None:
    assert rigs.plane_offset(rig, ev).max() < 1e-4 * rig.length
    # The bones turn about the plane normal only: their rest-local normal axis still points along it.
    assert (ev.normal_axes @ rig.normal).min() > 1 - 1e-6


@pytest.mark.parametrize("mode", rigs.ROTATION_MODES)
def test_tip_reaches_reachable_targets_in_every_rotation_mode(empty_file: bpy.types.Scene, mode: str) -> None:
    lower_mode = rigs.ROTATION_MODES[(rigs.ROTATION_MODES.index(mode) + 3) % len(rigs.ROTATION_MODES)]
    rig = moving_rig(modes=(mode, lower_mode))
    target = rigs.circle_target(rig, FRAMES, lambda f: 0.5 + 1.2 * (0.5 + 0.5 * math.sin(f / 3.0)),
                                lambda f: 0.35 * f)
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0
    assert rigs.bake(rig, START, END) == {"FINISHED"}

    ev = rigs.evaluate(rig, target, FRAMES)
    world_length = rig.length * rig.world_scale
    miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
    assert miss.max() < 1e-4 * world_length
    assert_in_plane(rig, ev)
    np.testing.assert_allclose(keyed_error(rig, FRAMES), miss, atol=1e-5 * world_length)

    # Each bone is keyed in its own rotation mode: a key on every frame where the channel moves; a channel that
    # holds still keeps only its first and last key (exact for linear keys), and nothing else was keyed on it.
    for bone, bone_mode in ((rig.upper, mode), (rig.lower, lower_mode)):
        prop, size = rigs.rotation_prop(bone_mode)
        for i in range(size):
            fc = rigs.fcurve(rig.armature, rigs.bone_path(bone, prop), i)
            assert fc is not None, f"{bone}.{prop}[{i}] not keyed"
            keys = rigs.key_frames(fc)
            if np.ptp(keys[:, 1]) == 0.0:
                np.testing.assert_array_equal(keys[:, 0], [FRAMES[0], FRAMES[-1]])
            else:
                np.testing.assert_array_equal(keys[:, 0], FRAMES)
        for other in ("rotation_quaternion", "rotation_axis_angle", "rotation_euler", "location", "scale"):
            if other != prop:
                assert rigs.fcurve(rig.armature, rigs.bone_path(bone, other), 0) is None
    if mode == "QUATERNION":
        quat = np.array([[rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "rotation_quaternion"), i)
                          .evaluate(f) for i in range(4)] for f in FRAMES])
        assert (np.sum(quat[1:] * quat[:-1], axis=1) > 0).all(), "quaternion sign flips between keys"


@pytest.mark.parametrize("plane", ["XZ", "XY", "YZ"])
def test_reached_targets_and_rounding_key_no_noise(empty_file: bpy.types.Scene, plane: str) -> None:
    """A bone's own axis (quaternion y) is perpendicular to the plane normal up to float32 rounding of the rest
    matrix, and a reached target's error is round-off: both are keyed flat (first and last frame), not as one
    key of noise per frame."""
    rig = moving_rig(plane=plane)
    target = rigs.circle_target(rig, FRAMES, lambda f: 0.6 + 0.8 * (0.5 + 0.5 * math.sin(f / 3.0)),
                                lambda f: 0.3 * f)
    rigs.add_chain(rig, target).softness = 0.0
    assert rigs.bake(rig, START, END) == {"FINISHED"}
    ev = rigs.evaluate(rig, target, FRAMES)
    assert np.linalg.norm(ev.tip_world - ev.target_world, axis=1).max() < 1e-4 * rig.length * rig.world_scale
    flat = [(rigs.bone_path(rig.lower, "soft_ik_error"), 0)]
    flat += [(rigs.bone_path(bone, "rotation_quaternion"), 2) for bone in (rig.upper, rig.lower)]
    for path, index in flat:
        keys = rigs.key_frames(rigs.fcurve(rig.armature, path, index))
        np.testing.assert_array_equal(keys, [[START, 0.0], [END, 0.0]], err_msg=f"{path}[{index}]")
    for bone in (rig.upper, rig.lower):  # the turning components are keyed on every frame
        keys = rigs.key_frames(rigs.fcurve(rig.armature, rigs.bone_path(bone, "rotation_quaternion"), 0))
        np.testing.assert_array_equal(keys[:, 0], FRAMES)


@pytest.mark.parametrize("plane", ["XZ", "XY", "YZ"])
def test_soft_tip_on_every_plane_never_reaches_full_extension(empty_file: bpy.types.Scene, plane: str) -> None:
    rig = moving_rig(plane=plane, rest_bend_deg=25.0)
    # From well inside to 1.4 times the reach: the soft band and far targets both occur (further out the
    # remaining gap, s*exp(-(d-(L-s))/s), drops below float32 resolution of Blender's bone positions).
    target = rigs.circle_target(rig, FRAMES, lambda f: rig.length * (0.5 + 0.9 * f / FRAMES[-1]),
                                lambda f: 0.25 * f)
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.08
    assert rigs.bake(rig, START, END) == {"FINISHED"}

    ev = rigs.evaluate(rig, target, FRAMES)
    tip_error = np.linalg.norm(ev.tip - rigs.expected_tip(ev, rig.length, 0.08), axis=1)
    assert tip_error.max() < 1e-4 * rig.length
    assert_in_plane(rig, ev)
    reach = np.linalg.norm(ev.tip - ev.shoulder, axis=1)
    assert (reach < rig.length).all()
    assert (np.linalg.norm(ev.target_arm - ev.shoulder, axis=1) > rig.length).sum() > 5  # really far out
    world_miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
    np.testing.assert_allclose(keyed_error(rig, FRAMES), world_miss, atol=1e-5 * rig.length * rig.world_scale)
    # The elbow stays on the rest-bend side (bend +1: clockwise of the shoulder->target line).
    side = np.cross(ev.target_arm - ev.shoulder, ev.elbow - ev.shoulder) @ rig.normal
    assert (side < 0).all()


@pytest.mark.parametrize("order", rigs.EULER_ORDERS)
def test_euler_keys_stay_continuous_while_the_target_circles(empty_file: bpy.types.Scene, order: str) -> None:
    frames = list(range(1, 61))
    rig = rigs.build_arm(modes=(order, order))
    # Three turns around the shoulder, at a varying distance so the elbow also moves.
    target = rigs.circle_target(rig, frames, lambda f: 1.0 + 0.4 * math.sin(f / 4.0),
                                lambda f: 3 * 2 * math.pi * f / len(frames))
    rigs.add_chain(rig, target).softness = 0.0
    assert rigs.bake(rig, frames[0], frames[-1]) == {"FINISHED"}

    for bone in (rig.upper, rig.lower):
        values = np.array([[rigs.fcurve(rig.armature, rigs.bone_path(bone, "rotation_euler"), i).evaluate(f)
                            for i in range(3)] for f in frames])
        jumps = np.abs(np.diff(values, axis=0))
        assert jumps.max() < math.pi / 2, f"{bone}: Euler jump of {jumps.max():.3f} rad between keys"
    ev = rigs.evaluate(rig, target, frames)
    assert np.linalg.norm(ev.tip_world - ev.target_world, axis=1).max() < 1e-4 * rig.length * rig.world_scale


@pytest.mark.parametrize("strategy", ["MOVE_ROOT", "STRETCH"])
def test_limit_strategies_key_location_or_scale(empty_file: bpy.types.Scene, strategy: str) -> None:
    rig = moving_rig(rest_bend_deg=30.0)
    # Close targets need a strong bend; the elbow limit forbids it, so the strategy acts.
    # At the 60 degree limit the tip is 1.56 from the shoulder: targets at 1.0-1.2 need a 0.64-0.77 stretch.
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.1 + 0.1 * math.sin(f / 5.0), lambda f: 0.1 * f)
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0
    chain.use_elbow_limit, chain.elbow_min, chain.elbow_max = True, 0.0, math.radians(60.0)
    chain.limit_strategy = strategy
    chain.max_root_offset = 0.5
    chain.stretch_min, chain.stretch_max = 0.5, 1.5
    assert rigs.bake(rig, START, END) == {"FINISHED"}

    prop = "location" if strategy == "MOVE_ROOT" else "scale"
    curves = [rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, prop), i) for i in range(3)]
    assert all(fc is not None for fc in curves), f"{strategy} wrote no {prop} keys"
    values = np.array([[fc.evaluate(f) for fc in curves] for f in FRAMES])
    rest = np.zeros(3) if strategy == "MOVE_ROOT" else np.ones(3)
    assert np.abs(values - rest).max() > 1e-3, f"{strategy} keyed only rest values"
    assert chain.limited_frames > 0

    ev = rigs.evaluate(rig, target, FRAMES)
    world_miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
    # Whatever the strategy achieved, the keyed error is what Blender shows, and the chain stays planar.
    np.testing.assert_allclose(keyed_error(rig, FRAMES), world_miss, atol=1e-4 * rig.length * rig.world_scale)
    assert rigs.plane_offset(rig, ev).max() < 1e-4 * rig.length
    if strategy == "STRETCH":
        assert world_miss.max() < 1e-4 * rig.length * rig.world_scale


def test_user_location_key_on_the_upper_bone_is_followed(empty_file: bpy.types.Scene) -> None:
    """A user's location key on the upper bone moves the shoulder (in the plane); the tip must still reach."""
    rig = rigs.build_arm()
    pb = rig.armature.pose.bones[rig.upper]
    rest = np.array(rig.armature.data.bones[rig.upper].matrix_local)[:3, :3]
    u, v, _n = rigs.plane_axes(rig.plane)
    for f, shift in ((START, 0.0), (END, 0.4)):
        pb.location = rest.T @ (shift * (u + v))
        pb.keyframe_insert("location", frame=f)
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.2, lambda f: 0.2 * f)
    rigs.add_chain(rig, target).softness = 0.0
    assert rigs.bake(rig, START, END) == {"FINISHED"}
    ev = rigs.evaluate(rig, target, FRAMES)
    assert np.linalg.norm(ev.tip_world - ev.target_world, axis=1).max() < 1e-4 * rig.length


def all_keys(obj: bpy.types.Object) -> dict[tuple[str, int], dict[str, list]]:
    anim_keys = rigs.harness.package("rigging.anim_keys")
    return {(fc.data_path, fc.array_index): {k: v.tolist() for k, v in anim_keys.read_keys(fc).items()}
            for fc in anim_keys.iter_fcurves(obj)}


def outside(keys: dict[str, list], start: int, end: int) -> dict[str, list]:
    keep = [i for i, (f, _v) in enumerate(keys["co"]) if not start <= f <= end]
    return {name: [values[i] for i in keep] for name, values in keys.items()}


def test_user_keys_survive_rebake_is_identical_and_clear_restores(empty_file: bpy.types.Scene) -> None:
    start, end = 10, 40
    rig = rigs.build_arm()
    arm, pose = rig.armature, rig.armature.pose.bones
    upper, lower = pose[rig.upper], pose[rig.lower]
    # Keys the user made: on channels the bake owns but outside its range, and on channels it does not own.
    for f, angle in ((-5, 0.3), (3, -0.2), (55, 0.8)):
        upper.rotation_quaternion = (math.cos(angle), 0.0, math.sin(angle), 0.0)
        upper.keyframe_insert("rotation_quaternion", frame=f)
    for f in (5, 25):
        upper.keyframe_insert("location", frame=f)  # zero: keeps the shoulder where it is
    lower["my_prop"] = 1.0
    lower.keyframe_insert('["my_prop"]', frame=15)
    lower["my_prop"] = 4.0
    lower.keyframe_insert('["my_prop"]', frame=30)
    lower.rotation_euler = (0.1, 0.2, 0.3)
    lower.keyframe_insert("rotation_euler", frame=20)  # not the bone's rotation mode: not the bake's
    for f, x in ((1, 0.0), (50, 0.5)):
        arm.location = (x, 0.0, 0.0)
        arm.keyframe_insert("location", frame=f)
    target = rigs.circle_target(rig, list(range(1, 61)), lambda f: 1.3, lambda f: 0.1 * f)
    # A user-styled key: the preserved keys must keep handles and interpolation too.
    fc = rigs.fcurve(arm, rigs.bone_path(rig.upper, "rotation_quaternion"), 2)
    fc.keyframe_points[-1].interpolation = "BOUNCE"
    fc.keyframe_points[0].handle_right_type = "VECTOR"
    before = all_keys(arm)
    target_before = all_keys(target)
    rigs.add_chain(rig, target)

    assert rigs.bake(rig, start, end) == {"FINISHED"}
    owned_paths = {rigs.bone_path(b, "rotation_quaternion") for b in (rig.upper, rig.lower)}
    owned_paths |= {rigs.bone_path(rig.lower, p) for p in ("soft_ik_error", "soft_ik_flags")}
    first = all_keys(arm)
    for channel, keys in before.items():
        if channel[0] in owned_paths:
            assert outside(first[channel], start, end) == outside(keys, start, end), channel
        else:
            assert first[channel] == keys, f"{channel} is not the bake's and changed"
    for channel, keys in first.items():
        if channel[0] in owned_paths:
            # Whole frames from start to end; frames where the channel holds still may be merged away.
            frames = [f for f, _v in keys["co"] if start <= f <= end]
            assert frames[0] == start and frames[-1] == end, channel
            assert set(frames) <= set(range(start, end + 1)), channel
        else:
            assert channel in before, f"the bake created {channel}"
    assert all_keys(target) == target_before

    assert rigs.bake(rig, start, end) == {"FINISHED"}
    assert all_keys(arm) == first, "baking twice changed the keys"

    assert bpy.ops.pose.soft_ik_clear_bake() == {"FINISHED"}
    cleared = all_keys(arm)
    for channel, keys in cleared.items():
        if channel[0] in owned_paths:
            assert not [f for f, _v in keys["co"] if start <= f <= end], f"{channel} keeps baked keys"
            assert outside(keys, start, end) == outside(before.get(channel, keys), start, end), channel
        else:
            assert keys == before[channel], channel
    assert bpy.ops.pose.soft_ik_clear_bake() == {"CANCELLED"}  # nothing left to clear


@pytest.mark.parametrize("mode", ["XYZ", "QUATERNION", "AXIS_ANGLE"])
def test_adjacent_bakes_join_without_a_jump(empty_file: bpy.types.Scene, mode: str) -> None:
    """Baking 1-30 and then 31-60 continues the rotation from the keys before the range: no 2 pi jump
    (Euler), no sign flip (quaternion), no angle wrap (axis-angle) at the seam."""
    frames = list(range(1, 61))
    rig = rigs.build_arm(modes=(mode, mode))
    target = rigs.circle_target(rig, frames, lambda f: 1.2, lambda f: 2 * 2 * math.pi * f / len(frames))
    rigs.add_chain(rig, target).softness = 0.0
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    assert rigs.bake(rig, 31, 60) == {"FINISHED"}
    prop, size = rigs.rotation_prop(mode)
    for bone in (rig.upper, rig.lower):
        values = np.array([[rigs.fcurve(rig.armature, rigs.bone_path(bone, prop), i).evaluate(f)
                            for i in range(size)] for f in frames])
        steps = np.abs(np.diff(values, axis=0))
        seam = steps[29]  # between frames 30 and 31
        assert seam.max() <= 2 * np.delete(steps, 29, axis=0).max(axis=0).max() + 1e-6, (bone, seam)
    ev = rigs.evaluate(rig, target, frames)
    assert np.linalg.norm(ev.tip_world - ev.target_world, axis=1).max() < 1e-4 * rig.length


def test_changing_strategy_removes_the_old_strategy_keys_in_range(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm(rest_bend_deg=30.0)
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.1, lambda f: 0.1 * f)
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0
    chain.use_elbow_limit, chain.elbow_max = True, math.radians(60.0)
    chain.limit_strategy, chain.stretch_min = "STRETCH", 0.5
    assert rigs.bake(rig, START, END) == {"FINISHED"}
    scale = rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "scale"), 0)
    assert scale is not None and len(scale.keyframe_points) >= 2
    assert min(k.co[1] for k in scale.keyframe_points) < 1.0 - 1e-3  # the limit made it stretch
    chain.limit_strategy = "ACCEPT"
    assert rigs.bake(rig, START, END) == {"FINISHED"}
    scale = rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "scale"), 0)
    assert scale is None or len(scale.keyframe_points) == 0
    ev = rigs.evaluate(rig, target, FRAMES)
    assert np.allclose(np.linalg.norm(ev.elbow - ev.shoulder, axis=1), rig.a, atol=1e-5)  # no stale stretch


def test_solve_with_insert_keys_keys_only_the_current_frame(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm(modes=("ZXY", "AXIS_ANGLE"))
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.3, lambda f: 0.3 * f)
    rigs.add_chain(rig, target).softness = 0.0
    bpy.context.scene.frame_set(9)
    assert bpy.ops.pose.soft_ik_solve(insert_keys=True) == {"FINISHED"}
    for bone, prop in ((rig.upper, "rotation_euler"), (rig.lower, "rotation_axis_angle")):
        assert rigs.key_frames(rigs.fcurve(rig.armature, rigs.bone_path(bone, prop)))[:, 0].tolist() == [9]
    ev = rigs.evaluate(rig, target, [9])
    assert np.linalg.norm(ev.tip_world - ev.target_world) < 1e-4 * rig.length


def test_bake_says_which_inputs_need_blenders_evaluation(empty_file: bpy.types.Scene,
                                                         capfd: pytest.CaptureFixture[str]) -> None:
    rig = moving_rig()  # animated parent bone and armature: composed from F-curves
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.2, lambda f: 0.2 * f)
    rigs.add_chain(rig, target)
    capfd.readouterr()
    assert rigs.bake(rig, START, END) == {"FINISHED"}
    assert "frame by frame" not in capfd.readouterr().out

    # A driver on the target's transform is only evaluated by Blender: the bake still matches Blender, and says
    # which object made it step the scene.
    # (It turns the target, which leaves its position, the only thing the chain reaches for, as it was.)
    driver = target.driver_add("rotation_euler", 2).driver
    driver.expression = "0.1 * frame"  # of the frame alone: evaluated without stepping (sampling/drivers.py)
    assert rigs.bake(rig, START, END) == {"FINISHED"}
    assert "frame by frame" not in capfd.readouterr().out
    var = driver.variables.new()  # a local-space transform variable: only Blender evaluates it
    var.type = "TRANSFORMS"
    var.targets[0].id = rig.armature
    var.targets[0].transform_type = "LOC_X"
    var.targets[0].transform_space = "LOCAL_SPACE"  # in its own axes: only Blender evaluates it
    driver.expression = f"0.1 * frame + {var.name}"
    assert rigs.bake(rig, START, END) == {"FINISHED"}
    lines = [ln for ln in capfd.readouterr().out.splitlines() if "frame by frame" in ln]
    assert len(lines) == 1 and lines[0].startswith("Info:") and f"'{target.name}'" in lines[0], lines
    ev = rigs.evaluate(rig, target, FRAMES)
    world_length = rig.length * rig.world_scale
    assert np.linalg.norm(ev.tip_world - ev.target_world, axis=1).max() < 1e-4 * world_length


def test_a_control_location_driver_is_composed_and_the_keyed_error_is_what_blender_plays(
        empty_file: bpy.types.Scene, capfd: pytest.CaptureFixture[str]) -> None:
    """The target hangs from a carrier whose X is driven by a keyed control's world X (the usual rig driver,
    composed from F-curves since it reads the control's location channel): nothing is stepped, and on a moving,
    mirrored rig with frames out of reach the keyed error is the distance Blender plays back."""
    rig = moving_rig()
    control = rigs.new_empty("Control")
    rigs.key_locations(control, FRAMES, np.array([(0.05 * f, 0.0, 0.0) for f in FRAMES]))
    carrier = rigs.new_empty("Carrier")
    driver = carrier.driver_add("location", 0).driver
    var = driver.variables.new()
    var.name, var.type = "cx", "TRANSFORMS"
    var.targets[0].id, var.targets[0].transform_type = control, "LOC_X"
    driver.expression = "cx * 0.5 - 0.3"
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.0 + 0.03 * f, lambda f: 0.2 * f)
    target.parent = carrier
    chain = rigs.add_chain(rig, target)
    chain.target_space, chain.space_object = "OBJECT", carrier
    capfd.readouterr()
    assert rigs.bake(rig, START, END) == {"FINISHED"}
    assert "frame by frame" not in capfd.readouterr().out
    ev = rigs.evaluate(rig, target, FRAMES)
    miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
    world_length = rig.length * rig.world_scale
    assert miss.max() > 0.05 * world_length, "some frames are out of reach"
    np.testing.assert_allclose(keyed_error(rig, FRAMES), miss, atol=1e-5 * world_length)
