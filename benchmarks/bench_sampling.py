"""Benchmark sampling.py against stepping the user's scene with ``frame_set``.

Run: ``.venvs/bpy-5.0/bin/python benchmarks/bench_sampling.py [frames]`` (default 2000 frames); the extension is
built and installed first (``tests/blender/harness.py``) and the installed copy is measured.
Prints µs per frame for each path and its speed-up over ``frame_set`` measured in the same run, first on a bare
scene (an animated target and an animated two-bone rig), then with a ~40k-vertex mesh skinned to the rig.
"""

from __future__ import annotations

import importlib.util
import math
import os
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_harness() -> ModuleType:
    # The test harness builds and installs the extension the way users get it (isolated user directory).
    spec = importlib.util.spec_from_file_location("harness", ROOT / "tests" / "blender" / "harness.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["harness"] = module  # dataclasses look their module up while the file executes
    spec.loader.exec_module(module)
    return module


harness = load_harness()
harness.install_extension()  # before the first ``import bpy``

import bpy  # noqa: E402
import numpy as np  # noqa: E402


def build_scene(frames: int) -> tuple[bpy.types.Object, bpy.types.Object]:
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    target = bpy.data.objects.new("target", None)
    scene.collection.objects.link(target)
    for f in range(1, frames + 1, 25):
        target.location = (math.sin(f * 0.05), 0.0, math.cos(f * 0.03))
        target.rotation_euler = (0.0, f * 0.01, 0.0)
        target.keyframe_insert("location", frame=f)
        target.keyframe_insert("rotation_euler", frame=f)
    arm = bpy.data.objects.new("rig", bpy.data.armatures.new("rig"))
    scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    upper = arm.data.edit_bones.new("upper")
    upper.head, upper.tail = (0, 0, 0), (1, 0, 0)
    lower = arm.data.edit_bones.new("lower")
    lower.head, lower.tail, lower.parent, lower.use_connect = (1, 0, 0), (2, 0, 0), upper, True
    bpy.ops.object.mode_set(mode="OBJECT")
    for f in range(1, frames + 1, 25):
        arm.location = (0.0, 0.0, 0.1 * math.sin(f * 0.02))
        arm.keyframe_insert("location", frame=f)
        arm.pose.bones["upper"].rotation_quaternion = (math.cos(f * 0.01), 0, math.sin(f * 0.01), 0)
        arm.pose.bones["upper"].keyframe_insert("rotation_quaternion", frame=f)
    return target, arm


def add_skinned_mesh(arm: bpy.types.Object) -> int:
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=200, y_subdivisions=200, size=2.0)
    mesh = bpy.context.active_object
    n = len(mesh.data.vertices)
    co = np.empty(3 * n)
    mesh.data.vertices.foreach_get("co", co)
    x = co[0::3]
    for name, weight in (("upper", np.clip(1.0 - x, 0, 1)), ("lower", np.clip(x, 0, 1))):
        group = mesh.vertex_groups.new(name=name)
        for w in np.unique(np.round(weight, 2)):
            group.add(np.flatnonzero(np.isclose(np.round(weight, 2), w)).tolist(), float(w), "REPLACE")
    mod = mesh.modifiers.new("skin", "ARMATURE")
    mod.object = arm
    return n


def time_frame_set(requests: list[tuple], frames: np.ndarray) -> float:
    scene = bpy.context.scene
    start = time.perf_counter()
    for f in frames.tolist():
        scene.frame_set(int(f))
        for obj, bone in requests:
            m = np.array(obj.matrix_world)
            if bone:
                m = m @ np.array(obj.pose.bones[bone].matrix)
    return time.perf_counter() - start


def time_sampling(sampling, requests: list[tuple], frames: np.ndarray, method: str) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    sampling.sample_world_matrices(bpy.context, requests, frames, method=method)
    return time.perf_counter() - start


def report(label: str, sampling, requests: list[tuple], frames: np.ndarray) -> None:  # type: ignore[no-untyped-def]
    base = time_frame_set(requests, frames)
    n = frames.size
    print(f"{label}: frame_set stepping {1e6 * base / n:8.2f} µs/frame (baseline)")
    methods = ["SCENE", "AUTO"]
    if all(sampling.fcurve_only_reason(obj, [bone] if bone else []) is None for obj, bone in requests):
        methods.insert(0, "FCURVES")
    for method in methods:
        t = time_sampling(sampling, requests, frames, method)
        print(f"{label}: {method:8s} {1e6 * t / n:8.2f} µs/frame   x{base / t:7.1f} faster than frame_set")


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    sampling = harness.package("rigging.sampling")
    target, arm = build_scene(count)
    frames = np.arange(1, count + 1, dtype=np.float64)
    cases = [
        ("F-curve-only target", [(target, None)]),
        ("animated bone (world)", [(arm, "lower")]),
        ("bake set: armature + target + bone", [(arm, None), (target, None), (arm, "upper")]),
    ]
    print(f"Blender {bpy.app.version_string}, {count} frames")
    for label, requests in cases:
        report(f"bare   | {label}", sampling, requests, frames)
    verts = add_skinned_mesh(arm)
    heavy_frames = frames[: max(200, count // 4)]
    print(f"-- with a {verts}-vertex mesh skinned to the rig ({heavy_frames.size} frames)")
    for label, requests in cases:
        report(f"skinned| {label}", sampling, requests, heavy_frames)


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # bpy 4.2 may crash at interpreter exit
