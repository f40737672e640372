"""The main job on the built-in demo: build the extension, install it into an isolated Blender user directory,
build the cut-out character, bake every chain with soft IK, save demo.blend and print the per-chain error
summary; then render the pictures' raw material with Blender itself (Workbench) into a work folder:
the walk's frames, Blender's IK constraint against Soft IK 2D, and the measured curves as JSON.
``scripts/demo_plots.py`` (matplotlib, Pillow) turns that folder into the pictures in docs/.

Run with a Blender-as-a-module Python: ``.venvs/bpy-5.0/bin/python scripts/demo.py --work DIR``
(``scripts/demo.sh`` sets the environments up and runs both steps).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The demo and the test rigs are dev tools beside the add-on, not part of it.
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "blender"))
# The harness isolates the Blender user directory before bpy is imported, so installing the extension never
# touches the user's own Blender set-up.
from harness import install_extension, package  # noqa: E402

GIF_STEP = 2  # render every other frame of the walk


def error_curves(arm: object) -> list[dict[str, object]]:
    """Per chain: the baked ``soft_ik_error`` and ``soft_ik_flags`` curves as the Graph Editor evaluates them,
    and the hand/foot-to-target distance measured by playing the scene back."""
    import bpy
    import numpy as np

    anim_keys = package("rigging.anim_keys")
    scene = bpy.context.scene
    frames = list(range(scene.frame_start, scene.frame_end + 1))
    chains = list(arm.soft_ik_2d.chains)  # type: ignore[attr-defined]
    measured: dict[str, list[float]] = {c.name: [] for c in chains}
    for f in frames:
        scene.frame_set(f)
        for c in chains:
            tip = arm.matrix_world @ arm.pose.bones[c.lower_bone].tail  # type: ignore[attr-defined]
            measured[c.name].append(float((tip - c.target.matrix_world.translation).length))
    out = []
    for c in chains:
        err = anim_keys.find_fcurve(arm, f'pose.bones["{c.lower_bone}"]["soft_ik_error"]')
        flags = anim_keys.find_fcurve(arm, f'pose.bones["{c.lower_bone}"]["soft_ik_flags"]')
        keys = np.empty(2 * len(err.keyframe_points))
        err.keyframe_points.foreach_get("co", keys)
        out.append({"name": c.name, "space": c.target_space, "strategy": c.limit_strategy,
                    "lower_bone": c.lower_bone, "target": c.target.name,
                    "error_max": c.error_max, "error_mean": c.error_mean, "limited_frames": c.limited_frames,
                    "frames": frames, "error": [err.evaluate(f) for f in frames],
                    "flags": [round(flags.evaluate(f)) for f in frames],
                    "keys": keys.reshape(-1, 2).tolist(), "measured": measured[c.name]})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(REPO), help="folder for demo.blend")
    parser.add_argument("--work", required=True, help="folder for the rendered frames and measured curves")
    parser.add_argument("--no-render", action="store_true", help="only build, bake and save demo.blend")
    args = parser.parse_args()
    out, work = Path(args.out), Path(args.work)
    out.mkdir(parents=True, exist_ok=True)
    (work / "walk").mkdir(parents=True, exist_ok=True)
    (work / "compare").mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()

    install_extension()
    import bpy

    from demo import character, compare
    from demo.build import build_demo

    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    arm = build_demo(scene)
    character.dress_scene(scene, arm, bpy.data.objects["Door"])
    bpy.context.view_layer.objects.active = arm
    result = bpy.ops.pose.soft_ik_bake()
    if result != {"FINISHED"}:
        print("bake failed:", result)
        return 1
    bpy.ops.object.mode_set(mode="OBJECT")
    scene.frame_set(scene.frame_start)
    blend = out / "demo.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), compress=True)
    print(f"\nSoft IK 2D demo: {bpy.app.version_string}, frames {scene.frame_start}-{scene.frame_end}")
    print(f"{'chain':<8} {'space':<10} {'max error':>11} {'mean error':>11} {'limited':>8} {'then':<10} worst frames")
    for chain in arm.soft_ik_2d.chains:
        worst = ", ".join(f"{w.frame}:{w.error:.4f}" for w in list(chain.worst_frames)[:3])
        print(f"{chain.name:<8} {chain.target_space:<10} {chain.error_max:>11.5f} {chain.error_mean:>11.5f} "
              f"{chain.limited_frames:>8} {chain.limit_strategy.lower():<10} {worst}")
    print(f"wrote {blend}")
    data = {"blender": bpy.app.version_string, "frames": [scene.frame_start, scene.frame_end],
            "fps": scene.render.fps / scene.render.fps_base, "gif_step": GIF_STEP, "chains": error_curves(arm)}
    if not args.no_render:
        for f in range(scene.frame_start, scene.frame_end + 1, GIF_STEP):
            character.render_frame(scene, f, str(work / "walk" / f"walk_{f:04d}.png"))
        print(f"rendered the walk ({time.perf_counter() - t0:.0f} s so far)")
        data["compare"] = [compare.run_scenario(sc, work / "compare") for sc in compare.SCENARIOS]
        print(f"rendered Blender's IK against Soft IK 2D ({time.perf_counter() - t0:.0f} s so far)")
    (work / "demo.json").write_text(json.dumps(data), encoding="utf-8")
    print(f"wrote {work / 'demo.json'} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # bpy 4.2 crashes at interpreter exit once properties have Python callbacks.
    os._exit(rc)
