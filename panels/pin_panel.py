"""The pin controls of the Chain panel: Pin / Unpin and the chain's pinned ranges."""

from __future__ import annotations

import bpy
from bpy.app.translations import pgettext_iface as iface_

from ..rigging.translations import CONTEXT
from . import texts


def draw_pins(layout: bpy.types.UILayout, chain: bpy.types.PropertyGroup) -> None:
    """Draw the Pin / Unpin buttons and one row per pinned range of ``chain`` into ``layout``."""
    col = layout.column(align=True)
    row = col.row(align=True)
    row.operator("pose.soft_ik_pin_target", text=texts.PIN_TARGET, text_ctxt=CONTEXT, icon="PINNED")
    # The add-on's own context: Blender translates "Unpin" itself (取消钉固), and its word wins in "Operator".
    row.operator("pose.soft_ik_unpin_target", text=texts.UNPIN_TARGET, text_ctxt=CONTEXT, icon="UNPINNED")
    for pin in chain.pins:
        col.label(text=iface_(texts.PINNED_RANGE).format(start=pin.frame_start, end=pin.frame_end,
                                                         blend=pin.blend_frames), icon="PINNED", translate=False)
