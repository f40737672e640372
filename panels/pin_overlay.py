"""Pinned target ranges on screen: bands along the bottom of the Timeline / Dope Sheet for every pin of the
active armature's chains, and a label at the target in the viewport while the current frame is pinned.

``gpu`` cannot draw in background mode, so no handler is added there; the geometry is
:func:`solver.pinning.timeline_bands`.
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

from ..rigging.pinning import pin_ranges
from ..solver import pinning
from . import texts

HOLD_COLOR = (0.2, 0.8, 1.0, 0.45)
BLEND_COLOR = (0.2, 0.8, 1.0, 0.18)
BAND_HEIGHT = 6.0

_handles: list[tuple[Any, Any]] = []


def _armature(context: bpy.types.Context) -> bpy.types.Object | None:
    obj = context.active_object
    if obj is None or obj.type != "ARMATURE" or not obj.soft_ik_2d.show_overlay:
        return None
    return obj


def draw_timeline() -> None:
    """Draw handler of the timeline and dope sheet: the active armature's pinned ranges as bands.

    Every chain's ranges (hold colour) and the blend frames after them (blend colour), when the armature's
    overlay is on.
    """
    context = bpy.context
    obj = _armature(context)
    region = context.region
    if obj is None or region is None:
        return
    ranges = [r for chain in obj.soft_ik_2d.chains for r in pin_ranges(chain)]
    if not ranges:
        return
    # Region pixels are integers: the scale is taken over many frames so a zoomed-out timeline keeps it.
    x0, _y = region.view2d.view_to_region(0.0, 0.0, clip=False)
    x1, _y = region.view2d.view_to_region(10000.0, 0.0, clip=False)
    view = np.array([(x1 - x0) / 10000.0, x0], dtype=np.float64)
    blends = [(end + 1, end + blend, 0) for _start, end, blend in ranges if blend > 0]
    shader = gpu.shader.from_builtin("UNIFORM_COLOR")
    shader.bind()
    gpu.state.blend_set("ALPHA")
    for bands, color in ((pinning.timeline_bands(ranges, view, 0.0, BAND_HEIGHT), HOLD_COLOR),
                         (pinning.timeline_bands(blends, view, 0.0, BAND_HEIGHT), BLEND_COLOR)):
        if len(bands):
            batch = batch_for_shader(shader, "TRIS", {"pos": bands.reshape(-1, 2).astype(np.float32)})
            shader.uniform_float("color", color)
            batch.draw(shader)
    gpu.state.blend_set("NONE")


def draw_label() -> None:
    """Draw handler of the 3D viewport: the pinned range beside the target of the active chain.

    Only while the current frame lies in one of that chain's pinned ranges and the armature's overlay is on.
    """
    context = bpy.context
    obj = _armature(context)
    if obj is None or context.region_data is None:
        return
    settings = obj.soft_ik_2d
    if not 0 <= settings.active_chain_index < len(settings.chains):
        return
    chain = settings.chains[settings.active_chain_index]
    index = pinning.pin_at(pin_ranges(chain), context.scene.frame_current)
    if index is None or chain.target is None:
        return
    pos = location_3d_to_region_2d(context.region, context.region_data, chain.target.matrix_world.translation)
    if pos is None:
        return
    pin = chain.pins[index]
    font = 0
    blf.size(font, 12)
    blf.color(font, *HOLD_COLOR[:3], 1.0)
    blf.position(font, pos.x + 12, pos.y - 18, 0)
    blf.draw(font, iface_(texts.PINNED_RANGE).format(start=pin.frame_start, end=pin.frame_end,
                                                     blend=pin.blend_frames))


def register() -> None:
    if bpy.app.background or _handles:
        return
    _handles.append((bpy.types.SpaceDopeSheetEditor,
                     bpy.types.SpaceDopeSheetEditor.draw_handler_add(draw_timeline, (), "WINDOW", "POST_PIXEL")))
    _handles.append((bpy.types.SpaceView3D,
                     bpy.types.SpaceView3D.draw_handler_add(draw_label, (), "WINDOW", "POST_PIXEL")))


def unregister() -> None:
    while _handles:
        space, handle = _handles.pop()
        space.draw_handler_remove(handle, "WINDOW")
