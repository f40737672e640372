"""Bake time of a 10,000-frame 8-bone chain (CCD and FABRIK): solve + key writing, through the operator.

Target (issue: long chains): under 0.5 s on this machine. Prints the breakdown (sampling+solve, key writing)
next to the pure-solver time. Run: ``.venvs/bpy-5.0/bin/python benchmarks/bench_long_chain_bake.py``.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # dev tool: reach the test harness beside the add-on
sys.path.insert(0, str(REPO / "tests" / "blender"))
from tests.blender.harness import install_extension, package  # noqa: E402


def main(frames: int = 10_000, n_bones: int = 8) -> int:
    install_extension()
    import bpy
    import numpy as np
    from mathutils import Vector

    bake = package("bake")
    ok = True
    for solver_name in ("CCD", "FABRIK"):
        bpy.ops.wm.read_homefile(use_empty=True)
        scene = bpy.context.scene
        scene.frame_start, scene.frame_end = 1, frames
        data = bpy.data.armatures.new("Tail")
        arm = bpy.data.objects.new("Tail", data)
        scene.collection.objects.link(arm)
        bpy.context.view_layer.objects.active = arm
        bpy.ops.object.mode_set(mode="EDIT")
        head, parent = Vector((0, 0, 0)), None
        for i in range(n_bones):
            a = 0.08 * (1 if i % 2 else -1)
            tail = head + Vector((0.25 * math.cos(a), 0, 0.25 * math.sin(a)))
            eb = data.edit_bones.new(f"B{i}")
            eb.head, eb.tail = head, tail
            eb.align_roll(Vector((0, -1, 0)))
            if parent:
                eb.parent, eb.use_connect = parent, True
            head, parent = tail, eb
        bpy.ops.object.mode_set(mode="POSE")
        target = bpy.data.objects.new("Target", None)
        scene.collection.objects.link(target)
        for f in range(1, frames + 1, 50):
            t = f / 200.0
            target.location = (1.3 * math.cos(t), 0, 1.3 * math.sin(t) * 0.8)
            target.keyframe_insert("location", frame=f)
        arm.data.bones.active = arm.data.bones[f"B{n_bones - 1}"]
        target.select_set(True)
        bpy.ops.pose.soft_ik_add_chain(chain_length=n_bones)
        chain = arm.soft_ik_2d.chains[0]
        chain.solver, chain.softness = solver_name, 0.0

        rigs = bake.prepare(arm, [chain])
        frame_arr = np.arange(1, frames + 1, dtype=np.float64)
        t0 = time.perf_counter()
        solutions = bake.solve_chains(bpy.context, rigs, frame_arr)
        t1 = time.perf_counter()
        bake.write_solution(rigs[0], solutions[0], 1, frames)
        t2 = time.perf_counter()
        t3 = time.perf_counter()
        bpy.ops.pose.soft_ik_bake()
        t4 = time.perf_counter()
        total = t4 - t3
        passed = total < 0.5
        ok &= passed
        print(f"{solver_name:6s} {n_bones} bones x {frames} frames: operator bake {total * 1e3:7.1f} ms "
              f"(sample+solve {1e3 * (t1 - t0):7.1f} ms, key writing {1e3 * (t2 - t1):6.1f} ms); "
              f"max error {solutions[0].error.max():.2e}; target < 500 ms: {'pass' if passed else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    os._exit(rc)
