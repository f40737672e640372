"""Mirror a chain to the other side of the character (``Arm.L`` -> ``Arm.R``).

The opposite bones are found by name (:mod:`solver.mirror`, Blender's .L/.R convention); the mirror is the
armature's own x -> -x reflection, so it works on a character turned around with a negative object scale too.
"""

from __future__ import annotations

import bpy
import numpy as np
from mathutils import Matrix

from ..rigging import messages as msg
from ..rigging.messages import say
from ..rigging.rig import ChainError, chain_bone_names, check_no_cycle, check_shared_bones, read_chain
from ..solver.mirror import flip_name, mirror_bend, mirror_range
from .chain_setup import owned_bone_reason, unique_chain_name
from .common import active_chain_poll

# Chain settings that name this side's objects and bones, or hold the last bake's report: not copied as they are.
_NOT_COPIED = {"name", "upper_bone", "lower_bone", "target", "pole", "space_object", "space_bone", "bend",
               "shoulder_min", "shoulder_max", "elbow_min", "elbow_max", "bake_start", "bake_end", "error_max",
               "error_mean", "limited_frames", "active_worst_index", "baked_channels"}
_REFLECT = np.diag([-1.0, 1.0, 1.0, 1.0])


def _mirrored_world(armature: bpy.types.Object, world: np.ndarray) -> np.ndarray:
    """A world matrix reflected through the armature's x = 0 plane (a rotation again: reflected on both sides)."""
    arm = np.array(armature.matrix_world, dtype=np.float64)
    return arm @ _REFLECT @ np.linalg.inv(arm) @ world @ _REFLECT


def _opposite_object(obj: bpy.types.Object) -> bpy.types.Object | None:
    """The object named as ``obj``'s opposite, from ``obj``'s own library (local for a local object), else for an
    override from its reference's library, else a local one.

    A name alone can stand for a local object and one linked from each library (another character linked in
    with the same naming): the opposite of a local hand is never the linked character's.
    """
    name = flip_name(obj.name)
    if name is None:
        return None
    libraries = [obj.library]
    reference = obj.override_library.reference if obj.override_library is not None else None
    if obj.library is None and reference is not None and reference.library is not None:
        libraries.append(reference.library)
    if obj.library is not None:
        libraries.append(None)
    for library in libraries:
        found = bpy.data.objects.get((name, None if library is None else library.filepath))
        if found is not None:
            return found
    return None


def _mirrored_empty(context: bpy.types.Context, armature: bpy.types.Object, source: bpy.types.Object,
                    name: str) -> bpy.types.Object:
    """A new Empty like ``source`` (display, parenting, with the parent's and parent bone's opposite when they
    have one) at the mirrored world transform of ``source`` now."""
    empty = bpy.data.objects.new(name, None)
    if source.type == "EMPTY":
        empty.empty_display_type, empty.empty_display_size = source.empty_display_type, source.empty_display_size
    collection = next((c for c in armature.users_collection if c.library is None and c.override_library is None),
                      context.scene.collection)
    collection.objects.link(empty)
    parent = source.parent
    if parent is not None:
        empty.parent = _opposite_object(parent) or parent
        if source.parent_type == "BONE" and empty.parent.type == "ARMATURE":
            bone = flip_name(source.parent_bone)
            empty.parent_type = "BONE"
            empty.parent_bone = bone if bone is not None and bone in empty.parent.data.bones else source.parent_bone
    context.view_layer.update()
    empty.matrix_world = Matrix(_mirrored_world(armature, np.array(source.matrix_world, dtype=np.float64)).tolist())
    context.view_layer.update()
    return empty


def _opposite_input(context: bpy.types.Context, armature: bpy.types.Object, obj: bpy.types.Object, fallback: str,
                    created: list[bpy.types.Object]) -> bpy.types.Object:
    """The object named as ``obj``'s opposite, or a new Empty (appended to ``created``) at the mirrored world
    transform of ``obj``."""
    found = _opposite_object(obj)
    if found is not None:
        return found
    created.append(_mirrored_empty(context, armature, obj, flip_name(obj.name) or fallback))
    return created[-1]


