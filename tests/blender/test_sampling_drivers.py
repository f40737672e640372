"""Drivers of the frame alone composed from their expression (rigging/sampling/drivers.py) against Blender's own
playback; every other driver still steps a scene.

Run through the harness: ``.venvs/bpy-5.0/bin/python tests/blender/run.py tests/blender/test_sampling_drivers.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import bpy
import harness
import numpy as np
import pytest
from playback import settled_playback
from test_sampling import FRAMES, check_sampling, empty, key

sampling = harness.package("rigging.sampling")
drivers = harness.package("rigging.sampling.drivers")

EXPRESSIONS = {
    ("location", 0): "0.5 - 0.6 * sin(0.0071 * frame + 0.3)",
    ("rotation_euler", 1): "cos(frame / 7) * 2 + floor(frame / 3) * 0.1 - ceil(-frame / 5.5)",
    ("scale", 2): "1 + abs(sin(frame * pi / 40)) + -frame / 300",
}


@pytest.fixture
def scene(empty_file: bpy.types.Scene) -> bpy.types.Scene:
    empty_file.frame_start, empty_file.frame_end = 1, 40
    return empty_file


def build_driven(keyed: bool = True) -> tuple[bpy.types.Object, bpy.types.Object, bpy.types.Object]:
    """A carrier whose channels are driven by the frame (``keyed``: over its own action's keys, and its
    drivers' curves get driver_add's 0-1 keys, one of them remapped), an object parented to it and one
    following it through a Child Of."""
    carrier = empty("carrier")
    carrier.rotation_mode = "XYZ"
    if keyed:
        # Only channels without drivers: Blender's own playback of a keyed and driven channel is a race between
        # the action and the driver (bpy 5.0: either value at random frames).
        for frame, t in ((1, 0.0), (20, 1.0), (40, -0.5)):
            for path, index, value in (("location", 1, t), ("location", 2, -t), ("rotation_euler", 0, 0.3 * t),
                                       ("rotation_euler", 2, t)):
                getattr(carrier, path)[index] = value
                carrier.keyframe_insert(path, index=index, frame=frame)
    for (path, index), expression in EXPRESSIONS.items():
        fc = carrier.driver_add(path, index)
        fc.driver.expression = expression
        # driver_add gives 4.2's new curve the identity Generator, 5.x's (and any keyed property's) 0-1 keys:
        # have one of each, and a Bezier mapping.
        if path == "location":
            fc.keyframe_points.clear()
            if not len(fc.modifiers):
                fc.modifiers.new("GENERATOR")
        elif path == "rotation_euler" or keyed:
            for k in (0.0, 1.0):
                fc.keyframe_points.insert(k, k)
            while len(fc.modifiers):
                fc.modifiers.remove(fc.modifiers[0])
        if keyed and path == "scale":
            fc.keyframe_points.insert(1.5, 0.2)  # the driver's value mapped through a Bezier curve
    child = empty("child")
    child.parent = carrier
    key(child, "location", 1, (1.0, 0.0, 0.0))
    key(child, "location", 40, (2.0, 1.0, 0.0))
    follower = empty("follower")
    con = follower.constraints.new("CHILD_OF")
    con.target = carrier
    con.set_inverse_pending = False
    key(follower, "location", 1, (0.0, 2.0, 0.0))
    key(follower, "location", 40, (1.0, -2.0, 0.5))
    return carrier, child, follower


# Blender's playback of an object whose action and drivers set elements of the same property is not repeatable
# (4.5-5.2): the keyed cases' truth is playback.settled_playback.


def world_matrices(requests: list[tuple[bpy.types.Object, None]]) -> Callable[[], np.ndarray]:
    return lambda: np.stack([np.array(obj.matrix_world) for obj, _bone in requests])


@pytest.mark.parametrize("keyed", [False, True])
def test_frame_drivers_are_composed_like_blender(scene: bpy.types.Scene, keyed: bool) -> None:
    carrier, child, follower = build_driven(keyed)
    for fc in carrier.animation_data.drivers:
        assert drivers.frame_driver_reason(fc) is None, fc.data_path
    requests = [(carrier, None), (child, None), (follower, None)]
    assert sampling.stepped_objects(bpy.context, requests) == {}
    fcurves = {(fc.data_path, fc.array_index): fc for fc in carrier.animation_data.drivers}
    got = {k: drivers.driver_values(fc, FRAMES) for k, fc in fcurves.items()}
    if not keyed:
        check_sampling(scene, requests, ("AUTO", "FCURVES", "SCENE"))
        played = {k: [] for k in got}
        for frame in FRAMES.tolist():
            scene.frame_set(int(frame))
            for (path, index), values in played.items():
                values.append(np.float32(getattr(carrier, path)[index]))
    else:
        truth = np.swapaxes(settled_playback(scene, FRAMES, world_matrices(requests)), 0, 1)
        for method in ("AUTO", "FCURVES"):
            sampled = sampling.sample_world_matrices(bpy.context, requests, FRAMES, method=method)
            np.testing.assert_allclose(sampled, truth, atol=1e-5, err_msg=method)
        keys = list(got)
        channels = settled_playback(
            scene, FRAMES, lambda: np.array([getattr(carrier, path)[index] for path, index in keys], np.float32))
        played = {k: list(channels[:, i]) for i, k in enumerate(keys)}
    # The driven channels themselves, bit for bit: Blender's played value against the sampler's.
    for (path, index), values in got.items():
        for f_i, frame in enumerate(FRAMES.tolist()):
            assert played[(path, index)][f_i] == values[f_i], (path, index, frame)


def test_subframes_of_a_frame_driver(scene: bpy.types.Scene) -> None:
    carrier, child, _follower = build_driven()
    frames = np.array([1.25, 3.5, 17.75, 30.125, -2.5])
    got = sampling.sample_world_matrices(bpy.context, [(carrier, None), (child, None)], frames, method="FCURVES")
    # The carrier's keys and drivers set elements of the same properties, which Blender 4.5-5.2 evaluate on
    # racing threads (seen on 5.2 at -2.5 after 30.125): each subframe is settled from several frames before.
    truth = settled_playback(scene, frames, world_matrices([(carrier, None), (child, None)]))
    np.testing.assert_allclose(got, np.swapaxes(truth, 0, 1), atol=1e-5)


@pytest.mark.parametrize("case", ["variable", "python", "power", "tan", "divide", "self", "generator", "noise",
                                  "mute"])
def test_other_drivers_are_stepped(scene: bpy.types.Scene, case: str) -> None:
    # No action on the carrier: Blender's own playback of an object with keys and a driver is itself not
    # repeatable (bpy 5.0, channels stepped here: values differ between two playbacks at random frames).
    carrier, child, _follower = build_driven(keyed=False)
    fc = next(f for f in carrier.animation_data.drivers if f.data_path == "rotation_euler")
    driver = fc.driver
    if case == "variable":
        source = empty("source")
        key(source, "location", 1, (0.0, 0.0, 0.0))
        key(source, "location", 40, (9.0, 0.0, 0.0))
        var = driver.variables.new()
        var.type = "TRANSFORMS"
        var.targets[0].id = source
        var.targets[0].transform_type = "LOC_X"
        var.targets[0].transform_space = "LOCAL_SPACE"  # in its own axes: only Blender evaluates it
        driver.expression = f"{var.name} * 0.05"
    elif case == "python":
        driver.expression = "frame * 0.01 + len('ab')"
    elif case == "power":
        driver.expression = "(frame * 0.05) ** 2"
    elif case == "tan":
        driver.expression = "tan(frame * 0.01)"
    elif case == "divide":
        driver.expression = "1 / (frame + 100)"
    elif case == "self":
        driver.use_self = True
    elif case == "generator":  # keys and a modifier
        fc.modifiers.new("GENERATOR")
    elif case == "noise":
        fc.modifiers.new("NOISE").strength = 0.3
    else:
        fc.mute = True
    assert drivers.frame_driver_reason(fc) is not None
    assert sampling.fcurve_only_reason(carrier) == "has a driver on rotation_euler"
    # Only the carrier needs Blender: its child is composed from its own curves over the stepped carrier.
    assert set(sampling.stepped_objects(bpy.context, [(carrier, None), (child, None)])) == {"carrier"}
    # (A muted driver's channel holds a value the two scenes need not share; a Python driver reads anything.)
    if case not in ("mute", "python"):
        check_sampling(scene, [(carrier, None), (child, None)], ("AUTO",))


def test_only_the_inputs_that_need_it_are_stepped(scene: bpy.types.Scene) -> None:
    """Objects whose only fault is a stepped parent or Child Of target are composed over its stepped matrices:
    a chain of parents, a Child Of follower, and what must stay stepped (its own constraint, a bone parent)."""
    carrier, child, follower = build_driven(keyed=False)
    source = empty("source")
    key(source, "location", 1, (0.0, 0.0, 0.0))
    key(source, "location", 40, (9.0, 0.0, 0.0))
    fc = next(f for f in carrier.animation_data.drivers if f.data_path == "rotation_euler")
    var = fc.driver.variables.new()  # a local-space transform variable: the carrier must be stepped
    var.type = "TRANSFORMS"
    var.targets[0].id = source
    var.targets[0].transform_type = "LOC_X"
    var.targets[0].transform_space = "LOCAL_SPACE"
    fc.driver.expression = f"{var.name} * 0.2 + frame * 0.01"
    grandchild = empty("grandchild")
    grandchild.parent = child
    grandchild.rotation_mode = "QUATERNION"
    key(grandchild, "rotation_quaternion", 1, (1.0, 0.0, 0.0, 0.0))
    key(grandchild, "rotation_quaternion", 40, (0.6, 0.0, 0.8, 0.0))
    child.matrix_parent_inverse[0][3] = 0.5  # a parent inverse on the way
    tracked = empty("tracked")
    tracked.parent = carrier
    tracked.constraints.new("DAMPED_TRACK").target = source  # its own constraint: stepped
    requests = [(grandchild, None), (follower, None), (tracked, None), (child, None)]
    stepped, composed = sampling.dispatch.stepping_plan([(obj, None, "WORLD") for obj, _b in requests])
    assert [o.name for o in stepped] == ["carrier", "tracked"]
    assert [o.name for o in composed] == ["grandchild", "child", "follower"]
    assert sampling.stepped_objects(bpy.context, requests) == {
        "tracked": 'its parent "carrier" has a driver on rotation_euler', "carrier": "has a driver on rotation_euler"}
    check_sampling(scene, requests, ("AUTO", "SCENE"))


def assert_composed(scene: bpy.types.Scene, fc: bpy.types.FCurve, carrier: bpy.types.Object,
                    child: bpy.types.Object) -> None:
    """The carrier's rotation driver ``fc`` is composed from F-curves (nothing stepped), the carrier and its
    child sample as Blender plays them, and the driven channel is Blender's played value bit for bit."""
    assert drivers.frame_driver_reason(fc, carrier) is None
    requests = [(carrier, None), (child, None)]
    assert sampling.stepped_objects(bpy.context, requests) == {}
    check_sampling(scene, requests, ("AUTO", "FCURVES", "SCENE"))
    sampler = sampling.fcurves.ChannelSampler(FRAMES)
    try:
        got = sampler.driven(fc, carrier)
    finally:
        sampler.close()
    for f_i, frame in enumerate(FRAMES.tolist()):
        scene.frame_set(int(frame))
        assert np.float32(carrier.rotation_euler[1]) == got[f_i], frame


