"""Make a target's parenting match its chain's declared space."""

from __future__ import annotations

import bpy

from ..rig import declared_parent, space_mismatch
from ..target_parenting import reparent_keep_motion
from .common import active_chain_poll


class POSE_OT_soft_ik_fix_target_space(bpy.types.Operator):
    """Parent the active chain's target to its declared space, keeping its world motion on every keyed frame"""

    bl_idname = "pose.soft_ik_fix_target_space"
    bl_label = "Fix Target Space"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if not active_chain_poll(cls, context):
            return False
        settings = context.active_object.soft_ik_2d
        if settings.chains[settings.active_chain_index].target is None:
            cls.poll_message_set("The active chain has no target")
            return False
        return True

    def execute(self, context: bpy.types.Context) -> set[str]:
        armature = context.active_object
        chain = armature.soft_ik_2d.chains[armature.soft_ik_2d.active_chain_index]
        problem = space_mismatch(armature, chain)
        if problem is None:
            self.report({"INFO"}, f"Target '{chain.target.name}' already matches {chain.target_space} space")
            return {"CANCELLED"}
        parent, bone = declared_parent(armature, chain)
        if chain.target_space == "OBJECT" and parent is None:
            self.report({"ERROR"}, f"Chain '{chain.name}': Target Space is OBJECT but no Space Object is set")
            return {"CANCELLED"}
        if parent == chain.target:
            self.report({"ERROR"}, f"Chain '{chain.name}': the target cannot be parented to itself")
            return {"CANCELLED"}
        count = reparent_keep_motion(context, chain.target, parent, bone)
        self.report({"INFO"}, f"Re-parented '{chain.target.name}' to {chain.target_space} space; converted "
                    f"{count} keyed frame(s)")
        return {"FINISHED"}


classes = (POSE_OT_soft_ik_fix_target_space,)
