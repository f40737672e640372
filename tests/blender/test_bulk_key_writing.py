"""anim_keys.write_columns and ensure_fcurves (a bake writes a chain's curves with them) in real Blender.

Truth is Blender's own: ``fcurve.evaluate``, the evaluated object after ``frame_set``, and key attributes read
one key at a time through RNA, compared with keys written one curve at a time into an empty curve.
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
START, END = 20.0, 50.0


def snapshot(fcurve: bpy.types.FCurve) -> list[tuple[object, ...]]:
    """Every attribute of every key, read through RNA one key at a time (Python floats are exact float32)."""
    def plain(value: object) -> object:
        return tuple(value) if hasattr(value, "__len__") and not isinstance(value, str) else value

    return [tuple(plain(getattr(key, attr)) for attr in KEY_ATTRIBUTES) for key in fcurve.keyframe_points]


def outside(snap: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    return [k for k in snap if not START <= k[0][0] <= END]


def empty_object(name: str = "Target") -> bpy.types.Object:
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def evaluated_location(obj: bpy.types.Object, frame: int) -> tuple[float, ...]:
    bpy.context.scene.frame_set(frame)
    return tuple(obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).matrix_world.translation)


def key_by_hand(obj: bpy.types.Object, index: int, keys: list[tuple[float, float]]) -> bpy.types.FCurve:
    """location[index] keyed through keyframe_insert, with non-default attributes on every key."""
    for frame, value in keys:
        obj.location[index] = value
        obj.keyframe_insert("location", index=index, frame=frame)
    fcurve = anim_keys.find_fcurve(obj, "location", index)
    for key in fcurve.keyframe_points:
        key.interpolation, key.handle_left_type, key.handle_right_type = "BACK", "VECTOR", "FREE"
        key.type, key.easing, key.back = "BREAKDOWN", "EASE_OUT", 2.5
    fcurve.update()
    return fcurve


def reference(obj: bpy.types.Object, index: int, frames: np.ndarray, values: np.ndarray,
              interpolation: str) -> list[tuple[object, ...]]:
    """The keys write_keys gives the same frames and values in an empty curve."""
    fcurve = anim_keys.ensure_fcurve(obj, "location", index)
    anim_keys.write_keys(fcurve, frames, values, start=START, end=END, interpolation=interpolation)
    return snapshot(fcurve)


@pytest.mark.parametrize("interpolation", ["LINEAR", "CONSTANT", "BEZIER"])
@pytest.mark.usefixtures("empty_file")
def test_columns_play_their_values_and_keep_every_key_outside_the_range(interpolation: str) -> None:
    obj = empty_object()
    # x: keys before and after the range; y: a fresh curve; z: keys only inside the range (a whole re-bake).
    x = key_by_hand(obj, 0, [(1.0, 3.0), (12.0, -1.0), (30.0, 8.0), (60.0, 2.0), (72.0, 0.5)])
    y = anim_keys.ensure_fcurve(obj, "location", 1)
    z = key_by_hand(obj, 2, [(22.0, 7.0), (30.5, 1.0), (48.0, 7.0)])
    kept = outside(snapshot(x))
    frames = np.arange(START, END + 1.0)
    values = np.stack([np.sin(frames / 4.0), np.cos(frames / 3.0), np.full_like(frames, 2.5)], axis=1)
    needed = np.ones(values.shape, dtype=bool)
    needed[1:-1, 2] = False  # the constant column: its two ends only, as a bake drops keys a line needs not

    written = anim_keys.write_columns([x, y, z], frames, values, needed, start=START, end=END,
                                      interpolation=interpolation)

    assert outside(snapshot(x)) == kept
    assert len(outside(snapshot(z))) == 0
    other = empty_object("Reference")
    for i, (fcurve, co) in enumerate(zip((x, y, z), written, strict=True)):
        keep = needed[:, i]
        inside = [k for k in snapshot(fcurve) if START <= k[0][0] <= END]
        expected = list(zip(frames[keep].tolist(), values[keep, i].astype(np.float32).tolist(), strict=True))
        assert [k[0] for k in inside] == expected
        assert co.dtype == np.float32 and [tuple(c) for c in co.tolist()] == expected
        assert {k[KEY_ATTRIBUTES.index("interpolation")] for k in inside} == {interpolation}
        if i > 0:  # no key outside: exactly the keys written into an empty curve, every attribute
            assert snapshot(fcurve) == reference(other, i, frames[keep], values[keep, i], interpolation)
        stored = values[keep, i].astype(np.float32)
        assert [fcurve.evaluate(f) for f in frames[keep]] == stored.tolist()
        halfway = [fcurve.evaluate(f + 0.5) for f in frames[keep][:-1]]
        if interpolation == "CONSTANT":
            assert halfway == stored[:-1].tolist()
        elif interpolation == "LINEAR":
            assert np.allclose(halfway, (stored[:-1].astype(np.float64) + stored[1:]) / 2, rtol=0, atol=1e-6)
    if interpolation == "LINEAR":  # the dropped keys of the constant column are on the line between the kept
        assert [z.evaluate(f) for f in frames] == [2.5] * len(frames)
    played = evaluated_location(obj, 33)
    assert played == tuple(values[13].astype(np.float32).tolist())


@pytest.mark.usefixtures("empty_file")
def test_bad_columns_are_refused_before_any_curve_changes() -> None:
    obj = empty_object()
    curves = [key_by_hand(obj, i, [(1.0, 1.0), (30.0, 2.0), (60.0, 3.0)]) for i in range(3)]
    before = [snapshot(fc) for fc in curves]
    frames = np.arange(START, START + 5.0)
    good = np.ones((5, 3))
    last_nan = good.copy()
    last_nan[4, 2] = np.nan
    cases = [
        (frames, last_nan, None, START, END, "non-finite"),
        (frames - 1.0, good, None, START, END, "inside"),
        (np.array([20.0, 21.0, 21.0000001, 22.0, 23.0]), good, None, START, END, "increase"),
        (frames, good[:, :2], None, START, END, "curves"),
        (frames, good, np.ones((5, 2), dtype=bool), START, END, "curves"),
        (frames, good, None, END, START, "before"),
    ]
    for f, v, needed, start, end, message in cases:
        with pytest.raises(ValueError, match=message):
            anim_keys.write_columns(curves, f, v, needed, start=start, end=end)
    assert [snapshot(fc) for fc in curves] == before


@pytest.mark.usefixtures("empty_file")
def test_ensure_fcurves_finds_existing_curves_and_creates_the_others_that_play() -> None:
    obj = empty_object()
    existing = anim_keys.ensure_fcurve(obj, "location", 1, "Mine")
    existing_keys = snapshot(existing)
    curves = anim_keys.ensure_fcurves(obj, [("location", 0, "Object Transforms"), ("location", 1, "Other"),
                                            ("location", 2, None), ("rotation_euler", 2, "Object Transforms")])
    assert curves[1] == existing and existing.group.name == "Mine" and snapshot(existing) == existing_keys
    assert [(fc.data_path, fc.array_index) for fc in curves] == [("location", 0), ("location", 1), ("location", 2),
                                                                 ("rotation_euler", 2)]
    assert curves[0].group.name == "Object Transforms" and curves[3].group == curves[0].group
    assert curves[2].group is None
    for fc in curves:
        assert anim_keys.find_fcurve(obj, fc.data_path, fc.array_index) == fc
    assert anim_keys.ensure_fcurves(obj, [("location", 0, None), ("location", 2, "X")]) == [curves[0], curves[2]]
    frames = np.array([1.0, 11.0])
    anim_keys.write_columns(curves[:3], frames, np.array([[0.0, 1.0, 2.0], [10.0, 11.0, 12.0]]), start=1, end=11)
    assert evaluated_location(obj, 6) == (5.0, 6.0, 7.0)


@pytest.mark.usefixtures("empty_file")
def test_find_fcurves_finds_what_find_fcurve_finds_and_creates_nothing() -> None:
    obj = empty_object()
    assert anim_keys.find_fcurves(obj, [("location", 0)]) == [None]
    assert obj.animation_data is None
    x = anim_keys.ensure_fcurve(obj, "location", 0)
    z = anim_keys.ensure_fcurve(obj, "location", 2)
    count = len(anim_keys.all_fcurves(obj.animation_data.action))
    channels = [("location", 2), ("location", 1), ("location", 0), ("scale", 0)]
    assert anim_keys.find_fcurves(obj, channels) == [z, None, x, None]
    assert [anim_keys.find_fcurve(obj, path, index) for path, index in channels] == [z, None, x, None]
    assert len(anim_keys.all_fcurves(obj.animation_data.action)) == count


@pytest.mark.usefixtures("empty_file")
def test_ensure_fcurves_on_an_object_without_animation_gives_curves_it_plays() -> None:
    obj = empty_object()
    assert obj.animation_data is None
    curves = anim_keys.ensure_fcurves(obj, [("location", 0, "Object Transforms"), ("location", 2, None)])
    assert obj.animation_data.action is not None
    if anim_keys.LAYERED_ACTIONS:
        assert obj.animation_data.action_slot is not None
    anim_keys.write_columns(curves, [1.0, 3.0], np.array([[1.0, -1.0], [3.0, -3.0]]), start=1, end=3)
    assert evaluated_location(obj, 2) == (2.0, 0.0, -2.0)


@pytest.mark.usefixtures("empty_file")
def test_ensure_fcurves_sets_the_smoothing_of_the_curves_it_creates_only() -> None:
    obj = empty_object()
    existing = anim_keys.ensure_fcurve(obj, "location", 1)
    existing.auto_smoothing = "CONT_ACCEL"
    preference = bpy.context.preferences.edit.fcurve_new_auto_smoothing
    curves = anim_keys.ensure_fcurves(obj, [("location", 0, None), ("location", 1, None), ("location", 2, None)],
                                      smoothing=["NONE", "NONE", None])
    assert curves[1] == existing
    assert [fc.auto_smoothing for fc in curves] == ["NONE", "CONT_ACCEL", preference]