def test_drivers_reading_fcurve_channels_are_composed(scene: bpy.types.Scene) -> None:
    """Single Property variables reading another object's keyed channel, a keyed and an unkeyed float custom
    property, and a channel that is itself driven by the frame: evaluated from F-curves, bit for bit."""
    carrier, child, _follower = build_driven(keyed=False)
    source = empty("source")
    for frame, t in ((1, 0.0), (15, 1.0), (40, -0.5)):
        key(source, "location", frame, (3.0 * t, 0.0, 0.0))
        source["amount"] = 0.5 + t
        source.keyframe_insert('["amount"]', frame=frame)
    source["fixed"] = 0.25
    source.driver_add("scale", 1).driver.expression = "1 + 0.02 * frame"
    fc = next(f for f in carrier.animation_data.drivers if f.data_path == "rotation_euler")
    for name, path in (("x", "location[0]"), ("amount", '["amount"]'), ("fixed", '["fixed"]'), ("sy", "scale[1]")):
        var = fc.driver.variables.new()
        var.name = name
        var.targets[0].id = source
        var.targets[0].data_path = path
    fc.driver.expression = "x * 0.3 + amount * sin(frame * 0.1) - fixed * sy"
    assert_composed(scene, fc, carrier, child)
    # A custom property with its own driver is not read from F-curves.
    source.driver_add('["amount"]').driver.expression = "frame"
    assert sampling.fcurve_only_reason(carrier) == "has a driver on rotation_euler"


