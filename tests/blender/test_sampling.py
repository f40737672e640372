"""rigging/sampling against Blender's own evaluation (``scene.frame_set`` + ``matrix_world``) in real Blender.

Run through the harness (the installed extension): ``.venvs/bpy-5.0/bin/python tests/blender/run.py
tests/blender/test_sampling.py``.
"""

from __future__ import annotations

import math

import bpy
import harness
import numpy as np
import pytest

sampling = harness.package("rigging.sampling")

FRAMES = np.arange(-3, 41, dtype=np.float64)  # also before the first and after the last key (extrapolation)
ROTATION_MODES = ("QUATERNION", "AXIS_ANGLE", "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")


def data_counts() -> dict[str, int]:
    return {
        attr: len(getattr(bpy.data, attr))
        for attr in dir(bpy.data)
        if isinstance(getattr(bpy.data, attr, None), bpy.types.bpy_prop_collection)
    }


def key(obj: object, path: str, frame: float, value: object, index: int = -1) -> None:
    setattr(obj, path, value)
    obj.keyframe_insert(path, index=index, frame=frame)


def empty(name: str) -> bpy.types.Object:
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    return obj


@pytest.fixture
def scene(empty_file: bpy.types.Scene) -> bpy.types.Scene:
    empty_file.frame_start, empty_file.frame_end = 1, 40
    return empty_file


def build_fcurve_targets() -> list[bpy.types.Object]:
    targets = []
    for n, mode in enumerate(ROTATION_MODES):
        obj = empty(f"target_{mode}")
        obj.rotation_mode = mode
        for frame, t in ((1, 0.0), (13, 1.0), (29, -0.5), (35, 2.0)):
            key(obj, "location", frame, (t + n, 2 * t, -t))
            key(obj, "scale", frame, (1 + 0.2 * t, -1.0, 1 - 0.3 * t))
            if mode == "QUATERNION":
                key(obj, "rotation_quaternion", frame, (1.0 - 0.3 * t, 0.4 * t, -0.7 * t, 0.2))
            elif mode == "AXIS_ANGLE":
                key(obj, "rotation_axis_angle", frame, (2.0 * t, 1.0, t, 0.3 - t))
            else:
                key(obj, "rotation_euler", frame, (1.5 * t, -2.0 * t + 0.3, 0.7 * t))
        targets.append(obj)
    # Modifiers and extrapolation are part of what an F-curve evaluates to.
    fc = sampling.action_fcurves(targets[2])
    loc_x = next(f for f in fc if f.data_path == "location" and f.array_index == 0)
    loc_x.extrapolation = "LINEAR"
    noise = loc_x.modifiers.new("NOISE")
    noise.strength = 0.5
    rot_z = next(f for f in fc if f.data_path == "rotation_euler" and f.array_index == 2)
    rot_z.keyframe_points[1].interpolation = "ELASTIC"
    return targets


def build_dependent_targets() -> tuple[bpy.types.Object, bpy.types.Object, bpy.types.Object]:
    driver = empty("driver")
    driver.rotation_mode = "XYZ"
    for frame, t in ((1, 0.0), (20, 1.0), (40, -1.0)):
        key(driver, "location", frame, (3 * t, 1.0, t))
        key(driver, "rotation_euler", frame, (0.0, t, 0.5 * t))
        key(driver, "scale", frame, (1.0 + t * 0.5, 1.0, 1.0))
    child = empty("child")
    child.parent = driver
    child.location = (1.0, -2.0, 0.5)
    child.matrix_parent_inverse = np.diag([1.0, 2.0, 1.0, 1.0]).tolist()
    for frame, t in ((5, 0.0), (30, 1.0)):
        key(child, "rotation_euler", frame, (t, 0.0, 0.0))
    follower = empty("follower")
    con = follower.constraints.new("COPY_LOCATION")
    con.target = driver
    con.use_offset = True
    follower.location = (0.0, 0.0, 1.0)
    # A driver reading the animated object: also a dependency the temporary scene must evaluate.
    fc = follower.driver_add("rotation_euler", 2)
    var = fc.driver.variables.new()
    var.type = "TRANSFORMS"
    var.targets[0].id = driver
    var.targets[0].transform_type = "LOC_X"
    fc.driver.expression = f"{var.name} * 0.5"
    return driver, child, follower


