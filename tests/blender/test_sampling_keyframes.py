"""rigging/sampling/keyframes evaluates many F-curves at once with Blender's arithmetic: bit for bit what Blender
gives (``FCurve.evaluate``, and the channels ``scene.frame_set`` plays), for Bezier (every handle type, handles
that overshoot the segment), linear and constant segments, both extrapolations, subframes and times within the
binary search's threshold of a key; curves it does not cover are left to Blender."""

from __future__ import annotations

import bpy
import harness
import numpy as np
import pytest

keyframes = harness.package("rigging.sampling.keyframes")
roots = harness.package("rigging.sampling.roots")
sampling = harness.package("rigging.sampling")
anim_keys = harness.package("rigging.anim_keys")

HANDLES = ("AUTO_CLAMPED", "AUTO", "VECTOR", "ALIGNED", "FREE")


def _random_objects(rng: np.random.Generator, count: int, interpolations: tuple[str, ...]) -> list[bpy.types.Object]:
    """Empties with keyed location and Euler rotation: random key spacing (whole and fractional frames, one key
    alone too), interpolations, handle types, hand-set handles that overshoot, extrapolations."""
    objects = []
    for k in range(count):
        obj = bpy.data.objects.new(f"keyed{k}", None)
        bpy.context.scene.collection.objects.link(obj)
        obj.rotation_mode = "XYZ"
        frames = np.cumsum(rng.uniform(0.05, 15.0, int(rng.integers(1, 10)))) - 10.0 * rng.uniform()
        frames = np.unique(np.round(frames) if rng.uniform() < 0.5 else frames)
        for f in frames.tolist():
            obj.location = rng.normal(0.0, 3.0, 3)
            obj.rotation_euler = rng.normal(0.0, 2.0, 3)
            obj.keyframe_insert("location", frame=f)
            obj.keyframe_insert("rotation_euler", frame=f)
        for fc in anim_keys.iter_fcurves(obj):
            fc.extrapolation = "LINEAR" if rng.uniform() < 0.5 else "CONSTANT"
            for kp in fc.keyframe_points:
                kp.interpolation = interpolations[int(rng.integers(len(interpolations)))]
                kp.handle_left_type = HANDLES[int(rng.integers(len(HANDLES)))]
                kp.handle_right_type = HANDLES[int(rng.integers(len(HANDLES)))]
                if rng.uniform() < 0.3:
                    kp.handle_left_type = kp.handle_right_type = "FREE"
                    kp.handle_left = (kp.co[0] - rng.uniform(-3.0, 20.0), kp.co[1] + rng.normal(0.0, 5.0))
                    kp.handle_right = (kp.co[0] + rng.uniform(-3.0, 20.0), kp.co[1] + rng.normal(0.0, 5.0))
            fc.update()
        objects.append(obj)
    return objects


def _times(rng: np.random.Generator, curves: list[bpy.types.FCurve]) -> np.ndarray:
    keyed = np.array([kp.co[0] for fc in curves for kp in fc.keyframe_points])
    near = (keyed[:, None] + np.array([0.0, 1e-4, -1e-4, 2e-4, 5e-5, -5e-5])).ravel()
    lo, hi = keyed.min() - 5.0, keyed.max() + 5.0
    return np.concatenate([np.arange(np.floor(lo), np.ceil(hi)), rng.uniform(lo, hi, 1500), near]).astype(np.float32)


def _blender(curves: list[bpy.types.FCurve], times: np.ndarray) -> np.ndarray:
    return np.array([[fc.evaluate(t) for t in times.tolist()] for fc in curves], dtype=np.float32)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_many_curves_at_once_match_blender_bit_for_bit(empty_file: bpy.types.Scene, seed: int) -> None:
    rng = np.random.default_rng(seed)
    curves = [fc for obj in _random_objects(rng, 25, ("BEZIER", "LINEAR", "CONSTANT"))
              for fc in anim_keys.iter_fcurves(obj)]
    keys, covered = keyframes.read(curves)
    assert all(covered)
    times = _times(rng, curves)
    ours = keyframes.evaluate(keys, times)
    assert ours.dtype == np.float32
    np.testing.assert_array_equal(ours, _blender(curves, times))


