"""Pin Target on screen: while the current frame is pinned, the viewport shows the "Pinned" label beside the
target (panels/pin_overlay.py), in the real viewport's pixels; outside the pinned range it does not."""

from __future__ import annotations

import bpy
import numpy as np
import scenes

LABEL = np.array([51, 204, 255])  # panels.pin_overlay HOLD_COLOR as 8-bit


def _label_pixels(pixels: np.ndarray, at: tuple[float, float]) -> int:
    """Pixels of the label's colour in the box where the label is drawn (right of and below the target)."""
    x, y = int(at[0]), int(at[1])
    box = pixels[max(y - 40, 0):y, x:x + 220, :3].astype(int)
    return int((np.abs(box - LABEL).max(axis=-1) < 70).sum())


def test_pinned_frames_show_the_label_at_the_target(g):  # type: ignore[no-untyped-def]
    rig, target, _chain = scenes.arm_with_chain(g)
    settings = rig.armature.soft_ik_2d
    settings.show_overlay = True
    scene = bpy.context.scene
    scene.frame_set(5)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == rig.armature)
    bpy.context.view_layer.objects.active = rig.armature
    yield from g.wait(4)
    yield from g.viewport_pixels("unpinned")
    with g.override():
        assert bpy.ops.pose.soft_ik_pin_target(frame_start=1, frame_end=10, blend_frames=0) == {"FINISHED"}
    yield from g.wait(4)
    yield from g.viewport_pixels("pinned")
    scene.frame_set(20)  # outside the range: no label
    yield from g.wait(4)
    yield from g.viewport_pixels("outside")
    at = g.project(target.matrix_world.translation)
    counts = {k: _label_pixels(g.pixels[k], at) for k in ("unpinned", "pinned", "outside")}
    assert counts["pinned"] > counts["unpinned"] + 15, f"no pin label drawn beside the target: {counts}"
    assert counts["outside"] <= counts["unpinned"] + 5, f"the label shows outside the pinned range: {counts}"
