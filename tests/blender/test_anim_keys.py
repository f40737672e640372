"""anim_keys.py in real Blender (4.2 legacy actions, 4.5 / 5.0 layered actions), through the installed add-on.

Truth is Blender's own: ``fcurve.evaluate``, the properties Blender writes back after ``frame_set``, the evaluated
object from the depsgraph, and key attributes read one by one through RNA (not through anim_keys' own readers).
"""

from __future__ import annotations

import harness
import pytest

bpy = pytest.importorskip("bpy")
np = pytest.importorskip("numpy")

anim_keys = harness.package("rigging.anim_keys")

KEY_ATTRIBUTES = ("co", "handle_left", "handle_right", "handle_left_type", "handle_right_type", "interpolation",
                  "easing", "type", "back", "amplitude", "period", "select_control_point",
                  "select_left_handle", "select_right_handle")


def snapshot(fcurve: bpy.types.FCurve) -> list[tuple[object, ...]]:
    """Every attribute of every key, read through RNA one key at a time (Python floats are exact float32)."""
    def plain(value: object) -> object:
        return tuple(value) if hasattr(value, "__len__") and not isinstance(value, str) else value

    return [tuple(plain(getattr(key, attr)) for attr in KEY_ATTRIBUTES) for key in fcurve.keyframe_points]


def empty_object(name: str = "Target") -> bpy.types.Object:
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def evaluated_location(obj: bpy.types.Object, frame: float) -> tuple[float, float, float]:
    scene = bpy.context.scene
    scene.frame_set(int(np.floor(frame)), subframe=float(frame - np.floor(frame)))
    depsgraph = bpy.context.evaluated_depsgraph_get()
    return tuple(obj.evaluated_get(depsgraph).matrix_world.translation)


def key_frames(fcurve: bpy.types.FCurve) -> list[float]:
    return [k.co[0] for k in fcurve.keyframe_points]


def f32(values: object) -> np.ndarray:
    return np.asarray(values, dtype=np.float32)


def hand_made_curve(obj: bpy.types.Object) -> bpy.types.FCurve:
    """location.x keyed by hand with every kind of key attribute, keys at 1..12 and 60..72, two inside 20..50."""
    spec = [  # frame, value, interpolation, left type, right type, key type
        (1, 0.0, "BEZIER", "FREE", "FREE", "KEYFRAME"),
        (5, 2.0, "ELASTIC", "ALIGNED", "ALIGNED", "BREAKDOWN"),
        (12, -1.0, "BEZIER", "AUTO", "AUTO", "EXTREME"),  # auto handles next to the range: Blender would move them
        (25, 4.0, "BEZIER", "AUTO_CLAMPED", "AUTO_CLAMPED", "KEYFRAME"),
        (40.5, 3.0, "LINEAR", "VECTOR", "VECTOR", "JITTER"),
        (60, 1.0, "BACK", "AUTO", "AUTO", "MOVING_HOLD"),
        (66, 5.0, "CONSTANT", "VECTOR", "FREE", "KEYFRAME"),
        (72, 0.5, "BEZIER", "AUTO_CLAMPED", "AUTO_CLAMPED", "KEYFRAME"),
    ]
    for frame, value, *_ in spec:
        obj.location.x = value
        obj.keyframe_insert("location", index=0, frame=frame)
    fcurve = anim_keys.find_fcurve(obj, "location", 0)
    assert fcurve is not None
    for key, (_f, _v, interp, left, right, kind) in zip(fcurve.keyframe_points, spec, strict=True):
        key.interpolation, key.handle_left_type, key.handle_right_type, key.type = interp, left, right, kind
    fcurve.update()
    first, second = fcurve.keyframe_points[0], fcurve.keyframe_points[1]
    first.handle_left, first.handle_right = (-3.0, 1.25), (2.5, -0.75)  # FREE: stays where it is put
    second.easing, second.amplitude, second.period, second.back = "EASE_IN_OUT", 0.3, 2.5, 1.1
    fcurve.keyframe_points[5].back = 2.2
    fcurve.keyframe_points[5].select_control_point = False
    fcurve.keyframe_points[6].select_left_handle = True
    return fcurve


