"""Adding and removing chains."""

from __future__ import annotations

from collections.abc import Iterable

import bpy
import numpy as np
from bpy.props import EnumProperty, IntProperty, StringProperty

from ..rigging import messages as msg
from ..rigging.messages import say
from ..rigging.properties import SPACE_ITEMS
from ..rigging.rig import ChainError, chain_bone_names, check_no_cycle, check_shared_bones, read_chain
from ..rigging.translations import CONTEXT
from .common import active_chain_poll, armature_poll


def _new_target(context: bpy.types.Context, armature: bpy.types.Object, bone: str, size: float) -> bpy.types.Object:
    """An Empty at the chain's current tip, like Add IK > To New Empty Object."""
    pb = armature.pose.bones[bone]
    empty = bpy.data.objects.new(f"{bone}_target", None)
    empty.empty_display_type = "SPHERE"
    empty.empty_display_size = max(size, 1e-3)
    # A linked or overridden collection (the rig's, on a library override) takes no new objects.
    collection = next((c for c in armature.users_collection if c.library is None and c.override_library is None),
                      context.scene.collection)
    collection.objects.link(empty)
    empty.location = armature.matrix_world @ pb.tail
    return empty


def unique_chain_name(chains: Iterable[bpy.types.PropertyGroup], name: str) -> str:
    """``name``, or ``name.001``... as Blender names a duplicate: chains are looked up by name."""
    taken = {c.name for c in chains}
    unique, n = name, 0
    while unique in taken:
        n += 1
        unique = f"{name}.{n:03d}"
    return unique


def owned_bone_reason(armature: bpy.types.Object, lower: bpy.types.PoseBone, length: int) -> str | None:
    """Why a new chain of ``length`` bones ending at ``lower`` cannot be added: one of its bones already
    belongs to a chain (a second chain would fight the first over the same keys). None when it is free."""
    names = [lower.name]
    for _ in range(length - 1):
        if lower.parent is None:
            break
        lower = lower.parent
        names.append(lower.name)
    for chain in armature.soft_ik_2d.chains:
        try:
            owned = chain_bone_names(armature, chain)
        except ChainError:
            owned = (chain.upper_bone, chain.lower_bone)  # a broken chain still claims the bones it names
        for name in names:
            if name in owned:
                return say(msg.BONE_HAS_CHAIN, bone=name, chain=chain.name, armature=armature.name,
                           bones=" > ".join(owned))
    return None


class POSE_OT_soft_ik_add_chain(bpy.types.Operator):
    """Add a Soft IK chain ending at the active bone; the selected object (or a new Empty) is its target"""

    bl_idname = "pose.soft_ik_add_chain"
    bl_label = "Add Soft IK Chain"
    bl_options = {"REGISTER", "UNDO"}

    # Their own translation context: Blender's translations of the same words would win (translations.CONTEXT).
    chain_length: IntProperty(name="Chain Length", description="Number of bones from the active bone up its "
                              "parents (2 for an arm or a leg)", default=2, min=2, max=32, translation_context=CONTEXT)
    target_space: EnumProperty(name="Target Space", items=SPACE_ITEMS, default="WORLD",
                               description="Space the target lives in", translation_context=CONTEXT)
    name: StringProperty(name="Name", description="Name of the chain (default: the active bone's name)")

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if not armature_poll(cls, context, pose_only=True):
            return False
        if context.active_pose_bone is None:
            cls.poll_message_set(say(msg.POLL_NO_ACTIVE_BONE))
            return False
        if context.active_pose_bone.parent is None:
            cls.poll_message_set(say(msg.POLL_NO_PARENT, bone=context.active_pose_bone.name))
            return False
        return True

    def execute(self, context: bpy.types.Context) -> set[str]:
        armature = context.active_object
        settings = armature.soft_ik_2d
        lower = context.active_pose_bone
        upper = lower
        for _ in range(self.chain_length - 1):
            if upper.parent is None:
                self.report({"ERROR"}, say(msg.CHAIN_TOO_LONG, bone=lower.name, count=_ + 1))
                return {"CANCELLED"}
            upper = upper.parent
        taken = owned_bone_reason(armature, lower, self.chain_length)
        if taken is not None:
            self.report({"ERROR"}, taken)
            return {"CANCELLED"}
        targets = [o for o in context.selected_objects if o != armature and o.type != "ARMATURE"]
        if len(targets) > 1:
            self.report({"ERROR"}, say(msg.TOO_MANY_TARGETS, names=", ".join(o.name for o in targets)))
            return {"CANCELLED"}

        chain = settings.chains.add()
        chain.name = unique_chain_name(settings.chains, self.name or lower.name)
        chain.upper_bone, chain.lower_bone = upper.name, lower.name
        chain.chain_length = self.chain_length
        chain.solver = "ANALYTIC" if self.chain_length == 2 else "FABRIK"
        chain.target_space = self.target_space
        try:
            rig = read_chain(armature, chain)
            check_shared_bones(armature, [chain])
        except ChainError as err:
            settings.chains.remove(len(settings.chains) - 1)
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        # The rest pose decides the default bend: a chain drawn bent keeps bending that way.
        bent = rig.rest_angles[1:]
        chain.bend = -1 if float(np.sum(bent)) < -1e-6 else 1
        if targets:
            chain.target = targets[0]
            try:
                check_no_cycle(armature, chain)
            except ChainError as err:
                settings.chains.remove(len(settings.chains) - 1)
                self.report({"ERROR"}, str(err))
                return {"CANCELLED"}
        else:
            scale = float(np.mean(np.abs(armature.matrix_world.to_scale())))
            chain.target = _new_target(context, armature, lower.name, 0.1 * rig.total_length * scale)
            if self.target_space == "CHARACTER":
                chain.target.parent = armature
                chain.target.matrix_parent_inverse = armature.matrix_world.inverted()
        # Take the space object/bone from the target's parenting, so a correctly parented target just works.
        parent = chain.target.parent
        bone = chain.target.parent_bone if parent is not None and chain.target.parent_type == "BONE" else ""
        if self.target_space == "OBJECT" and parent is not None:
            chain.space_object, chain.space_bone = parent, bone
        elif self.target_space == "CHARACTER" and parent == armature:
            chain.space_bone = bone
        settings.active_chain_index = len(settings.chains) - 1
        self.report({"INFO"}, say(msg.ADDED_CHAIN, chain=chain.name, bones=" > ".join(rig.bone_names),
                                  target=chain.target.name))
        return {"FINISHED"}


class POSE_OT_soft_ik_remove_chain(bpy.types.Operator):
    """Remove the active Soft IK chain (its target object and baked keys stay)"""

    bl_idname = "pose.soft_ik_remove_chain"
    bl_label = "Remove Soft IK Chain"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return active_chain_poll(cls, context)

    def execute(self, context: bpy.types.Context) -> set[str]:
        settings = context.active_object.soft_ik_2d
        name = settings.chains[settings.active_chain_index].name
        try:
            settings.chains.remove(settings.active_chain_index)
        except TypeError:
            # On a library override, a chain authored in the library cannot be removed (Blender refuses).
            self.report({"ERROR"}, say(msg.CHAIN_FROM_LIBRARY, chain=name, armature=context.active_object.name))
            return {"CANCELLED"}
        settings.active_chain_index = min(settings.active_chain_index, len(settings.chains) - 1)
        self.report({"INFO"}, say(msg.REMOVED_CHAIN, chain=name))
        return {"FINISHED"}


classes = (POSE_OT_soft_ik_add_chain, POSE_OT_soft_ik_remove_chain)
