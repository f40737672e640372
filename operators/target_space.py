"""Make a target's parenting match its chain's declared space."""

from __future__ import annotations

import bpy

from ..rigging import linked_data
from ..rigging import messages as msg
from ..rigging.messages import say
from ..rigging.rig import ChainError, chain_bone_names, declared_parent, space_mismatch
from ..rigging.rig_dependencies import at_rest, dependency_on_chain, first_dependency, moved_bones
from ..rigging.target_parenting import reparent_keep_motion
from .common import active_chain_poll


class POSE_OT_soft_ik_fix_target_space(bpy.types.Operator):
    """Parent the active chain's target to its declared space, keeping its world motion on every frame"""

    bl_idname = "pose.soft_ik_fix_target_space"
    bl_label = "Fix Target Space"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if not active_chain_poll(cls, context):
            return False
        settings = context.active_object.soft_ik_2d
        target = settings.chains[settings.active_chain_index].target
        if target is None:
            cls.poll_message_set(say(msg.POLL_NO_TARGET, chain=settings.chains[settings.active_chain_index].name))
            return False
        problem = linked_data.editing_problem(target)
        if problem is not None:
            cls.poll_message_set(problem)
            return False
        return True

    def execute(self, context: bpy.types.Context) -> set[str]:
        armature = context.active_object
        chain = armature.soft_ik_2d.chains[armature.soft_ik_2d.active_chain_index]
        problem = space_mismatch(armature, chain)
        if problem is None:
            self.report({"INFO"}, say(msg.SPACE_ALREADY_OK, target=chain.target.name, space=chain.target_space))
            return {"CANCELLED"}
        parent, bone = declared_parent(armature, chain)
        if chain.target_space == "OBJECT" and parent is None:
            self.report({"ERROR"}, say(msg.SPACE_NO_OBJECT, chain=chain.name))
            return {"CANCELLED"}
        if parent == chain.target:
            self.report({"ERROR"}, say(msg.SPACE_SELF_PARENT, chain=chain.name))
            return {"CANCELLED"}
        if parent is not None:
            # Parenting the target under the chain's own bones would make it move with the pose solved for it.
            try:
                moved = moved_bones(armature, chain_bone_names(armature, chain))
            except ChainError as err:
                self.report({"ERROR"}, str(err))
                return {"CANCELLED"}
            found = dependency_on_chain(armature, moved, parent, bone)
            if found is not None:
                self.report({"ERROR"}, say(msg.SPACE_IN_CHAIN, chain=chain.name, space=chain.target_space,
                                           bone=found[0], path=found[1]))
                return {"CANCELLED"}
        problem = linked_data.editing_problem(chain.target)
        if problem is not None:
            self.report({"ERROR"}, problem)
            return {"CANCELLED"}
        # The world motion kept is the one played now: from a bone at rest it is not the one played in Pose
        # Position, and the target's converted keys would not play its motion there.
        for start, start_bone, role in ((chain.target, "", msg.ROLE_TARGET), (parent, bone, msg.ROLE_SPACE)):
            resting = None if start is None else first_dependency(start, start_bone, at_rest)
            if resting is not None:
                self.report({"ERROR"}, say(msg.INPUT_AT_REST, label=say(msg.CHAIN_LABEL, chain=chain.name,
                                                                         armature=armature.name),
                                           role=say(role), name=start.name, bone=resting[1],
                                           armature=resting[0].name, path=resting[2]))
                return {"CANCELLED"}
        note = linked_data.ensure_local_action(chain.target, create=False)  # its converted keys must be saved
        if note is not None:
            self.report({"INFO"}, note)
        count = reparent_keep_motion(context, chain.target, parent, bone)
        self.report({"INFO"}, say(msg.REPARENTED, target=chain.target.name, space=chain.target_space, count=count))
        return {"FINISHED"}


classes = (POSE_OT_soft_ik_fix_target_space,)