def outside(snap: list[tuple[object, ...]], start: float, end: float) -> list[tuple[object, ...]]:
    return [k for k in snap if not start <= k[0][0] <= end]


# --- writing and playing -----------------------------------------------------------------------------------


@pytest.mark.usefixtures("empty_file")
def test_written_keys_evaluate_back_exactly_and_play() -> None:
    obj = empty_object()
    assert obj.animation_data is None
    frames = np.arange(1.0, 41.0)
    values = np.random.default_rng(3).normal(size=(3, frames.size)) * 5.0
    for axis in range(3):
        fcurve = anim_keys.ensure_fcurve(obj, "location", axis, "Object Transforms")
        anim_keys.write_keys(fcurve, frames, values[axis], start=1, end=40)
        assert fcurve.group is not None and fcurve.group.name == "Object Transforms"
        assert [fcurve.evaluate(f) for f in frames] == f32(values[axis]).tolist()
    for i in (0, 7, 19, 39):
        assert evaluated_location(obj, frames[i]) == tuple(f32(values[:, i]).tolist())
    # Linear interpolation between keys: halfway is the float32 midpoint.
    loc = evaluated_location(obj, 10.5)
    expected = (f32(values[:, 9]).astype(np.float64) + f32(values[:, 10])) / 2
    assert np.allclose(loc, expected, rtol=0, atol=1e-5)


@pytest.mark.usefixtures("empty_file")
def test_a_freshly_assigned_empty_action_plays() -> None:
    """The "Legacy Slot" trap of 4.4/4.5: an action assigned by hand has no slot; keys must still play."""
    obj = empty_object()
    obj.animation_data_create().action = bpy.data.actions.new("HandMade")
    fcurve = anim_keys.ensure_fcurve(obj, "location", 2)
    anim_keys.write_keys(fcurve, [1, 11], [0.0, 10.0], start=1, end=11)
    assert obj.animation_data.action.name == "HandMade"
    if anim_keys.LAYERED_ACTIONS:
        assert obj.animation_data.action_slot is not None
    for frame in (1, 4, 11):
        assert evaluated_location(obj, frame)[2] == pytest.approx(frame - 1.0, abs=1e-6)


@pytest.mark.usefixtures("empty_file")
def test_keys_are_copied_to_another_object_and_play_there() -> None:
    """Assigning the written action (and slot) to a fresh object plays the same animation."""
    source = empty_object("Source")
    frames = np.arange(0.0, 30.0, 3.0)
    values = np.cos(frames / 7.0)
    anim_keys.write_keys(anim_keys.ensure_fcurve(source, "location", 1), frames, values, start=0, end=30)
    fresh = empty_object("Fresh")
    fresh.animation_data_create().action = source.animation_data.action
    if anim_keys.LAYERED_ACTIONS:
        fresh.animation_data.action_slot = source.animation_data.action_slot
    for i in (0, 4, 9):
        assert evaluated_location(fresh, frames[i])[1] == float(f32(values[i]))


@pytest.mark.usefixtures("empty_file")
def test_interpolation_choices() -> None:
    obj = empty_object()
    step = anim_keys.ensure_fcurve(obj, "location", 0)
    anim_keys.write_keys(step, [1, 2, 3], [0.0, 5.0, 1.0], start=1, end=3, interpolation="CONSTANT")
    assert [step.evaluate(f) for f in (1.5, 2.5, 2.99)] == [0.0, 5.0, 5.0]
    smooth = anim_keys.ensure_fcurve(obj, "location", 1)
    anim_keys.write_keys(smooth, [1, 10, 20], [0.0, 5.0, 0.0], start=1, end=20, interpolation="BEZIER")
    assert [k.interpolation for k in smooth.keyframe_points] == ["BEZIER"] * 3
    for key in smooth.keyframe_points:  # handles computed around each key, not left at the origin
        assert key.handle_left[0] < key.co[0] < key.handle_right[0]
    assert [smooth.evaluate(f) for f in (1, 10, 20)] == [0.0, 5.0, 0.0]
    assert 0.0 < smooth.evaluate(5) < 5.0
    with pytest.raises(ValueError, match="interpolation"):
        anim_keys.write_keys(smooth, [1], [0.0], start=1, end=1, interpolation="WOBBLY")


