"""README screenshots from the real GUI (run by ``scripts/gui_screenshots.sh``, not by the test stage): the
Soft IK sidebar beside the viewport with the overlay, in English and in Chinese."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import bpy
import scenes


def _shoot(g, name: str) -> None:  # type: ignore[no-untyped-def]
    out = Path(os.environ.get("SOFT_IK_GUI_SCREENSHOTS") or g.out)
    out.mkdir(parents=True, exist_ok=True)
    full = Path("/tmp") / f"{name}-full.png"  # not next to the results: that directory is copied to docs/
    g.grab(full)
    area, window = g.area, g.window
    top = window.height - (area.y + area.height)  # X grabs count rows from the top
    subprocess.run(["convert", str(full), "-crop", f"{area.width}x{area.height}+{area.x}+{top}", "+repage",
                    "-resize", "75%", str(out / f"{name}.png")], check=True, timeout=60)


def test_readme_screenshots(g):  # type: ignore[no-untyped-def]
    rig, _target, chain = scenes.arm_with_chain(g, target_at=(2.35, 1.3), name="Arm.L")
    chain.softness = 0.08
    rig.armature.soft_ik_2d.live_preview = True
    g.space.overlay.show_floor = g.space.overlay.show_axis_x = g.space.overlay.show_axis_z = False
    g.front_view(tuple(scenes.world(rig, 0.9, 1.3)), distance=6.0)
    yield from g.open_tab()
    bpy.context.scene.frame_set(1)
    yield from g.wait(6)
    _shoot(g, "gui_sidebar")
    g.set_language("zh_HANS")
    yield from g.wait(6)
    _shoot(g, "gui_sidebar_zh")