def build_armature(animated_bones: bool = True) -> bpy.types.Object:
    arm_data = bpy.data.armatures.new("rig")
    arm = bpy.data.objects.new("rig", arm_data)
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    root = arm_data.edit_bones.new("root")
    root.head, root.tail = (0, 0, 0), (0, 0, 1)
    upper = arm_data.edit_bones.new("upper")
    upper.head, upper.tail, upper.parent = (0, 0, 1), (1, 0, 1.5), root
    lower = arm_data.edit_bones.new("lower")
    lower.head, lower.tail, lower.parent, lower.use_connect = (1, 0, 1.5), (2, 0, 1), upper, True
    bpy.ops.object.mode_set(mode="OBJECT")
    arm.rotation_mode = "XYZ"
    for frame, t in ((1, 0.0), (25, 1.0), (40, 0.3)):
        key(arm, "location", frame, (t, -t, 2 * t))
        key(arm, "rotation_euler", frame, (0.3, 0.2 + t, -0.4 * t))
    arm.scale = (-1.0, 1.5, 1.0)
    if animated_bones:
        pb = arm.pose.bones
        pb["upper"].rotation_mode = "QUATERNION"
        pb["lower"].rotation_mode = "ZXY"
        for frame, t in ((1, 0.0), (17, 1.0), (40, -0.6)):
            key(pb["root"], "scale", frame, (1.0, 1.0 + 0.5 * t, 1.0))
            key(pb["upper"], "rotation_quaternion", frame, (math.cos(t), 0.0, 0.0, math.sin(t)))
            key(pb["lower"], "rotation_euler", frame, (0.0, 0.0, -t))
            key(pb["lower"], "location", frame, (0.1 * t, 0.0, 0.0))
    return arm


def ground_truth(scene: bpy.types.Scene, requests: list[tuple]) -> np.ndarray:
    out = np.empty((len(requests), FRAMES.size, 4, 4))
    for f_i, frame in enumerate(FRAMES):
        scene.frame_set(int(frame))
        for r_i, req in enumerate(requests):
            obj, bone = req[0], req[1]
            kind = req[2] if len(req) > 2 else "WORLD"
            world = np.array(obj.matrix_world)
            if bone is None:
                out[r_i, f_i] = world
            else:
                pose = np.array(obj.pose.bones[bone].matrix)
                out[r_i, f_i] = pose if kind == "ARMATURE" else world @ pose
    return out


def check_sampling(scene: bpy.types.Scene, requests: list[tuple], methods: tuple[str, ...]) -> None:
    truth = ground_truth(scene, requests)
    scene.frame_set(7)
    user_state = [np.array(req[0].matrix_world) for req in requests]
    counts = data_counts()
    for method in methods:
        got = sampling.sample_world_matrices(bpy.context, requests, FRAMES, method=method)
        assert got.shape == (len(requests), FRAMES.size, 4, 4)
        np.testing.assert_allclose(got, truth, atol=1e-5, err_msg=method)
        assert scene.frame_current == 7
        assert data_counts() == counts
        assert bpy.context.scene == scene
        for req, before in zip(requests, user_state, strict=True):
            np.testing.assert_allclose(np.array(req[0].matrix_world), before, atol=1e-6)


def test_fcurve_only_targets_every_rotation_mode(scene: bpy.types.Scene) -> None:
    targets = build_fcurve_targets()
    for obj in targets:
        assert sampling.fcurve_only_reason(obj) is None
    check_sampling(scene, [(obj, None) for obj in targets], ("AUTO", "FCURVES", "SCENE"))