@pytest.mark.usefixtures("empty_file")
def test_rejects_bad_input_without_touching_the_curve() -> None:
    obj = empty_object()
    fcurve = anim_keys.ensure_fcurve(obj, "location", 0)
    anim_keys.write_keys(fcurve, [1, 2], [1.0, 2.0], start=1, end=2)
    before = snapshot(fcurve)
    for frames, values, message in (([0, 1], [1.0, 2.0], "inside"), ([1, 1], [1.0, 2.0], "duplicate"),
                                    ([1, 2], [1.0, float("nan")], "non-finite"), ([1, 2], [1.0], "values")):
        with pytest.raises(ValueError, match=message):
            anim_keys.write_keys(fcurve, frames, values, start=1, end=2)
    assert snapshot(fcurve) == before


# --- preservation, idempotence, removal ---------------------------------------------------------------------


@pytest.mark.usefixtures("empty_file")
def test_keys_outside_the_range_are_preserved_bit_for_bit() -> None:
    obj = empty_object()
    fcurve = hand_made_curve(obj)
    before = snapshot(fcurve)
    outside_frames = np.concatenate([np.linspace(-5, 12, 69), np.linspace(60, 80, 81)])
    curve_before = [fcurve.evaluate(f) for f in outside_frames]

    frames = np.arange(20.0, 51.0)
    values = np.sin(frames / 4.0)
    anim_keys.write_keys(fcurve, frames, values, start=20, end=50)

    after = snapshot(fcurve)
    assert outside(after, 20, 50) == outside(before, 20, 50)
    inside = [k for k in after if 20 <= k[0][0] <= 50]
    assert [k[0] for k in inside] == list(zip(frames.tolist(), f32(values).tolist(), strict=True))
    assert {k[KEY_ATTRIBUTES.index("interpolation")] for k in inside} == {"LINEAR"}
    assert key_frames(fcurve) == sorted(key_frames(fcurve))
    # Only the segments touching the range may change shape; the curve elsewhere is identical.
    assert [fcurve.evaluate(f) for f in outside_frames] == curve_before
    assert evaluated_location(obj, 33)[0] == float(f32(np.sin(33 / 4.0)))


@pytest.mark.usefixtures("empty_file")
def test_writing_twice_gives_identical_keys() -> None:
    obj = empty_object()
    fcurve = hand_made_curve(obj)
    frames = np.arange(20.0, 50.5, 0.5)
    values = frames**0.5
    anim_keys.write_keys(fcurve, frames, values, start=20, end=50)
    once = snapshot(fcurve)
    anim_keys.write_keys(fcurve, frames[::-1], values[::-1], start=20, end=50)  # any order
    assert snapshot(fcurve) == once
    assert len(once) == len(frames) + 6  # 6 hand-made keys lie outside [20, 50]
    assert len(set(key_frames(fcurve))) == len(once)


@pytest.mark.parametrize("interpolation", ["BEZIER", "LINEAR", "CONSTANT"])
@pytest.mark.usefixtures("empty_file")
def test_new_keys_between_kept_keys_are_like_keys_written_into_an_empty_curve(interpolation: str) -> None:
    obj = empty_object()
    frames = np.arange(20.0, 31.0)
    values = np.cos(frames)
    reference = anim_keys.ensure_fcurve(obj, "location", 1)
    anim_keys.write_keys(reference, frames, values, start=20, end=30, interpolation=interpolation)
    fcurve = anim_keys.ensure_fcurve(obj, "location", 0)
    around = np.arange(1.0, 41.0)
    # Kept keys with the attributes of fresh keys (BEZIER is the default), new keys of each interpolation.
    anim_keys.write_keys(fcurve, around, around * 0.5, start=1, end=40, interpolation="BEZIER")
    kept = outside(snapshot(fcurve), 20, 30)

    anim_keys.write_keys(fcurve, frames, values, start=20, end=30, interpolation=interpolation)

    after = snapshot(fcurve)
    assert outside(after, 20, 30) == kept
    inside = [k for k in after if 20 <= k[0][0] <= 30]
    assert [k[0] for k in inside] == [k[0] for k in snapshot(reference)]
    # Handles depend on the neighbours; every other attribute is the one a fresh key gets.
    assert [k[3:] for k in inside] == [k[3:] for k in snapshot(reference)]
    assert {k[KEY_ATTRIBUTES.index("interpolation")] for k in inside} == {interpolation}