@pytest.mark.parametrize("space", ["WORLD_SPACE", "TRANSFORM_SPACE"])
def test_location_transform_variables_are_composed(scene: bpy.types.Scene, space: str) -> None:
    """Transform Channel variables reading another object's X, Y and Z location (a control's position, the
    usual driver of a rig): the object's location channel in World and Transform Space when it has no parent and
    no constraint, so the driver is evaluated from F-curves, bit for bit what Blender plays; its own rotation and
    scale (keyed) change nothing."""
    carrier, child, _follower = build_driven(keyed=False)
    control = empty("control")
    control.rotation_mode = "XYZ"
    for frame, t in ((1, 0.0), (15, 1.0), (40, -0.5)):
        key(control, "location", frame, (2.0 * t, 0.5 - t, 0.25 * t))
        key(control, "rotation_euler", frame, (0.3 * t, -0.7 * t, 1.1 * t))
        key(control, "scale", frame, (1.0 + t, 1.0, 0.5 + t))
    fc = next(f for f in carrier.animation_data.drivers if f.data_path == "rotation_euler")
    for name, axis in (("lx", "LOC_X"), ("ly", "LOC_Y"), ("lz", "LOC_Z")):
        var = fc.driver.variables.new()
        var.name, var.type = name, "TRANSFORMS"
        var.targets[0].id, var.targets[0].transform_type, var.targets[0].transform_space = control, axis, space
    fc.driver.expression = "lx * 0.3 - ly * sin(frame * 0.1) + lz * lz"
    assert_composed(scene, fc, carrier, child)