def test_parented_and_constrained_targets(scene: bpy.types.Scene) -> None:
    driver, child, follower = build_dependent_targets()
    assert sampling.fcurve_only_reason(driver) is None
    # An object parent driven by its own F-curves is composed from F-curves too.
    assert sampling.fcurve_only_reason(child) is None
    assert sampling.fcurve_only_reason(follower) == "has constraints"
    # Only the dependent objects are requested: their parent / constraint target is not linked into the
    # temporary scene and must still be evaluated.
    check_sampling(scene, [(child, None), (follower, None)], ("AUTO", "SCENE"))
    check_sampling(scene, [(child, None)], ("FCURVES",))
    assert sampling.stepped_objects(bpy.context, [(child, None), (follower, None), (driver, None)]) == {
        "follower": "has constraints"}
    with pytest.raises(ValueError, match="has constraints"):
        sampling.sample_world_matrices(bpy.context, [(follower, None)], FRAMES, method="FCURVES")
    # A parent that is itself constrained sends the child to the scene path.
    child.parent = follower
    assert sampling.fcurve_only_reason(child) == f'its parent "{follower.name}" has constraints'


def test_a_curve_on_another_property_steps_the_object_only_while_it_plays(scene: bpy.types.Scene) -> None:
    # Keys on a property the composition does not read (the Empty's display size) might move it (a driver
    # could read it): the object is stepped while that curve plays, and composed once it is muted or empty.
    obj = empty("sized")
    key(obj, "location", 1, (0.0, 0.0, 0.0))
    key(obj, "location", 40, (1.0, 2.0, 3.0))
    key(obj, "empty_display_size", 1, 1.0)
    key(obj, "empty_display_size", 40, 2.0)
    fcurve = next(fc for fc in harness.package("rigging.anim_keys").iter_fcurves(obj)
                  if fc.data_path == "empty_display_size")
    assert sampling.fcurve_only_reason(obj) == "animates empty_display_size"
    fcurve.mute = True
    assert sampling.fcurve_only_reason(obj) is None
    fcurve.mute = False
    fcurve.keyframe_points.clear()
    assert sampling.fcurve_only_reason(obj) is None
    check_sampling(scene, [(obj, None)], ("AUTO", "FCURVES"))


def test_animated_pose_bones_of_a_mirrored_animated_armature(scene: bpy.types.Scene) -> None:
    # Animated root scale, quaternion and Euler bones, location keys on a connected bone (ignored by Blender).
    arm = build_armature()
    assert sampling.fcurve_only_reason(arm) is None
    assert sampling.fcurve_only_reason(arm, ["lower"]) is None
    requests = [(arm, None), (arm, "lower"), (arm, "upper", "ARMATURE"), (arm, "lower", "WORLD")]
    check_sampling(scene, requests, ("AUTO", "FCURVES", "SCENE"))
    bpy.ops.object.mode_set(mode="POSE")  # the bake runs from pose mode
    check_sampling(scene, requests, ("AUTO", "FCURVES", "SCENE"))
    assert arm.mode == "POSE"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_bone_hierarchies_compose_like_blender(scene: bpy.types.Scene, seed: int) -> None:
    """Five bones with random rest rolls and directions, mixed connections, every rotation mode, animated
    location/rotation/scale (negative too), and an Empty hanging from the last one: F-curves == Blender."""
    rng = np.random.default_rng(seed)
    arm = bpy.data.objects.new("rig", bpy.data.armatures.new("rig"))
    scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    parent, head = None, np.zeros(3)
    names = []
    for i in range(5):
        bone = arm.data.edit_bones.new(f"b{i}")
        connected = parent is not None and bool(rng.integers(2))
        bone.head = head if connected or parent is None else head + rng.normal(0.0, 0.3, 3)
        bone.tail = np.array(bone.head) + rng.normal(0.0, 1.0, 3)
        bone.roll = float(rng.uniform(-3.0, 3.0))
        bone.parent, bone.use_connect = parent, connected
        parent, head = bone, np.array(bone.tail)
        names.append(bone.name)
    bpy.ops.object.mode_set(mode="OBJECT")
    for i, name in enumerate(names):
        pb = arm.pose.bones[name]
        pb.rotation_mode = ROTATION_MODES[(i + seed) % len(ROTATION_MODES)]
        prop = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}.get(
            pb.rotation_mode, "rotation_euler")
        for frame in (1, 15, 31):
            key(pb, "location", frame, tuple(rng.normal(0.0, 0.2, 3)))
            key(pb, prop, frame, tuple(rng.normal(0.0, 0.8, len(getattr(pb, prop)))))
            key(pb, "scale", frame, tuple(rng.choice([-1.0, 1.0], 3) * rng.uniform(0.5, 1.5, 3)))
    key(arm, "rotation_euler", 1, (0.0, 0.0, 0.0))
    key(arm, "rotation_euler", 40, tuple(rng.normal(0.0, 1.0, 3)))
    hanger = empty("hanger")
    hanger.parent, hanger.parent_type, hanger.parent_bone = arm, "BONE", names[-1]
    hanger.location = tuple(rng.normal(0.0, 0.5, 3))
    assert sampling.fcurve_only_reason(hanger) is None
    requests = [(hanger, None)] + [(arm, name) for name in names]
    check_sampling(scene, requests, ("FCURVES",))