def test_bezier_roots_through_the_c_library_give_the_same_bits(empty_file: bpy.types.Scene,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Where numpy's exp/log/cos/acos would round differently, each element goes through Python's math."""
    rng = np.random.default_rng(7)
    curves = [fc for obj in _random_objects(rng, 10, ("BEZIER",)) for fc in anim_keys.iter_fcurves(obj)]
    keys, _covered = keyframes.read(curves)
    times = _times(rng, curves)
    scalar = tuple(roots._elementwise(f) for f in (roots._c_exp, roots._c_log, roots._c_cos, roots._c_acos))
    monkeypatch.setattr(roots, "libm", lambda: scalar)
    np.testing.assert_array_equal(keyframes.evaluate(keys, times), _blender(curves, times))


def _off_by(relative: float):  # type: ignore[no-untyped-def]
    """numpy's four functions, each result moved by up to ``relative`` of itself, up or down by element."""
    def perturbed(ufunc):  # type: ignore[no-untyped-def]
        def call(v: np.ndarray) -> np.ndarray:
            out = ufunc(v)
            return out * (1.0 + relative * np.where(np.sin(977.0 * v) > 0.0, 1.0, -0.7))
        return call
    return tuple(perturbed(u) for u in (np.exp, np.log, np.cos, np.arccos))


@pytest.mark.parametrize(("relative", "redone_at_most"), [(2.0 ** -30, 0.75), (2.0 ** -47, 0.05)])
def test_bezier_roots_from_bounded_numpy_functions_give_the_c_library_bits(
        empty_file: bpy.types.Scene, monkeypatch: pytest.MonkeyPatch, relative: float, redone_at_most: float) -> None:
    """Where numpy rounds differently, a pass with numpy's functions settles most roots within bounds that hold
    for the C library's results, and the rest are solved again through it: every root is the C library's.

    numpy's functions are made worse here, by up to ``relative`` (the bounds allow twice that), so that the
    bounds must do their work on any machine: a bound on the wrong side, or an unsettled root kept, differs."""
    rng = np.random.default_rng(23)
    curves = [fc for obj in _random_objects(rng, 12, ("BEZIER",)) for fc in anim_keys.iter_fcurves(obj)]
    keys, _covered = keyframes.read(curves)
    times = np.concatenate([_times(rng, curves), rng.uniform(-10.0, 90.0, 20_000).astype(np.float32)])
    scalar = tuple(roots._elementwise(f) for f in (roots._c_exp, roots._c_log, roots._c_cos, roots._c_acos))
    monkeypatch.setattr(roots, "libm", lambda: scalar)
    monkeypatch.setattr(roots, "UFUNCS", _off_by(relative))
    monkeypatch.setattr(roots, "SLACK", 2 * relative)
    solved: list[int] = []
    solve = roots._solve

    def counting(terms, x0, x, kind, bounds):  # type: ignore[no-untyped-def]
        solved.append(x.size)
        return solve(terms, x0, x, kind, bounds)

    monkeypatch.setattr(roots, "_solve", counting)
    np.testing.assert_array_equal(keyframes.evaluate(keys, times), _blender(curves, times))
    first, *again = solved
    assert len(again) == 1 and 0 < again[0] <= redone_at_most * first, solved


def test_curves_sharing_key_frames_match_blender(empty_file: bpy.types.Scene) -> None:
    """A crowd keyed on one schedule: the Bezier parameters are solved once for all curves (one time group)."""
    rng = np.random.default_rng(3)
    frames = np.arange(1.0, 302.0, 10.0)
    curves = []
    for k in range(6):
        obj = bpy.data.objects.new(f"crowd{k}", None)
        bpy.context.scene.collection.objects.link(obj)
        for f in frames.tolist():
            obj.location = rng.normal(0.0, 2.0, 3)
            obj.keyframe_insert("location", frame=f)
        curves += list(anim_keys.iter_fcurves(obj))
    keys, _covered = keyframes.read(curves)
    assert keyframes._time_groups(keys)[0].size < len(curves)
    times = np.arange(-5, 320, dtype=np.float32) + np.float32(0.25) * (np.arange(325) % 2)
    np.testing.assert_array_equal(keyframes.evaluate(keys, times), _blender(curves, times))


def test_sampled_channels_are_what_playback_gives(empty_file: bpy.types.Scene) -> None:
    """The sampler's object and pose-bone channels equal the values ``frame_set`` writes into the channels."""
    rng = np.random.default_rng(11)
    objects = _random_objects(rng, 4, ("BEZIER", "LINEAR", "CONSTANT"))
    arm = bpy.data.objects.new("rig", bpy.data.armatures.new("rig"))
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    bone = arm.data.edit_bones.new("bone")
    bone.head, bone.tail = (0.0, 0.0, 0.0), (0.0, 1.0, 0.0)
    bpy.ops.object.mode_set(mode="OBJECT")
    pb = arm.pose.bones["bone"]
    pb.rotation_mode = "XYZ"
    for f in (1.0, 9.0, 23.0, 30.5):
        pb.location = rng.normal(0.0, 1.0, 3)
        pb.rotation_euler = rng.normal(0.0, 1.0, 3)
        pb.keyframe_insert("location", frame=f)
        pb.keyframe_insert("rotation_euler", frame=f)
    frames = np.arange(-3, 45, dtype=np.float64)
    sampler = sampling.fcurves.ChannelSampler(frames)
    try:
        ours = {(obj.name, path, i): sampler.channel(obj, path, i) for obj in objects
                for path in ("location", "rotation_euler") for i in range(3)}
    finally:
        sampler.close()
    _rows, bone_channels = next(sampling.iter_pose_channels(arm, ["bone"], frames))
    for f_i, frame in enumerate(frames.tolist()):
        bpy.context.scene.frame_set(int(frame))
        for (name, path, i), values in ours.items():
            assert values[f_i] == np.float32(getattr(bpy.data.objects[name], path)[i]), (name, path, i, frame)
        _mode, channels = bone_channels["bone"]
        for path in ("location", "rotation_euler"):
            np.testing.assert_array_equal(channels[path][f_i], np.array(getattr(pb, path), dtype=np.float32))


def test_curves_it_does_not_cover_are_left_to_blender(empty_file: bpy.types.Scene) -> None:
    obj = bpy.data.objects.new("other", None)
    bpy.context.scene.collection.objects.link(obj)
    obj["custom"] = 0.0
    for f, v in ((1.0, 0.0), (10.0, 2.0), (20.0, -1.0)):
        obj.location = (v, -v, 2 * v)
        obj["custom"] = v
        obj.keyframe_insert("location", frame=f)
        obj.keyframe_insert('["custom"]', frame=f)
    by_path = {(fc.data_path, fc.array_index): fc for fc in anim_keys.iter_fcurves(obj)}
    by_path[("location", 0)].keyframe_points[1].interpolation = "ELASTIC"  # an easing segment
    # Moved without update(), which would merge keys this close (as keyframe_insert replaces them).
    by_path[("location", 1)].keyframe_points[1].co = (19.995, 3.0)
    by_path[("location", 2)].modifiers.new("NOISE")
    curves = [by_path[("location", 0)], by_path[("location", 1)], by_path[("location", 2)], by_path[('["custom"]', 0)]]
    _keys, covered = keyframes.read(curves)
    # Easing, keys 0.005 frames apart (closer than MIN_SPACING), a modifier, a custom property.
    assert covered == [False, False, False, False]
    frames = np.arange(0, 25, dtype=np.float64)
    got = sampling.sample_channels(obj, [("location", 0), ("location", 1), ("location", 2)], frames)
    for i, values in enumerate(got):
        assert values is not None
        np.testing.assert_array_equal(values.astype(np.float32), _blender([curves[i]], frames.astype(np.float32))[0])


def test_root_objects_composed_together_as_one_by_one(empty_file: bpy.types.Scene) -> None:
    """Objects without parent or constraints are composed per rotation mode in one pass: the same matrices as
    composing each alone, and Blender's within float32."""
    rng = np.random.default_rng(5)
    objects = []
    for k, mode in enumerate(("XYZ", "QUATERNION", "AXIS_ANGLE", "ZXY", "XYZ", "QUATERNION")):
        obj = bpy.data.objects.new(f"root{k}", None)
        bpy.context.scene.collection.objects.link(obj)
        obj.rotation_mode = mode
        obj.scale = (1.0, -1.5, 0.5)
        rot = {"XYZ": "rotation_euler", "ZXY": "rotation_euler", "QUATERNION": "rotation_quaternion",
               "AXIS_ANGLE": "rotation_axis_angle"}[mode]
        for f in (1.0, 12.0, 30.0):
            obj.location = rng.normal(0.0, 2.0, 3)
            if k % 2:
                setattr(obj, rot, rng.normal(0.0, 1.0, len(getattr(obj, rot))))
                obj.keyframe_insert(rot, frame=f)
            obj.keyframe_insert("location", frame=f)
        objects.append(obj)
    frames = np.arange(0, 35, dtype=np.float64)
    together = sampling.sample_world_matrices(bpy.context, [(obj, None) for obj in objects], frames)
    fcurves = sampling.fcurves
    sampler = fcurves.ChannelSampler(frames)
    try:
        composer = fcurves.Composer(sampler, slice(0, frames.size))
        alone = np.stack([np.broadcast_to(composer.object_world(obj), (frames.size, 4, 4)) for obj in objects])
    finally:
        sampler.close()
    np.testing.assert_array_equal(together, alone)
    truth = np.empty_like(together)
    for f_i, frame in enumerate(frames.tolist()):
        bpy.context.scene.frame_set(int(frame))
        truth[:, f_i] = [np.array(obj.matrix_world) for obj in objects]
    np.testing.assert_allclose(together, truth, atol=2e-6)


def test_long_ranges_are_evaluated_in_blocks(empty_file: bpy.types.Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(13)
    obj = _random_objects(rng, 1, ("BEZIER", "LINEAR"))[0]
    channels = [("location", i) for i in range(3)]
    frames = np.arange(-12, 40, dtype=np.float64) + 0.5 * (np.arange(52) % 3 == 0)
    whole = sampling.sample_channels(obj, channels, frames)
    monkeypatch.setattr(harness.package("rigging.sampling.channels"), "EVALUATE_BLOCK", 5)
    blocks = sampling.sample_channels(obj, channels, frames)
    for a, b, (path, i) in zip(whole, blocks, channels, strict=True):
        np.testing.assert_array_equal(a, b)
        fc = anim_keys.find_fcurve(obj, path, i)
        np.testing.assert_array_equal(a.astype(np.float32), _blender([fc], frames.astype(np.float32))[0])


def test_a_disagreeing_evaluation_hands_every_curve_back_to_blender(empty_file: bpy.types.Scene,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """If this Blender's arithmetic differed (say, fused multiply-adds), the spot checks would catch it and the
    curves would be sampled by Blender; the results stay Blender's."""
    rng = np.random.default_rng(17)
    obj = _random_objects(rng, 1, ("BEZIER",))[0]
    channels = [("location", i) for i in range(3)]
    frames = np.arange(-5, 40, dtype=np.float64)
    assert keyframes.trusted()
    evaluate = keyframes.evaluate
    monkeypatch.setattr(keyframes, "evaluate", lambda k, t: np.nextafter(evaluate(k, t), np.float32(np.inf)))
    monkeypatch.setitem(keyframes._agreement, "trusted", True)
    got = sampling.sample_channels(obj, channels, frames)
    assert not keyframes.trusted()
    for values, (path, i) in zip(got, channels, strict=True):
        fc = anim_keys.find_fcurve(obj, path, i)
        np.testing.assert_array_equal(values.astype(np.float32), _blender([fc], frames.astype(np.float32))[0])
