"""Bake speed of Soft IK 2D against Blender's own IK constraint baked with ``nla.bake`` (project issue 3).

Run with a Blender-as-a-module Python, e.g. ``.venvs/bpy-5.0/bin/python benchmarks/bench_bake.py``.

Options: ``--frames N`` (default 10000), ``--skip-mesh-baseline`` (bake the slow mesh baseline over
``--mesh-baseline-frames`` frames, default 1000, and scale it linearly to N; marked ``~`` in the table),
``--memory-frames M`` (default 100000; 0 skips the memory cases), ``--no-breakdown``, ``--profile`` (cProfile
of our bake for every case, top 15 by cumulative time).

The extension is built and installed into an isolated user directory (``tests/blender/harness.py``) and run as a
user gets it, through ``bpy.ops.pose.soft_ik_bake``. Cases (same pre-bent two-bone rig in the XZ plane, target
in reach, softness 0):

1. ``rig``: bare rig whose body bone bobs and sways, the arm under it, the target parented to the body bone
   (character space) with its own keys: armature and target are composed from F-curves;
2. ``rig+mesh``: the same plus a 40,401-vertex grid skinned to both arm bones with an Armature modifier;
3. ``fcurves``: bare rig, target animated only by its own F-curves (world space);
4. ``child-of``: bare rig, target moved by a Child Of constraint to an Empty with keyed rotation (a plain Child
   Of is composed from F-curves too);
5. ``driven``: the same with the Empty turned by a driver of the frame alone (a simple expression without
   variables: evaluated as Blender does, so composed from F-curves too);
6. ``driven-var``: the same driver plus a variable reading another (keyed) Empty's location in its own axes
   (Local Space; World or Transform Space would be that Empty's channel, composed): only Blender evaluates it,
   so the bake steps the carrier alone in a temporary scene (about 10 µs per frame in Blender's frame_set)
   and composes the target over it. For the stepped cases the breakdown adds our sampling per stepped frame
   beside Blender's ``frame_set`` alone (and with one matrix read a frame) on a temporary scene of the same
   objects: the floor of a stepped frame.

For each: Blender's time (IK constraint + ``nla.bake(visual_keying=True, clear_constraints=True)``), ours (best
of ``--repeats``), ``baseline / ours`` against the issue's target ratio, a check that the user's frame did not
move and that the tip lies on the target (read back from Blender with ``frame_set``), and a breakdown of our
time (sampling / solve / key writing / verification) from the installed package's ``bake`` functions. Memory:
a 100,000-frame bake of the bare rig (both paths), each in a fresh subprocess; peak RSS growth during the bake
(the kernel's high-water mark reset just before it when ``/proc/self/clear_refs`` allows, else ``ru_maxrss``) and
the tracemalloc peak of Python/numpy allocations in a second subprocess; a reference row gives what Blender itself
holds for the same number of curves x keys written without the add-on (original + evaluated copy after the
depsgraph update). ``--cases none`` runs only the memory part.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # dev tools beside the add-on (harness, benchmark helpers), not part of it
from tests.blender.harness import install_extension, package  # noqa: E402

TARGETS = {"rig": 10.0, "rig+mesh": 100.0, "fcurves": 30.0, "child-of": 10.0, "driven": 10.0, "driven-var": 10.0}
DRIVES = {"rig": "BODY_BONE", "rig+mesh": "BODY_BONE", "fcurves": "FCURVES", "child-of": "CHILD_OF",
          "driven": "DRIVEN", "driven-var": "DRIVEN_VAR"}
MEMORY_LIMIT_MB = 100.0
CHECK_TOLERANCE = 1e-4  # tip-to-target distance, chain length 2 (the keys are float32)
USER_FRAME = 7


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--frames", type=int, default=10000)
    p.add_argument("--repeats", type=int, default=3, help="runs of our bake per case (best is reported)")
    p.add_argument("--baseline-repeats", type=int, default=2, help="runs of the bare-rig baselines (best)")
    p.add_argument("--skip-mesh-baseline", action="store_true")
    p.add_argument("--mesh-baseline-frames", type=int, default=1000)
    p.add_argument("--memory-frames", type=int, default=100000)
    p.add_argument("--cases", default=",".join(TARGETS), help="comma-separated; 'none' for memory only")
    p.add_argument("--no-breakdown", action="store_true")
    p.add_argument("--profile", action="store_true")
    p.add_argument("--memory-case", choices=["rig", "driven", "fcurves", "keys"], help=argparse.SUPPRESS)  # child
    p.add_argument("--curves", type=int, default=10, help=argparse.SUPPRESS)
    p.add_argument("--tracemalloc", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args()


def scene_options(case: str) -> dict[str, object]:
    return {"drive": DRIVES[case], "mesh": case.endswith("mesh")}


# --- our side ---------------------------------------------------------------------------------------------


def bake_ours(rigs, s, frames: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(wall seconds, CPU seconds of all threads) of ``pose.soft_ik_bake`` over [1, frames]."""
    import bpy

    rigs.enter_pose_mode(s)
    bpy.context.scene.frame_set(USER_FRAME)
    t0, c0 = time.perf_counter(), time.process_time()
    result = bpy.ops.pose.soft_ik_bake(frame_start=1, frame_end=frames)
    elapsed = time.perf_counter() - t0, time.process_time() - c0
    if result != {"FINISHED"}:
        raise RuntimeError(f"soft_ik_bake returned {result}")
    if bpy.context.scene.frame_current != USER_FRAME:
        raise RuntimeError(f"the bake moved the user's frame from {USER_FRAME} to {bpy.context.scene.frame_current}")
    return elapsed


