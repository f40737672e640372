"""Draw callbacks: the overlay geometry of the active chain, handed to ``gpu`` (never solves).

The data comes from the live-preview cache (filled by the depsgraph and frame handlers); the geometry is
rebuilt only when the cached solution changes. ``gpu`` cannot draw in background mode, so no handler is added
there.
"""

from __future__ import annotations

from typing import Any

import blf
import bpy
import gpu
import numpy as np
from bpy.app.translations import pgettext_iface as iface_
from bpy_extras.view3d_utils import location_3d_to_region_2d
from gpu_extras.batch import batch_for_shader

from ..rigging import live_preview
from ..solver.flag_names import for_solver
from ..solver.overlay_geometry import ChainOverlay, ChainOverlayInput, build_overlay
from . import texts

COLORS = {
    "reach_band": (0.3, 0.5, 1.0, 0.06),
    "soft_band": (1.0, 0.6, 0.1, 0.25),
    "inner_soft_band": (1.0, 0.6, 0.1, 0.25),
    "outer_ring": (0.9, 0.9, 0.9, 0.6),
    "inner_ring": (0.6, 0.6, 0.6, 0.6),
    "target_marker": (0.2, 0.5, 1.0, 1.0),  # the source document's blue target
    "solved_marker": (0.3, 1.0, 0.4, 1.0),
    "error_segment": (1.0, 0.25, 0.2, 1.0),
    "bend_arrow": (1.0, 0.9, 0.2, 0.9),
    "limit_marks": (1.0, 0.3, 1.0, 1.0),
}
SENSITIVE_RING = (1.0, 0.3, 0.2, 0.9)
TRIANGLES = ("reach_band", "soft_band", "inner_soft_band")
LINES = ("outer_ring", "inner_ring", "target_marker", "solved_marker", "error_segment", "bend_arrow",
         "limit_marks")

_handles: list[Any] = []
_memo: tuple[Any, ChainOverlay] | None = None


def current_overlay(context: bpy.types.Context) -> ChainOverlay | None:
    """The overlay of the active chain of the active armature, from the cache (None when there is none)."""
    global _memo
    obj = context.active_object
    if obj is None or obj.type != "ARMATURE" or not obj.soft_ik_2d.show_overlay:
        return None
    settings = obj.soft_ik_2d
    if not 0 <= settings.active_chain_index < len(settings.chains):
        return None
    chain = settings.chains[settings.active_chain_index]
    entry = live_preview.preview_of(obj, chain)
    if entry is None or entry.solution is None or entry.rig is None:
        return None
    sol = entry.solution
    if _memo is not None and _memo[0] is sol:
        return _memo[1]
    lengths = entry.rig.lengths
    joints = for_solver(chain.solver, len(entry.rig.bone_names)).limited_joints(int(sol.flags[0]))
    data = ChainOverlayInput(
        plane_to_world=entry.plane_to_world, lengths=(float(lengths[0]), float(lengths[1:].sum())),
        softness=float(chain.softness), inner_softness=float(chain.inner_softness),
        target_world=sol.target_world[0], solved_target_world=sol.solved_target_world[0],
        tip_world=sol.tip_world[0], bend=int(chain.bend), limited_joints=joints,
        elbow_world=entry.elbow_world,
        center_2d=entry.center_2d, stretch=float(sol.stretch[0]), sensitivity=float(sol.sensitivity[0]),
    )
    overlay = build_overlay(data)
    _memo = (sol, overlay)
    return overlay


def _draw(shader: Any, kind: str, points: np.ndarray, color: tuple[float, ...]) -> None:
    if len(points) == 0:
        return
    batch = batch_for_shader(shader, kind, {"pos": points.astype(np.float32)})
    shader.uniform_float("color", color)
    batch.draw(shader)


def draw_view() -> None:
    """``POST_VIEW`` draw callback: the bands, rings and markers of the active chain."""
    overlay = current_overlay(bpy.context)
    if overlay is None:
        return
    shader = gpu.shader.from_builtin("UNIFORM_COLOR")
    shader.bind()
    gpu.state.blend_set("ALPHA")
    gpu.state.depth_test_set("NONE")
    for name in TRIANGLES:
        _draw(shader, "TRIS", getattr(overlay, name), COLORS[name])
    gpu.state.line_width_set(2.0)
    for name in LINES:
        color = SENSITIVE_RING if name == "outer_ring" and overlay.sensitive else COLORS[name]
        _draw(shader, "LINES", getattr(overlay, name), color)
    gpu.state.line_width_set(1.0)
    gpu.state.blend_set("NONE")


def draw_text() -> None:
    """``POST_PIXEL`` draw callback: the sensitivity warning beside the chain, when it is sensitive."""
    context = bpy.context
    overlay = current_overlay(context)
    if overlay is None or not overlay.sensitive or context.region_data is None:
        return
    pos = location_3d_to_region_2d(context.region, context.region_data, overlay.label_anchor.tolist())
    if pos is None:
        return
    font = 0
    blf.size(font, 13)
    blf.color(font, *SENSITIVE_RING)
    blf.position(font, pos.x + 12, pos.y + 12, 0)
    blf.draw(font, iface_(texts.SENSITIVE).format(degrees=overlay.sensitivity_degrees))
    blf.position(font, pos.x + 12, pos.y - 4, 0)
    blf.draw(font, iface_(texts.SENSITIVE_HINT_2))


def register() -> None:
    """Add the draw callbacks (not in background mode, where ``gpu`` cannot draw)."""
    if bpy.app.background or _handles:
        return
    space = bpy.types.SpaceView3D
    _handles.append(space.draw_handler_add(draw_view, (), "WINDOW", "POST_VIEW"))
    _handles.append(space.draw_handler_add(draw_text, (), "WINDOW", "POST_PIXEL"))


def unregister() -> None:
    """Remove the draw callbacks and forget the last overlay."""
    global _memo
    space = bpy.types.SpaceView3D
    while _handles:
        space.draw_handler_remove(_handles.pop(), "WINDOW")
    _memo = None
