"""The main job on the built-in demo rig: build the extension, install it into an isolated Blender user
directory, build the demo character, bake every chain with soft IK, save demo.blend, print the per-chain
error summary and write demo.png.

Run with a Blender-as-a-module Python: ``.venvs/bpy-5.0/bin/python scripts/demo.py [--out DIR]``
(``scripts/demo.sh`` sets the environment up first).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the demo and harness are dev tools beside the add-on, not part of it
# The harness isolates the Blender user directory before bpy is imported, so installing the extension never
# touches the user's own Blender set-up.
from tests.blender.harness import install_extension  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(REPO), help="folder for demo.blend and demo.png")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    install_extension()
    import bpy

    from demo.build import build_demo
    from demo.picture import render_demo_png

    bpy.ops.wm.read_homefile(use_empty=True)
    arm = build_demo()
    bpy.context.view_layer.objects.active = arm
    result = bpy.ops.pose.soft_ik_bake()
    if result != {"FINISHED"}:
        print("bake failed:", result)
        return 1
    blend = out / "demo.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    print(f"\nSoft IK 2D demo: {bpy.app.version_string}, frames "
          f"{bpy.context.scene.frame_start}-{bpy.context.scene.frame_end}")
    print(f"{'chain':<8} {'space':<10} {'max error':>11} {'mean error':>11} {'limited':>8} {'then':<10} worst frames")
    for chain in arm.soft_ik_2d.chains:
        worst = ", ".join(f"{w.frame}:{w.error:.4f}" for w in list(chain.worst_frames)[:3])
        print(f"{chain.name:<8} {chain.target_space:<10} {chain.error_max:>11.5f} {chain.error_mean:>11.5f} "
              f"{chain.limited_frames:>8} {chain.limit_strategy.lower():<10} {worst}")
    png = out / "demo.png"
    render_demo_png(arm, str(png))
    print(f"wrote {blend} and {png}")
    return 0


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # bpy 4.2 crashes at interpreter exit once properties have Python callbacks.
    os._exit(rc)
