"""What a world transform is computed from: the links the dependency-cycle check and the auto-run check walk.

A target or pole whose transform depends, through parents, constraints, drivers or deforming bones, on a bone
a solve moves would move with the pose solved for it (:func:`rig.check_no_cycle` refuses it); one that depends on a
bone of an armature shown in its Rest Position stands where that bone rests, not where it plays (refused too).
"""

from __future__ import annotations

from collections.abc import Callable

import bpy

from . import anim_keys
from . import messages as msg
from .messages import say


def moved_bones(armature: bpy.types.Object, names: tuple[str, ...]) -> set[str]:
    """The chain's bones and every bone below them: all of them move with the pose a solve writes."""
    bones = armature.data.bones
    # Walked down the chain's subtrees through each bone's children: Bone.children_recursive tests every bone
    # of the armature against its ancestors, ~0.2 ms a call on a character of 150 bones, and a bake calls this
    # for every chain.
    moved = set(names)
    below = [bones[name] for name in names]
    while below:
        for child in below.pop().children:
            if child.name not in moved:
                moved.add(child.name)
                below.append(child)
    return moved


def _acting(constraint: bpy.types.Constraint) -> bool:
    return not constraint.mute and constraint.influence > 0.0


def _constraint_inputs(constraint: bpy.types.Constraint) -> list[tuple[bpy.types.Object, str]]:
    slots = list(getattr(constraint, "targets", ())) or [constraint]  # the Armature constraint has a list
    out = []
    for slot in slots:
        target = getattr(slot, "target", None)
        if isinstance(target, bpy.types.Object):
            sub = getattr(slot, "subtarget", "")
            out.append((target, sub if target.type == "ARMATURE" and isinstance(sub, str) else ""))
    return out


def _driver_inputs(owner: bpy.types.Object, prefix: str) -> list[tuple[str, bpy.types.Object, str]]:
    """(driven path, object, bone) read by the drivers of ``owner`` whose path starts with ``prefix``."""
    anim = owner.animation_data
    out: list[tuple[str, bpy.types.Object, str]] = []
    for fcurve in anim.drivers if anim is not None else ():
        if fcurve.mute or not fcurve.data_path.startswith(prefix):
            continue
        for variable in fcurve.driver.variables:
            for target in variable.targets:
                obj = target.id
                if not isinstance(obj, bpy.types.Object):
                    continue
                bone = target.bone_target if variable.type != "SINGLE_PROP" else ""
                path = target.data_path if variable.type == "SINGLE_PROP" else ""
                bone = anim_keys.bone_of_path(path) or bone
                out.append((fcurve.data_path, obj, bone if obj.type == "ARMATURE" else ""))
    return out


def _node(obj: bpy.types.Object, bone: str) -> str:
    return say(msg.CYCLE_NODE_BONE, bone=bone, owner=obj.name) if bone else f"'{obj.name}'"