@pytest.mark.usefixtures("empty_file")
def test_inside_keys_not_written_are_removed() -> None:
    obj = empty_object()
    fcurve = hand_made_curve(obj)  # has keys at 25 and 40.5 inside the range
    anim_keys.write_keys(fcurve, [30.0], [9.0], start=20, end=50)
    assert key_frames(fcurve) == [1.0, 5.0, 12.0, 30.0, 60.0, 66.0, 72.0]


@pytest.mark.usefixtures("empty_file")
def test_remove_keys_preserves_outside_keys() -> None:
    obj = empty_object()
    fcurve = hand_made_curve(obj)
    before = snapshot(fcurve)
    assert anim_keys.remove_keys(fcurve, 20, 50) == 2
    assert snapshot(fcurve) == outside(before, 20, 50)
    assert anim_keys.remove_keys(fcurve, 20, 50) == 0
    assert snapshot(fcurve) == outside(before, 20, 50)
    assert anim_keys.remove_keys(fcurve, 59, 100) == 3
    assert snapshot(fcurve) == outside(before, 20, 100)


@pytest.mark.usefixtures("empty_file")
def test_remove_keys_removes_an_emptied_curve_only_when_asked() -> None:
    obj = empty_object()
    kept = anim_keys.ensure_fcurve(obj, "location", 0)
    anim_keys.write_keys(kept, [1, 2, 3], [1.0, 2.0, 3.0], start=1, end=3)
    assert anim_keys.remove_keys(kept, 0, 10) == 3
    assert anim_keys.find_fcurve(obj, "location", 0) is not None
    assert len(kept.keyframe_points) == 0

    gone = anim_keys.ensure_fcurve(obj, "location", 1)
    anim_keys.write_keys(gone, [1, 2], [1.0, 2.0], start=1, end=2)
    anim_keys.remove_keys(gone, 0, 10, remove_empty=True)
    assert anim_keys.find_fcurve(obj, "location", 1) is None
    assert anim_keys.find_fcurve(obj, "location", 0) is not None

    partial = anim_keys.ensure_fcurve(obj, "location", 2)
    anim_keys.write_keys(partial, [1, 20], [1.0, 2.0], start=1, end=20)
    anim_keys.remove_keys(partial, 0, 10, remove_empty=True)  # not empty: stays
    assert key_frames(anim_keys.find_fcurve(obj, "location", 2)) == [20.0]


# --- existing animation, bones, custom properties ----------------------------------------------------------


@pytest.mark.usefixtures("empty_file")
def test_an_action_made_by_keyframe_insert_is_extended_not_replaced() -> None:
    obj = empty_object()
    for frame, z in ((1, 0.0), (10, 3.0)):
        obj.location.z = z
        obj.keyframe_insert("location", index=2, frame=frame)
    action = obj.animation_data.action
    hand_keys = snapshot(anim_keys.find_fcurve(obj, "location", 2))
    actions = len(bpy.data.actions)

    fcurve = anim_keys.ensure_fcurve(obj, "rotation_euler", 2, "Object Transforms")
    anim_keys.write_keys(fcurve, [1, 10], [0.0, 1.5], start=1, end=10)

    assert obj.animation_data.action == action
    assert len(bpy.data.actions) == actions
    assert snapshot(anim_keys.find_fcurve(obj, "location", 2)) == hand_keys
    assert {(fc.data_path, fc.array_index) for fc in anim_keys.iter_fcurves(obj)} == {
        ("location", 2), ("rotation_euler", 2)}
    bpy.context.scene.frame_set(10)
    assert (obj.location.z, obj.rotation_euler.z) == (3.0, float(f32(1.5)))
    if anim_keys.LAYERED_ACTIONS:
        assert len(action.slots) == 1 and len(action.layers) == 1