def _copy_settings(source: bpy.types.PropertyGroup, chain: bpy.types.PropertyGroup, plane: str) -> None:
    for prop in source.bl_rna.properties:
        name = prop.identifier
        if name == "rna_type" or name in _NOT_COPIED or prop.is_readonly or prop.type in {"COLLECTION", "POINTER"}:
            continue
        setattr(chain, name, getattr(source, name))
    chain.bend = mirror_bend(int(source.bend), plane)
    chain.shoulder_min, chain.shoulder_max = mirror_range(source.shoulder_min, source.shoulder_max, plane)
    chain.elbow_min, chain.elbow_max = mirror_range(source.elbow_min, source.elbow_max, plane)


class POSE_OT_soft_ik_mirror_chain(bpy.types.Operator):
    """Create the active chain's opposite (bones .L/.R, _L/_R, -L/-R, Left/Right), bend and target mirrored"""

    bl_idname = "pose.soft_ik_mirror_chain"
    bl_label = "Mirror Soft IK Chain"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return active_chain_poll(cls, context)

    def execute(self, context: bpy.types.Context) -> set[str]:
        armature = context.active_object
        settings = armature.soft_ik_2d
        index = settings.active_chain_index
        source_name = settings.chains[index].name
        try:
            mirror = self._mirror(context, armature, index)
        except ChainError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        self.report({"INFO"}, say(msg.MIRRORED_CHAIN, chain=source_name, mirror=mirror.name,
                                  bones=" > ".join(chain_bone_names(armature, mirror)), target=mirror.target.name))
        return {"FINISHED"}

    def _mirror(self, context: bpy.types.Context, armature: bpy.types.Object, index: int) -> bpy.types.PropertyGroup:
        """Mirror chain ``index``. Checks everything before the first change; raises :class:`ChainError` with the
        file unchanged."""
        settings = armature.soft_ik_2d
        source = settings.chains[index]
        label = say(msg.CHAIN_LABEL, chain=source.name, armature=armature.name)
        bones = chain_bone_names(armature, source)
        if source.target is None:
            raise ChainError(say(msg.NO_TARGET, label=label))
        flipped = [flip_name(name) for name in bones]
        sideless = [name for name, other in zip(bones, flipped, strict=True) if other is None]
        if sideless:
            raise ChainError(say(msg.MIRROR_NO_SIDE, label=label, bones=", ".join(f"'{b}'" for b in sideless)))
        opposite = [name for name in flipped if name is not None]
        missing = [name for name in opposite if name not in armature.pose.bones]
        if missing:
            raise ChainError(say(msg.MIRROR_BONES_MISSING, label=label, armature=armature.name,
                                 bones=", ".join(f"'{b}'" for b in missing)))
        lower = armature.pose.bones[opposite[-1]]
        taken = owned_bone_reason(armature, lower, len(opposite))
        if taken is not None:
            raise ChainError(say(msg.MIRROR_EXISTS, label=label, reason=taken))

        name = unique_chain_name(settings.chains, flip_name(source.name) or opposite[-1])
        chain = settings.chains.add()
        source = settings.chains[index]  # adding an item may move the others: a reference taken before is stale
        chain.name = name
        chain.upper_bone, chain.lower_bone = opposite[0], opposite[-1]
        _copy_settings(source, chain, armature.soft_ik_2d.plane)
        created: list[bpy.types.Object] = []
        try:
            read_chain(armature, chain)
            check_shared_bones(armature, [chain])
            chain.target = _opposite_input(context, armature, source.target, f"{chain.name}_target", created)
            if source.pole is not None:
                chain.pole = _opposite_input(context, armature, source.pole, f"{chain.name}_pole", created)
            self._space(armature, source, chain)
            check_no_cycle(armature, chain)
        except ChainError:
            settings.chains.remove(len(settings.chains) - 1)
            for obj in created:
                bpy.data.objects.remove(obj)
            raise
        settings.active_chain_index = len(settings.chains) - 1
        return chain

    @staticmethod
    def _space(armature: bpy.types.Object, source: bpy.types.PropertyGroup, chain: bpy.types.PropertyGroup) -> None:
        """The same declared space, on the opposite object or bone when it has one."""
        space = source.space_object
        chain.space_object = None if space is None else (_opposite_object(space) or space)
        space_bone = flip_name(source.space_bone) if source.space_bone else None
        owner = chain.space_object if source.target_space == "OBJECT" else armature
        bones_of_owner = owner.data.bones if owner is not None and owner.type == "ARMATURE" else {}
        chain.space_bone = space_bone if space_bone is not None and space_bone in bones_of_owner else source.space_bone


classes = (POSE_OT_soft_ik_mirror_chain,)
