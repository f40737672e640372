"""Bake from the panel's button (a real click, so Blender pushes the undo step as for a user), then Ctrl+Z in
the window restores every key exactly, and Ctrl+Shift+Z brings the bake back."""

from __future__ import annotations

import bpy
import rigs
import scenes


def _find_button(g, operator: str, x_fraction: float):  # type: ignore[no-untyped-def]
    """Window position of the sidebar button running ``operator``: hover down the sidebar and Ctrl+C (over an
    operator button Blender copies its Python call) until the clipboard names it."""
    ui = g.sidebar
    wm = bpy.context.window_manager
    want = f"bpy.ops.{operator}("
    for y in range(ui.height - 30, 10, -8):
        wm.clipboard = ""
        pos = g.to_window(ui, ui.width * x_fraction, y)
        g.move(*pos)
        yield 0.05
        g.key("C", ctrl=True)
        yield 0.05
        if wm.clipboard.startswith(want):
            g.found = pos
            return
    raise AssertionError(f"no {operator} button found in the sidebar")


def test_bake_from_panel_then_undo_and_redo(g):  # type: ignore[no-untyped-def]
    rig, target, _chain = scenes.arm_with_chain(g, target_at=(1.4, 0.8))
    with g.override():
        rigs.key_locations(target, [1, 10, 20], [scenes.world(rig, x, 0.8) for x in (1.0, 2.6, 1.4)])
        rig.armature.pose.bones[rig.lower].keyframe_insert("location", frame=5)  # not the bake's: stays
        rigs.enter_pose_mode(rig)
    names = (rig.armature.name, target.name)
    before = scenes.fcurve_keys()
    assert (names[0], f'pose.bones["{rig.lower}"].rotation_quaternion', 0) not in before
    with g.override():
        bpy.ops.ed.undo_push(message="GUI test set-up")
    yield from g.open_tab()
    yield from _find_button(g, "pose.soft_ik_bake", 0.7)
    yield from g.click(*g.found)
    yield from g.wait(4)
    baked = scenes.fcurve_keys()
    assert (names[0], f'pose.bones["{rig.lower}"].rotation_quaternion', 0) in baked, "the Bake button baked nothing"
    assert bpy.data.objects[names[0]].soft_ik_2d.chains[0].bake_end == 20

    viewport = g.region()
    g.move(*g.to_window(viewport, viewport.width / 2, viewport.height / 2))
    yield 0.05
    g.key("Z", ctrl=True)
    yield from g.wait(6)
    assert scenes.fcurve_keys() == before, "undo did not restore the keys exactly"
    assert bpy.data.objects[names[0]].soft_ik_2d.chains[0].bake_end < 0

    g.key("Z", ctrl=True, shift=True)
    yield from g.wait(6)
    assert scenes.fcurve_keys() == baked, "redo did not bring the bake back"