@pytest.mark.skipif(not anim_keys.LAYERED_ACTIONS, reason="slots exist only in layered actions (4.4+)")
@pytest.mark.usefixtures("empty_file")
def test_an_action_shared_without_a_slot_gets_its_own_slot() -> None:
    first, second = empty_object("First"), empty_object("Second")
    anim_keys.write_keys(anim_keys.ensure_fcurve(first, "location", 0), [1, 5], [0.0, 4.0], start=1, end=5)
    action = first.animation_data.action
    second.animation_data_create().action = action
    second.animation_data.action_slot = None
    anim_keys.write_keys(anim_keys.ensure_fcurve(second, "location", 0), [1, 5], [0.0, -4.0], start=1, end=5)
    assert second.animation_data.action_slot != first.animation_data.action_slot
    assert len(action.slots) == 2
    assert (evaluated_location(first, 5)[0], evaluated_location(second, 5)[0]) == (4.0, -4.0)


def two_bone_armature() -> bpy.types.Object:
    data = bpy.data.armatures.new("Rig")
    rig = bpy.data.objects.new("Rig", data)
    bpy.context.scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    upper = data.edit_bones.new("Upper")
    upper.head, upper.tail = (0.0, 0.0, 0.0), (1.0, 0.0, 0.0)
    fore = data.edit_bones.new("Fore")
    fore.head, fore.tail, fore.parent = (1.0, 0.0, 0.0), (2.0, 0.0, 0.0), upper
    bpy.ops.object.mode_set(mode="OBJECT")
    return rig


@pytest.mark.usefixtures("empty_file")
def test_pose_bone_custom_property_and_rotation_channels() -> None:
    rig = two_bone_armature()
    fore = rig.pose.bones["Fore"]
    fore["soft_ik_error"] = 0.0
    frames = np.arange(1.0, 21.0)
    errors = np.abs(np.sin(frames)) * 0.01
    path = 'pose.bones["Fore"]["soft_ik_error"]'
    fcurve = anim_keys.ensure_fcurve(rig, path, 0, "Fore")
    anim_keys.write_keys(fcurve, frames, errors, start=1, end=20)
    assert anim_keys.find_fcurve(rig, path, 0) == fcurve
    assert fcurve.group.name == "Fore"

    angles = np.linspace(0.0, 1.2, frames.size)
    quaternion = np.stack([np.cos(angles / 2), 0 * angles, 0 * angles, np.sin(angles / 2)])  # about local Z
    for i in range(4):
        channel = anim_keys.ensure_fcurve(rig, 'pose.bones["Fore"].rotation_quaternion', i, "Fore")
        anim_keys.write_keys(channel, frames, quaternion[i], start=1, end=20)
        assert channel.group == fcurve.group  # one group per bone, reused
    for i in (0, 9, 19):
        bpy.context.scene.frame_set(int(frames[i]))
        assert fore["soft_ik_error"] == float(f32(errors[i]))
        assert tuple(fore.rotation_quaternion) == tuple(f32(quaternion[:, i]).tolist())
        # The evaluated pose really moved: the unit forearm turned by the angle away from its rest direction +X.
        evaluated = rig.evaluated_get(bpy.context.evaluated_depsgraph_get()).pose.bones["Fore"]
        direction = evaluated.tail - evaluated.head
        assert direction.x == pytest.approx(np.cos(angles[i]), abs=1e-5)
        assert np.hypot(direction.y, direction.z) == pytest.approx(np.sin(angles[i]), abs=1e-5)


# --- scale ------------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("empty_file")
def test_one_hundred_thousand_frames() -> None:
    obj = empty_object()
    for frame, x in ((-10, 7.0), (200_000, -7.0)):
        obj.location.x = x
        obj.keyframe_insert("location", index=0, frame=frame)
    merged = anim_keys.find_fcurve(obj, "location", 0)
    fresh = anim_keys.ensure_fcurve(obj, "location", 1)
    outside_keys = snapshot(merged)
    frames = np.arange(0.0, 100_000.0)
    values = np.sin(frames * 1e-3) * 3.0
    for fcurve in (merged, fresh):
        anim_keys.write_keys(fcurve, frames, values, start=0, end=99_999)
        probe = np.array([0, 1, 4_567, 50_000, 99_999])
        assert [fcurve.evaluate(f) for f in frames[probe]] == f32(values[probe]).tolist()
    assert len(fresh.keyframe_points) == frames.size
    assert len(merged.keyframe_points) == frames.size + 2
    keys = snapshot(merged)
    assert [keys[0], keys[-1]] == outside_keys
