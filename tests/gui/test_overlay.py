"""The viewport overlay draws in the real viewport: pixels near the chain change when it is turned on, and the
red error segment appears between the tip and the target when the target is out of reach."""

from __future__ import annotations

import numpy as np
import scenes

ERROR_RED = np.array([255, 64, 51])  # panels.overlay COLORS["error_segment"] as 8-bit


def _crop(pixels: np.ndarray, center: tuple[float, float], radius: float) -> np.ndarray:
    h, w = pixels.shape[:2]
    x0, x1 = int(max(center[0] - radius, 0)), int(min(center[0] + radius, w))
    y0, y1 = int(max(center[1] - radius, 0)), int(min(center[1] + radius, h))
    return pixels[y0:y1, x0:x1, :3].astype(int)


def _red_along(g, pixels: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:  # type: ignore[no-untyped-def]
    """Fraction of sample points on the screen segment a->b (its middle 60 %) with an error-red pixel within 2 px."""
    hits = 0
    ts = np.linspace(0.2, 0.8, 25)
    for t in ts:
        x, y = (a + t * (b - a)).round().astype(int)
        patch = pixels[y - 2:y + 3, x - 2:x + 3, :3].astype(int)
        if (np.abs(patch - ERROR_RED).max(axis=-1) < 60).any():
            hits += 1
    return hits / len(ts)


def test_overlay_changes_pixels_near_the_chain(g):  # type: ignore[no-untyped-def]
    rig, _target, _chain = scenes.arm_with_chain(g)
    settings = rig.armature.soft_ik_2d
    settings.live_preview = True
    settings.show_overlay = False
    yield from g.wait(4)
    yield from g.viewport_pixels("off")
    settings.show_overlay = True
    yield from g.wait(4)
    yield from g.viewport_pixels("on")
    shoulder = g.project(scenes.world(rig, 0.4, 1.5))
    reach_px = np.hypot(*np.subtract(g.project(scenes.world(rig, 0.4 + rig.length, 1.5)), shoulder))
    off, on = (_crop(g.pixels[k], shoulder, reach_px * 1.1) for k in ("off", "on"))
    changed = (np.abs(on - off).max(axis=-1) > 8).mean()
    # The reach disk alone covers most of the crop; a missing overlay changes nothing (blinking cursor aside).
    assert changed > 0.2, f"only {changed:.1%} of the pixels near the chain changed with the overlay on"
    far = _crop(g.pixels["on"], (10, 10), 8), _crop(g.pixels["off"], (10, 10), 8)
    assert np.abs(far[0] - far[1]).max() <= 8, "the overlay drew far away from the chain"


def test_error_segment_appears_out_of_reach(g):  # type: ignore[no-untyped-def]
    rig, target, _chain = scenes.arm_with_chain(g, target_at=(1.6, 0.9))
    rig.armature.soft_ik_2d.live_preview = True
    yield from g.wait(4)
    yield from g.viewport_pixels("reachable")
    far = scenes.world(rig, 0.4 + 1.5 * rig.length, 1.5)
    target.location = far
    yield from g.wait(6)
    yield from g.viewport_pixels("out_of_reach")
    tip = np.array(g.project(scenes.tip_world(rig)))
    goal = np.array(g.project(target.matrix_world.translation))
    assert np.hypot(*(goal - tip)) > 40, "the tip should stop well short of the target"
    red = _red_along(g, g.pixels["out_of_reach"], tip, goal)
    assert red > 0.8, f"the error segment covers only {red:.0%} of the tip-target line"
    # Before, with the target reachable, nothing red lay on that line.
    assert _red_along(g, g.pixels["reachable"], tip, goal) < 0.2
