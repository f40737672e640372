"""Reads a chain's bones from the armature into arrays, and checks everything the solve relies on.

Every check raises :class:`ChainError` with a message naming the chain and the bone, object or setting at
fault, before anything in the file is changed.
"""

from __future__ import annotations

from dataclasses import dataclass

import bpy
import numpy as np

from .solver.spaces import PLANES

# Rest positions further than this fraction of the chain length from the plane are rejected.
PLANE_TOLERANCE = 1e-4


class ChainError(Exception):
    """A chain that cannot be solved; the message is meant for the user."""


@dataclass(frozen=True)
class ChainRig:
    """The static (rest) description of one chain, in the upper bone's rest-local units."""

    armature: bpy.types.Object
    chain: bpy.types.PropertyGroup
    bone_names: tuple[str, ...]  # root (upper) first, tip (lower) last
    parent_name: str | None  # the upper bone's parent: its pose animates the shoulder space
    lengths: np.ndarray  # (n,) segment lengths: head to next head, last one head to tail
    rest_angles: np.ndarray  # (n,) first from the shoulder-space +x, the others relative to their parent
    normal: np.ndarray  # (3,) plane normal in armature space
    local_axes: np.ndarray  # (n, 3) the plane normal in each bone's rest-local axes (the pose rotation axis)
    upper_rest: np.ndarray  # (4, 4) armature-space rest matrix of the upper bone
    parent_to_upper: np.ndarray  # (4, 4) parent_rest^-1 @ upper_rest (upper_rest for a root bone)

    @property
    def total_length(self) -> float:
        return float(self.lengths.sum())

    @property
    def label(self) -> str:
        return f"Chain '{self.chain.name}' of '{self.armature.name}'"


def _matrix(m: object) -> np.ndarray:
    return np.array(m, dtype=np.float64)


