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


def _timeline_pixels(g, key: str, store: dict):  # type: ignore[no-untyped-def]
    """The Timeline's main region pixels (after the add-on's draw handlers) into ``store[key]``."""
    import gpu

    areas = [a for a in g.window.screen.areas if a.type == "DOPESHEET_EDITOR"]
    assert areas, "the screen has no Timeline / Dope Sheet"
    area = areas[0]
    region = next(r for r in area.regions if r.type == "WINDOW")

    def read() -> None:
        if key in store or bpy.context.area != area:
            return
        fb = gpu.state.active_framebuffer_get()
        r = bpy.context.region
        buf = fb.read_color(0, 0, r.width, r.height, 4, 0, "UBYTE")
        buf.dimensions = r.width * r.height * 4
        store[key] = np.array(buf, dtype=np.uint8).reshape(r.height, r.width, 4)

    handle = bpy.types.SpaceDopeSheetEditor.draw_handler_add(read, (), "WINDOW", "POST_PIXEL")
    try:
        for _ in range(40):
            region.tag_redraw()
            yield 0.05
            if key in store:
                break
    finally:
        bpy.types.SpaceDopeSheetEditor.draw_handler_remove(handle, "WINDOW")
    assert key in store, "the Timeline never drew"
    return region


def test_pinned_range_shows_as_a_band_in_the_timeline(g):  # type: ignore[no-untyped-def]
    rig, _target, _chain = scenes.arm_with_chain(g)
    rig.armature.soft_ik_2d.show_overlay = True
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 100
    scene.frame_set(50)  # the playhead away from the band
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == rig.armature)
    bpy.context.view_layer.objects.active = rig.armature
    store: dict[str, np.ndarray] = {}
    yield from g.wait(4)
    region = yield from _timeline_pixels(g, "before", store)
    with g.override():
        assert bpy.ops.pose.soft_ik_pin_target(frame_start=10, frame_end=30, blend_frames=0) == {"FINISHED"}
    yield from g.wait(4)
    yield from _timeline_pixels(g, "after", store)
    x10, _y = region.view2d.view_to_region(10.0, 0.0, clip=False)
    x30, _y = region.view2d.view_to_region(30.0, 0.0, clip=False)
    x80, _y = region.view2d.view_to_region(80.0, 0.0, clip=False)
    assert x10 + 5 < x30 < x80, f"frames 10, 30, 80 at x = {x10}, {x30}, {x80}: the timeline is not showing them"
    changed = np.abs(store["after"][:, :, :3].astype(int) - store["before"][:, :, :3].astype(int)).max(axis=-1) > 12
    band = changed[0:6, int(x10) + 2:int(x30) - 1]
    assert band.mean() > 0.5, f"the pinned range's band is missing ({band.mean():.0%} of its pixels changed)"
    beyond = changed[0:6, int(x30) + 6:int(x80)]
    assert beyond.mean() < 0.05, "the band runs past the pinned range"
