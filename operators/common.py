"""What every Soft IK operator shares: which armatures it acts on and the poll checks with their messages."""

from __future__ import annotations

import bpy

from ..rigging import linked_data
from ..rigging import messages as msg
from ..rigging.messages import say


def armature_poll(cls: type, context: bpy.types.Context, *, pose_only: bool = False) -> bool:
    """True when the active object is an editable armature in a mode the operator works in.

    Otherwise the reason is set as the poll message (``cls.poll_message_set``).

    Args:
        cls: the operator class whose ``poll`` asks.
        pose_only: Pose Mode only; otherwise Object Mode works too.
    """
    obj = context.active_object
    if obj is None or obj.type != "ARMATURE":
        cls.poll_message_set(say(msg.POLL_NOT_ARMATURE))
        return False
    allowed = {"POSE"} if pose_only else {"POSE", "OBJECT"}
    if obj.mode not in allowed:
        cls.poll_message_set(say(msg.POLL_POSE_MODE) if pose_only else
                             say(msg.POLL_WRONG_MODE, mode=obj.mode.title()))
        return False
    problem = linked_data.editing_problem(obj)
    if problem is not None:
        cls.poll_message_set(problem)
        return False
    return True


def active_chain_poll(cls: type, context: bpy.types.Context) -> bool:
    """``armature_poll`` (Pose or Object Mode) plus an active chain on the armature; else the poll message says why."""
    if not armature_poll(cls, context):
        return False
    settings = context.active_object.soft_ik_2d
    if not 0 <= settings.active_chain_index < len(settings.chains):
        cls.poll_message_set(say(msg.POLL_NO_CHAIN, armature=context.active_object.name))
        return False
    return True


def selected_armatures(context: bpy.types.Context) -> list[bpy.types.Object]:
    """The active armature first, then every other selected armature, each once."""
    out: list[bpy.types.Object] = []
    active = context.active_object
    if active is not None and active.type == "ARMATURE":
        out.append(active)
    for obj in context.selected_objects:
        if obj.type == "ARMATURE" and obj not in out:
            out.append(obj)
    return out


def chains_with(armatures: list[bpy.types.Object]) -> list[bpy.types.Object]:
    """Those of ``armatures`` that have at least one Soft IK chain, in their order."""
    return [arm for arm in armatures if len(arm.soft_ik_2d.chains) > 0]