def chain_bone_names(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> tuple[str, ...]:
    """The chain's bones from the root down, walking up ``chain_length`` bones from the lower bone."""
    label = f"Chain '{chain.name}' of '{armature.name}'"
    bones = armature.data.bones
    if not chain.lower_bone or chain.lower_bone not in bones:
        raise ChainError(f"{label}: lower bone '{chain.lower_bone}' is not in armature '{armature.data.name}' "
                         "(renamed or deleted?)")
    if not chain.upper_bone or chain.upper_bone not in bones:
        raise ChainError(f"{label}: upper bone '{chain.upper_bone}' is not in armature '{armature.data.name}' "
                         "(renamed or deleted?)")
    names = [chain.lower_bone]
    bone = bones[chain.lower_bone]
    for _ in range(chain.chain_length - 1):
        parent = bone.parent
        if parent is None:
            raise ChainError(f"{label}: bone '{bone.name}' has no parent, but the chain needs "
                             f"{chain.chain_length} bones ending at '{chain.lower_bone}'")
        names.append(parent.name)
        bone = parent
    names.reverse()
    if names[0] != chain.upper_bone:
        if chain.chain_length == 2:
            raise ChainError(f"{label}: lower bone '{chain.lower_bone}' is not a child of upper bone "
                             f"'{chain.upper_bone}' (its parent is '{names[0]}')")
        raise ChainError(f"{label}: upper bone '{chain.upper_bone}' is not {chain.chain_length - 1} parents "
                         f"above '{chain.lower_bone}' (that bone is '{names[0]}')")
    return tuple(names)


def read_chain(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> ChainRig:
    """Read and check the chain's rest geometry. Raises :class:`ChainError`."""
    label = f"Chain '{chain.name}' of '{armature.name}'"
    names = chain_bone_names(armature, chain)
    bones = armature.data.bones
    normal = np.array(PLANES[armature.soft_ik_2d.plane][2], dtype=np.float64)

    for name in names[1:]:
        bone = bones[name]
        if not bone.use_inherit_rotation or bone.inherit_scale not in {"FULL", "ALIGNED", "AVERAGE",
                                                                         "FIX_SHEAR"}:
            raise ChainError(f"{label}: bone '{name}' does not inherit rotation and scale from its parent "
                             "(Bone Properties > Relations); the chain needs the default inheritance")
    upper = bones[names[0]]
    if upper.parent is not None and not upper.use_inherit_rotation:
        raise ChainError(f"{label}: upper bone '{upper.name}' does not inherit rotation from its parent "
                         f"'{upper.parent.name}'")

    rests = [_matrix(bones[n].matrix_local) for n in names]
    heads = np.array([r[:3, 3] for r in rests])
    tip = np.array(bones[names[-1]].tail_local, dtype=np.float64)
    points = np.vstack([heads, tip])  # armature space, rest

    seg = np.diff(points, axis=0)
    seg_len = np.linalg.norm(seg, axis=1)
    scale = float(seg_len.sum())
    for name, length in zip(names, seg_len, strict=True):
        # Rest positions are float32: anything below the plane tolerance is a zero-length segment.
        if length <= PLANE_TOLERANCE * max(scale, 1e-9):
            raise ChainError(f"{label}: bone '{name}' has zero length (head and tail, or head and the next "
                             "bone's head, coincide)")

    offsets = (points - points[0]) @ normal
    worst = int(np.argmax(np.abs(offsets)))
    if abs(offsets[worst]) > PLANE_TOLERANCE * scale:
        which = f"the tail of '{names[-1]}'" if worst == len(names) else f"the head of '{names[worst]}'"
        raise ChainError(f"{label}: bones are not in the {armature.soft_ik_2d.plane} plane: {which} is "
                         f"{abs(offsets[worst]):.6g} off the plane through the head of '{names[0]}' "
                         f"({abs(offsets[worst]) / scale:.2%} of the chain length)")

    upper_rest = rests[0]
    rot_up = upper_rest[:3, :3]
    n_local = rot_up.T @ normal
    x_local = np.array([0.0, 1.0, 0.0])
    y_local = np.cross(n_local, x_local)
    local_points = (points - points[0]) @ rot_up  # rest-local coordinates of the upper bone
    p2 = np.stack([local_points @ x_local, local_points @ y_local], axis=1)
    d2 = np.diff(p2, axis=0)
    lengths = np.hypot(d2[:, 0], d2[:, 1])
    absolute = np.arctan2(d2[:, 1], d2[:, 0])
    rest_angles = np.concatenate([absolute[:1], np.diff(absolute)])
    rest_angles = (rest_angles + np.pi) % (2 * np.pi) - np.pi
    local_axes = np.array([r[:3, :3].T @ normal for r in rests])

    parent = upper.parent
    parent_to_upper = np.linalg.inv(_matrix(parent.matrix_local)) @ upper_rest if parent else upper_rest
    return ChainRig(armature=armature, chain=chain, bone_names=names,
                    parent_name=parent.name if parent else None, lengths=lengths, rest_angles=rest_angles,
                    normal=normal, local_axes=local_axes, upper_rest=upper_rest, parent_to_upper=parent_to_upper)


def check_editable(armature: bpy.types.Object) -> None:
    """Linked data cannot take keys: say which datablock is linked."""
    for idb in (armature, armature.data):
        if idb.library is not None:
            raise ChainError(f"'{idb.name}' is linked from '{idb.library.filepath}' and cannot be keyed; make "
                             "it local or a library override first")
        override = getattr(idb, "override_library", None)
        if override is not None and getattr(override, "is_system_override", False):
            raise ChainError(f"'{idb.name}' is a system library override and cannot be edited; make it "
                             "editable first")
    anim = armature.animation_data
    if anim is not None and anim.action is not None and anim.action.library is not None:
        raise ChainError(f"the action '{anim.action.name}' of '{armature.name}' is linked from "
                         f"'{anim.action.library.filepath}'; make it local before baking")


def check_target(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> None:
    label = f"Chain '{chain.name}' of '{armature.name}'"
    target = chain.target
    if target is None:
        raise ChainError(f"{label} has no target object (it was never set or has been deleted)")
    if target == armature:
        raise ChainError(f"{label}: the target is the armature '{armature.name}' itself; pick an Empty")
    if target.name not in bpy.context.scene.objects:
        raise ChainError(f"{label}: target '{target.name}' is not in scene '{bpy.context.scene.name}'")
    if chain.target_space == "OBJECT":
        if chain.space_object is None:
            raise ChainError(f"{label}: Target Space is OBJECT but no Space Object is set")
        if chain.space_bone and (chain.space_object.type != "ARMATURE"
                                 or chain.space_bone not in chain.space_object.data.bones):
            raise ChainError(f"{label}: space bone '{chain.space_bone}' is not a bone of "
                             f"'{chain.space_object.name}'")
    if chain.target_space == "CHARACTER" and chain.space_bone and chain.space_bone not in armature.data.bones:
        raise ChainError(f"{label}: space bone '{chain.space_bone}' is not a bone of '{armature.name}'")


def declared_parent(armature: bpy.types.Object,
                    chain: bpy.types.PropertyGroup) -> tuple[bpy.types.Object | None, str]:
    """The (object, bone) the target must be parented to for its declared space."""
    if chain.target_space == "WORLD":
        return None, ""
    if chain.target_space == "CHARACTER":
        return armature, chain.space_bone
    return chain.space_object, chain.space_bone


def space_mismatch(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> str | None:
    """Plain-words description of how the target's real parenting differs from its declared space."""
    target = chain.target
    if target is None:
        return None
    want_obj, want_bone = declared_parent(armature, chain)
    have_obj = target.parent
    have_bone = target.parent_bone if have_obj is not None and target.parent_type == "BONE" else ""
    if have_obj == want_obj and have_bone == want_bone:
        return None

    def describe(obj: bpy.types.Object | None, bone: str) -> str:
        if obj is None:
            return "not parented (world space)"
        return f"parented to bone '{bone}' of '{obj.name}'" if bone else f"parented to '{obj.name}'"

    return (f"target '{target.name}' is {describe(have_obj, have_bone)}, but the chain declares "
            f"{chain.target_space} space ({describe(want_obj, want_bone)})")


def check_shared_bones(armature: bpy.types.Object) -> None:
    """Two chains writing the same bone would overwrite each other's keys."""
    owner: dict[str, str] = {}
    for chain in armature.soft_ik_2d.chains:
        try:
            names = chain_bone_names(armature, chain)
        except ChainError:
            continue  # reported on its own when that chain is read
        for name in names:
            if name in owner and owner[name] != chain.name:
                raise ChainError(f"Chains '{owner[name]}' and '{chain.name}' of '{armature.name}' both use "
                                 f"bone '{name}'; each bone may belong to one chain only")
            owner[name] = chain.name