def test_frames_composed_in_blocks(scene: bpy.types.Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    # 44 frames: 8 full blocks and a partial one
    monkeypatch.setattr(harness.package("rigging.sampling.fcurves"), "COMPOSE_BLOCK", 5)
    arm = build_armature()
    still = build_armature(animated_bones=False)
    still.animation_data_clear()
    requests = [(arm, "lower"), (still, "upper"), (still, None), (arm, "upper", "ARMATURE")]
    check_sampling(scene, requests, ("FCURVES",))


def test_unconnected_bone_location_and_bone_parented_objects(scene: bpy.types.Scene) -> None:
    arm = build_armature()
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    arm.data.edit_bones["lower"].use_connect = False
    bpy.ops.object.mode_set(mode="OBJECT")
    pb = arm.pose.bones
    pb["upper"].scale = (1.0, 1.3, 0.8)  # moves the bone tail a child object hangs from
    hand = empty("hand")
    hand.parent, hand.parent_type, hand.parent_bone = arm, "BONE", "upper"
    hand.matrix_parent_inverse = np.diag([1.0, 0.5, 1.0, 1.0]).tolist()
    for frame, t in ((3, 0.0), (33, 1.0)):
        key(hand, "location", frame, (0.2 * t, 0.1, -t))
    prop = empty("prop")  # an object parent of a bone-parented object
    prop.parent = hand
    key(prop, "rotation_euler", 1, (0.0, 0.0, 0.0))
    key(prop, "rotation_euler", 40, (0.0, 1.0, 0.0))
    for obj in (hand, prop):
        assert sampling.fcurve_only_reason(obj) is None
    requests = [(hand, None), (prop, None), (arm, "lower"), (arm, "lower", "ARMATURE")]
    check_sampling(scene, requests, ("AUTO", "FCURVES", "SCENE"))


def test_child_of_targets_are_composed(scene: bpy.types.Scene) -> None:
    arm = build_armature()
    carrier = empty("carrier")
    carrier.rotation_mode = "YXZ"
    for frame, t in ((1, 0.0), (20, 1.0), (40, -0.5)):
        key(carrier, "location", frame, (t, 0.5 * t, -t))
        key(carrier, "rotation_euler", frame, (0.3 * t, -t, 0.2))
        key(carrier, "scale", frame, (1.0 + 0.3 * t, 1.0, -1.0))
    on_object = empty("on_object")
    on_object.parent = empty("holder")  # own parent first, then the constraint
    on_object.parent.location = (0.0, 1.0, 0.0)
    key(on_object, "location", 1, (1.0, 0.0, 0.0))
    key(on_object, "location", 40, (2.0, 0.0, 1.0))
    con = on_object.constraints.new("CHILD_OF")
    con.target, con.set_inverse_pending = carrier, False
    con.inverse_matrix = np.array([[1, 0, 0, 0.2], [0, 0, -1, 0], [0, 1, 0, 0.4], [0, 0, 0, 1.0]]).tolist()
    on_bone = empty("on_bone")
    key(on_bone, "rotation_euler", 1, (0.0, 0.0, 0.0))
    key(on_bone, "rotation_euler", 40, (0.0, 1.5, 0.0))
    con = on_bone.constraints.new("CHILD_OF")
    con.target, con.subtarget, con.set_inverse_pending = arm, "lower", False
    chained = empty("chained")  # a Child Of of a Child Of
    con = chained.constraints.new("CHILD_OF")
    con.target, con.set_inverse_pending = on_bone, False
    for obj in (on_object, on_bone, chained):
        assert sampling.fcurve_only_reason(obj) is None, obj.name
    check_sampling(scene, [(on_object, None), (on_bone, None), (chained, None)], ("AUTO", "FCURVES", "SCENE"))

    # What is not composed: partial channels, influence, a constraint target that is not F-curve-only, cycles.
    on_object.constraints[0].use_rotation_y = False
    assert "partial channels" in sampling.fcurve_only_reason(on_object)
    on_object.constraints[0].use_rotation_y = True
    on_object.constraints[0].influence = 0.5
    assert "influence" in sampling.fcurve_only_reason(on_object)
    on_object.constraints[0].influence = 1.0
    carrier.constraints.new("DAMPED_TRACK").target = on_bone
    assert sampling.fcurve_only_reason(on_object) == 'its Child Of target "carrier" has constraints'
    carrier.constraints.clear()
    con = carrier.constraints.new("CHILD_OF")
    con.target, con.set_inverse_pending = chained, False
    on_bone.constraints[0].target, on_bone.constraints[0].subtarget = carrier, ""
    # chained -> on_bone -> carrier -> chained (Blender evaluates such a cycle in some order; we do not guess)
    assert "dependency cycle" in sampling.fcurve_only_reason(chained)
    carrier.constraints.clear()
    check_sampling(scene, [(on_object, None), (on_bone, None), (chained, None)], ("FCURVES",))


@pytest.mark.parametrize("case", ["constraint", "ik", "hinge", "scale", "rest", "driver", "relative"])
def test_poses_that_are_not_a_product_of_channels_take_the_scene_path(scene: bpy.types.Scene, case: str) -> None:
    arm = build_armature()
    pb, bones = arm.pose.bones, arm.data.bones
    hand = empty("hand")
    hand.parent, hand.parent_type, hand.parent_bone = arm, "BONE", "lower"
    expected = {
        "constraint": 'bone "root" has constraints',
        "ik": 'bone "upper" is moved by the IK constraint of "lower"',
        "hinge": "does not inherit its parent's full transform",
        "scale": "does not inherit its parent's full transform",
        "rest": "shows its rest position",
        "driver": 'has a driver on pose.bones["upper"].rotation_quaternion',
        "relative": "uses relative bone parenting",
    }[case]
    if case == "constraint":
        pb["root"].constraints.new("COPY_ROTATION").target = empty("other")
    elif case == "ik":
        ik = pb["lower"].constraints.new("IK")
        ik.target, ik.chain_count = empty("goal"), 2
        hand.parent_bone = "upper"
    elif case == "hinge":
        bones["upper"].use_inherit_rotation = False
    elif case == "scale":
        bones["lower"].inherit_scale = "AVERAGE"
    elif case == "rest":
        arm.data.pose_position = "REST"
    elif case == "driver":
        fc = pb["upper"].driver_add("rotation_quaternion", 2)
        fc.driver.expression = "frame * 0.01"
    elif case == "relative":
        bones["lower"].use_relative_parent = True
    assert expected in (sampling.fcurve_only_reason(hand) or "")
    with pytest.raises(ValueError, match="cannot be sampled from F-curves"):
        sampling.sample_world_matrices(bpy.context, [(hand, None)], FRAMES, method="FCURVES")
    check_sampling(scene, [(hand, None), (arm, "root")], ("AUTO", "SCENE"))


def test_unrelated_constraints_and_drivers_keep_the_fcurve_path(scene: bpy.types.Scene) -> None:
    arm = build_armature()
    bpy.ops.object.mode_set(mode="EDIT")
    tail = arm.data.edit_bones.new("tail")
    tail.head, tail.tail, tail.parent = (0, 0, 0), (0, 0, -1), arm.data.edit_bones["root"]
    bpy.ops.object.mode_set(mode="OBJECT")
    pb = arm.pose.bones
    pb["tail"].constraints.new("DAMPED_TRACK").target = empty("look")
    ik = pb["tail"].constraints.new("IK")  # a one-bone IK: moves "tail" only
    ik.target, ik.chain_count = empty("goal"), 1
    ik = pb["tail"].constraints.new("IK")  # without the tail, a one-bone chain is "root": caught below
    ik.target, ik.chain_count, ik.use_tail, ik.mute = empty("goal2"), 1, False, True
    fc = pb["tail"].driver_add("rotation_euler", 0)
    fc.driver.expression = "frame * 0.1"
    assert sampling.fcurve_only_reason(arm, ["lower"]) is None
    check_sampling(scene, [(arm, "lower"), (arm, "upper", "ARMATURE")], ("AUTO", "FCURVES", "SCENE"))
    ik.mute = False
    assert sampling.fcurve_only_reason(arm, ["lower"]) == 'bone "root" is moved by the IK constraint of "tail"'
    check_sampling(scene, [(arm, "lower"), (arm, "upper", "ARMATURE")], ("AUTO", "SCENE"))


def test_unanimated_bones_of_an_animated_armature_take_the_fcurve_path(scene: bpy.types.Scene) -> None:
    arm = build_armature(animated_bones=False)
    pb = arm.pose.bones
    pb["upper"].rotation_euler = (0.0, 0.4, 0.0)
    pb["root"].scale = (1.0, 2.0, 1.0)
    # Keys on an unrelated bone do not disqualify the requested bones.
    key(pb["lower"], "location", 1, (0.0, 0.0, 0.0))
    key(pb["lower"], "location", 30, (0.0, 1.0, 0.0))
    assert sampling.fcurve_only_reason(arm, ["upper"]) is None
    requests = [(arm, "upper"), (arm, "upper", "ARMATURE"), (arm, None)]
    check_sampling(scene, requests, ("AUTO", "FCURVES", "SCENE"))


def test_mixed_requests_and_non_integer_frames(scene: bpy.types.Scene) -> None:
    targets = build_fcurve_targets()[:2]
    _driver, child, _follower = build_dependent_targets()
    requests = [(targets[0], None), (child, None), (targets[1], None)]
    frames = np.array([2.25, 10.5, 11.0])
    counts = data_counts()
    got = sampling.sample_world_matrices(bpy.context, requests, frames)
    truth = np.empty_like(got)
    for f_i, frame in enumerate(frames):
        scene.frame_set(int(frame), subframe=frame - int(frame))
        for r_i, (obj, _bone) in enumerate(requests):
            truth[r_i, f_i] = np.array(obj.matrix_world)
    np.testing.assert_allclose(got, truth, atol=1e-5)
    assert data_counts() == counts


def test_non_finite_values_come_back(scene: bpy.types.Scene) -> None:
    obj = empty("broken")
    key(obj, "location", 1, (0.0, 0.0, 0.0))
    key(obj, "location", 10, (1.0, 0.0, 0.0))
    fc = sampling.action_fcurves(obj)[0]
    fc.keyframe_points[1].co = (10.0, float("nan"))
    scene.frame_set(10)
    blender = np.array(obj.matrix_world)
    for method in ("FCURVES", "SCENE"):
        got = sampling.sample_world_matrices(bpy.context, [(obj, None)], [10.0], method=method)[0, 0]
        np.testing.assert_array_equal(np.isfinite(got), np.isfinite(blender))
        assert not np.all(np.isfinite(got))


def test_non_finite_frames_give_nan(scene: bpy.types.Scene) -> None:
    target = build_fcurve_targets()[0]
    _driver, child, _follower = build_dependent_targets()
    got = sampling.sample_world_matrices(bpy.context, [(target, None), (child, None)], [1.0, math.nan, 2.0])
    assert np.all(np.isnan(got[:, 1, :3]))
    assert np.all(np.isfinite(got[:, [0, 2]]))


def test_bad_requests_raise(scene: bpy.types.Scene) -> None:
    obj = empty("plain")
    with pytest.raises(ValueError, match="no pose bone"):
        sampling.sample_world_matrices(bpy.context, [(obj, "bone")], FRAMES)
    with pytest.raises(ValueError, match="needs a bone"):
        sampling.sample_world_matrices(bpy.context, [(obj, None, "ARMATURE")], FRAMES)
    with pytest.raises(ValueError, match="method"):
        sampling.sample_world_matrices(bpy.context, [(obj, None)], FRAMES, method="FAST")


def test_time_remapping_is_followed(scene: bpy.types.Scene) -> None:
    targets = build_fcurve_targets()[:1]
    _driver, child, _follower = build_dependent_targets()
    scene.render.frame_map_old, scene.render.frame_map_new = 100, 50
    check_sampling(scene, [(targets[0], None), (child, None)], ("AUTO", "SCENE"))


def test_bones_of_an_armature_outside_the_view_layer(scene: bpy.types.Scene) -> None:
    arm = build_armature(animated_bones=False)
    arm.pose.bones["upper"].rotation_euler = (0.0, 0.4, 0.0)
    hidden = bpy.data.collections.new("hidden")
    scene.collection.children.link(hidden)
    hidden.objects.link(arm)
    scene.collection.objects.unlink(arm)
    bpy.context.view_layer.layer_collection.children["hidden"].exclude = True
    truth_scene = bpy.data.scenes.new("truth")
    truth_scene.collection.objects.link(arm)
    requests = [(arm, "upper"), (arm, None)]
    truth = np.empty((2, FRAMES.size, 4, 4))
    with bpy.context.temp_override(scene=truth_scene, view_layer=truth_scene.view_layers[0]):
        depsgraph = bpy.context.evaluated_depsgraph_get()
    for f_i, frame in enumerate(FRAMES):
        truth_scene.frame_set(int(frame))
        ev = arm.evaluated_get(depsgraph)
        truth[0, f_i] = np.array(ev.matrix_world) @ np.array(ev.pose.bones["upper"].matrix)
        truth[1, f_i] = np.array(ev.matrix_world)
    got = sampling.sample_world_matrices(bpy.context, requests, FRAMES)
    np.testing.assert_allclose(got, truth, atol=1e-5)


def test_shoulder_space_contract_against_blender_pose(scene: bpy.types.Scene) -> None:
    """solver.spaces + solver.rotations against Blender's evaluated pose: rotating the upper and lower bones
    about their local axes by (du, dl), in every rotation mode, under a rotated, stretched and mirrored parent,
    puts the elbow and tip at 2D forward kinematics of the rest angles plus (du, dl), with rest lengths."""
    spaces = harness.package("solver.spaces")
    rotations = harness.package("solver.rotations")
    fk = harness.package("solver.fk")
    arm_data = bpy.data.armatures.new("rig")
    arm = bpy.data.objects.new("rig", arm_data)
    scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    root = arm_data.edit_bones.new("root")
    root.head, root.tail = (0, 0, 0), (0.3, 0, 1)
    upper = arm_data.edit_bones.new("upper")
    upper.head, upper.tail, upper.parent = (0.5, 0, 1.2), (1.5, 0, 1.9), root
    lower = arm_data.edit_bones.new("lower")
    lower.head, lower.tail, lower.parent, lower.use_connect = (1.5, 0, 1.9), (2.3, 0, 1.1), upper, True
    lower.roll = 3.0  # any roll: the local axis follows it
    bpy.ops.object.mode_set(mode="OBJECT")
    n = spaces.plane_normal("XZ")
    bones = arm.data.bones
    rest = {name: np.array(bones[name].matrix_local) for name in ("root", "upper", "lower")}
    pb = arm.pose.bones
    pb["root"].rotation_mode = "XYZ"
    root_axis = spaces.local_axis(rest["root"], n)
    pb["root"].rotation_euler = rotations.eulers_about_axis(root_axis, [0.6], "XYZ")[0]
    pb["root"].scale = (-1.3, 1.6, 1.0)  # local X and Y lie in the plane: a mirrored in-plane stretch
    a, b, rest_shoulder, rest_elbow = spaces.chain_rest_2d(rest["upper"], rest["lower"], bones["lower"].length, n)
    axes = {name: spaces.local_axis(rest[name], n) for name in ("upper", "lower")}
    deltas = np.array([[0.0, 0.0], [0.4, -0.9], [-2.0, 1.2], [3.0, 2.5]])
    for mode in ROTATION_MODES:
        channels = {}
        for name, column in (("upper", 0), ("lower", 1)):
            pb[name].rotation_mode = mode
            if mode == "QUATERNION":
                channels[name] = (
                    "rotation_quaternion",
                    rotations.quaternions_about_axis(axes[name], deltas[:, column]),
                )
            elif mode == "AXIS_ANGLE":
                channels[name] = (
                    "rotation_axis_angle",
                    rotations.axis_angles_about_axis(axes[name], deltas[:, column]),
                )
            else:
                channels[name] = ("rotation_euler", rotations.eulers_about_axis(axes[name], deltas[:, column], mode))
        for f, (du, dl) in enumerate(deltas):
            for name, (path, values) in channels.items():
                setattr(pb[name], path, values[f])
            bpy.context.view_layer.update()
            root_pose = np.array(pb["root"].matrix)
            lower_pose = np.array(pb["lower"].matrix)
            base = root_pose @ np.linalg.inv(rest["root"]) @ rest["upper"]
            tip = (lower_pose @ np.array([0.0, bones["lower"].length, 0.0, 1.0]))[:3]
            got = spaces.to_shoulder_2d(
                np.stack([lower_pose[:3, 3], tip]), np.stack([base, base]), n, local_normal=axes["upper"]
            )
            elbow, hand = fk.forward_kinematics(rest_shoulder + du, rest_elbow + dl, a, b)
            np.testing.assert_allclose(got, np.stack([elbow, hand]), atol=2e-5, err_msg=f"{mode} frame {f}")


def test_rigid_body_is_sampled_from_the_users_simulation(scene: bpy.types.Scene) -> None:
    bpy.ops.mesh.primitive_cube_add(location=(0.0, 0.0, 3.0), rotation=(0.3, 0.2, 0.1))
    cube = bpy.context.active_object
    bpy.ops.rigidbody.object_add()
    bpy.ops.mesh.primitive_plane_add(size=10.0)
    bpy.ops.rigidbody.object_add(type="PASSIVE")
    rider = empty("rider")
    rider.parent = cube
    rider.location = (0.0, 0.0, 1.0)
    frames = np.arange(1, 41, dtype=np.float64)
    truth = np.empty((2, frames.size, 4, 4))
    for f_i, frame in enumerate(frames):
        scene.frame_set(int(frame))
        truth[:, f_i] = [np.array(cube.matrix_world), np.array(rider.matrix_world)]
    assert np.ptp(truth[0, :, 2, 3]) > 1.0  # it fell
    scene.frame_set(1)
    counts = data_counts()
    got = sampling.sample_world_matrices(bpy.context, [(cube, None), (rider, None)], frames)
    np.testing.assert_allclose(got, truth, atol=1e-5)
    assert scene.frame_current == 1
    assert data_counts() == counts


def test_live_preview_handlers_sit_out_the_stepped_frames(scene: bpy.types.Scene) -> None:
    _driver, _child, follower = build_dependent_targets()
    live_preview = harness.package("rigging.live_preview")
    ours = {live_preview.on_frame_change, live_preview.on_depsgraph_update}
    before = {name: list(getattr(bpy.app.handlers, name)) for name in ("frame_change_post", "depsgraph_update_post")}
    assert ours <= set(before["frame_change_post"]) | set(before["depsgraph_update_post"])
    seen: list[bool] = []

    def probe(_scene: bpy.types.Scene, _depsgraph: object = None) -> None:
        seen.append(bool(ours & set(bpy.app.handlers.frame_change_post) | ours
                         & set(bpy.app.handlers.depsgraph_update_post)))

    bpy.app.handlers.frame_change_post.append(probe)
    try:
        sampling.sample_world_matrices(bpy.context, [(follower, None)], FRAMES, method="SCENE")
    finally:
        bpy.app.handlers.frame_change_post.remove(probe)
    # Every stepped frame ran without them; the user's scene, re-evaluated at the end, has them back.
    assert seen[:FRAMES.size] == [False] * FRAMES.size and seen[-1] is True
    for name, handlers in before.items():
        assert set(getattr(bpy.app.handlers, name)) == set(handlers)
