"""Draws the baked demo into a PNG: target paths, reach rings and onion-skinned chain poses (front view)."""

from __future__ import annotations

import bpy
import numpy as np

from .png import Canvas

COLORS = {"Leg.L": (40, 110, 200), "Leg.R": (30, 160, 120), "Arm.L": (200, 120, 30), "Arm.R": (190, 50, 90)}


def _xz(v: object) -> np.ndarray:
    a = np.asarray(v, dtype=np.float64)
    return a[..., [0, 2]]


def render_demo_png(arm: bpy.types.Object, path: str, step: int = 10, size: tuple[int, int] = (1400, 700)) -> None:
    scene = bpy.context.scene
    chains = list(arm.soft_ik_2d.chains)
    frames = list(range(scene.frame_start, scene.frame_end + 1))
    original = scene.frame_current
    poses: dict[str, list[np.ndarray]] = {c.name: [] for c in chains}
    targets: dict[str, list[np.ndarray]] = {c.name: [] for c in chains}
    try:
        for f in frames:
            scene.frame_set(f)
            mw = arm.matrix_world
            for c in chains:
                up, lo = arm.pose.bones[c.upper_bone], arm.pose.bones[c.lower_bone]
                pts = [mw @ up.head, mw @ lo.head, mw @ lo.tail]
                poses[c.name].append(_xz([tuple(p) for p in pts]))
                targets[c.name].append(_xz(tuple(c.target.matrix_world.translation)))
    finally:
        scene.frame_set(original)

    everything = np.vstack([np.vstack(v) for v in poses.values()] + [np.vstack(v) for v in targets.values()])
    lo, hi = everything.min(axis=0) - 0.15, everything.max(axis=0) + 0.15
    canvas = Canvas(size[0], size[1], (lo[0], lo[1], hi[0], hi[1]))
    canvas.polyline(np.array([[lo[0], 0.1], [hi[0], 0.1]]), (180, 180, 180), 1.0)  # the ground
    for c in chains:
        color = COLORS.get(c.name, (80, 80, 80))
        chain_pts = np.array(poses[c.name])
        a = np.linalg.norm(chain_pts[0, 1] - chain_pts[0, 0])
        b = np.linalg.norm(chain_pts[0, 2] - chain_pts[0, 1])
        for i in range(0, len(frames), step * 6):
            shoulder = chain_pts[i, 0]
            canvas.circle(shoulder, a + b, color, 1.0, 0.35, dashed=True)
            canvas.circle(shoulder, (a + b) * (1 - c.softness), color, 1.0, 0.2, dashed=True)
            canvas.circle(shoulder, abs(a - b), color, 1.0, 0.35, dashed=True)
        canvas.polyline(np.array(targets[c.name]), color, 2.0, 0.8)
        for i in range(0, len(frames), step):
            fade = 0.25 + 0.75 * i / max(len(frames) - 1, 1)
            canvas.polyline(chain_pts[i], color, 3.0, fade)
            canvas.dot(chain_pts[i, 1], color, 2.5)
            canvas.dot(targets[c.name][i], (20, 20, 20), 2.0)
    canvas.save(path)
