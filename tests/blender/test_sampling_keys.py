"""rigging/sampling evaluates transform curves with :mod:`keyframes`, or reads linear and constant curves straight from
their keys and copies other curves one at a time; all against Blender's own evaluation (``scene.frame_set`` +
``matrix_world``)."""

from __future__ import annotations

import bpy
import harness
import numpy as np
import pytest

sampling = harness.package("rigging.sampling")
FRAMES = np.arange(-4, 46, dtype=np.float64)  # before the first and after the last key too


def _keyed(name: str, interpolations: list[str], extrapolation: str = "CONSTANT",
           modifier: str | None = None) -> bpy.types.Object:
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    obj.rotation_mode = "XYZ"
    for i, frame in enumerate((1, 7, 8, 20, 33, 40)):
        obj.location = (0.3 * i * (-1) ** i, 1.0 - 0.2 * i, 0.1 * i * i)
        obj.rotation_euler = (0.4 * i, -0.3 * i, 0.2 * (-1) ** i)
        obj.keyframe_insert("location", frame=frame)
        obj.keyframe_insert("rotation_euler", frame=frame)
    for fc in harness.package("rigging.anim_keys").iter_fcurves(obj):
        for j, kp in enumerate(fc.keyframe_points):
            kp.interpolation = interpolations[j % len(interpolations)]
            if j % 2:  # hand-set handles, which Blender does not recompute
                kp.handle_left_type = kp.handle_right_type = "FREE"
                kp.handle_right = (kp.co[0] + 2.0, kp.co[1] + 0.7)
                kp.handle_left = (kp.co[0] - 1.0, kp.co[1] - 0.3)
        fc.extrapolation = extrapolation
        if modifier is not None and fc.data_path == "location" and fc.array_index == 1:
            fc.modifiers.new(modifier)
    return obj


def _blender(objects: list[bpy.types.Object]) -> np.ndarray:
    out = np.empty((len(objects), len(FRAMES), 4, 4))
    for f_i, f in enumerate(FRAMES):
        bpy.context.scene.frame_set(int(f))
        for o_i, obj in enumerate(objects):
            out[o_i, f_i] = np.array(obj.matrix_world)
    return out


@pytest.mark.parametrize(("interpolations", "extrapolation", "modifier"), [
    (["LINEAR"], "CONSTANT", None),
    (["CONSTANT"], "CONSTANT", None),
    (["LINEAR", "CONSTANT", "CONSTANT"], "CONSTANT", None),
    (["LINEAR", "BEZIER"], "CONSTANT", None),
    (["LINEAR"], "LINEAR", None),
    (["LINEAR", "CONSTANT"], "CONSTANT", "NOISE"),
])
@pytest.mark.parametrize("copy_one_at_a_time", [False, True])
@pytest.mark.parametrize("vectorized", [True, False])
def test_curves_from_keys_and_single_copies_match_blender(empty_file: bpy.types.Scene,
                                                          monkeypatch: pytest.MonkeyPatch, interpolations: list[str],
                                                          extrapolation: str, modifier: str | None,
                                                          copy_one_at_a_time: bool, vectorized: bool) -> None:
    if copy_one_at_a_time:  # as for a long bake's action
        monkeypatch.setattr(harness.package("rigging.sampling.channels"), "LARGE_ACTION_KEYS", 0)
    if not vectorized:  # every curve read by Blender's own paths (keys, copies, convert_to_samples)
        monkeypatch.setattr(harness.package("rigging.sampling.keyframes"), "transform_path", lambda _path: False)
    objects = [_keyed("A", interpolations, extrapolation, modifier), _keyed("B", ["BEZIER"])]
    actions = len(bpy.data.actions)
    ours = sampling.sample_world_matrices(bpy.context, [(obj, None) for obj in objects], FRAMES, method="FCURVES")
    assert len(bpy.data.actions) == actions  # scratch copies removed
    np.testing.assert_allclose(ours, _blender(objects), atol=2e-6)


def test_blocks_match_one_call(empty_file: bpy.types.Scene) -> None:
    """iter_world_matrices gives, block by block, what one sample_world_matrices call gives (F-curve and stepped
    requests, any block size) and leaves nothing behind."""
    keyed = _keyed("Keyed", ["LINEAR", "BEZIER"])
    driven = _keyed("Driven", ["BEZIER"])
    fc = driven.driver_add("rotation_euler", 2)
    fc.driver.expression = "frame * 0.05"
    requests = [(keyed, None), (driven, None)]
    whole = sampling.sample_world_matrices(bpy.context, requests, FRAMES)
    counts = (len(bpy.data.actions), len(bpy.data.scenes))
    for block in (7, 16, 1000):
        parts = list(sampling.iter_world_matrices(bpy.context, requests, FRAMES, block=block))
        assert [rows.start for rows, _m in parts] == list(range(0, len(FRAMES), block))
        np.testing.assert_array_equal(np.concatenate([m for _rows, m in parts], axis=1), whole)
    assert (len(bpy.data.actions), len(bpy.data.scenes)) == counts
    np.testing.assert_allclose(whole, _blender([keyed, driven]), atol=2e-6)