def transform_inputs(obj: bpy.types.Object, bone: str, *, describe: bool = True
                     ) -> list[tuple[bpy.types.Object, str, str]]:
    """What the world transform of ``obj`` (or of its pose bone ``bone``) is computed from.

    One step of the links the dependency-cycle check (:func:`dependency_on_chain`), the auto-run check
    (``autorun.python_driver_of``) and the chains' order (``chain_order``) walk.

    Args:
        obj: an object.
        bone: the name of one of its pose bones, or "" for the object itself.
        describe: write how each input is linked (False: "" for each, for a walk that needs no message: the
            phrases are translated, the largest part of a step's cost).

    Returns:
        ``(object, bone or "", how it is linked)`` per input: the parent (a bone's parent bone, then its
        armature object; an object's parent, its parent bone, or the bones deforming a vertex parent's mesh),
        the targets of acting constraints, and the inputs of drivers (for an object, only drivers of its
        transform). "How" is the phrase messages put before the input. Empty for a bone ``obj`` lacks.
    """
    def how(template: str, **fields: str) -> str:
        return say(template, **fields) if describe else ""

    out: list[tuple[bpy.types.Object, str, str]] = []
    if bone:
        pb = obj.pose.bones.get(bone)
        if pb is None:
            return out
        if pb.parent is not None:
            out.append((obj, pb.parent.name, how(msg.CYCLE_VIA_PARENT)))
        for con in pb.constraints:
            if _acting(con):
                out += [(t, sub, how(msg.CYCLE_VIA_CONSTRAINT, constraint=con.name)) for t, sub in
                        _constraint_inputs(con)]
        prefix = anim_keys.pose_bone_path(bone)
        out += [(t, sub, how(msg.CYCLE_VIA_DRIVER, path=path)) for path, t, sub in _driver_inputs(obj, prefix)]
        out.append((obj, "", how(msg.CYCLE_VIA_ARMATURE)))
        return out
    parent = obj.parent
    if parent is not None:
        if obj.parent_type == "BONE" and obj.parent_bone:
            out.append((parent, obj.parent_bone, how(msg.CYCLE_VIA_PARENT)))
        elif obj.parent_type in {"VERTEX", "VERTEX_3"} and parent.type == "MESH":
            # A vertex parent follows the vertices, which the mesh's armature modifiers move with their bones.
            groups = {g.name for g in parent.vertex_groups}
            for mod in parent.modifiers:
                if mod.type == "ARMATURE" and mod.show_viewport and mod.object is not None:
                    out += [(mod.object, name, how(msg.CYCLE_VIA_DEFORM, owner=parent.name))
                            for name in sorted(groups) if name in mod.object.data.bones]
            out.append((parent, "", how(msg.CYCLE_VIA_PARENT)))
        else:
            out.append((parent, "", how(msg.CYCLE_VIA_PARENT)))
    for con in obj.constraints:
        if _acting(con):
            out += [(t, sub, how(msg.CYCLE_VIA_CONSTRAINT, constraint=con.name)) for t, sub in _constraint_inputs(con)]
    transforms = ("location", "rotation", "scale", "delta_", "matrix")
    out += [(t, sub, how(msg.CYCLE_VIA_DRIVER, path=path)) for path, t, sub in _driver_inputs(obj, "")
            if path.startswith(transforms)]
    return out


def dependency_on_chain(armature: bpy.types.Object, moved: set[str], start: bpy.types.Object,
                        start_bone: str = "") -> tuple[str, str] | None:
    """Whether the world transform of ``start`` (or of its bone ``start_bone``) depends on a bone that moves.

    Args:
        moved: names of bones of ``armature`` that a solve moves (:func:`moved_bones`).

    Returns:
        ``(bone, path)`` for the first such dependency found, the path written as the links from ``start`` to
        the bone (for the message); None when there is none.
    """
    found = first_dependency(start, start_bone, lambda obj, bone: obj == armature and bone in moved, armature)
    return None if found is None else (found[1], found[2])


def at_rest(obj: bpy.types.Object, bone: str) -> bool:
    """Whether ``bone`` of ``obj`` stands at rest because its armature shows its Rest Position."""
    return bool(bone) and obj.type == "ARMATURE" and obj.data.pose_position != "POSE"


def first_dependency(start: bpy.types.Object, start_bone: str, wanted: Callable[[bpy.types.Object, str], bool],
                     armature: bpy.types.Object | None = None) -> tuple[bpy.types.Object, str, str] | None:
    """The first object or bone the world transform of ``start`` (or of its bone ``start_bone``) depends on,
    ``start`` included, for which ``wanted(object, bone or "")`` holds.

    Args:
        armature: the chain's armature, whose object is not walked through: it does not move with its pose.

    Returns:
        ``(object, bone or "", path)``, the path written as the links from ``start`` to it (for the message);
        None when there is none.
    """
    stack: list[tuple[bpy.types.Object, str, list[str]]] = [(start, start_bone, [_node(start, start_bone)])]
    seen: set[tuple[int, str]] = set()
    while stack:
        obj, bone, path = stack.pop()
        if (obj.as_pointer(), bone) in seen:
            continue
        seen.add((obj.as_pointer(), bone))
        if wanted(obj, bone):
            return obj, bone, " → ".join(path)
        if obj == armature and not bone:
            continue
        for source, sub, how in transform_inputs(obj, bone):
            stack.append((source, sub, [*path, f"{how} {_node(source, sub)}"]))
    return None