def reset_bake(s) -> None:  # type: ignore[no-untyped-def]
    """Remove the previous run's keys so every run is a first bake (the rig's own body keys stay)."""
    package("rigging.bake").clear_bakes(s.armature, list(s.armature.soft_ik_2d.chains))
    left = {fc.data_path for fc in package("rigging.anim_keys").iter_fcurves(s.armature)}
    if any(name in path for path in left for name in ('"upper"', '"lower"')):
        raise RuntimeError(f"clear_bake left baked curves: {sorted(left)}")


def check_frames(frames: int) -> list[int]:
    return sorted({1, 2, frames // 3, frames // 2 + 1, frames - 1, frames})


def breakdown(rigs, s, frames: int) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Our bake's pieces timed one by one (the operator's own sequence, without its progress report)."""
    import bpy
    import numpy as np

    bake = package("rigging.bake")
    chain_solve = package("rigging.chain_solve")
    reset_bake(s)
    ctx = bpy.context
    t = [time.perf_counter()]
    prepared = bake.prepare(s.armature, list(s.armature.soft_ik_2d.chains))
    fr = np.arange(1, frames + 1, dtype=np.float64)
    t.append(time.perf_counter())
    samples = bake.sample_chains(ctx, prepared, fr)
    t.append(time.perf_counter())
    fps = ctx.scene.render.fps / ctx.scene.render.fps_base
    sols = chain_solve.solve_chains(prepared, fr, samples, fps=fps, sensitivity=False)  # as bake.solve_chains
    t.append(time.perf_counter())
    keyed = [bake.write_solution(r, sol, 1, frames) for r, sol in zip(prepared, sols, strict=True)]
    t.append(time.perf_counter())
    checked = bake.verify_written(ctx, prepared, sols, 1, frames, keyed)  # playback measured from the new keys
    t.append(time.perf_counter())
    for r, (sol, _warning) in zip(prepared, checked, strict=True):
        bake.store_report(r, sol, 1, frames)
    t.append(time.perf_counter())
    names = ["prepare", "sample", "solve", "write keys", "verify", "report"]
    return {n: t[i + 1] - t[i] for i, n in enumerate(names)}


def stepping_floor(names: list[str], frames: int) -> dict[str, float]:
    """What Blender alone costs per stepped frame, µs (best of 3): ``frame_set`` on a temporary scene linking
    the objects ``names`` (as the sampler does), bare and with one ``foreach_get`` of each one's evaluated
    ``matrix_world`` a frame, a floor for the sampler's stepped frames."""
    import bpy
    import numpy as np

    ctx = bpy.context
    objects = [bpy.data.objects[name] for name in names]
    best: dict[str, float] = {}
    for _ in range(3):
        tmp = bpy.data.scenes.new(".bench_stepping")
        try:
            for obj in objects:
                tmp.collection.objects.link(obj)
            with ctx.temp_override(scene=tmp, view_layer=tmp.view_layers[0]):
                depsgraph = ctx.evaluated_depsgraph_get()
            getters = [o.evaluated_get(depsgraph).path_resolve("matrix_world", False).foreach_get for o in objects]
            raw = np.empty((frames, 16), dtype=np.float32)
            frame_set = tmp.frame_set
            t0 = time.perf_counter()
            for f in range(1, frames + 1):
                frame_set(f)
            t1 = time.perf_counter()
            for f, row in zip(range(1, frames + 1), raw, strict=True):
                frame_set(f)
                for get in getters:
                    get(row)
            t2 = time.perf_counter()
        finally:
            bpy.data.scenes.remove(tmp)
            ctx.scene.frame_set(USER_FRAME)
        for key, value in (("frame_set", t1 - t0), ("frame_set + read", t2 - t1)):
            best[key] = min(best.get(key, value), value)
    return {key: 1e6 * value / frames for key, value in best.items()}


def profile_ours(rigs, s, frames: int, label: str) -> None:  # type: ignore[no-untyped-def]
    import cProfile
    import pstats

    reset_bake(s)
    prof = cProfile.Profile()
    prof.enable()
    bake_ours(rigs, s, frames)
    prof.disable()
    print(f"\n--- cProfile of our bake, {label}, {frames} frames (top 15 by cumulative time) ---")
    pstats.Stats(prof).sort_stats("cumulative").print_stats(15)


def run_case(rigs, case: str, args: argparse.Namespace) -> dict[str, object]:  # type: ignore[no-untyped-def]
    import bpy

    frames = args.frames
    opts = scene_options(case)
    sampling = package("rigging.sampling")
    row: dict[str, object] = {"case": case, "frames": frames}

    # Baseline: Blender's IK constraint on the same rig and target.
    base_frames = frames
    base_runs = args.baseline_repeats
    if opts["mesh"]:
        base_runs = 1
        if args.skip_mesh_baseline:
            base_frames = min(frames, args.mesh_baseline_frames)
    base_times = []
    for _ in range(base_runs):
        s = rigs.build_scene(base_frames, ik_constraint=True, **opts)
        base_times.append(rigs.bake_baseline(s, base_frames))
    scale = frames / base_frames
    row["baseline_s"] = min(w for w, _c in base_times) * scale
    row["baseline_cpu"] = min(c for _w, c in base_times) * scale
    row["baseline_runs"] = [w * scale for w, _c in base_times]
    row["baseline_extrapolated"] = base_frames != frames
    row["baseline_err"] = float(rigs.tip_errors(s, check_frames(base_frames)).max())

    # Ours, through the operator; every run is a first bake (the previous run's keys are dropped).
    s = rigs.build_scene(frames, ik_constraint=False, **opts)
    chain = rigs.add_soft_ik_chain(s)
    stepped = sampling.stepped_objects(bpy.context, [(s.target, None)])
    row["path"] = "; ".join(f"{name} stepped: {why}" for name, why in stepped.items()) or "F-curves"
    times = []
    for _ in range(args.repeats):
        reset_bake(s)
        times.append(bake_ours(rigs, s, frames))
    row["ours_s"] = min(w for w, _c in times)
    row["ours_cpu"] = min(c for _w, c in times)
    row["ours_runs"] = [w for w, _c in times]
    row["frame_kept"] = bpy.context.scene.frame_current == USER_FRAME
    row["report_err"] = float(chain.error_max)
    errs = rigs.tip_errors(s, check_frames(frames))
    row["tip_err"] = float(errs.max())
    row["ratio"] = row["baseline_s"] / row["ours_s"]
    row["cpu_ratio"] = row["baseline_cpu"] / row["ours_cpu"]
    row["target"] = TARGETS[case]
    row["pass"] = bool(row["ratio"] >= row["target"] and row["tip_err"] < CHECK_TOLERANCE and row["frame_kept"])
    if not args.no_breakdown:
        pieces = [breakdown(rigs, s, frames) for _ in range(3)]
        row["breakdown"] = {k: min(p[k] for p in pieces) for k in pieces[0]}
        if stepped:
            row["stepping_floor"] = stepping_floor(list(stepped), frames)
    if args.profile:
        profile_ours(rigs, s, frames, case)
    return row


# --- memory (child process) -------------------------------------------------------------------------------


def _rss_kb() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def _hwm_kb() -> int | None:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return None


def _reset_hwm() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _measure(fn) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Run ``fn`` and return its RSS growth: peak (high-water mark reset just before, when allowed) and kept."""
    reset = _reset_hwm()
    rss0 = _rss_kb()
    maxrss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    fn()
    elapsed = time.perf_counter() - t0
    maxrss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    hwm = _hwm_kb()
    return {"hwm_reset": reset, "ru_maxrss_growth_mb": (maxrss1 - maxrss0) / 1024,
            "peak_growth_mb": ((hwm if reset and hwm else maxrss1) - rss0) / 1024,
            "rss_after_growth_mb": (_rss_kb() - rss0) / 1024, "seconds": elapsed}


def keys_reference(rigs, args: argparse.Namespace) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """What Blender itself needs to hold ``--curves`` F-curves of one key per frame (bulk write, no add-on)."""
    import bpy
    import numpy as np

    bpy.ops.wm.read_homefile(use_empty=True)
    obj = bpy.data.objects.new("keys", None)
    bpy.context.scene.collection.objects.link(obj)
    frames = np.arange(1, args.frames + 1, dtype=np.float64)
    paths = [(p, i) for p in ("location", "rotation_euler", "scale", "delta_location", "delta_scale")
             for i in range(3)][: args.curves]

    def write() -> None:
        for path, index in paths:
            rigs.key_channel(obj, path, index, frames, np.sin(frames * 0.001 * (index + 1)))
        # The bake operator ends with a depsgraph update too, which makes the evaluated copy of the keys.
        bpy.context.view_layer.update()

    return {"case": "keys", "frames": args.frames, "curves": len(paths), **_measure(write)}


def memory_child(rigs, args: argparse.Namespace) -> dict[str, object]:  # type: ignore[no-untyped-def]
    import gc
    import tracemalloc

    if args.memory_case == "keys":
        return keys_reference(rigs, args)
    s = rigs.build_scene(args.frames, ik_constraint=False, drive=DRIVES[args.memory_case], mesh=False)
    rigs.add_soft_ik_chain(s)
    rigs.enter_pose_mode(s)
    gc.collect()
    out: dict[str, object] = {"case": args.memory_case, "frames": args.frames}
    if args.tracemalloc:
        tracemalloc.start()
        elapsed = bake_ours(rigs, s, args.frames)
        out["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        out["seconds"] = elapsed[0]
    else:
        out.update(_measure(lambda: bake_ours(rigs, s, args.frames)))
        out["curves"] = len(list(package("rigging.anim_keys").iter_fcurves(s.armature)))
    errs = rigs.tip_errors(s, check_frames(args.frames))
    out["tip_err"] = float(errs.max())
    return out


def run_memory(case: str, frames: int, tracemalloc: bool, curves: int = 10) -> dict[str, object]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--memory-case", case, "--frames", str(frames),
           "--curves", str(curves)]
    if tracemalloc:
        cmd.append("--tracemalloc")
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("MEMORY ")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"memory child {case} failed (rc {proc.returncode}):\n{proc.stdout[-2000:]}\n"
                           f"{proc.stderr[-2000:]}")
    return json.loads(lines[-1][len("MEMORY "):])


# --- report -----------------------------------------------------------------------------------------------


def print_table(rows: list[dict[str, object]]) -> None:
    print(f"\n{'case':<14}{'frames':>7}{'baseline s':>12}{'ours s':>9}{'ratio':>8}{'target':>8}  {'result':<6}"
          f"{'CPU ratio':>10}{'tip err':>9}{'Blender err':>12}  frame kept  sampling path")
    for r in rows:
        mark = "~" if r["baseline_extrapolated"] else " "
        print(f"{r['case']:<14}{r['frames']:>7}{mark}{r['baseline_s']:>11.3f}{r['ours_s']:>9.4f}"
              f"{r['ratio']:>7.1f}x{r['target']:>7.0f}x  {'PASS' if r['pass'] else 'FAIL':<6}{r['cpu_ratio']:>9.1f}x"
              f"{r['tip_err']:>9.1e}{r['baseline_err']:>12.1e}  {r['frame_kept']!s:<10}  {r['path']}")
    print("~ baseline measured on fewer frames and scaled linearly. Wall times, best run of each side; "
          "CPU ratio = the same with process CPU time (all threads), steadier on a shared machine.")
    for r in rows:
        print(f"  {r['case']}: baseline runs " + "/".join(f"{t:.3f}" for t in r["baseline_runs"])
              + " s, ours " + "/".join(f"{t:.4f}" for t in r["ours_runs"]) + " s")
    if rows and "breakdown" in rows[0]:
        keys = list(rows[0]["breakdown"])
        print(f"\nbreakdown of our bake, ms (best of 3, pieces called directly){'':4}"
              + "".join(f"{k:>12}" for k in keys) + f"{'sum':>10}")
        for r in rows:
            b = r["breakdown"]
            print(f"{r['case']:<64}" + "".join(f"{1e3 * b[k]:>12.2f}" for k in keys)
                  + f"{1e3 * sum(b.values()):>10.2f}")
        for r in rows:
            if "stepping_floor" in r:
                floor = r["stepping_floor"]
                print(f"  {r['case']}: sample {1e6 * r['breakdown']['sample'] / r['frames']:.2f} µs per stepped frame;"
                      " Blender alone on a temporary scene of the stepped objects: "
                      + ", ".join(f"{k} {v:.2f}" for k, v in floor.items()) + " µs per frame (best of 3)")


def main() -> int:
    args = parse_args()
    install_extension()
    import bpy

    from benchmarks import _rigs as rigs

    if args.memory_case:
        print("MEMORY " + json.dumps(memory_child(rigs, args)))
        return 0

    print(f"Blender {bpy.app.version_string}, {args.frames} frames, pid {os.getpid()}")
    rows = []
    for case in [c for c in args.cases.split(",") if c in TARGETS]:
        rows.append(run_case(rigs, case, args))
        r = rows[-1]
        print(f"  {case}: baseline {r['baseline_s']:.3f} s, ours {r['ours_s']:.4f} s, x{r['ratio']:.1f}",
              flush=True)
    if rows:
        print_table(rows)
    ok = all(r["pass"] for r in rows)

    if args.memory_frames:
        print(f"\nmemory, {args.memory_frames}-frame bake of the bare rig, fresh subprocess per case "
              f"(limit {MEMORY_LIMIT_MB:.0f} MB)")
        print(f"{'case':<10}{'bake s':>8}{'peak RSS growth MB':>20}{'ru_maxrss growth MB':>21}"
              f"{'RSS kept MB':>13}{'tracemalloc peak MB':>21}{'curves':>8}  result  tip err")
        curves = 10
        for case in ("rig", "driven", "fcurves"):
            m = run_memory(case, args.memory_frames, tracemalloc=False)
            t = run_memory(case, args.memory_frames, tracemalloc=True)
            curves = int(m["curves"])
            passed = m["peak_growth_mb"] < MEMORY_LIMIT_MB and m["tip_err"] < CHECK_TOLERANCE
            ok &= passed
            print(f"{case:<10}{m['seconds']:>8.3f}{m['peak_growth_mb']:>20.1f}{m['ru_maxrss_growth_mb']:>21.1f}"
                  f"{m['rss_after_growth_mb']:>13.1f}{t['tracemalloc_peak_mb']:>21.1f}{curves:>8}  "
                  f"{'PASS' if passed else 'FAIL':<6}  {m['tip_err']:.1e}"
                  + ("" if m["hwm_reset"] else "  (HWM not resettable: ru_maxrss used)"))
        k = run_memory("keys", args.memory_frames, tracemalloc=False, curves=curves)
        print(f"{'reference':<10}{k['seconds']:>8.3f}{k['peak_growth_mb']:>20.1f}{k['ru_maxrss_growth_mb']:>21.1f}"
              f"{k['rss_after_growth_mb']:>13.1f}{'':>21}{k['curves']:>8}  (Blender holding {k['curves']} curves x "
              f"{args.memory_frames} keys, bulk-written without the add-on, + depsgraph update)")
    print("\nALL PASS" if ok else "\nSOME TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)  # bpy 4.2 crashes at interpreter exit once properties have Python callbacks
