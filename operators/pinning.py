"""Pin the active chain's target where it stands over a frame range (a planted foot), and unpin it."""

from __future__ import annotations

import bpy
from bpy.props import IntProperty

from ..rigging import messages as msg
from ..rigging import pinning
from ..rigging.messages import say
from ..rigging.rig import ChainError
from .common import active_chain_poll


def _active_chain(context: bpy.types.Context) -> bpy.types.PropertyGroup:
    settings = context.active_object.soft_ik_2d
    return settings.chains[settings.active_chain_index]


class POSE_OT_soft_ik_pin_target(bpy.types.Operator):
    """Hold the active chain's target still in world space over a frame range (a planted foot), then ease it back"""

    bl_idname = "pose.soft_ik_pin_target"
    bl_label = "Pin Target"
    bl_options = {"REGISTER", "UNDO"}

    frame_start: IntProperty(name="Start Frame", description="First pinned frame: the target keeps its world "
                             "transform of this frame (default: the current frame)")
    frame_end: IntProperty(name="End Frame", description="Last pinned frame (included; default: 12 frames on)")
    blend_frames: IntProperty(name="Blend Frames", description="Frames after the pin over which the target eases "
                              "back to its own motion (0: it jumps back on the next frame)", default=6, min=0,
                              max=1000)

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if not active_chain_poll(cls, context):
            return False
        chain = _active_chain(context)
        if chain.target is None:
            cls.poll_message_set(say(msg.PIN_NO_TARGET, chain=chain.name))
            return False
        return True

    def execute(self, context: bpy.types.Context) -> set[str]:
        frame = context.scene.frame_current
        start = self.frame_start if self.properties.is_property_set("frame_start") else frame
        end = self.frame_end if self.properties.is_property_set("frame_end") else start + 12
        chain = _active_chain(context)
        try:
            _count, note = pinning.pin_target(context, context.active_object, chain, start, end, self.blend_frames)
        except ChainError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        if note is not None:
            self.report({"INFO"}, note)
        pin = chain.pins[-1]
        self.report({"INFO"}, say(msg.PINNED, target=pin.target.name, start=start, end=end, blend=self.blend_frames,
                                  first=pin.span_start, last=pin.span_end))
        context.scene.frame_set(frame)  # show the pinned target at once
        return {"FINISHED"}


class POSE_OT_soft_ik_unpin_target(bpy.types.Operator):
    """Undo a pin of the active chain's target: its keys go back exactly to what they were"""

    bl_idname = "pose.soft_ik_unpin_target"
    bl_label = "Unpin Target"
    bl_options = {"REGISTER", "UNDO"}

    index: IntProperty(name="Pin", description="Which pinned range (-1: the one at the current frame, else the "
                       "last one)", default=-1, min=-1)

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if not active_chain_poll(cls, context):
            return False
        chain = _active_chain(context)
        if len(chain.pins) == 0:
            cls.poll_message_set(say(msg.POLL_NO_PIN, chain=chain.name))
            return False
        return True

    def execute(self, context: bpy.types.Context) -> set[str]:
        chain = _active_chain(context)
        index = self.index if self.index >= 0 else pinning.pin_index_at(chain, context.scene.frame_current)
        if index is None or index >= len(chain.pins):
            self.report({"ERROR"}, say(msg.UNPIN_NONE, chain=chain.name))
            return {"CANCELLED"}
        start, end = chain.pins[index].frame_start, chain.pins[index].frame_end
        try:
            target = pinning.unpin_target(chain, index)
        except ChainError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        self.report({"INFO"}, say(msg.UNPINNED, target=target.name, start=start, end=end))
        context.scene.frame_set(context.scene.frame_current)
        return {"FINISHED"}


classes = (POSE_OT_soft_ik_pin_target, POSE_OT_soft_ik_unpin_target)