@pytest.mark.parametrize("case", ["parent", "constraint", "bone", "rotation", "local space"])
def test_other_transform_variables_are_stepped(scene: bpy.types.Scene, case: str) -> None:
    """Where a Transform Channel is not the object's own location channel (a parent or a constraint moves it,
    a bone or a rotation is read, Local Space gives the location in the object's own rotated and scaled axes:
    4.2 reads 3.64 for a location x of 1), Blender evaluates it: stepped."""
    carrier, child, _follower = build_driven(keyed=False)
    control = empty("control")
    key(control, "location", 1, (0.0, 0.0, 0.0))
    key(control, "location", 40, (2.0, 1.0, 0.0))
    fc = next(f for f in carrier.animation_data.drivers if f.data_path == "rotation_euler")
    var = fc.driver.variables.new()
    var.type = "TRANSFORMS"
    var.targets[0].id, var.targets[0].transform_type = control, "LOC_X"
    fc.driver.expression = f"{var.name} * 0.2 + frame * 0.01"
    if case == "parent":
        holder = empty("holder")
        key(holder, "location", 1, (0.0, 0.0, 0.0))
        key(holder, "location", 40, (0.0, 3.0, 1.0))
        control.parent = holder
    elif case == "constraint":
        control.constraints.new("COPY_LOCATION").target = empty("leader")
    elif case == "bone":
        arm = bpy.data.objects.new("arm", bpy.data.armatures.new("arm"))
        scene.collection.objects.link(arm)
        bpy.context.view_layer.objects.active = arm
        bpy.ops.object.mode_set(mode="EDIT")
        bone = arm.data.edit_bones.new("bone")
        bone.head, bone.tail = (0.0, 0.0, 0.0), (0.0, 0.0, 1.0)
        bpy.ops.object.mode_set(mode="OBJECT")
        var.targets[0].id, var.targets[0].bone_target = arm, "bone"
    elif case == "rotation":
        var.targets[0].transform_type = "ROT_Z"
    else:
        control.rotation_euler = (0.3, -0.7, 1.1)
        var.targets[0].transform_space = "LOCAL_SPACE"
    assert sampling.stepped_objects(bpy.context, [(carrier, None)]) == {"carrier": "has a driver on rotation_euler"}
    check_sampling(scene, [(carrier, None), (child, None)], ("AUTO", "SCENE"))
